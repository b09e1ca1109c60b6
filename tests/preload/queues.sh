#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Replies in turn: queues, counts, leftovers, the program's own status,
# errno, delay= and -v.  The probe program (probe.c) under mockrun.
# Needs MOCKRUN, PROBE, SHIM, LIBNOTHING, LIBLATE, PROBE_STATIC (meson sets them).
. "$(dirname "$0")/../lib.sh"

M=$MOCKRUN
uid=$(id -u)

t "queue order: values are consumed in order, then the real function runs"
run "$M" -q -e 'will_return(getuid, 1); will_return(getuid, 2)' "$PROBE" getuid 3
want_rc 0; want_out "1 2 $uid"; done_t

t "will_return_count then will_return_always"
run "$M" -q -e 'will_return_count(getuid, 5, 2)' -e 'will_return_always(getuid, 9)' "$PROBE" getuid 4
want_rc 0; want_out "5 5 9 9"; done_t

t "will_call_real takes its turn in the queue"
run "$M" -q -e 'will_call_real(getuid); will_return(getuid, 7)' "$PROBE" getuid 3
want_rc 0; want_out "$uid 7 $uid"; done_t

t "a leftover value fails the run with 123 and names the function"
run "$M" -e 'will_return_count(getuid, 5, 3)' "$PROBE" getuid 1
want_rc 123; want_out "5"
want_err_has "getuid() has remaining non-returned values (1 of 3 used)"
want_err_has "note: remaining item was declared here: -e#1:1"; done_t

t "an unused will_return_always is a leftover; will_return_maybe is not"
run "$M" -e 'will_return_always(geteuid, 1)' "$PROBE" getuid 1
want_rc 123; want_err_has "geteuid() has remaining non-returned values"; done_t

t "an unused will_return_maybe passes"
run "$M" -e 'will_return_maybe(geteuid, 1)' "$PROBE" getuid 1
want_rc 0; want_err_has "all checks passed"; done_t

t "--error-exitcode sets the status of a failed check"
run "$M" -q --error-exitcode 7 -e 'will_return(getgid, 1)' "$PROBE" exit 0
want_rc 7; done_t

t "the program's own status passes through when the checks pass"
run "$M" -q -e 'will_return_maybe(getgid, 1)' "$PROBE" exit 3
want_rc 3; done_t

t "errno is preserved on mocked and real paths"
run "$M" -q -e 'will_return(getuid, 3); will_call_real(getpid); will_return_maybe(geteuid, 4)' "$PROBE" errno
want_rc 0; want_out "errno preserved"; done_t

t "delay= sleeps before replying"
start=$(date +%s%N)
run "$M" -q -e 'will_return(getuid, 1, delay=300ms)' "$PROBE" getuid 1
elapsed=$((($(date +%s%N) - start) / 1000000))
want_rc 0; want_out "1"
[ "$elapsed" -ge 290 ] || problem "took ${elapsed}ms, expected at least 300ms"; done_t

t "delay= on an expectation holds the call it checks, which then goes on"
start=$(date +%s%N)
run "$M" -e 'expect_value_count(read, fd, 0, 2, delay=150ms)' sh -c 'printf x | cat'
elapsed=$((($(date +%s%N) - start) / 1000000))
want_rc 0; want_out "x"; want_err_has "2 of 2 checked"
[ "$elapsed" -ge 290 ] || problem "took ${elapsed}ms, expected at least 2 x 150ms"; done_t

t "-v lists every consumed value with pid and thread"
run "$M" -v -e 'will_return(getuid, 1)' "$PROBE" getuid 1
want_rc 0; want_err_has "getuid() call 1 in probe["; want_err_has "returned 1"; done_t

t "-v lists each of a rule's turns; without -v, the report still names the consumer"
run "$M" -v -e 'will_return_always(getuid, 7)' "$PROBE" getuid 3
want_rc 0; want_err_has "getuid() call 3 in probe["
[ "$(printf '%s\n' "$err" | grep -c 'getuid() call [0-9] in probe\[')" -eq 3 ] ||
	problem "expected 3 listed turns: $err"
run "$M" -e 'will_return_always(getuid, 7)' "$PROBE" getuid 3
want_rc 0; want_err_has "by probe["; want_err_lacks "call 1 in"; done_t

t "a program killed by a signal gives 128+N, and the report still lists checks"
run "$M" -e 'will_return(getgid, 1)' "$PROBE" signal 11
want_rc 139; want_err_has "was killed by SIGSEGV"; want_err_has "getgid() has remaining"; done_t

t "a statement alone on its function answers each turn with its value, errno kept or set (the fast slot)"
run "$M" -e 'will_return_always(getuid, 7); will_fail_count(read, EIO, -1)' "$PROBE" turns 5 </dev/null
want_rc 0; want_out "getuid: 7 7 7 7 7 errno kept
read: -1/EIO -1/EIO -1/EIO -1/EIO -1/EIO"
want_err_has "will_return_always(getuid, 7): used 5 times (always), by probe["
want_err_has "will_fail_count(read, EIO, -1): used 5 times (always), by probe["; done_t

