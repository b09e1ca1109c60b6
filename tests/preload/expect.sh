#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Parameter expectations and call ordering, every verb in both directions:
# a pass leaves the program's status, a failure gives 123 and a report
# naming the statement, parameter, expected and actual values, call,
# process and caller.
. "$(dirname "$0")/../lib.sh"

M=$MOCKRUN
P=$PROBE

# pass NAME STMTS ARGS...: the checks hold
pass() {
	local name=$1 stmts=$2
	shift 2
	t "$name"
	run "$M" -e "$stmts" "$P" "$@"
	want_rc 0; want_err_has "all checks passed"; done_t
}

# fails NAME STMTS WANT ARGS...: exit 123 and stderr has WANT
fails() {
	local name=$1 stmts=$2 wanted=$3
	shift 3
	t "$name"
	run "$M" -e "$stmts" "$P" "$@"
	want_rc 123; want_err_has "$wanted"; done_t
}

pass "expect_value passes" 'expect_value(read, count, 4)' read /dev/zero 4
fails "expect_value fails with expected and actual" 'expect_value(read, count, 3)' \
	"-e#1:1:1: error: read() call 1 in probe[" read /dev/zero 4
t "the failure names parameter, values, statement and caller"
run "$M" -e 'expect_value(read, count, 3)' "$P" read /dev/zero 4
want_rc 123
want_err_has "parameter count: expected 3, got 4"
want_err_has "    expect_value(read, count, 3)"
want_err_has "    called from probe+0x"; done_t

pass "expect_not_value passes" 'expect_not_value(read, count, 3)' read /dev/zero 4
fails "expect_not_value fails" 'expect_not_value(read, count, 4)' \
	"parameter count: expected anything but 4, got 4" read /dev/zero 4

pass "expect_value with a flag expression" 'expect_value(open, flags, O_RDONLY)' read /dev/zero 1
fails "expect_value on flags fails" 'expect_value(open, flags, O_RDWR|O_CLOEXEC)' \
	"parameter flags: expected 524290, got 0" read /dev/zero 1

pass "expect_string passes (the real open runs)" 'expect_string(open, pathname, "/dev/zero")' read /dev/zero 2
t "expect_string lets the real function run"
run "$M" -q -e 'expect_string(open, pathname, "/dev/zero")' "$P" read /dev/zero 2
want_rc 0; want_out "read: 2 0 0000"; done_t
fails "expect_string fails, quoted and escaped" 'expect_string(open, pathname, "/etc/host\tname")' \
	'parameter pathname: expected "/etc/host\tname", got "/dev/zero"' read /dev/zero 2
pass "expect_not_string passes" 'expect_not_string(open, pathname, "/etc/passwd")' read /dev/zero 2
fails "expect_not_string fails" 'expect_not_string(open, pathname, "/dev/zero")' \
	'expected anything but "/dev/zero", got "/dev/zero"' read /dev/zero 2

pass "expect_memory passes" 'expect_memory(write, buf, "hello", 5)' write hello
fails "expect_memory fails with a hex diff" 'expect_memory(write, buf, "help!", 5)' \
	"offset 0 expected: 68 65 6c 70 21
      offset 0 actual:   68 65 6c 6c 6f" write hello
fails "expect_memory shows the bytes around a late difference" \
	'expect_memory(write, buf, "0123456789abcdefghijklmnopqrstuvwxyz", 36)' \
	"offset 13 actual:   64 65 66 67 68 69 6a 6b 6c 6d 6e 6f 70 71 72 73 54 55 56 57 58 59 5a" \
	write 0123456789abcdefghijklmnopqrsTUVWXYZ
pass "expect_not_memory passes" 'expect_not_memory(write, buf, "help!", 5)' write hello
fails "expect_not_memory fails" 'expect_not_memory(write, buf, "hel", 3)' \
	"expected 3 bytes other than 68 65 6c, got them" write hello

pass "expect_in_range passes" 'expect_in_range(read, count, 1, 10)' read /dev/zero 4
fails "expect_in_range fails" 'expect_in_range(read, count, 5, 10)' \
	"parameter count: expected within 5..10, got 4" read /dev/zero 4
pass "expect_not_in_range passes" 'expect_not_in_range(read, count, 5, 10)' read /dev/zero 4
fails "expect_not_in_range fails" 'expect_not_in_range(read, count, 1, 10)' \
	"expected outside 1..10, got 4" read /dev/zero 4

