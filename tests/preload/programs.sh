#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The catalog's newer rows on real programs (coreutils 9, dash, getent):
# each test checks what the program printed or how it failed, and that
# the report accounts for the statement.
. "$(dirname "$0")/../lib.sh"

M=$MOCKRUN
echo hello > "$T/file"
STATX='*statxbuf={.stx_mask = STATX_BASIC_STATS, .stx_size = 4096, .stx_mode = S_IFREG|0644, .stx_nlink = 1, .stx_mtime = {1700000000, 0}}'

t "stat -c %s shows the size of a faked statx"
run "$M" -e "will_return_always(statx, 0, $STATX)" stat -c '%s %Y' "$T/file"
want_rc 0
want_out "4096 1700000000"
want_err_has "all checks passed"
done_t

t "ls -l shows the size and mtime of a faked statx"
run "$M" -e "will_return_always(statx, 0, $STATX)" ls -l --time-style=+%s "$T/file"
want_rc 0
want_out_has " 4096 1700000000 "
done_t

t "a statx timestamp given as an integer is its seconds"
run "$M" -e 'will_return_always(statx, 0, *statxbuf={.stx_mask = STATX_BASIC_STATS, .stx_mtime = 1234567890})' stat -c '%Y' "$T/file"
want_rc 0
want_out "1234567890"
done_t

t "a statx literal names a field it does not have: the error lists the fields"
run "$M" -e 'will_return(statx, 0, *statxbuf={.st_size = 1})' stat "$T/file"
want_rc 125
want_err_has "struct statx has no field 'st_size'"
want_err_has "stx_size"
done_t

t "struct literals nest one level deep: a third level is refused with its place"
run "$M" -e 'will_return(statx, 0, *statxbuf={.stx_mtime = {{1, 2}, 0}})' stat "$T/file"
want_rc 125
want_err_has "-e#1:1:48: error: struct literals nest one level deep"
done_t

t "df shows a disk at 100% through statvfs"
run "$M" -e 'will_return_always(statvfs, 0, *buf={.f_bsize = 4096, .f_frsize = 4096, .f_blocks = 1000, .f_bfree = 0, .f_bavail = 0})' df "$T"
want_rc 0
want_out_has " 4000  4000         0 100% "
done_t

t "touch fails through utimensat"
mkdir "$T/dir"
run "$M" -e 'will_fail(utimensat, EACCES)' touch "$T/dir"
want_rc 1
want_err_has "setting times of"
want_err_has "Permission denied"
want_err_has "will_fail(utimensat, EACCES): 1 of 1 used"
done_t

t "mv copies across devices when renameat2 says EXDEV"
echo moved > "$T/a"
run "$M" -e 'will_fail(renameat2, EXDEV)' -e 'expect_function_call(renameat2)' mv "$T/a" "$T/b"
want_rc 0
want_err_has "will_fail(renameat2, EXDEV): 1 of 1 used"
want_err_has "all checks passed"
[ "$(cat "$T/b" 2>/dev/null)" = moved ] || problem "b does not hold a's text"
[ ! -e "$T/a" ] || problem "a is still there"
done_t

t "sh -c ls cannot start ls when vfork fails"
run "$M" -e 'will_fail(vfork, EAGAIN, in="dash")' sh -c 'ls /'
want_rc 2
want_err_has "Cannot fork"
want_err_has "will_fail(vfork, EAGAIN, in=\"dash\"): 1 of 1 used"
done_t

t "an unmocked vfork runs the child and returns to the parent"
run "$M" -e 'will_call_real(vfork)' sh -c 'ls -d /; echo parent'
want_rc 0
want_out "/
parent"
want_err_has "will_call_real(vfork): 1 of 1 used"
done_t

t "getent hosts asks gethostbyname2 (AF_INET6, then AF_INET): NULL is not found"
run "$M" -e 'will_return_count(gethostbyname2, NULL, 2)' -e 'expect_string_count(gethostbyname2, name, "example.invalid", 2)' -e 'expect_value(gethostbyname2, af, AF_INET6); expect_value(gethostbyname2, af, AF_INET)' getent hosts example.invalid
want_rc 2
want_out ""
want_err_has "all checks passed"
done_t

t "getent hosts prints the struct hostent gethostbyname2 gives from an address list"
run "$M" -e 'will_return_always(gethostbyname2, {"10.1.2.3", "10.1.2.4"})' getent hosts example.invalid
want_rc 0
want_out "10.1.2.3        example.invalid
10.1.2.4        example.invalid"
done_t

t "an IPv6 address list: the hostent is AF_INET6"
run "$M" -e 'will_return_always(gethostbyname2, {"::1"})' getent hosts example.invalid
want_rc 0
want_out "::1             example.invalid"
done_t

t "a hostent list that holds no address is refused before the program runs"
run "$M" -e 'will_return(gethostbyname2, {"not-an-address"})' getent hosts example.invalid
want_rc 125
want_err_has "expected an IPv4 or IPv6 address"
done_t

t "id USER asks getgrouplist for that user's groups"
run "$M" -e 'expect_string_count(getgrouplist, user, "root", -1)' id root
want_rc 0
want_out_has "uid=0(root)"
want_err_has "all checks passed"
done_t

