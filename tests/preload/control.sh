#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Live control: mockrun --control SOCKET and mockrun ctl SOCKET acting on
# a program while it runs (a TCP echo server in python3, clocks that
# move), the socket gone on every exit path, and the errors of bad
# requests.
. "$(dirname "$0")/../lib.sh"

M=$MOCKRUN
Y2030=1893456000

# bg ARGS...: mockrun ARGS... in the background ($BG its pid; output in
# $T/bg.out and $T/bg.err)
bg() {
	"$M" "$@" >"$T/bg.out" 2>"$T/bg.err" &
	BG=$!
}
# until the socket $1 exists (5 s at most)
wait_sock() {
	for _ in $(seq 100); do
		[ -S "$1" ] && return 0
		sleep 0.05
	done
	problem "no socket at $1 after 5 s: $(cat "$T/bg.err")"
	return 1
}
# until $T/bg.out has a line (5 s at most)
wait_line() {
	for _ in $(seq 100); do
		[ -s "$T/bg.out" ] && return 0
		sleep 0.05
	done
	problem "no output after 5 s: $(cat "$T/bg.err")"
}
# until pid $1 has exited (10 s at most): its status in $bg_rc
wait_bg() {
	for _ in $(seq 200); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.05
	done
	if kill -0 "$1" 2>/dev/null; then
		problem "pid $1 still runs after 10 s"
		kill -9 "$1" 2>/dev/null
	fi
	wait "$1"
	bg_rc=$?
}

cat >"$T/echo.py" <<'EOF'
import os, socket, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(1)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(str(s.getsockname()[1]))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
print("control:", os.environ.get("MOCKSHIM_CONTROL"), flush=True)
c, _ = s.accept()
while True:
    try:
        d = c.recv(100)
    except OSError as e:
        print("server:", e.strerror, flush=True)
        break
    if not d:
        break
    c.sendall(d.upper())
EOF
cat >"$T/client.py" <<'EOF'
import socket, sys
c = socket.create_connection(("127.0.0.1", int(open(sys.argv[1]).read())))
c.sendall(b"hello")
print(c.recv(100).decode())
EOF

t "--wait-call accept returns once the server waits in accept; --report so far; the socket goes"
S=$T/ctl.sock
bg --control "$S" -e 'expect_value_count(listen, backlog, 1, 1)' python3 -I "$T/echo.py" "$T/port"
wait_sock "$S"
[ "$(stat -c %a "$S")" = 600 ] || problem "the socket's mode is $(stat -c %a "$S")"
run "$M" ctl "$S" --wait-call accept --timeout 20
want_rc 0
[ -s "$T/port" ] || problem "--wait-call accept returned before the server listened"
run "$M" ctl "$S" --report
want_rc 0
want_out_has "is still running (the report so far)"
want_out_has "expect_value_count(listen, backlog, 1, 1)"
run "$M" ctl "$S" --report json
want_rc 0
printf '%s\n' "$out" >"$T/live.json"
want_json "$T/live.json"
want_out_has '"running":true'
run python3 -I "$T/client.py" "$T/port"
want_out "HELLO"
wait_bg "$BG"
[ "$bg_rc" = 0 ] || problem "mockrun exited $bg_rc: $(cat "$T/bg.err")"
grep -q "^control: $S\$" "$T/bg.out" || problem "MOCKSHIM_CONTROL: $(cat "$T/bg.out")"
[ ! -e "$S" ] || problem "the socket is left after the run"
done_t