pass "expect_in_set passes" 'expect_in_set(read, count, {1, 4, 9})' read /dev/zero 4
fails "expect_in_set fails, the set printed" 'expect_in_set(read, count, {1, 2, 3})' \
	"parameter count: expected one of {1, 2, 3}, got 4" read /dev/zero 4
pass "expect_not_in_set passes" 'expect_not_in_set(read, count, {1, 2})' read /dev/zero 4
fails "expect_not_in_set fails" 'expect_not_in_set(read, count, {4, 5})' \
	"expected none of {4, 5}, got 4" read /dev/zero 4

pass "expect_any passes" 'expect_any(read, fd)' read /dev/zero 1
fails "expect_any left unchecked is a leftover" 'expect_any(write, fd)' \
	"write(): \`fd\` parameter still has values that haven't been checked (0 of 1 checked)" read /dev/zero 1

t "an expectation on a parameter the function does not have: 125"
run "$M" -e 'expect_value(getuid, uid, 1)' "$P" getuid 1
want_rc 125; want_err_has "-e#1:1:22: error: getuid() has no parameter 'uid' (parameters: none)"; done_t
pass "expect_value_count(-1) checks every call" 'expect_value_count(clock_gettime, clockid, CLOCK_MONOTONIC, -1)' clockloop 50
fails "expect_value_count(-1) never checked is a leftover" 'expect_value_count(read, fd, 3, -1)' \
	"still has values that haven't been checked (checked 0 times (always))" getuid 1
pass "expect_value_count(-2) never checked is fine" 'expect_value_count(read, fd, 3, -2)' getuid 1
fails "a call that finds no expectation left fails" 'expect_value_count(clock_gettime, clockid, CLOCK_MONOTONIC, 2)' \
	"parameter clockid: no expected value left (all 2 declared were checked); got 1" clockloop 3
fails "a declared count not reached is a leftover" 'expect_any_count(clock_gettime, tp, 5)' \
	"(3 of 5 checked)" clockloop 3
fails "note: remaining item was declared here" 'expect_any_count(clock_gettime, tp, 5)' \
	"note: remaining item was declared here: -e#1:1" clockloop 3

pass "expectations per parameter are consumed in order" \
	'expect_string(open, pathname, "/dev/zero"); expect_value(open, flags, O_RDONLY); expect_value(read, fd, 3)' read /dev/zero 1

t "a bad pointer to a checked string is reported, not a crash"
run "$M" -e 'expect_string(open, pathname, "/etc/hostname")' "$P" badptr
want_rc 123; want_out "open: -1 EFAULT"
want_err_has "parameter pathname: expected \"/etc/hostname\", got an unreadable pointer, 0x10"; done_t

t "a string running into an unmapped page is reported up to the fault"
run "$M" -e 'expect_string(open, pathname, "/etc/hostname")' "$P" edgeptr
want_rc 123; want_out "open: -1 EFAULT"
want_err_has 'got "aaaaaaaaaa" (then unreadable)'; done_t

t "a NULL string parameter is reported"
run "$M" -e 'expect_string(open, pathname, "/etc/hostname")' "$P" nullptr
want_rc 123; want_out "open: -1 EFAULT"
want_err_has 'parameter pathname: expected "/etc/hostname", got NULL'; done_t
fails "a NULL string fails expect_not_string too: NULL is no string" \
	'expect_not_string(open, pathname, "/etc/hostname")' \
	'parameter pathname: expected anything but "/etc/hostname", got NULL' nullptr
pass "expect_any takes a NULL string" 'expect_any(open, pathname)' nullptr

# ---- call ordering ----

pass "expect_function_call in order passes" \
	'expect_function_call(getuid); expect_function_call(geteuid); expect_function_calls(getgid, 1)' order
fails "a call out of order fails with both positions" \
	'expect_function_call(geteuid); expect_function_call(getuid)' \
	"getuid() call 1 in probe[" order
t "the out-of-order report gives the actual and the expected position"
run "$M" -e 'expect_function_call(geteuid); expect_function_call(getuid)' "$P" order
want_rc 123
want_err_has "called out of order: call #1 of the sequence should be geteuid() (-e#1:1), but getuid() came (call #1); the rest of the sequence is not checked"
want_err_has "    expect_function_call(geteuid)"; done_t

