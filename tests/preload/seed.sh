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
outcomes 1000 4 12345
[ "$out" = "${#x}" ] || problem "4 threads took $out calls, 1 thread ${#x}"; done_t

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
