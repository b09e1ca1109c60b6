#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# when(COND, ...): statements aimed at some calls only, by their
# arguments, on real programs; the calls a statement passes by go on as
# if it were not there.
. "$(dirname "$0")/../lib.sh"

M=$MOCKRUN
PY=/usr/bin/python3
cd "$T" || exit 1
echo "setting=1" > app.conf
echo hello > a
echo world > b

if [ -x "$PY" ]; then
	t "python3 opens many files: only */app.conf fails, the rest of the program works"
	run "$M" -e 'will_fail(open, EACCES, when(pathname ~ "*/app.conf"))' "$PY" -I -c '
import json, os
print(json.dumps({"cwd": os.path.basename(os.getcwd()) != ""}))
try:
    open(os.path.join(os.getcwd(), "app.conf")).read()
except PermissionError as e:
    print("denied", e.errno)
print(open("a").read().strip())'
	want_rc 0; want_out '{"cwd": true}
denied 13
hello'
	want_err_has 'when(pathname ~ "*/app.conf")): 1 of 1 used, by python3'
	want_err_has "calls passed it by"; done_t

	t "the clock frozen for CLOCK_REALTIME only: time.time() is fixed, time.sleep() returns"
	run "$M" --timeout 20 -e 'will_return_always(clock_gettime, 0, *tp={1700000000, 0}, when(clockid == CLOCK_REALTIME))' \
		"$PY" -I -c 'import time; time.sleep(0.2); print(int(time.time()))'
	want_rc 0; want_out "1700000000"; done_t

	t "an expectation aimed at one call checks that call only"
	run "$M" -e 'expect_value(open, flags, O_RDONLY|O_CLOEXEC, when(pathname ~ "*app.conf"))' \
		"$PY" -I -c 'open("app.conf").read()'
	want_rc 0; want_err_has "1 of 1 checked"; want_err_lacks "error:"
	run "$M" -e 'expect_value(open, flags, O_WRONLY, when(pathname ~ "*app.conf"))' \
		"$PY" -I -c 'open("app.conf").read()'
	want_rc 123; want_err_has "parameter flags: expected"; done_t

	t "a socket address: connect fails for one port only"
	run "$M" -e 'will_fail(connect, ENETUNREACH, when(addr ~ "127.0.0.1:9"))' "$PY" -I -c '
import socket
for port in (9, 10):
    s = socket.socket()
    try:
        s.connect(("127.0.0.1", port))
    except OSError as e:
        print(port, e.errno)'
	want_rc 0; want_out "9 101
10 111"; done_t
else
	skip_t "python3 programs with when()" "no /usr/bin/python3"
fi

if command -v perl >/dev/null; then
	t "a log file's writes fail with ENOSPC while stdout keeps working (fd ~ path)"
	run "$M" -e 'will_fail_count(write, ENOSPC, -1, when(fd ~ "*.log"))' perl -e '
open(my $l, ">", "app.log") or die; $| = 1; print "out\n";
syswrite($l, "x") or print "log: $!\n"; print "still out\n"'
	want_rc 0; want_out "out