t "id USER: an expectation getgrouplist does not meet is reported"
run "$M" -e 'expect_string_count(getgrouplist, user, "nobody", -1)' id root
want_rc 123
want_err_has "getgrouplist() call 1 in id"
want_err_has "parameter user: expected \"nobody\", got \"root\""
done_t

# mktemp(1) calls neither mkstemp nor getrandom here (gnulib's
# gen_tempname and open): the template output is tried through python's
# ctypes, which calls libc's mkstemp as a C program does
PY=/usr/bin/python3
t "mkstemp writes the template back: the name it returns is the mock's"
run "$M" -e 'will_return(mkstemp, 9, template="/tmp/fixed.ABCDEF")' "$PY" -c '
import ctypes
c = ctypes.CDLL(None)
b = ctypes.create_string_buffer(b"/tmp/fixed.XXXXXX")
print(c.mkstemp(b), b.value.decode())'
want_rc 0
want_out "9 /tmp/fixed.ABCDEF"
done_t

t "a template given longer than the program's is cut to the program's length"
run "$M" -e 'will_return(mkstemp, 9, template="/tmp/fixed.ABCDEFGHIJ")' "$PY" -c '
import ctypes
c = ctypes.CDLL(None)
b = ctypes.create_string_buffer(b"/tmp/fixed.XXXXXX" + bytes(8))
print(c.mkstemp(b), b.value.decode())'
want_rc 0
want_out "9 /tmp/fixed.ABCDEF"
done_t

t "mkdtemp returns its template, written back"
run "$M" -e 'will_return(mkdtemp, _, template="/tmp/dir.QQQQQQ")' "$PY" -c '
import ctypes
c = ctypes.CDLL(None)
c.mkdtemp.restype = ctypes.c_char_p
print(c.mkdtemp(ctypes.create_string_buffer(b"/tmp/dir.XXXXXX")).decode())'
want_rc 0
want_out "/tmp/dir.QQQQQQ"
done_t

t "date prints the struct tm that localtime_r gives"
run "$M" -e 'will_return_always(localtime_r, _, *result={.tm_year = 130, .tm_mon = 0, .tm_mday = 2, .tm_hour = 3, .tm_min = 4, .tm_sec = 5, .tm_zone = "XYZ"})' date '+%Y-%m-%d %H:%M:%S %Z'
want_rc 0
want_out "2030-01-02 03:04:05 XYZ"
done_t

t "a struct tm field out of range is refused before the program runs"
run "$M" -e 'will_return(localtime_r, _, *result={.tm_mon = 12})' date
want_rc 125
want_err_has "field tm_mon = 12 out of range"
done_t

t "perror, a row that returns nothing: a reply skips it, an expectation checks it"
run "$M" -e 'will_return(perror, _)' -e 'expect_string(perror, s, "quiet")' python3 -c 'import ctypes; ctypes.CDLL(None).perror(b"quiet")'
want_rc 0
want_err_lacks "quiet:"
want_err_has "all checks passed"
done_t

t "--list statx shows the fields its output takes, the timestamps' too"
run "$M" --list statx
want_rc 0
want_out_has "*statxbuf={struct statx: .stx_mask, "
want_out_has ".stx_size"
want_out_has ".stx_mtime = {tv_sec, tv_nsec}"
done_t

t "--list localtime_r: struct tm's fields, and _ is the result pointer"
run "$M" --list localtime_r
want_rc 0
want_out_has "*result={struct tm: .tm_sec, "
want_out_has ".tm_zone = \"...\""
done_t

t "--check: echo writes through stdio: it points to fwrite and fputs, and SYS_write"
run "$M" --check -e 'will_fail(write, EIO)' /usr/bin/echo hi
want_err_has "nothing in /usr/bin/echo imports write()"
want_err_has "it imports fwrite"
want_err_has "fputs (as fputs_unlocked)"
want_err_has "SYS_write"
done_t

t "--check: a fortified read is read, imported as __read_chk"
cat > "$T/fort.c" <<'C'
#include <unistd.h>
int main(int argc, char **argv) { char b[16]; (void)argv; return (int)read(0, b, (size_t)argc * 8) < 0; }
C
if cc -O2 -D_FORTIFY_SOURCE=2 "$T/fort.c" -o "$T/fort" 2>/dev/null; then
	run "$M" --check -e 'will_fail(read, EIO)' "$T/fort" < /dev/null
	want_err_has "read() is imported by $T/fort (as __read_chk)"
	want_rc 1
else
	problem "cannot build the fortified program"
fi
done_t

t "--check: dash imports fork, but starts commands with vfork: it says so"
run "$M" --check -e 'will_fail(fork)' sh -c true
want_err_has "fork() is imported by"
want_err_has "it also imports vfork"
done_t

t "--check: a #! script is checked as its interpreter, which takes the values too"
printf '#!/bin/sh\nid -u\n' > "$T/script.sh"
chmod +x "$T/script.sh"
run "$M" --check -e 'will_return(geteuid, 5)' "$T/script.sh"
want_err_has "check: $T/script.sh is a script run by /bin/sh"
want_err_has "check: geteuid() is imported by /bin/sh"
want_err_lacks "nothing in $T/script.sh imports"
printf '#!/usr/bin/env id\n' > "$T/envscript"
chmod +x "$T/envscript"
run "$M" --check -e 'will_return(geteuid, 5)' "$T/envscript"
want_err_has "is a script run by /usr/bin/id"
done_t

finish
