#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Real system programs under mockrun (Debian 12, coreutils 9.1, glibc 2.36).
. "$(dirname "$0")/../lib.sh"

M=$MOCKRUN

# imports PROGRAM SYMBOL...: the program imports each symbol (what we mock)
imports() {
	local prog
	prog=$(command -v "$1") || { problem "$1 not found"; return; }
	shift
	for sym in "$@"; do
		nm -D --undefined-only "$prog" | awk '{print $2}' | grep -qx "$sym" ||
			problem "$prog does not import $sym"
	done
}

t "the programs import what the tests mock (nm -D --undefined-only)"
imports cat "read@$GLIBC_BASE" "write@$GLIBC_BASE" copy_file_range@GLIBC_2.27
imports date clock_gettime@GLIBC_2.17
imports id "geteuid@$GLIBC_BASE"
imports mkdir "mkdir@$GLIBC_BASE"
imports cp copy_file_range@GLIBC_2.27
imports getent "getaddrinfo@$GLIBC_BASE"
done_t

t "cat FILE with will_fail(read, EIO) exits 1 with Input/output error"
run "$M" -e 'will_fail(read, EIO)' cat /etc/hostname
want_rc 1; want_out ""; want_err_has "cat: /etc/hostname: Input/output error"
want_err_has "will_fail(read, EIO): 1 of 1 used, by cat["; done_t

t "cat with a read returning mocked bytes"
# then EOF: after the queue, reads would go to the real file
run "$M" -q -e 'will_return(read, _, buf="mocked\n"); will_return(read, 0)' cat /etc/hostname
want_rc 0; want_out "mocked"; done_t

t "date +%s under a fixed clock prints the fixed time"
run "$M" -q -e 'will_return_always(clock_gettime, 0, *tp={1700000000, 0})' date +%s
want_rc 0; want_out "1700000000"; done_t

t "date -u under a fixed clock formats the fixed time"
run "$M" -q -e 'will_return_always(clock_gettime, 0, *tp={1700000000, 0})' env TZ=UTC date -u '+%F %T'
want_rc 0; want_out "2023-11-14 22:13:20"; done_t

t "id -u with a mocked geteuid prints the mocked uid"
mine=$(id -u)
fake=$((mine + 4242))
run "$M" -q -e "will_return(geteuid, $fake)" id -u
want_rc 0; want_out "$fake"; done_t

t "id -u with a leftover: exit 123, the function named"
run "$M" -e 'will_return_count(geteuid, 4242, 2)' id -u
want_rc 123; want_out "4242"; want_err_has "geteuid() has remaining non-returned values"; done_t

t "mkdir with EACCES fails and creates nothing"
run "$M" -q -e 'will_fail(mkdir, EACCES)' mkdir "$T/newdir"
want_rc 1; want_err_has "Permission denied"
[ ! -e "$T/newdir" ] || problem "the directory was created"; done_t

t "cp with ENOSPC on copy_file_range"
echo data > "$T/src"
run "$M" -q -e 'will_fail(copy_file_range, ENOSPC)' cp "$T/src" "$T/dst"
want_rc 1; want_err_has "No space left on device"; done_t

t "getent ahosts with a failing getaddrinfo"
run "$M" -q -e 'will_fail(getaddrinfo, EAI_NONAME)' getent ahosts localhost
want_rc 2; want_out ""; done_t

t "getent ahosts with a mocked getaddrinfo prints the mocked addresses"
run "$M" -q -e 'will_return(getaddrinfo, 0, *res={"10.1.2.3", "::1"})' getent ahosts example.invalid
want_rc 0
want_out "10.1.2.3        STREAM example.invalid
10.1.2.3        DGRAM  
10.1.2.3        RAW    
::1             STREAM 
::1             DGRAM  
::1             RAW    "; done_t

t "getent ahostsv4 filters the mocked list by family, as the resolver would"
run "$M" -q -e 'will_return(getaddrinfo, _, *res={"::1", "192.0.2.7"})' getent ahostsv4 example.invalid
want_rc 0; want_out_has "192.0.2.7       STREAM example.invalid"
case "$out" in *::1*) problem "an IPv6 address came through: $out" ;; esac; done_t

