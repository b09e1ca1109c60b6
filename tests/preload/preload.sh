#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Preload tests: the probe program (tests/preload/probe.c) under mockrun.
# Needs MOCKRUN, PROBE, SHIM, LIBNOTHING in the environment (meson sets them).
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

t "from= matches the calling object; the main program by its executable name"
run "$M" -q -e 'will_return(getuid, 5, from="probe")' "$PROBE" getuid 2
want_rc 0; want_out "5 $uid"; done_t

t "from= that matches no caller leaves the rule unconsumed"
run "$M" -e 'will_return(getuid, 5, from="libnothing.so*")' "$PROBE" getuid 1
want_rc 123; want_out "$uid"; done_t

t "posix_spawn, system() and popen() children share the queue"
# in="probe": a shell that sees getuid() != geteuid() drops its privileges
run "$M" -q -e 'will_return_count(getuid, 7, 3, in="probe")' "$PROBE" spawners "$PROBE"
want_rc 0; want_out "7
7
popen: 7
self: $uid"; done_t

t "a failed dlopen's dlerror() is the program's, armed or not (the shim binds without dlsym)"
want_msg='dlopen: NULL [libnope-mockshim.so: cannot open shared object file: No such file or directory]'
run env LD_PRELOAD="$SHIM" "$PROBE" dlerror libnope-mockshim.so
want_rc 0; want_out "$want_msg"$'\n'"$want_msg"
run "$M" -q -e 'expect_any_count(dlopen, flags, -1)' "$PROBE" dlerror libnope-mockshim.so
want_rc 0; want_out "$want_msg"$'\n'"$want_msg"
done_t

t "a library dlopened after start is mocked too"
run "$M" -q -e 'will_return(read, _, buf="late")' "$PROBE" dlopen "$LIBLATE" /etc/hostname
want_rc 0; want_out "read_first: 4 [late]"; done_t

t "from= knows a library dlopened after start"
run "$M" -q -e 'will_return(read, _, buf="late", from="liblate.so")' "$PROBE" dlopen "$LIBLATE" /etc/hostname
want_rc 0; want_out "read_first: 4 [late]"; done_t

t "from= naming the program does not match the library's calls"
run "$M" -e 'will_return_maybe(read, _, buf="late", from="probe")' "$PROBE" dlopen "$LIBLATE" /etc/hostname
want_rc 0; want_err_has "used 0 times (maybe)"
case "$out" in *late*) problem "the library's read was mocked: $out" ;; esac; done_t

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

t "read: buf output, '_' is the byte count"
run "$M" -q -e 'will_return(read, _, buf="AB\x00C")' "$PROBE" read /dev/null 16
want_rc 0; want_out "read: 4 0 41420043"; done_t

t "read: the copy never exceeds count"
run "$M" -q -e 'will_return(read, _, buf="ABCDEFGH")' "$PROBE" read /dev/null 3
want_rc 0; want_out "read: 3 0 414243"; done_t

t "read: will_fail gives -1 and the row's errno"
run "$M" -q -e 'will_fail(read)' "$PROBE" read /dev/zero 4
want_rc 0; want_out "read: -1 EIO "; done_t

t "read: will_fail with an errno name"
run "$M" -q -e 'will_fail(read, EINTR)' "$PROBE" read /dev/zero 4
want_rc 0; want_out "read: -1 EINTR "; done_t

t "open: will_fail_count fails twice, then the real open runs"
run "$M" -q -e 'will_fail_count(open, EACCES, 1)' "$PROBE" read /dev/zero 2
want_rc 1; want_out "open: -1 EACCES"; done_t

t "open: the variadic mode reaches the real open (unarmed)"
run "$M" -q -e 'will_return_maybe(getuid, 1)' "$PROBE" creat "$T/f1"
want_rc 0; want_out "creat: mode=640"; done_t

t "open: the variadic mode reaches the real open (armed, no rule matches)"
run "$M" -q -e 'will_fail(open, in="not-this-program")' --error-exitcode 0 "$PROBE" creat "$T/f2"
want_rc 0; want_out "creat: mode=640"; done_t

