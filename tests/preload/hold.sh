#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Hold points and kill points (DESIGN.md 7.4): will_hold with mockrun ctl
# --wait-held, --release [-e], --kill; holds never released failing the
# run; will_signal killing a writer exactly at a call.
. "$(dirname "$0")/../lib.sh"

M=$MOCKRUN
H=$HOLDPROG

# bg ARGS...: mockrun ARGS... in the background ($BG its pid; output in
# $T/bg.out and $T/bg.err)
bg() {
	"$M" "$@" >"$T/bg.out" 2>"$T/bg.err" &
	BG=$!
}
# wait_bg: $BG's exit status in $bg_rc, its output in $bg_err (10 s at most)
wait_bg() {
	for _ in $(seq 200); do
		kill -0 "$BG" 2>/dev/null || break
		sleep 0.05
	done
	if kill -0 "$BG" 2>/dev/null; then
		problem "mockrun (pid $BG) still runs after 10 s"
		kill -9 "$BG" 2>/dev/null
	fi
	wait "$BG"
	bg_rc=$?
	bg_err=$(cat "$T/bg.err")
}
bg_err_has() {
	case "$bg_err" in *"$1"*) ;; *) problem "mockrun's stderr lacks [$1]: [$bg_err]" ;; esac
}

S=$T/ctl.sock
echo x >"$T/file"

