#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The channel: what the program inherits, sandboxes, descriptors reused or
# closed, a state overwritten, a spec that cannot be written, bad channels.
# Needs MOCKRUN, PROBE, SHIM, LIBNOTHING, LIBLATE, PROBE_STATIC (meson sets them).
. "$(dirname "$0")/../lib.sh"

M=$MOCKRUN
uid=$(id -u)

t "the program inherits the spec and the state once each, at the descriptors MOCKSHIM_CHANNEL_FD names, and nothing else"
run "$M" -q -e 'will_return_maybe(getuid, 1)' sh -c 'echo "$MOCKSHIM_CHANNEL_FD"; ls -l /proc/self/fd'
want_rc 0
fds=${out%%$'\n'*}
sfd=${fds%%:*}
tfd=${fds#*,}; tfd=${tfd%%:*}
[ "$sfd" -ge 500 ] 2>/dev/null && [ "$tfd" -ge 500 ] 2>/dev/null ||
	problem "MOCKSHIM_CHANNEL_FD is [$fds], not FD:INODE,FD:INODE at 500 or above"
[ "$(grep -c memfd <<<"$out")" = 2 ] || problem "not exactly two channel fds: $out"
grep -q " $sfd -> /memfd:mockshim-spec" <<<"$out" || problem "fd $sfd is not the spec: $out"
grep -q " $tfd -> /memfd:mockshim-state" <<<"$out" || problem "fd $tfd is not the state: $out"
# stdin, stdout, stderr, ls's directory, the two memfds: nothing of mockrun's
[ "$(grep -c -- ' -> ' <<<"$out")" = 6 ] || problem "other descriptors leaked: $out"
done_t

# Sandboxes: a process that cannot see mockrun in /proc attaches by the
# inherited descriptor.
if unshare --pid --fork --mount-proc true 2>/dev/null; then
	t "a sandbox with its own pid namespace and /proc attaches by the inherited descriptor"
	run "$M" -e 'will_return(getuid, 5, in="probe")' unshare --pid --fork --mount-proc "$PROBE" getuid 1
	want_rc 0; want_out "5"; want_err_has "by probe[1]"; want_err_lacks "warning"; done_t

	t "a sandbox with no /proc at all: attached, and named after the path it was exec'd by"
	run "$M" -e 'will_return(getuid, 5, in="probe")' unshare --mount --fork \
		sh -c 'mount -t tmpfs none /proc && exec "$0" getuid 1' "$PROBE"
	want_rc 0; want_out "5"; want_err_has "1 of 1 used, by probe["; done_t
else
	skip_t "a sandbox with its own pid namespace and /proc attaches by the inherited descriptor" "unshare not permitted"
	skip_t "a sandbox with no /proc at all: attached" "unshare not permitted"
fi

t "an inherited descriptor reused for another file, or a bad MOCKSHIM_CHANNEL_FD, is not taken for the channel"
# shellcheck disable=SC2016
run "$M" -e 'will_return(getuid, 5, in="probe")' bash -c 'eval "exec ${MOCKSHIM_CHANNEL_FD%%:*}</etc/hostname"; exec "$0" getuid 1' "$PROBE"
want_rc 0; want_out "5"; want_err_lacks "warning"
# shellcheck disable=SC2016
run "$M" -e 'will_return(getuid, 6, in="probe")' bash -c 'MOCKSHIM_CHANNEL_FD=1:x exec "$0" getuid 1' "$PROBE"
want_rc 0; want_out "6"; want_err_lacks "warning"; done_t

t "a process that closed every fd still attaches (channel found by path)"
run "$M" -q -e 'will_return(getuid, 8)' "$PROBE" closefds-exec "$T/closed.out" "$PROBE" getuid 1
want_rc 0; [ "$(cat "$T/closed.out" 2>/dev/null)" = 8 ] || problem "got [$(cat "$T/closed.out" 2>/dev/null)]"; done_t

t "a program that overwrites the shared state cannot crash or mislead the report: no verdict, 125"
run "$M" -e 'will_return(getuid, 5); expect_string(open, pathname, "/dev/null")' "$PROBE" scribble
want_rc 125; want_out "scribbled: 1"
want_err_has "mockshim: the channel was tampered with"
want_err_has "FAILED: no verdict"
want_err_lacks "all checks passed"; done_t

t "the spec cannot be written, truncated, remapped writable or unsealed by the program"
run "$M" -q -e 'will_return(getuid, 5)' "$PROBE" attack-spec
want_rc 0
want_out "write: EPERM
ftruncate: EPERM
mmap-write: EPERM
mprotect: EACCES
state-ftruncate: EPERM
seal-state: EPERM
getuid: 5"; done_t

t "an invalid channel: warn once, run unmocked"
head -c 4096 /dev/zero | tr '\0' x > "$T/bogus"
run env LD_PRELOAD="$SHIM" MOCKSHIM_CHANNEL="$T/bogus" "$PROBE" getuid 1
want_rc 0; want_out "$uid"; want_err_has "warning: ignoring the channel $T/bogus: bad magic"
[ "$(printf '%s\n' "$err" | grep -c warning)" -eq 1 ] || problem "warned more than once"; done_t

t "a function's bad statements: that function runs unmocked, with a warning; the others are mocked"
spec='will_return_always(getuid, 4242); will_return_always(getgid, 4343)'
run env LD_PRELOAD="$SHIM" "$CHANFILE" "$spec" getuid "$PROBE" ids
want_rc 0; want_out_has "uid=$uid "; want_out_has " gid=4343 "
want_err_has "warning: ignoring the statements for getuid in the channel /proc/self/fd/"
want_err_has ": bad rule count; its calls go to the real function"
[ "$(printf '%s\n' "$err" | grep -c warning)" -eq 1 ] || problem "warned more than once: [$err]"
# the same channel, good: both mocked
run env LD_PRELOAD="$SHIM" "$CHANFILE" "$spec" - "$PROBE" ids
want_rc 0; want_out_has "uid=4242 "; want_out_has " gid=4343 "; want_err_lacks warning; done_t

t "a missing channel: warn once, run unmocked"
run env LD_PRELOAD="$SHIM" MOCKSHIM_CHANNEL="$T/none" "$PROBE" getuid 1
want_rc 0; want_out "$uid"; want_err_has "ignoring the channel $T/none: ENOENT"; done_t

finish
