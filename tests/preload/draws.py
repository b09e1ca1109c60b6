import os, sys, threading
n = int(sys.argv[1]); t = int(sys.argv[2])
out = []
def work(k):
    out.append("".join("x" if os.getuid() == 7 else "." for _ in range(k)))
th = [threading.Thread(target=work, args=(n // t,)) for _ in range(t)]
[x.start() for x in th]; [x.join() for x in th]
print(out[0] if t == 1 else sum(s.count("x") for s in out))