t "one call out of order is one failure, not a cascade that contradicts it"
printf 'x\n' > "$T/in.txt"
run "$M" -e 'expect_function_call(read, in="cat"); expect_function_call(open, in="cat")' cat "$T/in.txt"
want_rc 123
want_err_has "open() call 1 in cat["
want_err_has "call #1 of the sequence should be read() (-e#1:1), but open() came (call #1)"
want_err_lacks "more often than expected"; want_err_lacks "was expected to be called but was not"
want_err_has "mockshim: FAILED: 1 check failed"; done_t
fails "a missing call fails" 'expect_function_call(getuid); expect_function_calls(getpid, 2)' \
	"getpid() was expected to be called but was not (0 of 2 called)" order
fails "an extra call fails" 'expect_function_call(getuid)' \
	"getuid() call 2 in probe[" getuid 2
t "an extra call says so"
run "$M" -e 'expect_function_call(getuid)' "$P" getuid 2
want_rc 123
want_err_has "called more often than expected: call #2 of the sequence comes after every expected call"; done_t
pass "expect_function_calls(FN, N) takes N calls" 'expect_function_calls(getuid, 3)' getuid 3
pass "ignore_function_calls: calls are allowed anywhere" \
	'ignore_function_calls(getuid); expect_function_call(geteuid); expect_function_call(getgid)' order
pass "ignore_function_calls alone is no leftover" 'ignore_function_calls(getpid)' getuid 1
pass "expect_no_call passes when the function is not called" 'expect_no_call(unlink)' getuid 1
fails "expect_no_call fails on a call" 'expect_no_call(getegid)' \
	"getegid() call 1 in probe[" order
t "expect_no_call names what forbade it"
run "$M" -e 'expect_no_call(getegid)' "$P" order
want_rc 123
want_err_has "called, but expect_no_call forbids any call"
want_err_has "    expect_no_call(getegid)"; done_t
pass "call order applies to mocked calls too" \
	'will_return(getuid, 7); expect_function_call(getuid); expect_function_call(geteuid)' order

# ---- selectors on expectations ----

pass "in= scopes an expectation: other programs' calls are not checked" \
	'expect_value_count(read, fd, 99, -2, in="cat")' read /dev/zero 1
pass "from= scopes an expectation: other callers are not checked" \
	'expect_value_count(read, fd, 99, -2, from="libnothing*")' read /dev/zero 1
fails "an expectation whose scope never matches is a leftover" 'expect_value(read, fd, 99, in="cat")' \
	"read(): \`fd\` parameter still has values that haven't been checked" read /dev/zero 1
fails "from= that matches the program checks it" 'expect_value(read, fd, 99, from="probe")' \
	"parameter fd: expected 99, got 3" read /dev/zero 1
t "from=\"libc.so*\" fails only the mallocs libc makes (fopen), not the program's"
run "$M" -q -e 'will_fail_count(malloc, ENOMEM, -2, from="libc.so*")' "$P" fgets /etc/hostname
want_rc 1; want_out "fopen: NULL ENOMEM"; done_t

# ---- handler modules: doubles ----

t "a handler returns doubles with mock_double(); integers are converted"
run "$M" -q -m "$SCALE_MOCK" -e 'expect_value_count(ms_test_scale, x, 4, 2); will_return(ms_test_scale, 2.5); will_return(ms_test_scale, 3)' sh -c "\"$SCALE\" 4; \"$SCALE\" 4"
want_rc 0; want_out "2.5
3"; done_t

t "a module function with no statement runs the real one"
run "$M" -q -m "$SCALE_MOCK" -e 'will_return_maybe(getuid, 0)' "$SCALE" 7
want_rc 0; want_out "7"; done_t

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
run "$M" -e "expect_value(getuid, 1)" true
run "$M" -e 'expect_value(read, fd, 99, in="probe")' sh -c "\"$P\" read /dev/zero 1; kill -SEGV \$\$"
want_rc 139; want_err_has "parameter fd: expected 99, got 3"; done_t

t "--report tap carries the failure in a YAML block"
run "$M" --report tap -o - -e 'expect_value(read, count, 3)' "$P" read /dev/zero 4
want_rc 123; want_out_has "parameter count: expected 3, got 4"
# the failed check fails its own statement's test, not the program's exit
want_out_has "not ok 1 - -e#1:1: expect_value(read, count, 3) (1 of 1 checked, 1 failed check)"
want_out_has "ok 2 - $P exited with status 0"; done_t

finish
