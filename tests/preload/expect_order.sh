#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Call ordering: expect_function_call(s), ignore_function_calls and
# expect_no_call, in order and out of it, with the positions reported.
. "$(dirname "$0")/../lib.sh"

M=$MOCKRUN
P=$PROBE

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

finish