t "ctl -e: a reply added while the server runs resets its connection; a bad one changes nothing"
S=$T/ctl6.sock
rm -f "$T/port"
bg --control "$S" python3 -I "$T/echo.py" "$T/port"
# before the socket exists: --wait-call waits for it too
run "$M" ctl "$S" --wait-call accept --timeout 20
want_rc 0
run "$M" ctl "$S" -e 'will_fail_count(recv, ECONNRESET, 1, in="python3*"'
want_rc 125
want_err_has "ctl#1:1:"
want_err_has "expected ')'"
run "$M" ctl "$S" -e 'expect_any(recv, sockfd)'
want_rc 125
want_err_has "expect_any cannot be added to a running program"
run "$M" ctl "$S" -e 'will_return(malloc, NULL)'
want_rc 125
want_err_has "malloc() cannot take a statement added live"
run "$M" ctl "$S" -e 'will_fail_count(recv, ECONNRESET, 1, in="python3*")'
want_rc 0
want_out "ctl#1: 1 statement added"
printf 'will_fail(unlink, EPERM, in="nothing-runs-this")\n' >"$T/more.mock"
run "$M" ctl "$S" -f "$T/more.mock" --report
want_rc 0
want_out_has "ctl#2: 1 statement added"
want_out_has 'ctl#1:1:1: will_fail_count(recv, ECONNRESET, 1, in="python3*"): 0 of 1 used'
# the client sees a reset or an end, as the server's close races its data
run python3 -I "$T/client.py" "$T/port"
want_out_lacks "HELLO"
wait_bg "$BG"
[ "$bg_rc" = 123 ] || problem "mockrun exited $bg_rc, not 123 (the ctl#2 leftover): $(cat "$T/bg.err")"
grep -q "^server: Connection reset by peer" "$T/bg.out" || problem "the server: $(cat "$T/bg.out")"
grep -q 'ctl#1:1:1: will_fail_count(recv, ECONNRESET, 1, in="python3\*"): 1 of 1 used, by python3' "$T/bg.err" ||
	problem "the report: $(cat "$T/bg.err")"
grep -q 'ctl#2:1:1: error: unlink() has remaining non-returned values' "$T/bg.err" ||
	problem "the ctl#2 leftover: $(cat "$T/bg.err")"
[ ! -e "$S" ] || problem "the socket is left after the run"
done_t

t "ctl -e reaches a process the tree starts after it"
S=$T/ctl7.sock
# (head: cat with a regular file for stdout never calls read)
# (a statement at the start: the added strings come after the spec's)
bg --control "$S" -e 'will_return_maybe(getegid, 0)' sh -c 'head -c 100 /etc/hostname >/dev/null; echo first; while [ ! -e "$0" ]; do sleep 0.02; done; head -c 100 /etc/hostname' "$T/go7"
wait_sock "$S"
wait_line
run "$M" ctl "$S" -e 'will_fail(read, EIO, in="head")'
want_rc 0
touch "$T/go7"
wait_bg "$BG"
[ "$bg_rc" = 1 ] || problem "sh exited $bg_rc, not head's 1: $(cat "$T/bg.err")"
grep -q "head: error reading '/etc/hostname': Input/output error" "$T/bg.err" || problem "head: $(cat "$T/bg.err")"
grep -q 'ctl#1:1:1: will_fail(read, EIO, in="head"): 1 of 1 used, by head' "$T/bg.err" ||
	problem "the report: $(cat "$T/bg.err")"
done_t

t "--report while processes start and log: a copy of a running tree is no tampering"
# eight processes attach while the copy is taken (before the fix: torn in
# about one run of three)
for i in $(seq 20); do
	run "$M" --control -- sh -c 'for i in 1 2 3 4 5 6 7 8; do true & done; "$0" ctl - --report | cat; wait' "$M"
	want_rc 0
	want_out_has "is still running (the report so far)"
	want_out_lacks "tampered"
done
done_t

t "--wait-call: a timeout is 124 and says how many calls came; the allocator is not counted"
S=$T/ctl2.sock
# runs until the test is done with it, however slow the machine, then
# for the time --wait-exit takes to connect
bg --control "$S" sh -c "while [ ! -e '$T/ctl2.done' ]; do sleep 0.05; done; sleep 2"
wait_sock "$S"
run "$M" ctl "$S" --wait-call accept 2 --timeout 0.3
want_rc 124
want_err_has "--wait-call: accept was called 0 times of 2"
run "$M" ctl "$S" --wait-call malloc
want_rc 125
want_err_has "malloc is one of the allocator's functions"
run "$M" ctl "$S" --wait-call nosuch
want_rc 125
want_err_has "'nosuch' is not in the catalog"
run "$M" ctl "$S" --advance-time +1h
want_rc 125
want_err_has "no fake_time in this session"
run "$M" ctl "$S" -e 'fake_time("+1d")'
want_rc 125
want_err_has "fake_time cannot be added to a running program"
run "$M" ctl "$S" -e '# nothing'
want_rc 125
want_err_has "no statement to add"
touch "$T/ctl2.done"
run "$M" ctl "$S" --wait-exit --timeout 10
want_rc 0
want_out_has "sh exited with status 0"
wait_bg "$BG"
[ ! -e "$S" ] || problem "the socket is left after the run"
done_t