t "python3: socket.getaddrinfo sees the mocked address and port"
if [ -x /usr/bin/python3 ]; then
	run "$M" -q -e 'will_return(getaddrinfo, 0, *res={"203.0.113.9"}, in="python3*")' /usr/bin/python3 -S -c 'import socket; print(sorted({a[4] for a in socket.getaddrinfo("example.invalid", 8080)}))'
	want_rc 0; want_out "[('203.0.113.9', 8080)]"; done_t
else
	skip_t "python3: socket.getaddrinfo sees the mocked address and port" "/usr/bin/python3 not installed"
fi

t "getent ahosts without mocks resolves localhost"
run "$M" -q -e 'will_return_maybe(getaddrinfo, EAI_FAIL, in="nothing")' getent ahosts localhost
want_rc 0; want_out_has "127.0.0.1"; done_t

t "sh -c pipeline: only the selected program is mocked"
run "$M" -e 'will_return_always(geteuid, 4242, in="id")' sh -c 'id -u | cat; id -u'
want_rc 0; want_out "4242
4242"; want_err_has "by id["; done_t

t "in= matches argv[0]'s basename: id started through a link named myid"
ln -sf "$(command -v id)" "$T/myid"
run "$M" -e 'will_return_always(geteuid, 4242, in="myid")' sh -c "$T/myid -u; id -u"
want_rc 0; want_out "4242
$(id -u)"; want_err_has "by id["; done_t

t "sh -c 'cat a; cat b' with will_fail_count(read, EIO, 1, in=\"cat\"): exactly one cat fails"
echo a > "$T/a"; echo b > "$T/b"
run "$M" -e 'will_fail_count(read, EIO, 1, in="cat")' sh -c "cat $T/a; cat $T/b"
want_rc 0; want_out "b"; want_err_has "cat: $T/a: Input/output error"
want_err_lacks "$T/b: Input"; done_t

t "python3: os.urandom reads the mocked getrandom"
if [ -x /usr/bin/python3 ]; then
	run "$M" -q -e 'will_return_always(getrandom, _, buf="\xaa\xaa\xaa\xaa")' /usr/bin/python3 -S -c 'import os; print(os.urandom(4).hex())'
	want_rc 0; want_out "aaaaaaaa"; done_t
else
	skip_t "python3: os.urandom reads the mocked getrandom" "/usr/bin/python3 not installed"
fi

t "id -gn and getent group with a mocked struct group"
run "$M" -q -e 'will_return(getgrgid, {.gr_name = "staff", .gr_gid = 50})' id -gn
want_rc 0; want_out "staff"
run "$M" -q -e 'will_return(getgrnam, {.gr_name = "devs", .gr_passwd = "x", .gr_gid = 77, .gr_mem = "alice,bob"})' getent group devs
want_rc 0; want_out "devs:x:77:alice,bob"
run "$M" -q -e 'will_return(getgrnam, NULL)' getent group root
want_rc 2; done_t

t "whoami and id -un with a mocked struct passwd"
run "$M" -q -e 'will_return_always(getpwuid, {.pw_name = "alice", .pw_uid = 1000, .pw_dir = "/users/alice"})' whoami
want_rc 0; want_out "alice"
run "$M" -q -e 'will_return(geteuid, 1000); will_return_always(getpwuid, {"alice", "x", 1000, 1000, "Alice", "/users/alice", "/bin/sh"})' id -un
want_rc 0; want_out "alice"; done_t

t "whoami when getpwuid finds nobody"
run "$M" -q -e 'will_return_always(getpwuid, NULL)' whoami
want_rc 1; want_err_has "cannot find name for user ID"; done_t

# ---- --check ----

t "--check says what the program imports, warns about what nothing imports, then runs"
run "$M" -q --check -e 'will_fail(read, EIO); will_return_maybe(fork, 0)' cat /etc/hostname
want_rc 1; want_err_has "check: read() is imported by $(command -v cat)"
want_err_has "check: warning: nothing in $(command -v cat) imports fork()"
want_err_has "cat: /etc/hostname: Input/output error"; done_t

t "--check finds a function a library imports, and suggests from="
# id takes getpwuid from libc, and libselinux and libpcre2 come along:
# find a catalog function id does not import but one of its libraries does
run "$M" -q --check -e 'will_return_maybe(fopen, NULL)' id -u
want_rc 0
case "$err" in
*"check: fopen() is imported by /"*"(use from=\""*) ;;
*"check: fopen() is imported by $(command -v id)"*) ;;
*) problem "no import found for fopen: $err" ;;
esac; done_t

# ---- --trace ----