t "clock_gettime: *tp struct output"
run "$M" -q -e 'will_return(clock_gettime, 0, *tp={1700000000, 5})' "$PROBE" clock
want_rc 0; want_out "clock: 0 1700000000.000000005 0"; done_t

t "clock_gettime: errno= on a will_return"
run "$M" -q -e 'will_return(clock_gettime, -1, errno=EINVAL)' "$PROBE" clock
want_rc 0; want_out "clock: -1 0.000000000 EINVAL"; done_t

t "gettimeofday: *tv struct output with designated fields"
run "$M" -q -e 'will_return(gettimeofday, 0, *tv={.tv_usec = 42, .tv_sec = 99})' "$PROBE" gettimeofday
want_rc 0; want_out "gettimeofday: 0 99.000042"; done_t

t "time: the return value is also stored through tloc"
run "$M" -q -e 'will_return_count(time, 1700000000, 2)' "$PROBE" time
want_rc 0; want_out "time: 1700000000 1700000000 null=1700000000"; done_t

t "stat: *statbuf designated fields"
run "$M" -q -e 'will_return(stat, 0, *statbuf={.st_size = 4096, .st_mode = S_IFREG|0644})' "$PROBE" stat /nonexistent
want_rc 0; want_out "stat: 0 0 size=4096 mode=100644"; done_t

t "stat: will_fail with ENOENT on an existing file"
run "$M" -q -e 'will_fail(stat)' "$PROBE" stat /
want_rc 0; want_out "stat: -1 ENOENT size=0 mode=0"; done_t

t "uname: *buf with string fields"
run "$M" -q -e 'will_return(uname, _, *buf={"Plan9", "mockhost"})' "$PROBE" uname
want_rc 0; want_out "uname: 0 Plan9 mockhost"; done_t

t "gethostname: the string is truncated and terminated within len"
run "$M" -q -e 'will_return(gethostname, _, name="averyverylongname")' "$PROBE" gethostname
want_rc 0; want_out "gethostname: 0 [averyve]"; done_t

t "getrandom: buf output"
run "$M" -q -e 'will_return(getrandom, _, buf="\x01\x02\x03")' "$PROBE" getrandom
want_rc 0; want_out "getrandom: 3 010203"; done_t

t "getenv: a string return value"
run "$M" -q -e 'will_return(getenv, "mocked value")' "$PROBE" getenv HOME
want_rc 0; want_out "getenv: mocked value"; done_t

t "strdup: a string reply is the program's to free (a copy from its malloc)"
run "$M" -q -e 'will_return(strdup, "mocked copy")' "$PROBE" strdup original
want_rc 0; want_out "strdup: mocked copy"
run "$M" -q -e 'will_fail(strdup)' "$PROBE" strdup original
want_rc 0; want_out "strdup: (null)"; done_t

t "getpwuid_r: the entry's strings go in the caller's buffer; too small a buffer is ERANGE"
run "$M" -q -e 'will_return(getpwuid_r, 0, *pwd={.pw_name = "alice", .pw_uid = 7, .pw_dir = "/users/alice", .pw_shell = "/bin/sh"})' "$PROBE" getpwuid_r 256
want_rc 0; want_out "getpwuid_r: alice 7 /users/alice /bin/sh"
# alice, "", "", /users/alice, /bin/sh: 6 + 1 + 1 + 13 + 8 = 29 bytes
run "$M" -q -e 'will_return(getpwuid_r, 0, *pwd={.pw_name = "alice", .pw_dir = "/users/alice", .pw_shell = "/bin/sh"})' "$PROBE" getpwuid_r 28
want_rc 0; want_out "getpwuid_r: 34 NULL"
run "$M" -q -e 'will_return(getpwuid_r, 0, *pwd={.pw_name = "alice", .pw_dir = "/users/alice", .pw_shell = "/bin/sh"})' "$PROBE" getpwuid_r 29
want_rc 0; want_out "getpwuid_r: alice 0 /users/alice /bin/sh"
run "$M" -q -e 'will_fail(getpwuid_r)' "$PROBE" getpwuid_r 256
want_rc 0; want_out "getpwuid_r: 5 NULL"
# alone in a file: a pool smaller than a passwd record (the "no entry"
# output carries none)
echo 'will_fail(getpwuid_r)' > "$T/pwr.mock"
run "$M" -q -f "$T/pwr.mock" "$PROBE" getpwuid_r 256
want_rc 0; want_out "getpwuid_r: 5 NULL"; want_err_lacks "warning"; done_t