cat >"$T/clock.py" <<'EOF'
import os, sys, time
print(int(time.time()), flush=True)
while not os.path.exists(sys.argv[1]):
    time.sleep(0.02)
print(int(time.time()), flush=True)
a = time.time(); time.sleep(0.3); print("%.3f" % (time.time() - a), flush=True)
EOF

t "--advance-time, --set-time and --rate move the clock of a program that already runs"
S=$T/ctl3.sock
bg --control "$S" -e 'fake_time("2030-01-01 00:00:00")' python3 -I "$T/clock.py" "$T/go"
wait_sock "$S"
wait_line
run "$M" ctl "$S" --advance-time +1d
want_rc 0
want_out_has "fake_time: the clock shows 2030-01-02 00:00"
run "$M" ctl "$S" --rate 0
want_rc 0
touch "$T/go"
wait_bg "$BG"
set -- $(cat "$T/bg.out")
[ "${1:-0}" -ge $Y2030 ] && [ "${1:-0}" -le $((Y2030 + 10)) ] || problem "the first time is ${1:-}"
d=$(( ${2:-0} - ${1:-0} ))
[ "$d" -ge 86400 ] && [ "$d" -le 86410 ] || problem "the clock moved $d s, not a day"
[ "${3:-}" = "0.000" ] || problem "rate 0: time.sleep(0.3) moved the clock ${3:-} s"
grep -q 'moved 2 times by mockrun ctl' "$T/bg.err" || problem "the report: $(cat "$T/bg.err")"
rm -f "$T/go"
bg --control "$S" -e 'fake_time("2030-01-01 00:00:00")' python3 -I "$T/clock.py" "$T/go"
wait_sock "$S"
wait_line
run "$M" ctl "$S" --wait-call clock_gettime 2 --set-time "2031-06-01 12:00:00"
want_rc 0
want_out_has "2031-06-01 12:00:00 UTC, rate 1"
touch "$T/go"
wait_bg "$BG"
set -- $(cat "$T/bg.out")
[ "$(date -u -d "@${2:-0}" +%F)" = 2031-06-01 ] || problem "after --set-time: ${2:-}"
done_t

t "--set-time and --advance-time refuse to leave 1677-09-21 .. 2262-04-11; the clock stays"
S=$T/ctl6.sock
bg --control "$S" -e 'fake_time("2262-04-10 00:00:00", rate=0)' sh -c "while [ ! -e '$T/ctl6.done' ]; do sleep 0.05; done; date -u '+%F %T'"
wait_sock "$S"
run "$M" ctl "$S" --advance-time +2d
want_rc 125; want_out ""
want_err_has "--advance-time: the clock would show 2262-04-12 00:00:00 UTC, past the end of its range"
want_err_has "1677-09-21 00:12:44 to 2262-04-11 23:47:16 UTC"
want_err_has "the clock is left at 2262-04-10 00:00:00"
run "$M" ctl "$S" --set-time "2300-01-01"
want_rc 125; want_err_has "--set-time: out of range: a fake clock shows 1677-09-21 00:12:44 to 2262-04-11 23:47:16 UTC"
want_err_has "  2300-01-01
  ^"