t "--trace: cat's calls as strace sees them (fds, sizes, results)"
printf 'hello\n' > "$T/traced"
run "$M" -q --trace=open,read,close --trace-file "$T/trace.txt" cat "$T/traced"
want_rc 0; want_out "hello"
# the descriptor numbers may differ (the harness's own fds): compare the rest
ours=$(grep -E ': (read|close)\(' "$T/trace.txt" | nosite | sed -E 's/^[0-9]+ cat: //; s/0x[0-9a-f]+/BUF/; s/\(([0-9]+)/(FD/')
# strace needs ptrace, which qemu-user does not give: compared where it works
if command -v strace >/dev/null && strace -o /dev/null true 2>/dev/null; then
	strace -e trace=openat,read,close -o "$T/strace.txt" cat "$T/traced" >/dev/null 2>&1
	theirs=$(sed -n '/openat(AT_FDCWD, ".*traced"/,$p' "$T/strace.txt" | grep -E '^(read|close)\(' |
		sed -E 's/"([^"\\]|\\.)*"(\.\.\.)?/BUF/; s/ +/ /g; s/\(([0-9]+)/(FD/' | head -3)
	ours=$(printf '%s\n' "$ours" | head -3)
	[ -n "$ours" ] && [ "$ours" = "$theirs" ] || problem "trace [$ours] vs strace [$theirs]"
fi
grep -Eq "open\(\"$T/traced\", O_RDONLY\) = [0-9]+ at cat\+0x[0-9a-f]+\$" "$T/trace.txt" || problem "no open line: $(cat "$T/trace.txt")"
done_t

t "--trace shows mocked replies and decoded errors"
run "$M" -q --trace=open,read -e 'will_fail(read, EIO)' cat /etc/hostname
want_rc 1; want_err_has "cat: read(3, 0x"; want_err_has ") = -1 EIO (mocked: -e#1:1)"; done_t

t "--trace of write does not recurse, and errors are decoded"
run "$M" -q --trace=write,open sh -c 'echo x > /nonexistent/dir/f; echo done'
want_rc 0; want_out "done"; want_err_has 'open("/nonexistent/dir/f", O_WRONLY|O_CREAT|O_TRUNC, 0666) = -1 ENOENT'
want_err_has "write(1, 0x"; done_t

t "--trace with an unknown function: 125"
run "$M" --trace=nosuch true
want_rc 125; want_err_has "--trace: 'nosuch' is not in the catalog"; done_t

# ---- expectations on real programs ----

t "cat: expect_string on open passes, and the real open runs"
run "$M" -q -e 'expect_string(open, pathname, "/etc/hostname")' cat /etc/hostname
want_rc 0; want_out "$(cat /etc/hostname)"; done_t

t "cat: expect_string on open fails with both strings"
run "$M" -e 'expect_string(open, pathname, "/etc/passwd")' cat /etc/hostname
want_rc 123; want_out "$(cat /etc/hostname)"
want_err_has 'open() call 1 in cat['; want_err_has 'parameter pathname: expected "/etc/passwd", got "/etc/hostname"'
want_err_has "called from cat+0x"; done_t

t "cp: copy_file_range flags are 0 on every call"
echo data > "$T/cp-src"
run "$M" -q -e 'expect_value_count(copy_file_range, flags, 0, -1)' cp "$T/cp-src" "$T/cp-dst"
want_rc 0; done_t

t "cp: a wrong expectation on copy_file_range fails"
rm -f "$T/cp-dst"
run "$M" -e 'expect_value(copy_file_range, flags, 1)' cp "$T/cp-src" "$T/cp-dst"
want_rc 123; want_err_has "copy_file_range() call 1 in cp["; want_err_has "parameter flags: expected 1, got 0"; done_t

t "rm: unlinkat gets the path given"
mkdir -p "$T/rmdir"; touch "$T/rmdir/victim"
run "$M" -q -e "expect_string(unlinkat, pathname, \"$T/rmdir/victim\")" rm "$T/rmdir/victim"
want_rc 0; [ ! -e "$T/rmdir/victim" ] || problem "not removed"; done_t

t "rm: expect_no_call(unlinkat) catches the removal"
touch "$T/rmdir/victim"
run "$M" -e 'expect_no_call(unlinkat)' rm "$T/rmdir/victim"
want_rc 123; want_err_has "unlinkat() call 1 in rm["; want_err_has "called, but expect_no_call forbids any call"; done_t

