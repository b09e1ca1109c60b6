#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# probability=P with --seed N: random faults that replay exactly.
. "$(dirname "$0")/../lib.sh"

M=$MOCKRUN
PY=/usr/bin/python3
DRAWS=$(dirname "$0")/draws.py
if [ ! -x "$PY" ]; then
	skip_t "probability= and --seed" "no /usr/bin/python3"
	finish
	exit
fi
S='will_return_always(getuid, 7, probability=0.3, in="python3*")'

# outcomes N THREADS SEED: python calls getuid N times (x: the statement
# took the call, .: it passed it by); with threads, the count of x
outcomes() {
	run "$M" -q --seed "$3" -e "$S" "$PY" -I "$DRAWS" "$1" "$2"
}

t "the same seed gives the same 1,000 outcomes twice; another seed others"
outcomes 1000 1 12345; first=$out
outcomes 1000 1 12345; second=$out
outcomes 1000 1 54321; other=$out
[ ${#first} = 1000 ] || problem "not 1000 outcomes: ${#first}"
[ "$first" = "$second" ] || problem "the same seed gave other outcomes"
[ "$first" != "$other" ] || problem "another seed gave the same outcomes"
x=${first//./}
[ ${#x} -gt 200 ] && [ ${#x} -lt 400 ] || problem "P=0.3 took ${#x} of 1000 calls"; done_t

t "the outcomes do not depend on the number of threads"
# (the same arguments: they key the process's stream)
DRAWS_THREADS=4 outcomes 1000 1 12345
[ "$out" = "${#x}" ] || problem "4 threads took $out calls, 1 thread ${#x}"; done_t

t "a parallel tree: each process its own stream, so the same faults land in the same places"
# three programs side by side, two of them alike: under one stream for
# the tree (before issue 47) their draws interleaved as they ran
tree() {
	run "$M" -q --seed "$1" -e "$S" sh -c '
"$0" -I "$1" 300 1 > a.out & "$0" -I "$1" 300 1 > b.out & "$0" -I "$1" 301 1 > c.out & wait
cat a.out b.out c.out' "$PY" "$DRAWS"
}
cd "$T" || exit 1
tree 4242; first=$out
a=$(sed -n 1p a.out); b=$(sed -n 1p b.out); c=$(sed -n 1p c.out)
[ ${#a} = 300 ] && [ ${#c} = 301 ] || problem "outcomes: $out"
[ "$a" = "$b" ] || problem "two runs of one program with the same arguments drew differently: $a / $b"
[ "${c:0:300}" != "$a" ] || problem "other arguments gave the same stream"
tree 4242
[ "$out" = "$first" ] || problem "the same seed did not replay the tree: [$first] [$out]"
run "$M" -q --seed 4242 -e "$S" "$PY" -I "$DRAWS" 300 1
[ "$out" = "$a" ] || problem "the program alone drew otherwise than in the tree"
done_t

t "the seed is in the report, with how to replay; a random one by default"
run "$M" --seed 77 -e "$S" "$PY" -I "$DRAWS" 20 1
want_err_has "mockshim: seed 77 (replay with --seed 77)"; want_err_has "calls not drawn (probability=)"
run "$M" -e "$S" "$PY" -I "$DRAWS" 20 1
seed=$(printf '%s\n' "$err" | sed -n 's/^mockshim: seed \([0-9]*\) .*/\1/p')
[ -n "$seed" ] || problem "no seed in the report: $err"
first=$out
run "$M" -q --seed "$seed" -e "$S" "$PY" -I "$DRAWS" 20 1
[ "$out" = "$first" ] || problem "--seed $seed did not replay [$first]: [$out]"; done_t

t "probability=1 and 100% take every call"
run "$M" -q -e 'will_return_always(getuid, 7, probability=1, in="python3*")' "$PY" -I "$DRAWS" 50 1
want_out "$(printf 'x%.0s' $(seq 50))"
run "$M" -q -e 'will_return_always(getuid, 7, probability=100%, in="python3*")' "$PY" -I "$DRAWS" 50 1
want_out "$(printf 'x%.0s' $(seq 50))"; done_t

t "a bad probability is refused with its position"
run "$M" -e 'will_fail(read, EIO, probability=0)' true
want_rc 125; want_err_has "-e#1:1:34: error: probability= takes a number in (0, 1]"
run "$M" -e 'will_fail(read, EIO, probability=1.5)' true
want_rc 125
run "$M" -e 'expect_any(read, fd, probability=0.5)' true
want_rc 125; want_err_has "takes no 'probability='"
run "$M" --seed -3 -e 'will_fail(read, EIO)' true
want_rc 125; want_err_has "--seed: '-3' is not a number"; done_t

finish
