#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Replies with outputs, row by row: buffers, structs, strings, errno, the
# stream flags stdio keeps; versioned references bind to the shim.
# Needs MOCKRUN, PROBE, SHIM, LIBNOTHING, LIBLATE, PROBE_STATIC (meson sets them).
. "$(dirname "$0")/../lib.sh"

M=$MOCKRUN
uid=$(id -u)

t "read: buf output, '_' is the byte count"
run "$M" -q -e 'will_return(read, _, buf="AB\x00C")' "$PROBE" read /dev/null 16
want_rc 0; want_out "read: 4 0 41420043"; done_t

t "read: the copy never exceeds count"
run "$M" -q -e 'will_return(read, _, buf="ABCDEFGH")' "$PROBE" read /dev/null 3
want_rc 0; want_out "read: 3 0 414243"; done_t

# From a process's second turn, a reply with one output is answered in the
# trampoline (the fast slot): the same bytes, values and reports.
t "the second and later turns of a buf= reply: the same bytes, '_' within count each time"
run "$M" -q -e 'will_return_always(read, _, buf="ABC")' "$PROBE" readn 4 2 < /dev/null
want_rc 0; want_out "2 2 2 2 |4142"
run "$M" -q -e 'will_return_always(read, 9, buf="ABC")' "$PROBE" readn 3 16 < /dev/null
want_rc 0; want_out "9 9 9 |414243000000000000"
run "$M" -e 'will_return_count(read, _, 3, buf="xy")' "$PROBE" readn 5 8 < /dev/null
want_rc 0; want_out "2 2 2 0 0 |"
want_err_has 'will_return_count(read, _, 3, buf="xy"): 3 of 3 used'; done_t

t "a NULL buffer after fast turns is reported, as on a first turn"
run "$M" -e 'will_return_always(read, 1, buf="x")' "$PROBE" readn 4 0 < /dev/null
want_rc 123; want_out "1 1 1 1 |00"
want_err_has "read() call 4 in probe["; want_err_has "output buf is NULL: nothing written"; done_t

t "the second and later turns of a *tp= store: every call gets the struct"
run "$M" -q -e 'will_return_always(clock_gettime, 0, *tp={1700000000, 5})' "$PROBE" clockn 3
want_rc 0
want_out "0:1700000000.000000005 0:1700000000.000000005 0:1700000000.000000005"; done_t

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

t "the program's versioned references bind to the shim (clock_gettime@GLIBC_2.17)"
nm -D --undefined-only "$PROBE" | grep -q 'clock_gettime@GLIBC_2.17' || problem "probe does not import clock_gettime@GLIBC_2.17"
run "$M" -q -e 'will_return(clock_gettime, 0, *tp={7, 0})' "$PROBE" clock
want_out "clock: 0 7.000000000 0"; done_t

finish