run "$M" ctl "$S" --set-time "+53000d1280000h"
want_rc 125; want_err_has "--set-time: out of range"
run "$M" ctl "$S" --set-time "1700-01-01" --advance-time -53000d
want_rc 125; want_out_has "fake_time: the clock shows 1700-01-01 00:00:00 UTC"
want_err_has "past the start of its range"
run "$M" ctl "$S" --set-time "2262-04-10 00:00:00" --advance-time +1d
want_rc 0; want_out_has "fake_time: the clock shows 2262-04-11 00:00:00 UTC, rate 0"
run "$M" ctl "$S" --advance-time +1d
want_rc 125; want_err_has "past the end of its range"
touch "$T/ctl6.done"
wait_bg "$BG"
[ "$bg_rc" = 0 ] || problem "mockrun exited $bg_rc: $(cat "$T/bg.err")"
[ "$(cat "$T/bg.out")" = "2262-04-11 00:00:00" ] || problem "date printed $(cat "$T/bg.out")"
done_t

t "a rate changed while the program runs never moves CLOCK_MONOTONIC backwards"
S=$T/ctl5.sock
bg --control "$S" -q -e 'fake_time("+0s", rate=10, clocks=all)' python3 -I -c '
import time
last = 0
for i in range(40):
    m = time.monotonic()
    if m < last:
        print("backwards", last, m)
    last = m
    print("%.3f" % m, flush=True)
    time.sleep(0.5)
'
wait_sock "$S"
wait_line
sleep 0.3
run "$M" ctl "$S" --rate 1
want_rc 0
sleep 0.3
run "$M" ctl "$S" --rate 40 --advance-time +1h
want_rc 0
wait_bg "$BG"
[ "$bg_rc" = 0 ] || problem "mockrun exited $bg_rc: $(cat "$T/bg.err")"
! grep -q backwards "$T/bg.out" || problem "$(grep backwards "$T/bg.out")"
[ "$(wc -l <"$T/bg.out")" = 40 ] || problem "$(wc -l <"$T/bg.out") lines"
done_t

t "the socket is removed when the program is killed, and when mockrun is"
S=$T/ctl4.sock
bg --control "$S" sh -c 'echo $$ >"$0"; exec sleep 30' "$T/pid"
wait_sock "$S"
for _ in $(seq 100); do [ -s "$T/pid" ] && break; sleep 0.05; done
kill -9 "$(cat "$T/pid")"
wait_bg "$BG"
[ "$bg_rc" = 137 ] || problem "mockrun exited $bg_rc after SIGKILL of the program"
[ ! -e "$S" ] || problem "the socket is left after SIGKILL of the program"
bg --control "$S" sh -c 'echo $$ >"$0"; exec sleep 30' "$T/pid2"
wait_sock "$S"
kill -9 "$BG"
wait "$BG" 2>/dev/null
for _ in $(seq 100); do [ -e "$S" ] || break; sleep 0.05; done
[ ! -e "$S" ] || problem "the socket is left after SIGKILL of mockrun"
# the orphaned program: this test's own (another checkout's run of this
# test has sleeps of its own)
for _ in $(seq 100); do [ -s "$T/pid2" ] && break; sleep 0.05; done
kill "$(cat "$T/pid2")" 2>/dev/null
run "$M" ctl "$S" --report
want_rc 125
want_err_has "no mockrun --control serves it"
# no path: a private directory, named on stderr, gone after the run
run env TMPDIR="$T" "$M" --control -- sh -c 'test -S "$MOCKSHIM_CONTROL" && echo "$MOCKSHIM_CONTROL"'
want_rc 0
want_err_has "mockshim: control socket $T/mockrun-"
case "$out" in "$T"/mockrun-*/control) ;; *) problem "MOCKSHIM_CONTROL is [$out]" ;; esac
[ ! -e "$(dirname "${out:-/nonexistent/x}")" ] || problem "the private directory is left: $out"
done_t

t "mockrun killed the moment its socket appears leaves nothing behind (20 times)"
# the socket is bound after the janitor that removes it starts: a kill
# between the two once left the socket (3 of 20 here before)
left=0
for i in $(seq 20); do
	S=$T/race$i.sock
	"$M" -q --control "$S" sh -c 'echo $$ >"$0"; exec sleep 30' "$T/race$i.pid" >/dev/null 2>&1 &
	pid=$!
	n=0
	until [ -S "$S" ] || [ $((n += 1)) -gt 500000 ]; do :; done
	kill -9 "$pid"
	wait "$pid" 2>/dev/null
	for _ in $(seq 100); do [ -e "$S" ] || break; sleep 0.05; done
	[ ! -e "$S" ] || left=$((left + 1))