log: No space left on device
still out"; want_err_has "used 1 time (always), by perl["; done_t
else
	skip_t "a log file's writes fail (perl)" "no perl"
fi

t "a FILE * stream matches by its fd's path: sed's w file fails, its stdout goes on"
printf 'a\nb\n' > in.txt
run "$M" -e 'will_fail_count(fwrite, EIO, -1, when(stream ~ "*/key.pub"))' sed -n 'p;w '"$T"'/key.pub' in.txt
want_rc 4; want_err_has "couldn't write 1 item to $T/key.pub: Input/output error"
want_err_has "used 1 time (always), by sed["; want_err_has "calls passed it by"
run "$M" -e 'will_fail_count(fwrite, EIO, -1, when(stream !~ "*/key.pub"))' sed -n 'w '"$T"'/key.pub' in.txt
want_rc 123; want_err_has "the closest of the calls it passed by had stream \"$T/key.pub\""
[ "$(cat key.pub)" = "a
b" ] || problem "the file's writes were failed: $(cat key.pub)"; done_t

t "pipes match \"pipe:*\""
# (sh's error message goes to /dev/null: the one pipe written is echo's)
run "$M" -e 'will_fail_count(write, EPIPE, -1, when(fd ~ "pipe:*"))' sh -c 'exec 2>/dev/null; echo x | cat; echo done > out.txt'
want_rc 0; want_err_has "used 1 time (always), by dash["; want_err_has "; 4 calls passed it by"
[ "$(cat out.txt 2>/dev/null)" = done ] || problem "a file write was failed too"; done_t

if command -v git >/dev/null; then
	t "git commit fails only when writing objects, and git says why"
	git init -q repo && (cd repo && git config user.email t@example.org && git config user.name t &&
		echo hi > f && git add f)
	run "$M" -e 'will_fail_count(open, ENOSPC, -1, when(pathname ~ "*/objects/*"))' git -C repo commit -q -m x
	want_rc 1; want_err_has "No space left on device"; want_err_has "passed it by"; done_t
else
	skip_t "git commit fails only when writing objects" "no git"
fi

t "two statements of one function with disjoint conditions each take only their calls"
run "$M" -e 'will_fail(open, ENOENT, when(pathname == "a")); will_fail(open, EACCES, when(pathname == "b"))' cat a b
want_rc 1; want_err_has "cat: a: No such file or directory"; want_err_has "cat: b: Permission denied"
want_err_has 'when(pathname == "a")): 1 of 1 used'
want_err_has 'when(pathname == "b")): 1 of 1 used'; done_t

t "disjoint conditions in a tree of 4 processes x 4 threads: each statement takes its calls exactly"
run "$M" -e 'will_fail_count(getrandom, EAGAIN, 1000, when(buflen == 1)); will_fail_count(getrandom, EINTR, 1500, when(buflen == 2))' \
	"$PROBE" aimed 4 4 200
want_rc 0; want_out "eagain 1000 eintr 1500 wrong 0"
want_err_has "1000 of 1000 used"; want_err_has "1500 of 1500 used"; done_t

t "--trace marks the statement that answered a call, and the one a call passed by"
run "$M" -q --trace=open -e 'will_fail(open, EACCES, when(pathname == "b"))' cat a b
want_rc 1; want_err_has 'open("a", O_RDONLY) = 3 (passed by: -e#1:1)'
want_err_has 'open("b", O_RDONLY) = -1 EACCES (mocked: -e#1:1)'; done_t

t "integer, bit, set and NULL conditions"
run "$M" -e 'will_fail(open, EACCES, when(flags & O_CREAT)); will_fail(open, ENOENT, when(!(flags & O_CREAT), flags in {O_RDONLY, O_WRONLY}))' \
	sh -c 'echo x > new.txt; cat a'
want_err_has "cannot create new.txt: Permission denied"; want_err_has "cat: a: No such file or directory"; done_t

t "call order aimed with when(): the sequence counts only the calls it names"
run "$M" -e 'expect_function_call(open, when(pathname == "a")); expect_function_call(open, when(pathname == "b"))' cat a b
want_rc 0; want_out "hello
world"
run "$M" -e 'expect_function_call(open, when(pathname == "a")); expect_function_call(open, when(pathname == "b"))' cat b a
want_rc 123; want_err_has "called out of order"; done_t

t "a statement no call matched is a leftover that shows the closest values"
run "$M" -e 'will_fail(open, EACCES, when(pathname ~ "*/app.cnf"))' cat "$T/app.conf"
want_rc 123; want_err_has 'note: no call of open() had pathname ~ "*/app.cnf"; the closest of the calls it passed by had pathname "'"$T"'/app.conf"'
run "$M" -e 'will_return_maybe(open, -1, when(pathname == "nothing"))' cat a
want_rc 0; want_err_lacks "error:"; done_t

t "will_call_real(..., pathname=...): cat prints a fixture in place of /etc/hostname"
mkdir -p fixtures && echo "fixture-host" > fixtures/hostname
run "$M" -e 'will_call_real(open, -1, pathname="fixtures/hostname", when(pathname == "/etc/hostname"))' \
	sh -c 'cat /etc/hostname | cat'
want_rc 0; want_out "fixture-host"; want_err_has "used 1 time (always), by cat["; done_t

t "an alias's arguments are replaced too (fopen64)"
run "$M" -q -e 'will_call_real(fopen, -1, pathname="fixtures/hostname")' "$PROBE" fopen64 /nonexistent
want_rc 0; want_out "fopen64: fixture-host"; done_t

if [ -x "$PY" ]; then
	t "will_call_real(..., addr=...): a connect to port 443 goes to another address"
	run "$M" -q -e 'will_call_real(connect, -1, addr="127.0.0.1:9", when(addr ~ "*:443"))' "$PY" -I -c '
import socket
s = socket.socket()
try:
    s.connect(("127.0.0.2", 443))
except OSError as e:
    print(e.errno)'
	want_rc 0; want_out "111"; done_t
fi

bad() {
	# bad STATEMENT COLUMN MESSAGE: 125, the message and a caret under COLUMN
	run "$M" -e "$1" true
	want_rc 125; want_err_has "-e#1:1:$2: error: $3"
	local caret
	caret=$(printf '%s\n' "$err" | sed -n 3p)
	[ "$caret" = "$(printf '%*s^' $(($2 + 3)) '')" ] || problem "caret [$caret] not under column $2"
}

t "malformed when(): each refused before the program runs, with its caret"
bad 'will_fail(open, EIO, when(path ~ "x"))' 27 "open() has no parameter 'path'"
bad 'will_fail(read, EIO, when(count ~ "x"))' 33 "'~' matches strings, fd and FILE * parameters by their path and socket addresses; 'count' is size_t, not an fd"
bad 'will_fail(open, EIO, when(pathname < 3))' 36 "'<' compares integers; 'pathname' is const char *"
bad 'will_fail(read, EIO, when(buf ~ "x"))' 31 "'~' matches strings, fd and FILE * parameters by their path and socket addresses; 'buf' is void *, an output of the call"
bad 'will_fail(open, EIO, when(pathname))' 35 "expected an operator"
bad 'will_fail(open, EIO, when(flags & "x"))' 35 "'&' takes flags, not a string"
bad 'will_fail(open, EIO, when(flags in 3))' 36 "'in' takes a set"
bad 'will_fail(open, EIO, when(flags == 0), when(flags == 1))' 40 "a statement takes one when(...)"
bad 'will_fail(open, EIO, when())' 27 "when() needs a condition"
bad 'will_fail(write, EIO, when(count < -1))' 36 "'count' is size_t: no value of it is < -1"
bad 'will_fail(open, EIO, when(pathname == 3))' 39 "'pathname' is const char *: == takes a string or NULL, not an integer"
bad 'will_call_real(read, -1, buf="x")' 26 "'buf' is an output of read(): the real call writes it"
bad 'will_call_real(read, -1, fd="x")' 29 "'fd' is int: expected an integer, not a string"
bad 'will_call_real(open, -1, path="x")' 26 "open() has no parameter 'path'"
bad 'will_call_real(connect, -1, addr="nowhere")' 34 "expected an address"
done_t

finish