t "mkdir: the mode is 0777 (the umask is the kernel's business)"
run "$M" -q -e "expect_value(mkdir, mode, 0777); expect_string(mkdir, pathname, \"$T/md1\")" mkdir "$T/md1"
want_rc 0; [ -d "$T/md1" ] || problem "not created"; done_t

t "mkdir: a wrong mode expectation shows both modes in octal"
run "$M" -e 'expect_value(mkdir, mode, 0700)' mkdir "$T/md2"
want_rc 123; want_err_has "parameter mode: expected 0700, got 0777"; done_t

t "sh -c: expectations scoped with in= check only the cats, in order"
echo a > "$T/a"; echo b > "$T/b"
run "$M" -q -e "expect_string(open, pathname, \"$T/a\", in=\"cat\"); expect_string(open, pathname, \"$T/b\", in=\"cat\")" sh -c "cat $T/a; cat $T/b"
want_rc 0; want_out "a
b"; done_t

t "sh -c: the second cat breaks the expected order"
run "$M" -e "expect_string(open, pathname, \"$T/b\", in=\"cat\"); expect_string(open, pathname, \"$T/a\", in=\"cat\")" sh -c "cat $T/a; cat $T/b"
want_rc 123; want_err_has "parameter pathname: expected \"$T/b\", got \"$T/a\""
want_err_has "parameter pathname: expected \"$T/a\", got \"$T/b\""; done_t

t "stat (coreutils 9 calls statx): a failing statx is reported"
run "$M" -q -e 'will_fail(statx, ENOENT)' stat /
want_rc 1; want_err_has "cannot statx '/': No such file or directory"; done_t

t "wc prints through __printf_chk: printf's rules and checks reach it"
run "$M" -q -e 'will_return_always(printf, 0)' wc -l /etc/passwd
want_rc 0; want_out ""
run "$M" -e 'expect_string(printf, format, "%d")' wc -l /etc/passwd
want_rc 123; want_err_has 'parameter format: expected "%d", got "%*s"'; done_t

if [ -x /usr/bin/python3 ]; then
	PY=(/usr/bin/python3 -S -c)
	t "python3: pwd.getpwnam reads a struct passwd that getpwnam_r filled in its buffer"
	run "$M" -q -e 'will_return(getpwnam_r, 0, *pwd={.pw_name = "alice", .pw_passwd = "x", .pw_uid = 1234, .pw_gid = 99, .pw_gecos = "A", .pw_dir = "/users/alice", .pw_shell = "/bin/sh"})' \
		"${PY[@]}" 'import pwd; p = pwd.getpwnam("x"); print(p.pw_name, p.pw_uid, p.pw_gid, p.pw_dir, p.pw_shell)'
	want_rc 0; want_out "alice 1234 99 /users/alice /bin/sh"
	# no entry given: "not found" (*result = NULL, 0)
	run "$M" -q -e 'will_return(getpwnam_r, 0)' "${PY[@]}" 'import pwd; pwd.getpwnam("root")'
	want_rc 1; want_err_has "name not found: 'root'"; done_t

	t "python3: getnameinfo's host and service outputs"
	run "$M" -q -e 'will_return(getnameinfo, 0, host="mocked.example", serv="http")' \
		"${PY[@]}" 'import socket; print(socket.getnameinfo(("127.0.0.1", 80), 0))'
	want_rc 0; want_out "('mocked.example', 'http')"; done_t

	t "python3: getpeername and getsockname fill IPv4, IPv6 and unix addresses"
	run "$M" -q -e 'will_return(getpeername, 0, *addr="203.0.113.5:4242")' \
		"${PY[@]}" 'import socket; print(socket.socket().getpeername())'
	want_rc 0; want_out "('203.0.113.5', 4242)"
	run "$M" -q -e 'will_return(getpeername, 0, *addr="[2001:db8::7]:443")' \
		"${PY[@]}" 'import socket; print(socket.socket(socket.AF_INET6).getpeername())'
	want_rc 0; want_out "('2001:db8::7', 443, 0, 0)"
	run "$M" -q -e 'will_return(getsockname, 0, *addr="unix:/run/mocked.sock")' \
		"${PY[@]}" 'import socket; print(socket.socket(socket.AF_UNIX).getsockname())'
	want_rc 0; want_out "/run/mocked.sock"
	run "$M" -q -e 'will_return(getpeername, 0, *addr="not an address")' true
	want_rc 125; want_err_has 'expected an address: "127.0.0.1:8080", "[::1]:80" or "unix:/path"'
	done_t

	t "python3: pipe2, mmap and posix_spawn fail with the errno given"
	run "$M" -q -e 'will_fail(pipe2, EMFILE)' "${PY[@]}" 'import os; os.pipe()'
	want_rc 1; want_err_has "OSError: [Errno 24] Too many open files"
	run "$M" -q -e 'will_fail(mmap, ENOMEM, from="mmap*")' "${PY[@]}" 'import mmap; mmap.mmap(-1, 4096)'
	want_rc 1; want_err_has "[Errno 12] Cannot allocate memory"
	run "$M" -q -e 'will_fail(posix_spawn)' "${PY[@]}" 'import os; os.posix_spawn("/bin/true", ["true"], {})'
	want_rc 1; want_err_has "[Errno 11] Resource temporarily unavailable: '/bin/true'"; done_t

	t "python3: a declared libm function, double in and out (python3 is not PIE)"
	run "$M" --timeout 20 -e 'mock double cos(double x)' -e 'expect_value(cos, x, 0.5)' \
		-e 'will_return(cos, 42.5)' "${PY[@]}" 'import math; print(math.cos(0.5), math.cos(0.0))'
	want_rc 123; want_out "42.5 1.0"
	want_err_has "cos() call 2 in python3"; want_err_has "parameter x: no expected value left"
	done_t
