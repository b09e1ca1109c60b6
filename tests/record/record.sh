#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# mockrun --record FILE --record-fns ...: a spec that replays a
# nondeterministic run, checked by running the program again under it.
. "$(dirname "$0")/../lib.sh"

M=$MOCKRUN
FNS=getaddrinfo,getrandom,time,clock_gettime,read

t "a replay gives the program the recorded run's random bytes, time, addresses and input"
run "$M" -q --record "$T/run.mock" --record-fns "$FNS" sh -c 'echo hello | nondet'
want_rc 0
first=$out
run "$M" -q -f "$T/run.mock" sh -c 'echo other | nondet'
want_rc 0; want_out "$first"
# and it is the replay: another run differs
run nondet </dev/null
[ "$out" != "$first" ] || problem "two plain runs printed the same"
done_t

t "the spec: one will_return per call, outputs included, scoped to its program"
spec=$(cat "$T/run.mock")
case "$spec" in *'will_return(getrandom, 16, buf="'*'", in="nondet")'*) ;; *) problem "no getrandom: $spec" ;; esac
case "$spec" in *'will_return(time, '[0-9]*', in="nondet")'*) ;; *) problem "no time: $spec" ;; esac
case "$spec" in *'will_return(clock_gettime, 0, *tp={.tv_sec = '*) ;; *) problem "no clock_gettime: $spec" ;; esac
case "$spec" in *'will_return(getaddrinfo, 0, *res={"'*) ;; *) problem "no getaddrinfo: $spec" ;; esac
case "$spec" in *'will_return(read, 6, buf="hello\n", in="nondet")'*) ;; *) problem "no read: $spec" ;; esac
done_t

t "a failed call is replayed with its errno"
run "$M" -q --record "$T/fail.mock" --record-fns read nondet <&-
want_rc 0; want_out_has "read: Bad file descriptor"
first=$out
want "the failure is in the spec" grep -q 'will_return(read, -1, errno=EBADF, in="nondet")' "$T/fail.mock"
run "$M" -q -f "$T/fail.mock" nondet </dev/null
want_rc 0; want_out_has "read: Bad file descriptor"
done_t

t "a read of 2 MB is recorded and replayed whole"
head -c 2000000 /dev/urandom >"$T/big.bin"
# dd reads it in one read(2) of 2 MB; cksum's stdio reads go past the PLT
run "$M" -q --record "$T/big.mock" --record-fns read sh -c 'dd bs=2M count=1 status=none | cksum' \
	<"$T/big.bin"
want_rc 0
first=$out
want "one 2 MB read recorded" grep -q '^will_return(read, 2000000, buf=' "$T/big.mock"
run "$M" -q -f "$T/big.mock" sh -c 'dd bs=2M count=1 status=none | cksum' </dev/null
want_rc 0; want_out "$first"
done_t

t "processes of one program replay in turn"
run "$M" -q --record "$T/two.mock" --record-fns getrandom sh -c 'nondet </dev/null; nondet </dev/null'
want_rc 0
first=$(printf '%s\n' "$out" | grep random)
run "$M" -q -f "$T/two.mock" sh -c 'nondet </dev/null; nondet </dev/null'
want_rc 0
[ "$(printf '%s\n' "$out" | grep random)" = "$first" ] || problem "random lines differ: [$out] vs [$first]"
[ "$(grep -c 'will_return(getrandom' "$T/two.mock")" -eq 2 ] || problem "not two getrandom calls"
done_t

t "a call before an exec is its first program's, not the one exec'd in the same process"
run "$M" -q --record "$T/exec.mock" --record-fns read sh -c 'read line; exec nondet' <<<$'first\nsecond'
want_rc 0
first=$(printf '%s\n' "$out" | grep '^read')
grep -q 'in="nondet"' "$T/exec.mock" || problem "no read of nondet: $(cat "$T/exec.mock")"
[ "$(grep -c 'will_return(read' "$T/exec.mock")" -ge 2 ] || problem "the shell's read is missing"
grep 'will_return(read' "$T/exec.mock" | head -1 | grep -q 'in="nondet"' &&
	problem "the shell's read was given to nondet: $(cat "$T/exec.mock")"
run "$M" -q -f "$T/exec.mock" sh -c 'read line; exec nondet' </dev/null
want_rc 0
[ "$(printf '%s\n' "$out" | grep '^read')" = "$first" ] || problem "replayed [$out], recorded [$first]"
done_t

t "a program that crashes still leaves its calls recorded"
run "$M" -q --record "$T/crash.mock" --record-fns getrandom nondet localhost crash </dev/null
want_rc 134
want "the call is in the spec" grep -q 'will_return(getrandom, 16' "$T/crash.mock"
done_t

t "recorded calls with other statements: mocked calls are the statements', not recorded"
run "$M" -q --record "$T/mix.mock" --record-fns getrandom,time -e 'will_return(time, 1700000000)' nondet </dev/null
want_rc 0; want_out_has "time 1700000000"
grep -q 'will_return(time' "$T/mix.mock" && problem "the mocked time() was recorded"
want "getrandom is recorded" grep -q 'will_return(getrandom' "$T/mix.mock"
done_t