t "getline (inlined as __getdelim): will_fail gives -1 with the row's errno and sets the stream's error flag"
run "$M" -q -e 'will_fail(getline)' "$PROBE" getline /etc/hostname
want_rc 0; want_out "getline: -1 EIO ferror=1"
run "$M" -q -e 'expect_value(getdelim, delim, 10)' "$PROBE" getline /etc/hostname
want_rc 0; want_out_has "ferror=0"; done_t

t "getsockname: the address is cut to *addrlen, which then holds its full size"
run "$M" -q -e 'will_return(getsockname, 0, *addr="127.0.0.1:258")' "$PROBE" getsockname 4
# family AF_INET (2), port 258 in network order (01 02), then untouched
want_rc 0; want_out "getsockname: 0 len=16 02000102eeeeeeee"
run "$M" -q -e 'will_return(getsockname, 0, *addr="127.0.0.1:258")' "$PROBE" getsockname 32
want_rc 0; want_out "getsockname: 0 len=16 020001027f000001"; done_t

t "poll: *fds={...} sets each entry's revents (the rest 0), and '_' counts the nonzero ones"
run "$M" -q -e 'will_return(poll, _, *fds={POLLIN, 0})' "$PROBE" poll
want_rc 0; want_out "poll: 1 1 0 0"
run "$M" -q -e 'will_return(poll, _, *fds={POLLIN|POLLHUP, POLLOUT, POLLERR})' "$PROBE" poll
want_rc 0; want_out "poll: 3 11 4 8"
run "$M" -q -e 'will_return(poll, _, *fds={"POLLIN"})' "$PROBE" poll
want_rc 125; want_err_has "revents are POLL* flags"
# no entry (nfds 0, fds NULL): nothing to fill, no failure
run "$M" -q -e 'will_return(poll, 0, *fds={POLLIN})' "$PROBE" poll0
want_rc 0; want_out "poll0: 0"; done_t

t "repeat() and file() make byte outputs; file() is relative to the spec file"
run "$M" -q -e 'will_return(read, _, buf=repeat("ab", 3))' "$PROBE" read /dev/zero 16
want_rc 0; want_out "read: 6 0 616261626162"
printf 'X\001Y' > "$T/bytes.bin"
run "$M" -q -e "will_return(read, _, buf=file(\"$T/bytes.bin\"))" "$PROBE" read /dev/zero 16
want_rc 0; want_out "read: 3 0 580159"
mkdir -p "$T/specdir"; printf 'abcd' > "$T/specdir/data"
echo 'will_return(read, _, buf=file("data"))' > "$T/specdir/rel.mock"
run "$M" -q -f "$T/specdir/rel.mock" "$PROBE" read /dev/zero 16
want_rc 0; want_out "read: 4 0 61626364"
run "$M" -q -e 'will_return(read, _, buf=file("/nonexistent/x"))' "$PROBE" read /dev/zero 16
want_rc 125; want_err_has 'file("/nonexistent/x"): cannot read: No such file or directory'; done_t

t "arc4random: a value, and no will_fail (it cannot fail)"
run "$M" -q -e 'will_return(arc4random, 4000000000)' "$PROBE" arc4random
want_rc 0; want_out "arc4random: 4000000000"
run "$M" -q -e 'will_fail(arc4random)' "$PROBE" arc4random
want_rc 125; want_err_has "arc4random() cannot fail"; done_t

t "getenv: NULL"
run "$M" -q -e 'will_return(getenv, NULL)' "$PROBE" getenv HOME
want_rc 0; want_out "getenv: (null)"; done_t

