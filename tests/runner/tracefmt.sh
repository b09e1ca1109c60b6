#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# --trace-format chrome: the Trace Event Format JSON that Perfetto and
# chrome://tracing open, checked event by event.
. "$(dirname "$0")/../lib.sh"

M=$MOCKRUN
J=$T/trace.json

t "a process tree's trace: tracks exe[pid], slices with arguments and results, the mocked one named"
run "$M" -q --trace-file "$J" --trace-format chrome -e 'will_return(geteuid, 4242, in="id")' \
	sh -c 'id -u; exec id -g'
want_rc 0; want_out "4242
0"
run python3 - "$J" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"]
names = {e["pid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"}
threads = {(e["pid"], e["tid"]) for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
xs = [e for e in ev if e["ph"] == "X"]
problems = []
for e in xs:
    if not all(isinstance(e[k], (int, float)) for k in ("pid", "tid", "ts", "dur")) or e["dur"] < 0:
        problems.append("bad slice %r" % e)
    if e["pid"] not in names or (e["pid"], e["tid"]) not in threads:
        problems.append("slice on an unnamed track %r" % e)
    if "call" not in e["args"]:
        problems.append("no call text %r" % e)
for pid, n in names.items():
    if n != "%s[%d]" % (n.split("[")[0], pid):
        problems.append("process name %r for %d" % (n, pid))
mocked = [e for e in xs if e["cat"] == "mocked"]
if not any(e["name"] == "geteuid" and e["args"].get("mocked_by") == "-e#1:1" and e["args"]["result"] == "4242"
           for e in mocked):
    problems.append("no mocked geteuid slice naming -e#1:1: %r" % mocked)
import re
if not any(e["name"] == "geteuid" and re.fullmatch(r"id\+0x[0-9a-f]+", e["args"].get("site", "")) for e in xs):
    problems.append("no geteuid slice with its site (args.site id+0x...): %r" % [e for e in xs if e["name"] == "geteuid"])
if not any(e["name"] == "getgid" for e in xs):
    problems.append("no getgid slice (id -g)")
flows = {}
for e in ev:
    if e["ph"] in ("s", "f"):
        flows.setdefault(e["id"], {})[e["ph"]] = e
kinds = set()
for i, f in flows.items():
    if set(f) != {"s", "f"} or f["s"]["ts"] > f["f"]["ts"]:
        problems.append("flow %d is not a start then a finish: %r" % (i, f))
        continue
    kinds.add(f["s"]["name"])
    if f["s"]["name"] == "fork" and f["s"]["pid"] == f["f"]["pid"]:
        problems.append("a fork flow within one process %r" % f)
    if f["s"]["name"] == "exec" and f["s"]["pid"] != f["f"]["pid"]:
        problems.append("an exec flow across processes %r" % f)
if not {"fork", "exec"} <= kinds:
    problems.append("flows: %r" % kinds)
if len(names) < 2:
    problems.append("processes: %r" % names)
print("\n".join(problems))
sys.exit(1 if problems else 0)
PY
want_rc 0
ls "$T" | grep -q 'raw' && problem "the raw trace was left behind: $(ls "$T")"
done_t

t "--trace-format errors: no --trace-file, a bad format, a path that cannot be written: 125, nothing runs"
run "$M" --trace-format chrome true
want_rc 125; want_err_has "--trace-format chrome needs --trace-file FILE"
run "$M" --trace-file "$J" --trace-format perfetto true
want_rc 125; want_err_has "--trace-format: 'perfetto' is not text or chrome"
run "$M" --trace-file "$T/no/such/dir/t.json" --trace-format chrome sh -c "touch $T/ran"
want_rc 125; want_err_has "--trace-file $T/no/such/dir/t.json"
[ ! -e "$T/ran" ] || problem "the program ran"
done_t

t "--trace-format text is the line trace, as before"
run "$M" -q --trace=geteuid --trace-file "$T/t.txt" --trace-format text -e 'will_return(geteuid, 7)' id -u
want_rc 0
grep -qE '^[0-9]+ id: geteuid\(\) = 7 \(mocked: -e#1:1\) at id\+0x[0-9a-f]+$' "$T/t.txt" || problem "text trace: $(cat "$T/t.txt")"
done_t

t "lines a program's closed descriptor did not take are counted, the exec line too"
run "$M" --trace=execv,getuid -e 'will_return_maybe(getuid, 0)' /usr/bin/python3 -c \
	'import os; os.getuid(); os.closerange(3, 65536); os.getuid(); os.execv("/usr/bin/true", ["true"])'
want_rc 0
want_err_has ": getuid() = 0 (mocked: -e#1:1)"
want_err_lacks "execv("
want_err_has "mockshim: warning: 2 --trace lines could not be written: the program closed the trace's descriptor "
done_t

t "each line carries the pid of the process that called: the parent, a fork child, a vfork child, the parent after"
run "$M" -q --trace=getuid --trace-file "$T/pids.txt" "$PROBE" tracepids
want_rc 0
nosite -i "$T/pids.txt"
self=$(sed -n 's/^self //p' <<<"$out"); fk=$(sed -n 's/^fork //p' <<<"$out"); vf=$(sed -n 's/^vfork //p' <<<"$out")
got=$(sed -E 's/^([0-9]+) probe: getuid\(\) = [0-9]+$/\1/' "$T/pids.txt" | tr '\n' ' ')
[ "$got" = "$self $fk $vf $self $self " ] ||
	problem "pids $got, want $self (self) $fk (fork) $vf (vfork) $self $self: $(cat "$T/pids.txt")"
done_t

t "integers at each digit-count edge, negative and the extremes, as the line shows them"
run "$M" -q --trace=lseek,open,openat --trace-file "$T/num.txt" /usr/bin/python3 -c '
import os
fd = os.open("/dev/null", os.O_RDONLY | os.O_CLOEXEC)
for v in (0, 9, 10, 99, 100, 1000, 123456789, -1, -10, -9223372036854775808, 9223372036854775807):
    os.lseek(fd, v, 0)
'
want_rc 0
nosite -i "$T/num.txt"
fd=$(sed -nE 's/^[0-9]+ python3[.0-9]*: open(at)?\((AT_FDCWD, )?"\/dev\/null", O_RDONLY\|O_CLOEXEC\) = ([0-9]+)$/\3/p' "$T/num.txt")
[ -n "$fd" ] || problem "no open line: $(cat "$T/num.txt")"
got=$(sed -nE "s/^[0-9]+ python3[.0-9]*: lseek\($fd, (-?[0-9]+), 0\) = 0\$/\1/p" "$T/num.txt" | tr '\n' ' ')
want="0 9 10 99 100 1000 123456789 -1 -10 -9223372036854775808 9223372036854775807 "
[ "$got" = "$want" ] || problem "offsets '$got', want '$want': $(cat "$T/num.txt")"
done_t

t "a NULL from getenv shows no errno: getenv sets none, whatever errno holds is stale"
# python's start-up asks getenv after calls that failed (errno ENOENT)
run env -u PYTHONDEVMODE "$M" --trace=getenv /usr/bin/python3 -c pass
want_rc 0
err=$(nosite <<<"$err")
want_err_has 'getenv("PYTHONDEVMODE") = NULL
'
want_err_lacks 'getenv("PYTHONDEVMODE") = NULL E'
done_t

finish