t "a queue alone on its function runs out after COUNT turns, then the real function runs"
run "$M" -e 'will_return_count(getuid, 9, 3); will_fail_count(read, EIO, 2)' "$PROBE" turns 5 </dev/null
want_rc 0; want_out "getuid: 9 9 9 $uid $uid errno kept
read: -1/EIO -1/EIO 0/0 0/0 0/0"
want_err_has "will_return_count(getuid, 9, 3): 3 of 3 used"; done_t

t "forked processes each name themselves as consumers of one always-reply"
run "$M" -e 'will_return_always(getpid, 42)' "$PROBE" fork-threads 3 2 50 42
want_rc 0; want_out "300"
want_err_has "used 300 times (always)"
[ "$(printf '%s\n' "$err" | grep -o 'probe\[[0-9]*\]' | sort -u | wc -l)" -ge 3 ] ||
	problem "fewer than 3 consumers named: $err"; done_t

t "-v lists every turn, the ones a fast slot would answer too"
run "$M" -v -e 'will_return_always(getuid, 7)' "$PROBE" getuid 4
want_rc 0; want_out "7 7 7 7"
[ "$(printf '%s\n' "$err" | grep -c 'getuid() call [0-9] in probe\[')" -eq 4 ] ||
	problem "not 4 turns listed: $err"; done_t

# A count past MS_CLAIM_SLACK (shim.h): its turns are atomic adds until the
# last 1024, which are the slow path's compare-and-swap; 4 processes of 4
# threads call getpid 2,000 times each, 32,000 calls for 5,000 turns
t "a long queue shared by processes and threads: exactly its count, to the end"
run "$M" -e 'will_return_count(getpid, 42, 5000)' "$PROBE" fork-threads 4 4 2000 42
want_rc 0; want_out "5000"; want_err_has "5000 of 5000 used"; done_t

# A count of MS_LANE_MIN (channel.h) or more has a lane: a thread takes
# its turns 32 at a time into its own lane.  The turns a thread holds go
# to whichever thread calls once the count is taken, and the turns of a
# process killed holding them were never taken.
t "lanes: the turns a waiting thread holds go to the thread that calls"
run "$M" -e 'will_return_count(getpid, 42, 5000)' "$PROBE" lane-hold 6000 42
want_rc 0; want_out "thread 2 main 4998"; want_err_has "5000 of 5000 used"; done_t

t "lanes: a process killed holding turns took only the turns it answered"
run "$M" -e 'will_return_count(getpid, 42, 5000)' "$PROBE" lane-killed 0 42
want_rc 123; want_out "child 2 killed, main 0"
want_err_has "remaining non-returned values (2 of 5000 used)"; done_t

t "lanes: and the turns it held go to the next caller"
run "$M" -e 'will_return_count(getpid, 42, 5000)' "$PROBE" lane-killed 6000 42
want_rc 0; want_out "child 2 killed, main 4998"; want_err_has "5000 of 5000 used"; done_t

t "lanes: a reply with errno takes its turns from lanes too, exactly"
run "$M" -e 'will_return_count(getpid, 7, 4500, errno=EPERM)' "$PROBE" lane-hold 6000 7
want_rc 0; want_out "thread 2 main 4498"; want_err_has "4500 of 4500 used"; done_t

# The allocator's trampolines (alloc.c) answer from the fast slot too,
# after a process's first turn: mallocn calls malloc(64) N times
t "the allocator's fast slot: a queue of NULLs runs out exactly, then the real malloc"
run "$M" -e 'will_return_count(malloc, NULL, 5, in="probe")' "$PROBE" mallocn 8
want_rc 0; want_out "mallocn: ok 3 null 5 0"
want_err_has "will_return_count(malloc, NULL, 5, in=\"probe\"): 5 of 5 used, by probe["; done_t

t "the allocator's fast slot: errno on every turn of an always"
run "$M" -e 'will_return_always(malloc, NULL, errno=ENOMEM, in="probe")' "$PROBE" mallocn 8
want_rc 0; want_out "mallocn: ok 0 null 8 ENOMEM"
# the eight and stdout's buffer
want_err_has "used 9 times (always), by probe["; done_t

t "the allocator's fast slot: expect_value passes the matching sizes, reports the first other"
run "$M" -e 'expect_value_count(malloc, size, 64, -1, in="probe")' "$PROBE" mallocn 8
want_rc 123; want_out "mallocn: ok 8 null 0 0"
want_err_has "malloc() call 9 in probe["
want_err_has "parameter size: expected 64, got 4096"
want_err_lacks "call 8 in"; done_t

t "the allocator's fast slot: from= another object lets every call by"
run "$M" -e 'will_return_maybe(malloc, NULL, from="libnothing.so")' "$PROBE" mallocn 8
want_rc 0; want_out "mallocn: ok 8 null 0 0"; want_err_has "all checks passed"; done_t

finish
