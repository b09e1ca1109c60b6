#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The shim inside a running program, under valgrind's memcheck: the
# attach, the queues, outputs, checks, events, threads, fork and signal
# handlers must read no uninitialised or unaddressable byte and leak no
# block of the program's.
#
# mockrun runs valgrind's tool binary directly, not the valgrind command:
# that is a shell script and a dynamically linked launcher, which the
# shim would enter and count as processes of the run.  The tool is static
# (LD_PRELOAD does not reach it) and loads the probe with LD_PRELOAD as
# mockrun set it, so only the probe carries the shim.
. "$(dirname "$0")/../lib.sh"

M=$MOCKRUN
tool=
for d in /usr/libexec/valgrind /usr/lib/x86_64-linux-gnu/valgrind /usr/lib/valgrind; do
	[ -x "$d/memcheck-amd64-linux" ] && { tool=$d/memcheck-amd64-linux; break; }
done
launcher=$(command -v valgrind.bin || command -v valgrind || true)
if [ -z "$tool" ] || [ -z "$launcher" ] || [ "${SANITIZE:-none}" != none ]; then
	skip_t "memcheck: the shim in a running program" "no valgrind, or a sanitized build"
	finish
	exit
fi
# valgrind's own files (its /proc emulation, vgdb's FIFOs) stay out of
# /tmp, which another suite checks for leftovers
export VALGRIND_LIB=${tool%/*} VALGRIND_LAUNCHER=$launcher TMPDIR=$T
VG=("$tool" -q --vgdb=no --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite)

# vg STATEMENTS PROBE-ARGS...: mockrun -q, the probe under memcheck
vg() {
	local spec=$1
	shift
	run "$M" -q -e "$spec" "${VG[@]}" "$PROBE" "$@"
}

t "memcheck: a queue shared by threads and forked processes"
vg 'will_return_count(getpid, 42, 300)' fork-threads 2 2 100 42
want_rc 0; want_out "300"; done_t

t "memcheck: read's buf output and an expect_string on open"
vg 'expect_string(open, pathname, "/dev/zero"); will_return(read, _, buf="AB\x00C")' read /dev/zero 16
want_rc 0; want_out "read: 4 0 41420043"; done_t

t "memcheck: struct outputs (stat, uname)"
vg 'will_return(stat, 0, *statbuf={.st_size = 4096, .st_mode = S_IFREG|0644})' stat /nonexistent
want_rc 0; want_out_has "4096"
vg 'will_return(uname, _, *buf={"Plan9", "mockhost"})' uname
want_rc 0; want_out_has "Plan9"; done_t

t "memcheck: a getaddrinfo list that the program frees with freeaddrinfo"
vg 'will_return(getaddrinfo, 0, *res={"10.1.2.3", "::1"})' getaddrinfo x.example
want_rc 0; want_out "getaddrinfo: 0 ok"; done_t

# (not malloc: memcheck's own allocator comes before every preload)
t "memcheck: a string return"
vg 'will_return(getenv, "mocked value")' getenv HOME
want_rc 0; want_out "getenv: mocked value"; done_t

t "memcheck: a failed check is reported, with the string read from the program"
run "$M" -e 'expect_string(open, pathname, "/etc/hostname")' "${VG[@]}" "$PROBE" read /dev/zero 1
want_rc 123
want_err_has 'parameter pathname: expected "/etc/hostname", got "/dev/zero"'
want_err_lacks "=="; done_t

t "memcheck: -v events, from= and in= selectors"
run "$M" -v -e 'will_return_count(getuid, 5, 3, from="probe", in="probe")' "${VG[@]}" "$PROBE" getuid 3
want_rc 0; want_out "5 5 5"; want_err_has "all checks passed"; want_err_lacks "=="; done_t

t "memcheck: the mocked path from a signal handler"
vg 'will_return_always(getuid, 4242)' sigloop 3000
want_rc 0
case "$out" in "main 0 bad, handler "*" calls 0 bad") ;; *) problem "got [$out]" ;; esac
done_t

t "memcheck: standalone mode (MOCKSHIM=, the shim parses and reports)"
run bash -c 'export LD_PRELOAD="$1" MOCKSHIM="$2"; shift 2; exec "$@"' _ "$SHIM" \
	'will_return(getuid, 9)' "${VG[@]}" "$PROBE" getuid 1
want_rc 0; want_out "9"; want_err_lacks "=="; done_t

finish
