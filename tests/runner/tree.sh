#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The process tree under mockrun: a stopped orphan is named instead of
# hanging the run in silence, and a timeout keeps the program's own
# status when only its descendants outlived it.
. "$(dirname "$0")/../lib.sh"

M=$MOCKRUN
Q='will_return_maybe(getrandom, 0)'

# The orphan: writes its pid to $1, its output to $1.out (not the test's
# pipe: a regression must not hang the test on a stopped holder of it),
# and stops itself.  With $2 "ignore" it ignores SIGTERM and SIGHUP, and
# once continued stops itself again ("stop") or runs on ("run").
cat >"$T/stopper.sh" <<'SH'
exec >"$1.out" 2>&1
echo $$ >"$1.tmp" && mv "$1.tmp" "$1"
[ -n "${2:-}" ] && trap '' TERM HUP
kill -STOP $$
echo never
while [ "${2:-}" = stop ]; do kill -STOP $$; done
while [ "${2:-}" = run ]; do sleep 0.1; done
SH
# top PIDFILE [MODE]: a parent that starts the orphan and exits 0, in $top
top() {
	# shellcheck disable=SC2016
	top=(sh -c 'sh "$1" "$2" "$3" & exit 0' top "$T/stopper.sh" "$1" "${2:-}")
}
# ms_now: milliseconds
ms_now() { echo $(($(date +%s%N) / 1000000)); }
# orphan_gone PIDFILE [ran]: the orphan is gone (killed here if not);
# without "ran" it never went on after its stop
orphan_gone() {
	local p
	p=$(cat "$1" 2>/dev/null) || { problem "the orphan never started (no $1)"; return; }
	if kill -0 "$p" 2>/dev/null; then
		problem "the orphan $p is left behind"
		kill -KILL "$p" 2>/dev/null
	fi
	[ "${2:-}" = ran ] && return
	case "$(cat "$1.out")" in *never*) problem "the orphan ran on: [$(cat "$1.out")]" ;; esac
}

if [ -n "$EMULATED" ]; then
	# the orphan would go to init, stopped
	for n in "a stopped orphan and a timeout" "a stopped orphan alone" "SIGTERM to a stopped orphan"; do
		skip_t "$n" "$EMULATED: no PR_SET_CHILD_SUBREAPER, mockrun cannot adopt orphans"
	done
else
	t "an orphan that stops itself, and again when continued: the timeout kills it (SIGCONT, then SIGKILL), keeping the program's status"
	top "$T/t1.pid" stop
	run timeout -k 2 20 "$M" --timeout 1 -e "$Q" "${top[@]}"
	want_rc 124
	want_err_has "sh exited with status 0 (its descendants did not, by the timeout)"
	want_err_has "still running at the timeout: sh[$(cat "$T/t1.pid" 2>/dev/null)]"
	orphan_gone "$T/t1.pid" ran; done_t

	t "a parent exits 0, its child stops itself: the run ends by itself, naming it, the child gone"
	t0=$(ms_now)
	top "$T/t2.pid"
	run timeout -k 2 15 "$M" -e "$Q" "${top[@]}"
	took=$(($(ms_now) - t0))
	want_rc 0
	want_err_has "sh[$(cat "$T/t2.pid" 2>/dev/null)] is stopped and sh exited: nothing is left to continue it; sending SIGHUP and SIGCONT"
	[ "$took" -lt 8000 ] || problem "it took $took ms"
	orphan_gone "$T/t2.pid"; done_t

	t "the same, the child ignoring SIGHUP and stopping again: it is killed, named"
	t0=$(ms_now)
	top "$T/t3.pid" stop
	run timeout -k 2 15 "$M" -e "$Q" "${top[@]}"
	took=$(($(ms_now) - t0))
	want_rc 0
	want_err_has "sh[$(cat "$T/t3.pid" 2>/dev/null)] is stopped again with nothing left to continue it: killed (SIGKILL)"
	[ "$took" -lt 10000 ] || problem "it took $took ms"
	orphan_gone "$T/t3.pid" ran; done_t

	t "SIGTERM to mockrun, a stopped orphan that ignores it: SIGCONT, SIGKILL 5 s later, nothing left"
	mkdir "$T/t4tmp"
	top "$T/t4.pid" run
	TMPDIR="$T/t4tmp" "$M" --control -e "$Q" "${top[@]}" 2>"$T/t4.err" &
	mpid=$!
	for _ in $(seq 50); do
		p=$(cat "$T/t4.pid" 2>/dev/null) && [ "$(cut -d' ' -f3 "/proc/$p/stat" 2>/dev/null)" = T ] && break
		sleep 0.1
	done
	t0=$(ms_now)
	kill -TERM "$mpid"
	for _ in $(seq 120); do kill -0 "$mpid" 2>/dev/null || break; sleep 0.1; done
	took=$(($(ms_now) - t0))
	if kill -0 "$mpid" 2>/dev/null; then
		problem "mockrun still runs $took ms after SIGTERM"
		kill -KILL "$mpid"
	fi
	wait "$mpid"; rc=$?
	err=$(cat "$T/t4.err")
	want_rc 0
	want_err_has "the process tree outlived SIGTERM by 5 s: killing it (SIGKILL)"
	[ "$took" -ge 4500 ] && [ "$took" -lt 9000 ] || problem "it ended $took ms after SIGTERM, not 5 s"
	[ -z "$(ls -A "$T/t4tmp")" ] || problem "left in TMPDIR: $(ls -A "$T/t4tmp")"
	orphan_gone "$T/t4.pid" ran; done_t
fi

t "a program killed at the timeout is reported as timed out"
run "$M" --timeout 1 -e "$Q" sleep 5
want_rc 124; want_err_has "sleep timed out and was killed by SIGTERM"; done_t

finish
