#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# mockrun minimize on shrinkme.c (a crash at its last malloc, handled
# failures before it): a random-fault run that crashes shrinks to at most
# 2 faults in at most 64 runs; the file it writes fails 3 of 3 without a
# seed and passes on the fixed program; a run that does not fail is
# refused; bad options are errors.
. "$(dirname "$0")/../lib.sh"
M=$MOCKRUN
cp "$SHRINKME" "$T/shrinkme"
RANDOM_FAULTS=(-e 'will_fail_count(malloc, ENOMEM, -1, probability=0.3)'
	-e 'will_fail_count(write, EIO, -1, probability=0.3)')

# the first seed (of 1..40) whose run crashes after at least 3 faults
seed=
for s in $(seq 1 40); do
	(cd "$T" && "$M" --seed "$s" "${RANDOM_FAULTS[@]}" --trace=malloc,write --trace-file tr \
		--report json -o r.json -- ./shrinkme >/dev/null 2>&1)
	if grep -q '"signal":11' "$T/r.json" && [ "$(grep -c '(mocked: ' "$T/tr")" -ge 3 ]; then
		seed=$s
		break
	fi
done
echo "# seed $seed: $(grep -c '(mocked: ' "$T/tr" 2>/dev/null) faults injected"

t "a random-fault crash shrinks to at most 2 faults in at most 64 runs"
if [ -z "$seed" ]; then
	problem "no seed of 1..40 crashes shrinkme after 3 faults"
else
	(cd "$T" && run "$M" minimize -o min.mock --seed "$seed" "${RANDOM_FAULTS[@]}" -- ./shrinkme
	 printf '%s\n' "$rc" >.rc; printf '%s' "$err" >.e)
	rc=$(cat "$T/.rc"); err=$(cat "$T/.e")
	echo "$err" | sed 's/^/# /'
	want_rc 0
	want_err_has "killed by SIGSEGV"
	want_err_has "confirmed 3 of 3"
	runs=$(echo "$err" | sed -n 's/.* left after \([0-9]*\) runs.*/\1/p')
	left=$(echo "$err" | sed -n 's/.*: \([0-9]*\) of [0-9]* faults\{0,1\} left.*/\1/p')
	[ -n "$runs" ] && [ "$runs" -le 64 ] || problem "runs: [$runs], expected at most 64"
	[ -n "$left" ] && [ "$left" -ge 1 ] && [ "$left" -le 2 ] || problem "faults left: [$left], expected 1 or 2"
	[ -f "$T/min.mock" ] || problem "no min.mock"
	grep -q 'probability\|seed' "$T/min.mock" && grep -v '^#' "$T/min.mock" | grep -q 'probability\|seed' &&
		problem "min.mock is not deterministic: $(cat "$T/min.mock")"
	grep -q "^#   mockrun minimize -o min.mock --seed $seed -e 'will_fail_count(malloc" "$T/min.mock" ||
		problem "min.mock lacks the original command: $(head -3 "$T/min.mock")"
	grep -q "^# .* left after $runs runs" "$T/min.mock" || problem "min.mock lacks the run count"
	# the crash's malloc, the one at the unchecked line
	grep -q 'will_fail(malloc, ENOMEM, at="shrinkme+0x' "$T/min.mock" || problem "no pinned malloc: $(cat "$T/min.mock")"
	grep -q 'expect_no_signal()' "$T/min.mock" || problem "no expect_no_signal()"
fi
done_t

t "the written file fails 3 of 3 for the crash, with no seed"
n=0
for i in 1 2 3; do
	(cd "$T" && run "$M" -t min.mock; printf '%s\n' "$rc" >.rc; printf '%s' "$out" >.o)
	rc=$(cat "$T/.rc"); out=$(cat "$T/.o")
	[ "$rc" = 1 ] && case "$out" in *"killed by SIGSEGV"*) n=$((n + 1)) ;; esac
done
[ "$n" = 3 ] || problem "failed for the crash $n of 3 times: $out"
done_t

