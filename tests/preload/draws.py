import os, sys, threading
# the threads: argv[2], or DRAWS_THREADS (the arguments key the stream: seed.sh)
n = int(sys.argv[1]); t = int(os.environ.get("DRAWS_THREADS", sys.argv[2]))
out = []
def work(k):
    out.append("".join("x" if os.getuid() == 7 else "." for _ in range(k)))
th = [threading.Thread(target=work, args=(n // t,)) for _ in range(t)]
[x.start() for x in th]; [x.join() for x in th]
print(out[0] if t == 1 else sum(s.count("x") for s in out))