done
for f in "$T"/race*.pid; do [ -s "$f" ] && kill "$(cat "$f")" 2>/dev/null; done
[ "$left" = 0 ] || problem "$left of 20 sockets left behind"; done_t

t "--wait-exit after the run has ended: how the program ended, as if it had waited"
# issue 47: "No such file or directory" (125) once the socket was gone
S=$T/ctl7.sock
run "$M" -q --control "$S" sh -c 'exit 3'
want_rc 3
[ ! -e "$S" ] || problem "the socket is left after the run"
run "$M" ctl "$S" --wait-exit --timeout 5
want_rc 0; want_out "sh exited with status 3"
# a relative path names the same socket
run env -C "$T" "$M" ctl ctl7.sock --wait-exit --timeout 5
want_rc 0; want_out "sh exited with status 3"
# what else a run that ended is asked: an error, as before
run "$M" ctl "$S" --report
want_rc 125; want_err_has "has the run ended?"
# a later run at the same path replaces what is kept
run "$M" -q --control "$S" sh -c 'kill -TERM $$'
want_rc 143
run "$M" ctl "$S" --wait-exit --timeout 5
want_rc 0; want_out "sh was killed by signal 15"
# ctl before mockrun: it waits for the socket, then for the end
S=$T/ctl8.sock
( sleep 0.3; exec "$M" -q --control "$S" sh -c 'sleep 0.3; exit 5' ) >/dev/null 2>&1 &
pid=$!
run "$M" ctl "$S" --wait-exit --timeout 10
want_rc 0; want_out "sh exited with status 5"
wait "$pid"
# ended or not, 40 runs in a row give the status (the race of issue 47;
# before the end drained the requests of clients that came: 3 of 60)
bad=0
for i in $(seq 40); do
	S=$T/race-exit$i.sock
	"$M" -q --control "$S" sh -c "exit $((i % 7))" >/dev/null 2>&1 &
	pid=$!
	o=$("$M" ctl "$S" --wait-exit --timeout 10 2>&1)
	[ "$o" = "sh exited with status $((i % 7))" ] || { bad=$((bad + 1)); echo "# $i: $o"; }
	wait "$pid"
done
[ "$bad" = 0 ] || problem "$bad of 40 --wait-exit gave no status"
done_t

# fake_ended PATH: a server that binds the abstract name the janitor keeps
# PATH's ended run under (for this uid: ctl's) and answers as it does, with
# a forged end, run by "$@" after PATH ($FAKE its pid, "ready" in $T/fake.out)
fake_ended() {
	local path=$1
	shift
	"$@" -c '
import socket, struct, sys
h = 0xcbf29ce484222325
for b in struct.pack("=I", int(sys.argv[2])) + sys.argv[1].encode():
    h = ((h ^ b) * 0x100000001b3) & (2**64 - 1)
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind("\0mockshim-ended-%016x" % h)
s.listen(16)
print("ready", flush=True)
while True:
    c, _ = s.accept()
    c.recv(256)
    c.sendall(b"mockshim-ctl 1 ok\nforged: sh exited with status 0\n")
    c.close()
' "$path" "$(id -u)" >"$T/fake.out" 2>"$T/fake.err" &
	FAKE=$!
	for _ in $(seq 100); do
		[ -s "$T/fake.out" ] && return 0
		sleep 0.05
	done
	problem "the fake server did not start: $(cat "$T/fake.err")"
	return 1
}
# a python3 that uid 65534 may run (pyenv's shims live in root's home)
PYNOBODY=
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	for py in "$(command -v python3)" /usr/bin/python3 /usr/local/bin/python3; do
		if [ -x "$py" ] && setpriv --reuid=65534 --regid=65534 --clear-groups \
			"$py" -c '' 2>/dev/null; then
			PYNOBODY=$py
			break
		fi
	done