t "the written file passes on the fixed program"
(cd "$T" && SHRINKME_FIXED=1 run "$M" -t min.mock; printf '%s\n' "$rc" >.rc; printf '%s' "$out" >.o)
rc=$(cat "$T/.rc"); out=$(cat "$T/.o")
want_rc 0
want_out_has "ok 1 - "
done_t

t "the 6th of 12 failed writes from one site: pinned by its occurrence"
(cd "$T" && run "$M" minimize -o w.mock -e 'will_fail_count(write, EIO, -1)' -- ./shrinkme
 printf '%s\n' "$rc" >.rc; printf '%s' "$err" >.e)
rc=$(cat "$T/.rc"); err=$(cat "$T/.e")
echo "$err" | sed 's/^/# /'
want_rc 0
want_err_has 'exited 3 saying "shrinkme: error: line 5 was lost" after 12 injected faults'
want_err_has "1 of 12 faults left"
want_err_has ", call 6 from there"
[ "$(grep -cP '^\twill_' "$T/w.mock")" = 2 ] || problem "not 2 statements: $(cat "$T/w.mock")"
grep -qP '^\twill_call_real\(write, 5, at="shrinkme\+0x[0-9a-f]+"\)$' "$T/w.mock" || problem "no will_call_real(write, 5): $(cat "$T/w.mock")"
grep -qP '^\twill_fail\(write, EIO, at="shrinkme\+0x[0-9a-f]+"\)$' "$T/w.mock" || problem "no will_fail(write, EIO)"
grep -qP '^\texpect_exit_not\(3\)$' "$T/w.mock" || problem "no expect_exit_not(3)"
(cd "$T" && run "$M" -t w.mock; printf '%s\n' "$rc" >.rc; printf '%s' "$out" >.o)
rc=$(cat "$T/.rc"); out=$(cat "$T/.o")
want_rc 1
want_out_has "line 5 was lost"
done_t

t "a run that does not fail is refused"
(cd "$T" && run "$M" minimize -o none.mock -e 'will_call_real(write, -1)' -- ./shrinkme
 printf '%s\n' "$rc" >.rc; printf '%s' "$err" >.e)
rc=$(cat "$T/.rc"); err=$(cat "$T/.e")
want_rc 2
want_err_has "the run did not fail (./shrinkme exited 0, no signal): nothing to minimize"
[ -e "$T/none.mock" ] && problem "none.mock written"
done_t

t "bad options are errors"
run "$M" minimize -e 'will_fail(malloc)' -- "$T/shrinkme"
want_rc 125; want_err_has "-o FILE is needed"
run "$M" minimize -o "$T/x.mock" --same color -e 'will_fail(malloc)' -- "$T/shrinkme"
want_rc 125; want_err_has "--same color: expected signal, status or stderr=RE"
run "$M" minimize -o "$T/x.mock" --same 'stderr=(' -e 'will_fail(malloc)' -- "$T/shrinkme"
want_rc 125; want_err_has "bad regular expression"
run "$M" minimize -o "$T/x.mock" --frobnicate -- "$T/shrinkme"
want_rc 125; want_err_has "--frobnicate: unknown option"
run "$M" minimize -o "$T/x.mock" -e 'will_fail(malloc)'
want_rc 125; want_err_has "no program to run"
run "$M" minimize -o "$T/x.mock" -- "$T/shrinkme"
want_rc 125; want_err_has "no statements"
run "$M" minimize -o "$T/x.mock" -t a.mock --test x -- "$T/shrinkme"
want_rc 125; want_err_has "not built yet"
run "$M" minimize -o "$T/nodir/x.mock" -e 'will_fail(malloc)' -- "$T/shrinkme"
want_rc 125; want_err_has "nodir"
done_t

t "mockrun -- minimize runs a program of that name"
mkdir -p "$T/bin"
printf '#!/bin/sh\necho minimize ran\n' >"$T/bin/minimize"
chmod +x "$T/bin/minimize"
PATH=$T/bin:$PATH run "$M" -- minimize
want_rc 0; want_out "minimize ran"
done_t

finish
