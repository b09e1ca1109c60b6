#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The process tree: spawned, exec'd, static, setuid and cleared-environment
# children, LD_PRELOAD kept, descendants waited for.
# Needs MOCKRUN, PROBE, SHIM, LIBNOTHING, LIBLATE, PROBE_STATIC (meson sets them).
. "$(dirname "$0")/../lib.sh"

M=$MOCKRUN
uid=$(id -u)

t "posix_spawn, system() and popen() children share the queue"
# in="probe": a shell that sees getuid() != geteuid() drops its privileges
run "$M" -q -e 'will_return_count(getuid, 7, 3, in="probe")' "$PROBE" spawners "$PROBE"
want_rc 0; want_out "7
7
popen: 7
self: $uid"; done_t

if [ -n "${PROBE_STATIC:-}" ]; then
	t "a static program: mockrun warns before the run, and the report says nothing attached"
	run "$M" -e 'will_return(getuid, 5)' "$PROBE_STATIC"
	want_rc 123; want_out "$uid"
	want_err_has "warning: $PROBE_STATIC is statically linked: LD_PRELOAD cannot reach it"
	want_err_has "0 processes attached"
	# --check must not run it (a static program ignores LD_TRACE_LOADED_OBJECTS)
	run "$M" -q --check -e 'will_return_maybe(getuid, 5)' "$PROBE_STATIC"
	want_rc 0; want_out "$uid"; want_err_has "is statically linked"; done_t
else
	skip_t "a static program: mockrun warns before the run" "no static probe in a sanitized build"
fi

t "a setuid program: mockrun warns that the loader ignores LD_PRELOAD"
if [ "$(id -u)" -eq 0 ] && id nobody >/dev/null 2>&1; then
	cp "$(command -v id)" "$T/id-suid"
	chown nobody "$T/id-suid" && chmod u+s "$T/id-suid"
	run "$M" -e 'will_return_maybe(geteuid, 5)' "$T/id-suid" -u
	want_err_has "warning: $T/id-suid is setuid: the loader ignores LD_PRELOAD for it"
	done_t
else
	skip_t "a setuid program: mockrun warns that the loader ignores LD_PRELOAD" "needs root"
fi

t "a child started with a cleared environment is simply unmocked, and not counted"
run "$M" -e 'will_return_count(getuid, 5, 1, in="probe")' sh -c "env -i \"$PROBE\" getuid 1"
want_rc 123; want_out "$uid"
want_err_has "2 processes attached (dash["; want_err_has "getuid() has remaining non-returned values"; done_t

t "a program that changes directory keeps its channel"
run "$M" -q -e 'will_return(getuid, 5, in="probe")' sh -c "cd / && exec \"$PROBE\" getuid 1"
want_rc 0; want_out "5"; done_t

t "the queue survives exec"
run "$M" -e 'will_return(getuid, 77)' "$PROBE" exec "$PROBE" getuid 1
want_rc 0; want_out "77"; want_err_has "2 processes attached"; done_t

t "LD_PRELOAD is appended to, not replaced"
run env LD_PRELOAD="$LIBNOTHING" "$M" -q -e 'will_return_maybe(getuid, 1)' "$PROBE" getenv LD_PRELOAD
want_rc 0; want_out "getenv: $LIBNOTHING:$SHIM"; done_t

t "mockrun waits for descendants that left the process group"
rm -f "$T/grandchild"
run "$M" -q -e 'will_return_maybe(getuid, 1)' "$PROBE" daemon 300 "$T/grandchild"
want_rc 0; [ -e "$T/grandchild" ] || problem "mockrun returned before the grandchild finished"; done_t

finish