t "--record with no --record-fns: 125, nothing run, no file"
run "$M" --record "$T/none.mock" nondet
want_rc 125; want_err_has "--record needs --record-fns FN,..."; want_out ""
want_err_has "by name or by group (@net, @file,"; want_err_has "for a network client, --record-fns @net,@time"
[ -e "$T/none.mock" ] && problem "a file was left"
done_t

if [ -x /usr/bin/python3 ]; then
	cat > "$T/nb.py" <<'PY'
import socket, select
l = socket.socket(); l.bind(("127.0.0.1", 0)); l.listen(1)
c = socket.socket(); c.setblocking(False)
c.connect_ex(l.getsockname())
select.select([], [c], [], 5)
print("error", c.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR))
PY
	t "--record-fns @net records a group; a non-blocking connect without its wait is a warning"
	run "$M" -q --record "$T/nb1.mock" --record-fns connect /usr/bin/python3 -I "$T/nb.py"
	want_rc 0; want_out "error 0"
	want_err_has "warning: --record: a non-blocking connect() was recorded (EINPROGRESS) but not a wait (poll, ppoll, select, epoll_wait) nor getsockopt"
	grep -q '^# warning: a non-blocking connect() was recorded' "$T/nb1.mock" || problem "no warning in the file: $(cat "$T/nb1.mock")"
	run "$M" -q --record "$T/nb2.mock" --record-fns connect,select /usr/bin/python3 -I "$T/nb.py"
	want_err_has "but not getsockopt:"
	run "$M" -q --record "$T/nb3.mock" --record-fns @net /usr/bin/python3 -I "$T/nb.py"
	want_rc 0; want_err_lacks "warning"
	for fn in connect select getsockopt; do
		grep -q "^will_return($fn, " "$T/nb3.mock" || problem "@net did not record $fn: $(cat "$T/nb3.mock")"
	done
	# a replayed socket() would be a number with no socket behind it
	grep -q "^will_return(socket, " "$T/nb3.mock" && problem "@net recorded socket()"
	grep -q "freeaddrinfo\|endhostent" "$T/nb3.mock" && problem "a void function was recorded"
	run "$M" -q -f "$T/nb3.mock" /usr/bin/python3 -I "$T/nb.py"
	want_rc 0; want_out "error 0"
	run "$M" --record "$T/x.mock" --record-fns @nope true
	want_rc 125; want_err_has "--record-fns: no group '@nope' (groups: @net,"
	done_t
else
	skip_t "--record-fns @net and the stall warning" "no /usr/bin/python3"
fi

t "--record-fns: unknown functions and pointer results are refused"
run "$M" --record "$T/x.mock" --record-fns read,bogus nondet
want_rc 125; want_err_has "--record-fns: 'bogus' is not in the catalog"
run "$M" --record "$T/x.mock" --record-fns malloc nondet
want_rc 125; want_err_has "malloc() cannot be recorded: it returns a pointer"
run "$M" --record "$T/x.mock" --record-fns getline nondet
want_rc 125; want_err_has "getdelim() cannot be recorded: it allocates what it returns"
run "$M" --record-fns read nondet
want_rc 125; want_err_has "--record-fns goes with --record FILE"
[ -e "$T/x.mock" ] && problem "a file was left"
done_t

t "--record to a path that cannot be written: 125 before the program runs"
run "$M" --record /nonexistent/dir/out.mock --record-fns read sh -c 'echo ran'
want_rc 125; want_out ""; want_err_has "--record /nonexistent/dir/out.mock: No such file or directory"
done_t

t "a program that is not found leaves no spec behind, and an earlier one as it was"
run "$M" --record "$T/nf.mock" --record-fns read /nonexistent/program
want_rc 127
[ -e "$T/nf.mock" ] && problem "a file was left"
echo precious >"$T/keep.mock"
run "$M" --record "$T/keep.mock" --record-fns read /nonexistent/program
want_rc 127; want "the earlier spec is kept" grep -qx precious "$T/keep.mock"
run "$M" --record "$T/keep.mock" --record-fns read -o /nonexistent/dir/report nondet </dev/null
want_rc 125; want "the earlier spec is kept" grep -qx precious "$T/keep.mock"
[ "$(ls -A "$T" | grep -c '^\.keep\.mock\.')" -eq 0 ] || problem "a temporary file was left: $(ls -A "$T")"
run "$M" --record "$T/keep.mock" --record-fns read nondet </dev/null
want_rc 0; want "a new spec replaces it" grep -q 'will_return(read, 0' "$T/keep.mock"
done_t

t "--record to a file that is not a regular one writes it in place"
run "$M" -q --record /dev/stdout --record-fns read nondet </dev/null
want_rc 0; want_out_has 'will_return(read, 0, buf="", in="nondet")'
want "/dev/null is still there" test -c /dev/null
done_t

t "--record goes with one program, not test files"
run "$M" --record "$T/t.mock" --record-fns read -t /dev/null
want_rc 125; want_err_has "--record runs one program, not test files"
done_t

finish
