#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# mockrun -t: run_background, control and stop in test files (a server
# acted on while the test's own run talks to it), their failures and
# their errors, and nothing left behind.
. "$(dirname "$0")/../lib.sh"

M=$MOCKRUN
D=$(cd "$(dirname "$0")/mock" && pwd)
export TMPDIR=$T

t "backgrounds acted on live: every test of background.mock passes"
run "$M" -t "$D/background.mock"
want_rc 0; want_out_has "1..5"
[ "$(printf '%s\n' "$out" | grep -c '^ok ')" -eq 5 ] || problem "not 5 oks: $out"; done_t

t "the same with -j 3 and as JUnit"
run "$M" -j 3 --report junit -o "$T/bg.xml" -t "$D/background.mock"
want_rc 0
python3 - "$T/bg.xml" <<'PY' || problem "bad JUnit: $(grep -A12 -e '<failure' -e '<error' "$T/bg.xml" | head -40)"
import sys, xml.etree.ElementTree as E
s = E.parse(sys.argv[1]).getroot()[0]
assert (s.get("tests"), s.get("failures")) == ("5", "0"), s.attrib
PY
done_t

t "each failing background test fails with its reason"
run "$M" -t "$D/background_fail.mock"
want_rc 1
[ "$(printf '%s\n' "$out" | grep -c '^not ok ')" -eq 6 ] || problem "not 6 failures: $out"
want_out_has "background_fail.mock:5: run_background early: sh exited with status 3 before its stop at line 9"
want_out_has "background_fail.mock:13: run_background early: sh exited with status 4 before the test's end"
want_out_has "background_fail.mock:20: run_background server: its mock checks failed"
want_out_has "background_fail.mock:26:3: error: recv() has remaining non-returned values (0 of 1 used)"
want_out_has "note: remaining item was declared here: $D/background_fail.mock:26"
want_out_has "background_fail.mock:39: control gone: (its run_background had ended)"
want_out_has "background_fail.mock:44: run_background missing: no-such-program-here could not be started"
want_out_has "background_fail.mock:54: expected exit status 0, but sh exited with status 5"
# the live statement that was used is not a leftover
want_out_lacks "send() has remaining"; done_t

t "wait_held, release and kill_held: every test of hold.mock passes"
run "$M" -t "$D/hold.mock"
want_rc 0; want_out_has "1..2"
[ "$(printf '%s\n' "$out" | grep -c '^ok ')" -eq 2 ] || problem "not 2 oks: $out"; done_t

t "a hold never released fails its background, naming the hold"
run "$M" -t "$D/hold_fail.mock"
want_rc 1
want_out_has "hold_fail.mock:4: run_background writer: its mock checks failed"
want_out_has "held at hold 'forgotten' was never released"
done_t

t "bad hold actions: clear errors"
printf 'test "x" {\n\trun_background w {\n\t\trun true\n\t}\n\tcontrol w {\n\t\twait_held("a b")\n\t}\n}\n' >"$T/badhold.mock"
run "$M" -t "$T/badhold.mock"
want_rc 125; want_err_has "badhold.mock:6:13: error: expected a hold's name"
printf 'test "x" {\n\trun_background w {\n\t\trun true\n\t}\n\tcontrol w {\n\t\tkill_held("h", NOPE)\n\t}\n}\n' >"$T/badhold.mock"
run "$M" -t "$T/badhold.mock"
want_rc 125; want_err_has "badhold.mock:6:18: error: expected a signal"
done_t

# this run's sleeps only: their working directory is a test directory
# under $T (another checkout's run of this test, or another suite on
# the machine, has its own)
our_sleeps() {
	for p in $(pgrep -x sleep); do readlink "/proc/$p/cwd"; done 2>/dev/null | grep -F "$T/"
}

t "nothing is left behind: no background process, no socket directory"
left=$(our_sleeps)
[ -z "$left" ] || problem "a background's sleep still runs, in $left"
ls "$T" | grep -q mockshim-ctl && problem "a control directory is left: $(ls "$T")"
ls "$T" | grep -q mockshim-test- && problem "a test directory is left: $(ls "$T")"
done_t

# bad FILE BODY LINE:COL MESSAGE: a test "x" whose body is BODY is refused
bad() {
	printf 'test "x" {\n%b\n}\n' "$2" >"$T/$1.mock"
	run "$M" -t "$T/$1.mock"
	want_rc 125; want_err_has "$1.mock:$3: error: $4"
}

t "errors: each with its line, column and caret, before anything runs"
bad noname 'control x {\n\twait_call(read)\n}\nrun true' 2:1 "no run_background x before this line in this test"
bad nostop 'run_background a {\n\trun sleep 1\n}\nstop b\nrun true' 5:6 "no run_background b before this line"
bad norun 'run_background a {\n}\nrun true' 2:1 "run_background a has no run"
bad expect 'run_background a {\n\trun sleep 1\n\texpect_exit(0)\n}\nrun true' 4:2 \
	"expect_exit is not allowed in a run_background block"
bad nested 'run_background a {\n\trun sleep 1\n\tcontrol a {\n\t\trate(2)\n\t}\n}\nrun true' 4:2 \
	"a control block cannot be inside a run_background block"
bad rate 'run_background a {\n\trun sleep 1\n}\ncontrol a {\n\trate(-2)\n}\nrun true' 6:7 "'-2' is not a rate"
bad offset 'run_background a {\n\trun sleep 1\n}\ncontrol a {\n\tadvance_time("2030-01-01")\n}\nrun true' 6:16 \
	"expected an offset"
bad empty 'run_background a {\n\trun sleep 1\n}\ncontrol a {\n}\nrun true' 5:1 "control a does nothing"
bad twice 'run_background a {\n\trun sleep 1\n}\nstop a\nstop a\nrun true' 6:1 "run_background a was stopped at line 5 already"
bad after 'run_background a {\n\trun sleep 1\n}\nstop a\ncontrol a {\n\trate(1)\n}\nrun true' 6:1 \
	"run_background a was stopped at line 5"
bad dup 'run_background a {\n\trun sleep 1\n}\nrun_background a {\n\trun sleep 1\n}\nrun true' 5:1 \
	"this test has a run_background a already (line 2)"
bad fn 'run_background a {\n\trun sleep 1\n}\ncontrol a {\n\twait_call(lisen)\n}\nrun true' 6:12 "'lisen' is not in the catalog"
bad live 'run_background a {\n\trun sleep 1\n}\ncontrol a {\n\texpect_value(recv, flags, 0)\n}\nrun true' 6:2 \
	"expect_value cannot be added to a running program"
bad errno 'run_background a {\n\trun sleep 1\n}\ncontrol a {\n\twill_fail(recv, EBOGUS)\n}\nrun true' 6:18 \
	"unknown name 'EBOGUS'"
bad alloc 'run_background a {\n\trun sleep 1\n}\ncontrol a {\n\twill_fail(malloc)\n}\nrun true' 6:12 \
	"malloc() cannot take a statement added live"
bad bgstmt 'run_background a {\n\twill_fail(nosuchfn)\n\trun sleep 1\n}\nrun true' 3:12 "unknown function 'nosuchfn'"
printf 'run_background a {\nrun true\n}\n' >"$T/top.mock"
run "$M" -t "$T/top.mock"
want_rc 125; want_err_has "top.mock:1:1: error: run_background belongs in a test block"
[ -z "$(our_sleeps)" ] || problem "a background ran although the file was refused"
done_t

finish