else
	skip_t "python3: getpwnam_r, getnameinfo, pipe2, mmap, posix_spawn" "/usr/bin/python3 not installed"
fi

t "sort in a UTF-8 locale: a declared strcoll of libc decides the order"
run env LC_ALL=C.UTF-8 "$M" -q -e 'mock int strcoll(const char *s1, const char *s2)' -e 'will_return_always(strcoll, 0)' \
	sort -s <<<$'b\na\nc'
want_rc 0; want_out $'b\na\nc'
run env LC_ALL=C.UTF-8 "$M" -q -e 'mock int strcoll(const char *s1, const char *s2)' -e 'expect_string_count(strcoll, s1, "zz", -1)' \
	-e 'will_return_maybe(strcoll, 0)' sort <<<$'b\na'
want_rc 123; want_err_has 'parameter s1: expected "zz", got "'
done_t

t "dd iflag=nonblock sets stdin's flags with fcntl: a failing fcntl is reported"
run "$M" -q -e 'will_fail(fcntl, EBADF)' dd iflag=nonblock of=/dev/null status=none < /dev/null
want_rc 1; want_err_has "dd: setting flags for 'standard input': Bad file descriptor"; done_t

t "CMocka's expect_any_always(open, pathname) on cat: checked, quoted as written"
run "$M" -e 'expect_any_always(open, pathname)' cat /etc/hostname
want_rc 0; want_err_has "expect_any_always(open, pathname): checked 1 time (always)"
# never called: a leftover in CMocka's words, the statement as written
run "$M" -e 'expect_any_always(open, pathname)' true
want_rc 123; want_err_has "open(): \`pathname\` parameter still has values that haven't been checked"
want_err_has "    expect_any_always(open, pathname)"
# a name neither CMocka nor mockshim has: the same error as before
run "$M" -e 'expect_any_sometimes(open, pathname)' true
want_rc 125; want_err_has "-e#1:1:1: error: unknown statement 'expect_any_sometimes'"; done_t

t "CMocka's expect_function_call_any(read) on cat: one or more reads at their place"
# cat reads a small file in two reads (the bytes, then EOF) between the
# open and the close
echo small > "$T/small.txt"
run "$M" -e 'expect_function_call(open); expect_function_call_any(read); expect_function_call(close)' \
	cat "$T/small.txt"
want_rc 0; want_err_has "expect_function_call_any(read): called 2 times (at least once)"
want_err_has "all checks passed"
run "$M" -e 'expect_function_call_any(read); expect_function_call(open)' cat "$T/small.txt"
want_rc 123; want_err_has "called out of order: call #1 of the sequence should be read() (-e#1:1), but open() came"
run "$M" -e 'expect_function_call_any(unlink)' cat "$T/small.txt"
want_rc 123; want_err_has "unlink() was expected to be called but was not (called 0 times (at least once))"
done_t

finish
