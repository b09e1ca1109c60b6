#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Sharing under stress: threads, processes, vfork, signal handlers.  Only
# the probe runs here (no program of the system), so that .ci/run can run
# this suite on a ThreadSanitizer build too, whose instrumented shim
# needs the TSan runtime that the instrumented probe carries.
. "$(dirname "$0")/../lib.sh"

M=$MOCKRUN

t "threads share one queue: exactly COUNT values consumed"
run "$M" -q -e 'will_return_count(getpid, 42, 1000)' "$PROBE" threads 4 500 42
want_rc 0; want_out "1000"; done_t

t "processes and threads share one queue: exactly COUNT values consumed"
run "$M" -q -e 'will_return_count(getpid, 42, 1000)' "$PROBE" fork-threads 4 4 200 42
want_rc 0; want_out "1000"; done_t

t "forked children are named in the report"
run "$M" -e 'will_return_count(getpid, 42, 1000)' "$PROBE" fork-threads 2 1 600 42
want_rc 0; want_out "1000"; want_err_has "3 processes attached"
want_err_lacks "?["; done_t

t "a vfork child is counted once, and its parent is not counted again"
run "$M" -e 'will_return_count(getuid, 7, 2)' "$PROBE" vfork
want_rc 0; want_out "parent 7"; want_err_has "2 processes attached"; done_t

t "stress: 8 threads x 4 processes take exactly 10000 of 64000 calls"
run "$M" -q -e 'will_return_count(getpid, 42, 10000)' "$PROBE" fork-threads 4 8 2000 42
want_rc 0; want_out "10000"; done_t

t "stress: more threads than lane blocks (320 of 256) take exactly 20000 of 32000 calls"
run "$M" -q -e 'will_return_count(getpid, 42, 20000)' "$PROBE" fork-threads 5 64 100 42
want_rc 0; want_out "20000"; done_t

t "no value twice, none lost: 3000 distinct values over 4 processes x 4 threads"
# negative: a real pid (the probe keeps the values that are not its own)
# can be anything from 1 to pid_max
seq 1 3000 | sed 's/.*/will_return(getpid, -&)/' > "$T/distinct.mock"
run "$M" -q -f "$T/distinct.mock" "$PROBE" collect 4 4 400
want_rc 0
printf '%s\n' "$out" | sed 's/^-//' | sort -n > "$T/seen"
[ "$(wc -l < "$T/seen")" -eq 3000 ] || problem "$(wc -l < "$T/seen") values seen, expected 3000"
dups=$(uniq -d < "$T/seen" | head -5 | tr '\n' ' ')
[ -z "$dups" ] || problem "values seen twice: $dups"
seq 1 3000 | cmp -s - "$T/seen" || problem "the values seen are not exactly 1..3000"
done_t

t "the mocked path works from a signal handler, interrupting itself"
run "$M" -q -e 'will_return_always(getuid, 4242)' "$PROBE" sigloop 300000
want_rc 0
case "$out" in "main 0 bad, handler "*" calls 0 bad") ;; *) problem "got [$out]" ;; esac
case "$out" in *"handler 0 calls"*) problem "the handler never ran: [$out]" ;; esac
done_t

# Under a sanitizer the program's own read interceptor (the sanitizer
# runtime is linked into the probe) calls the shim for liblate.so: the
# caller the shim sees is the sanitizer, so from= cannot match there.
if [ "${SANITIZE:-none}" = none ]; then
	t "from= tells two callers apart when they alternate (the per-thread answer cache)"
	run "$M" -q -e 'will_fail_count(read, EIO, -1, from="liblate.so")' "$PROBE" fromalt "$LIBLATE" 2000
	want_rc 0; want_out "own 0 bad, lib 0 bad"; done_t

	t "from= stays right when a signal handler's call interrupts the main loop's"
	run "$M" -q -e 'will_fail_count(read, EIO, -1, from="liblate.so")' "$PROBE" sigfrom "$LIBLATE" 300000
	want_rc 0
	case "$out" in "own 0 bad, handler "*" calls 0 bad") ;; *) problem "got [$out]" ;; esac
	case "$out" in *"handler 0 calls"*) problem "the handler never ran: [$out]" ;; esac
	done_t
else
	skip_t "from= tells two callers apart when they alternate" "the sanitizer's interceptor is the caller"
	skip_t "from= stays right when a signal handler's call interrupts" "the sanitizer's interceptor is the caller"
fi

t "_exit from a thread: the report is complete, the status is the program's"
run "$M" -e 'will_return(getuid, 5); will_return(getgid, 6)' "$PROBE" thread-exit
want_rc 3; want_out "uid 5"
want_err_has "exited with status 3"
want_err_has "will_return(getgid, 6): 1 of 1 used, by probe["; done_t

finish