t "malloc: will_fail gives NULL and ENOMEM"
run "$M" -q -e 'will_fail(malloc)' "$PROBE" malloc
want_rc 0; want_out "malloc: NULL ENOMEM"; done_t

t "fgets: s output, '_' is s"
run "$M" -q -e 'will_return(fgets, _, s="mocked line")' "$PROBE" fgets /etc/hostname
want_rc 0; want_out "fgets: s ferror=0 [mocked line]"; done_t

t "fgets: will_fail sets the stream's error indicator"
run "$M" -q -e 'will_fail(fgets)' "$PROBE" fgets /etc/hostname
want_rc 0; want_out "fgets: NULL ferror=1 []"; done_t

t "fread: '_' counts items of size bytes"
run "$M" -q -e 'will_return(fread, _, ptr="abcdefghij")' "$PROBE" fread /etc/hostname
want_rc 0; want_out "fread: 2 ferror=0 [abcdefgh]"; done_t

t "fread: will_fail sets the stream's error indicator"
run "$M" -q -e 'will_fail(fread)' "$PROBE" fread /etc/hostname
want_rc 0; want_out "fread: 0 ferror=1 []"; done_t

t "getaddrinfo: will_fail returns the EAI code"
run "$M" -q -e 'will_fail(getaddrinfo, EAI_AGAIN)' "$PROBE" getaddrinfo localhost
want_rc 0; want_out "getaddrinfo: -3 Temporary failure in name resolution"; done_t

t "errno is preserved on mocked and real paths"
run "$M" -q -e 'will_return(getuid, 3); will_call_real(getpid); will_return_maybe(geteuid, 4)' "$PROBE" errno
want_rc 0; want_out "errno preserved"; done_t

t "in= scopes a rule to matching executables"
run "$M" -e "will_return(getuid, 5, in=\"probe\")" sh -c "\"$PROBE\" getuid 1"
want_rc 0; want_out "5"; want_err_has "by probe["; done_t

t "in= that matches nothing leaves the rule unconsumed"
run "$M" -e 'will_return(getuid, 5, in="nothing*")' "$PROBE" getuid 1
want_rc 123; want_out "$uid"; done_t

t "delay= sleeps before replying"
start=$(date +%s%N)
run "$M" -q -e 'will_return(getuid, 1, delay=300ms)' "$PROBE" getuid 1
elapsed=$((($(date +%s%N) - start) / 1000000))
want_rc 0; want_out "1"
[ "$elapsed" -ge 290 ] || problem "took ${elapsed}ms, expected at least 300ms"; done_t

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

t "LD_PRELOAD is appended to, not replaced"
run env LD_PRELOAD="$LIBNOTHING" "$M" -q -e 'will_return_maybe(getuid, 1)' "$PROBE" getenv LD_PRELOAD
want_rc 0; want_out "getenv: $LIBNOTHING:$SHIM"; done_t

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

t "mockrun waits for descendants that left the process group"
rm -f "$T/grandchild"
run "$M" -q -e 'will_return_maybe(getuid, 1)' "$PROBE" daemon 300 "$T/grandchild"
want_rc 0; [ -e "$T/grandchild" ] || problem "mockrun returned before the grandchild finished"; done_t

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

t "a missing channel: warn once, run unmocked"
run env LD_PRELOAD="$SHIM" MOCKSHIM_CHANNEL="$T/none" "$PROBE" getuid 1
want_rc 0; want_out "$uid"; want_err_has "ignoring the channel $T/none: ENOENT"; done_t

t "the program's versioned references bind to the shim (clock_gettime@GLIBC_2.17)"
nm -D --undefined-only "$PROBE" | grep -q 'clock_gettime@GLIBC_2.17' || problem "probe does not import clock_gettime@GLIBC_2.17"
run "$M" -q -e 'will_return(clock_gettime, 0, *tp={7, 0})' "$PROBE" clock
want_out "clock: 0 7.000000000 0"; done_t

finish
