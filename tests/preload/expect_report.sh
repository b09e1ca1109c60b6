#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# How failed checks are reported: handler modules' doubles, failures
# beyond the event log, --on-fail=abort, a crash after a failure, TAP.
. "$(dirname "$0")/../lib.sh"

M=$MOCKRUN
P=$PROBE

# ---- handler modules: doubles ----

t "a handler returns doubles with mock_double(); integers are converted"
run "$M" -q -m "$SCALE_MOCK" -e 'expect_value_count(ms_test_scale, x, 4, 2); will_return(ms_test_scale, 2.5); will_return(ms_test_scale, 3)' sh -c "\"$SCALE\" 4; \"$SCALE\" 4"
want_rc 0; want_out "2.5
3"; done_t

t "a module function with no statement runs the real one"
run "$M" -q -m "$SCALE_MOCK" -e 'will_return_maybe(getuid, 0)' "$SCALE" 7
want_rc 0; want_out "7"; done_t

t "expect_check: a handler module's check function, on its own function and a catalog one"
run "$M" -m "$SCALE_MOCK" -e 'expect_check(ms_test_scale, x, ms_test_divides, 2); will_return(ms_test_scale, 1)
expect_check_count(read, fd, ms_test_divides, 3, 1)' sh -c "\"$SCALE\" 4; \"$P\" read /dev/zero 1"
want_rc 0; want_err_has "expect_check(ms_test_scale, x, ms_test_divides, 2): 1 of 1 checked"
want_err_has "expect_check_count(read, fd, ms_test_divides, 3, 1): 1 of 1 checked"; done_t

t "expect_check: a rejected value and a function no object defines are failures that say so"
run "$M" -m "$SCALE_MOCK" -e 'expect_check(ms_test_scale, x, ms_test_divides, 2); will_return(ms_test_scale, 1)' "$SCALE" 7
want_rc 123; want_err_has "parameter x: check function ms_test_divides rejected 7"
run "$M" -e 'expect_check(read, fd, no_such_check)' "$P" read /dev/zero 1
want_rc 123; want_err_has "check function no_such_check: no object of the process defines it"
run "$M" -e 'expect_check(SYS_read, fd, ms_test_divides, 3)' true
want_rc 125; want_err_has "a system call is checked by mockrun's supervisor"; done_t

# ---- reports ----

t "failures beyond the event log: N more failures not shown"
run "$M" -e 'expect_value_count(clock_gettime, clockid, 99, -1)' "$P" clockloop 10000
want_rc 123; want_err_has "more failures not shown"; want_err_has "FAILED: 10000 checks failed"; done_t

t "--on-fail=abort raises SIGABRT at the first failed check, and the report has it"
run "$M" --on-fail=abort -e 'expect_value(read, fd, 99)' "$P" read /dev/zero 1
want_rc 134; want_err_has "was killed by SIGABRT"; want_err_has "parameter fd: expected 99, got 3"; done_t

t "--on-fail with a bad mode: 125"
run "$M" --on-fail=explode true
want_rc 125; want_err_has "is not continue or abort"; done_t

t "a failure in a program that then crashes is still reported"
run "$M" -e 'expect_value(read, fd, 99, in="probe")' sh -c "\"$P\" read /dev/zero 1; kill -SEGV \$\$"
want_rc 139; want_err_has "parameter fd: expected 99, got 3"; done_t

t "--report tap carries the failure in a YAML block"
run "$M" --report tap -o - -e 'expect_value(read, count, 3)' "$P" read /dev/zero 4
want_rc 123; want_out_has "parameter count: expected 3, got 4"
# the failed check fails its own statement's test, not the program's exit
want_out_has "not ok 1 - -e\#1:1: expect_value(read, count, 3) (1 of 1 checked, 1 failed check)"
want_out_has "ok 2 - $P exited with status 0"; done_t

finish