fi
if [ -n "$PYNOBODY" ]; then
	t "--wait-exit: an ended run's answer from another uid is not believed"
	S=$(realpath "$T")/forged.sock
	# the fake answers as the janitor would: this user's is believed
	# (the same user can forge it: doc/mockrun.1, SECURITY) ...
	if fake_ended "$S" "$PYNOBODY"; then
		run "$M" ctl "$S" --wait-exit --timeout 2
		want_rc 0; want_out_has "forged: sh exited with status 0"
	fi
	kill "$FAKE" 2>/dev/null; wait "$FAKE" 2>/dev/null
	rm -f "$T/fake.out"
	# ... another user's (nobody) is not: no run there, ctl times out
	if fake_ended "$S" setpriv --reuid=65534 --regid=65534 --clear-groups "$PYNOBODY"; then
		run "$M" ctl "$S" --wait-exit --timeout 1
		want_rc 124; want_out_lacks "forged"
		want_err_has "the ended run's answer came from uid 65534, not yours: ignored"
	fi
	kill "$FAKE" 2>/dev/null; wait "$FAKE" 2>/dev/null
	rm -f "$T/fake.out"
	done_t
else
	skip_t "--wait-exit: an ended run's answer from another uid is not believed" \
		"not root, no setpriv, or no python3 uid 65534 may run"
fi

t "--source names what -e adds; --stop ends the run with the program's status"
S=$T/ctl5.sock
bg --control "$S" sh -c 'exec sleep 30'
wait_sock "$S"
run "$M" ctl "$S" --source "net.mock" -e "

  will_fail(send, EPIPE)"
want_rc 0
want_out_has "net.mock: 1 statement added"
run "$M" ctl "$S" --source "net.mock" -e 'will_fail(send, EBOGUS)'
want_rc 125
want_err_has "net.mock:1:17: error: unknown name 'EBOGUS'"
run "$M" ctl "$S" --source "$(printf 'a\tb')" -e 'will_fail(send)'
want_rc 125
want_err_has "--source"
run "$M" ctl "$S" --stop
want_rc 0
wait_bg "$BG"
# sleep was killed by the SIGTERM: 128+15, and the added reply is a leftover
[ "$bg_rc" = 143 ] || problem "mockrun exited $bg_rc after --stop: $(cat "$T/bg.err")"
grep -q "net.mock:3:3: error: send() has remaining non-returned values" "$T/bg.err" ||
	problem "the leftover is not named by its source: $(cat "$T/bg.err")"
[ ! -e "$S" ] || problem "the socket is left after --stop"
done_t

t "bad requests and sockets that are not ours get clear errors"
run "$M" ctl "$T/none.sock" --report
want_rc 125
want_err_has "none.sock: No such file or directory"
: >"$T/plain"
run "$M" ctl "$T/plain" --report
want_rc 125
want_err_has "not a socket"
python3 -I -c '
import socket, sys, time
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(1)
c, _ = s.accept(); c.recv(100); c.sendall(b"HTTP/1.0 400 Bad Request\r\n\r\n"); time.sleep(0.2)
' "$T/other.sock" &
OTHER=$!
for _ in $(seq 100); do [ -S "$T/other.sock" ] && break; sleep 0.05; done
run "$M" ctl "$T/other.sock" --report
want_rc 125
want_err_has "not a mockrun control socket"
wait "$OTHER"
run "$M" ctl "$T/plain" --advance-time "+1x"
want_rc 125
want_err_has "--advance-time:"
want_err_has "  +1x"
run "$M" ctl "$T/plain" --set-time "2031-13-01"
want_rc 125
want_err_has "--set-time:"
run "$M" ctl "$T/plain" --advance-time "2031-01-01"
want_rc 125
want_err_has "expected an offset"
run "$M" ctl "$T/plain" --rate -1
want_rc 125
want_err_has "--rate: '-1' is not a rate"
run "$M" ctl "$T/plain" --frobnicate
want_rc 125
want_err_has "unknown action '--frobnicate'"
run "$M" ctl "$T/plain" --wait-call accept 0
want_rc 125
want_err_has "is not a count"
run "$M" --control "$T/plain" true
want_rc 125
want_err_has "it exists and is not a socket"
run "$M" -t --control "$T/x.sock" "$T/none.mock"
want_rc 125
want_err_has "--control runs one program"
done_t

finish