t "--wait-held on a catalog call says who is held (pid, tid, process, call, site); --release lets it go on"
bg --control "$S" -e 'will_hold(fsync, name="sync-point")' -- sync "$T/file"
run "$M" ctl "$S" --wait-held sync-point --timeout 20
want_rc 0
want_out_has "(sync): fsync("
want_out_has " at sync+0x"
want_out_has "[hold sync-point]"
case "$out" in "pid $BG "*) problem "the pid is mockrun's: [$out]" ;; "pid "[0-9]*" tid "[0-9]*) ;; *) problem "no pid and tid: [$out]" ;; esac
held_pid=${out#pid }; held_pid=${held_pid%% *}
[ -d "/proc/$held_pid" ] || problem "pid $held_pid (held) is not running"
run "$M" ctl "$S" --release sync-point
want_rc 0; want_out_has "released 1 thread at 'sync-point'"
wait_bg
[ "$bg_rc" -eq 0 ] || problem "mockrun exited $bg_rc: $bg_err"
bg_err_has "will_hold(fsync, name=\"sync-point\"): 1 of 1 used"
bg_err_has "all checks passed"
[ -e "$S" ] && problem "the socket is left at $S"
done_t

t "--release NAME -e STMT: the statement is added first, and the held call takes it"
bg --control "$S" -e 'will_hold(fsync, name="h")' -- sync "$T/file"
run "$M" ctl "$S" --wait-held h --timeout 20
want_rc 0
run "$M" ctl "$S" --release h -e 'will_fail(fsync, EIO)'
want_rc 0
wait_bg
[ "$bg_rc" -eq 1 ] || problem "sync exited $bg_rc, expected 1 (its fsync failed): $bg_err"
bg_err_has "error syncing"
bg_err_has "Input/output error"
bg_err_has "will_fail(fsync, EIO): 1 of 1 used, by sync["
done_t

t "a signal to a held thread runs its handler there, and the thread stays held"
bg --control "$S" -e 'will_hold(fsync, name="h")' -- "$H" sigheld "$T/handled"
run "$M" ctl "$S" --wait-held h --timeout 20
held_pid=${out#pid }; held_pid=${held_pid%% *}
kill -USR1 "$held_pid"
for _ in $(seq 200); do [ -e "$T/handled" ] && break; sleep 0.05; done
[ -e "$T/handled" ] || problem "the handler did not run in the held thread"
run "$M" ctl "$S" --wait-held h --timeout 20
want_rc 0; want_out_has "pid $held_pid "
run "$M" ctl "$S" --release h
wait_bg
[ "$bg_rc" -eq 0 ] || problem "exit $bg_rc: $bg_err"
[ "$(cat "$T/bg.out")" = "fsync=0" ] || problem "the held fsync returned [$(cat "$T/bg.out")], expected fsync=0"
done_t

t "--kill NAME at a hold: the holder's process dies (137), the report has no failure, nothing is left behind"
mkdir -p "$T/tmp"
# (mockshim's own names only: other programs of the machine use /dev/shm)
before=$(ls /dev/shm 2>/dev/null | grep -ci mock)
TMPDIR=$T/tmp "$M" --control -e 'will_hold(fsync, name="h")' -- sh -c 'echo "$MOCKSHIM_CONTROL" >"$0"; exec sync "$1"' "$T/sockname" "$T/file" >"$T/bg.out" 2>"$T/bg.err" &
BG=$!
for _ in $(seq 200); do [ -s "$T/sockname" ] && break; sleep 0.05; done
sock=$(cat "$T/sockname")
run "$M" ctl "$sock" --wait-held h --timeout 20
want_rc 0
run "$M" ctl "$sock" --kill h
want_rc 0; want_out_has "signalled the process of 1 held thread at 'h'"
wait_bg
[ "$bg_rc" -eq 137 ] || problem "mockrun exited $bg_rc, expected 137: $bg_err"
bg_err_has "killed by SIGKILL"
bg_err_has "all checks passed"
[ -e "$sock" ] && problem "the socket is left at $sock"
left=$(ls -A "$T/tmp")
[ -z "$left" ] || problem "left in TMPDIR: $left"
after=$(ls /dev/shm 2>/dev/null | grep -ci mock)
[ "$after" -le "$before" ] || problem "/dev/shm has $((after - before)) more mockshim files"
done_t

t "a hold never released fails the run and names it: past timeout=, and at the run's end"
run "$M" -e 'will_hold(fsync, name="stuck", timeout=200ms)' -- sync "$T/file"
want_rc 123
want_err_has "held at hold 'stuck' past its timeout="
want_err_has "fsync("
want_err_has "FAILED: 1 check failed"
run "$M" --timeout 1 -e 'will_hold(fsync, name="never")' -- sync "$T/file"
want_rc 124
want_err_has "held at hold 'never' was never released"
want_err_has "called from sync+0x"
want_err_has "FAILED: 1 check failed"
run "$M" --timeout 1 --report json -o "$T/r.json" -e 'will_hold(fsync, name="never")' -- sync "$T/file"
want_rc 124
want_json "$T/r.json"
grep -q '"kind": *"held"' "$T/r.json" || problem "the JSON report has no held failure: $(cat "$T/r.json")"
run "$M" --timeout 1 --report junit -o "$T/r.xml" -e 'will_hold(fsync, name="never")' -- sync "$T/file"
want_rc 124
grep -q "never" "$T/r.xml" || problem "the JUnit report does not name the hold"
done_t

t "will_signal(fsync, SIGKILL, when(fd ~ \"*/wal*\")): the writer dies there (137), its wal as it was at that call"
mkdir -p "$T/db"
run "$M" -e 'will_signal(fsync, SIGKILL, when(fd ~ "*/wal*"))' -- "$H" wal "$T/db"
want_rc 137
want_err_has "kill point reached"
want_err_has "raised SIGKILL in holdprog["
want_err_has "all checks passed"
[ "$(cat "$T/db/wal")" = "rec1" ] || problem "the wal holds [$(cat "$T/db/wal")], expected [rec1]"
[ "$(cat "$T/db/data.db")" = "A" ] || problem "data.db holds [$(cat "$T/db/data.db")]"
run "$M" -e 'will_signal(fsync, SIGSEGV, 2)' -- "$H" wal "$T/db"
want_rc 139
want_err_has "raised SIGSEGV"
run "$M" --report json -o "$T/k.json" -e 'will_signal(fsync, SIGKILL, when(fd ~ "*/wal*"))' -- "$H" wal "$T/db"
want_rc 137
want_json "$T/k.json"
python3 - "$T/k.json" <<'PY' || problem "the JSON report's kill point: $(cat "$T/k.json")"
import json, sys
k = json.load(open(sys.argv[1]))["kill_points"]
assert len(k) == 1 and k[0]["signal"] == "SIGKILL" and k[0]["signo"] == 9, k
assert k[0]["function"] == "fsync" and k[0]["exe"] == "holdprog" and k[0]["call"] >= 1, k
PY
done_t

t "--wait-held on a SYS_ call of a static program: the supervisor holds its answer"
if [ -n "$EMULATED" ]; then
	skip_t "$tname" "$EMULATED: no seccomp() for the guest"
elif [ -z "${PROBE_STATIC:-}" ]; then
	skip_t "$tname" "no static probe in a sanitized build"
else
	bg --control "$S" -e 'will_hold(SYS_getuid, name="uid")' -- "$PROBE_STATIC"
	run "$M" ctl "$S" --wait-held uid --timeout 20
	want_rc 0
	want_out_has "(probe_static): SYS_getuid() at probe_static+0x"
	run "$M" ctl "$S" --release uid -e 'will_return(SYS_getuid, 4242)'
	want_rc 125 # a SYS_ function takes no statement added live: the release does not happen
	want_err_has "only catalog functions can"
	run "$M" ctl "$S" --release uid
	want_rc 0
	wait_bg
	[ "$bg_rc" -eq 0 ] || problem "exit $bg_rc: $bg_err"
	[ "$(cat "$T/bg.out")" = "$(id -u)" ] || problem "getuid gave [$(cat "$T/bg.out")]"
	done_t
fi

t "a held SYS_ call holds its caller only: another process's armed SYS_ calls are answered meanwhile"
if [ -n "$EMULATED" ]; then
	skip_t "$tname" "$EMULATED: no seccomp() for the guest"
elif [ -z "${PROBE_STATIC:-}" ]; then
	skip_t "$tname" "no static probe in a sanitized build"
else
	# one of the two is held; the other's getuid (armed: the statement
	# after the hold answers 7) goes on and it exits while the first waits
	bg --control "$S" -e 'will_hold(SYS_getuid, name="uid", 1, in="probe_static")' \
		-e 'will_return_always(SYS_getuid, 7, in="probe_static")' \
		-- sh -c '"$0" & "$0"; wait' "$PROBE_STATIC"
	run "$M" ctl "$S" --wait-held uid --timeout 20
	want_rc 0
	for _ in $(seq 200); do [ -s "$T/bg.out" ] && break; sleep 0.05; done
	[ "$(cat "$T/bg.out")" = "7" ] || problem "the other process printed [$(cat "$T/bg.out")] while one was held, expected [7]"
	run "$M" ctl "$S" --release uid
	want_rc 0
	wait_bg
	[ "$bg_rc" -eq 0 ] || problem "exit $bg_rc: $bg_err"
	[ "$(cat "$T/bg.out")" = "$(printf '7\n7')" ] || problem "the two printed [$(cat "$T/bg.out")]"
	done_t
fi

t "a SYS_ hold past its timeout=: the supervisor lets it go and the run fails naming it"
if [ -n "$EMULATED" ]; then
	skip_t "$tname" "$EMULATED: no seccomp() for the guest"
elif [ -z "${PROBE_STATIC:-}" ]; then
	skip_t "$tname" "no static probe in a sanitized build"
else
	run "$M" -e 'will_hold(SYS_getuid, name="uid", timeout=200ms)' -e 'will_return(SYS_getuid, 5)' -- "$PROBE_STATIC"
	want_rc 123
	want_out "5"
	want_err_has "held at hold 'uid' past its timeout="
	done_t
fi

t "declared prototypes: a hold and a kill point on strcoll"
printf 'b\na\n' >"$T/sortin"
run env LC_ALL=C.UTF-8 "$M" -e 'mock int strcoll(const char *s1, const char *s2)' \
	-e 'will_hold(strcoll, name="c", timeout=100ms)' -e 'will_signal(strcoll, SIGSEGV)' sort "$T/sortin"
want_rc 139
want_err_has "held at hold 'c' past its timeout="
want_err_has "raised SIGSEGV in sort["
done_t

t "bad holds and signals: clear errors, with where"
run "$M" -e 'will_hold(fsync)' true
want_rc 125; want_err_has "will_hold needs name=\"NAME\""
run "$M" -e 'will_hold(fsync, name="a b")' true
want_rc 125; want_err_has "name= takes no spaces"
run "$M" -e 'will_hold(fsync, name="h", errno=EIO)' true
want_rc 125; want_err_has "will_hold takes no 'errno='"
run "$M" -e 'will_signal(fsync, "x")' true
want_rc 125; want_err_has "-e#1:1:20: error: will_signal needs a signal"
run "$M" -e 'will_hold(fsync, name="h", timeout=5)' true
want_rc 125; want_err_has "timeout= needs a duration"
run "$M" -m "$SCALE_MOCK" -e 'will_hold(ms_test_scale, name="h")' true
want_rc 125; want_err_has "will_hold cannot stop ms_test_scale() yet: a handler module's stub"
bg --control "$S" -e 'will_hold(fsync, name="h")' -- sync "$T/file"
run "$M" ctl "$S" --wait-held nosuch --timeout 20
want_rc 125; want_err_has "no will_hold is named 'nosuch'"
run "$M" ctl "$S" --wait-held h --timeout 20
run "$M" ctl "$S" --kill h NOTASIG
want_rc 125; want_err_has "'NOTASIG' is not a signal"
run "$M" ctl "$S" --kill h TERM
want_rc 0
wait_bg
[ "$bg_rc" -eq 143 ] || problem "exit $bg_rc, expected 143: $bg_err"
run "$M" ctl "$T/none.sock" --release
want_rc 125; want_err_has "--release needs a hold's name"
done_t

finish
