#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A program under test that attacks the channel: it can neither crash
# mockrun, nor lose the report, nor turn a failed run into a pass.  Each
# attack either changes nothing (the spec is sealed, the state cannot
# shrink) or ends in "the channel was tampered with", no verdict, 125.
# With TAMPER_VALGRIND=1, mockrun itself runs under memcheck: reading a
# tampered state must touch no byte out of bounds.
. "$(dirname "$0")/../lib.sh"

M=("$MOCKRUN")
if [ "${TAMPER_VALGRIND:-0}" = 1 ]; then
	if ! command -v valgrind >/dev/null || [ "${SANITIZE:-none}" != none ] ||
		[ "${STATIC_MOCKRUN:-0}" = 1 ]; then
		# (memcheck reports static glibc's own start-up and stdio)
		skip_t "tamper under valgrind" "no valgrind, a sanitized build, or a static mockrun"
		finish
		exit
	fi
	export TMPDIR=$T
	M=(valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite "$MOCKRUN")
fi
A=$ATTACK
FAIL='expect_string(open, pathname, "expected")'

t "truncating either memfd fails: no SIGBUS, and the tree stays mocked"
run "${M[@]}" -e 'will_return_always(getpid, 5)' "$A" truncate
want_rc 0; want_out "spec: EPERM, state: EPERM
child: mocked"; want_err_has "all checks passed"; done_t

for ctl in "" --control; do
	t "${ctl:-no --control}: the spec cannot be written, and a spec written anyway is no pass"
	run "${M[@]}" $ctl -e 'will_return_count(getpid, 5, 2)' "$A" spec-write
	# this kernel refuses every way; a kernel before 6.7 lets mprotect
	# through, and then mockrun must see the spec changed
	case "$out" in
	*"mprotect: writable"*)
		want_rc 125; want_err_has "the channel was tampered with"
		want_err_has "the spec was written" ;;
	*)
		want_rc 123; want_out_has "write: EPERM, mmap: EPERM, /proc: EPERM, mprotect: EACCES"
		want_err_has "getpid() has remaining non-returned values (1 of 2 used)" ;;
	esac
	want_out_has "getpid: 1"; want_err_lacks "all checks passed"; done_t
done

t "the spec written through mockrun's own memory (root) is seen: no verdict"
run "${M[@]}" --control -e 'will_return_count(getpid, 5, 2)' "$A" spec-write-mem
want_out_has "getpid: 1"; want_err_lacks "all checks passed"
case "$out" in
*"mem: written"*)
	want_rc 125; want_err_has "the spec was written" ;;
*)
	want_rc 123 ;;
esac
done_t

t "--sites: a sites slot no shim writes is no verdict (125); a half-written one is a lost call, warned"
run "${M[@]}" --sites "$T/s.json" -e 'will_return_always(getpid, 5)' "$A" sites-slot
want_rc 125
want_err_has "sites table slot"
[ -e "$T/s.json" ] && problem "a sites file was written from a tampered state"
run "${M[@]}" --sites "$T/s.json" -e 'will_return_always(getpid, 5)' "$A" sites-torn
want_rc 0
want_err_has "5 calls not counted"
grep -q '"lost": 5,' "$T/s.json" || problem "lost not in the file: $(cat "$T/s.json")"
done_t

t "zeroing the failure count changes nothing: the failure events are the verdict"
run "${M[@]}" -e "$FAIL" "$A" fail-zero-count
want_rc 123; want_err_has "FAILED: 1 check failed"; want_err_lacks "all checks passed"; done_t

for attack in fail-count fail-erase fail-rule fail-at fail-kind; do
	t "$attack: a failed run cannot be made to pass or crash the report"
	run "${M[@]}" -e "$FAIL" "$A" "$attack"
	want_rc 125; want_err_has "mockshim: the channel was tampered with"
	want_err_has "FAILED: no verdict"; want_err_lacks "all checks passed"; done_t
done

# A failure erased in part is what a process or thread ended inside the
# shim's recording of it leaves too (mockrun cannot see every such end:
# a thread ended by another's exit(), a grandchild reaped by its own
# parent): a failure recorded in part, 123, never a pass
t "fail-memset: the failure event zeroed (issue 41): a failure, in every report format"
for fmt in text tap junit json; do
	rm -f "$T/m.$fmt"
	run "${M[@]}" --report "$fmt" -o "$T/m.$fmt" -e 'expect_string(open, pathname, "/nope")' "$A" fail-memset
	want_rc 123
	case $fmt in
	text) ! grep -q "all checks passed" "$T/m.$fmt" || problem "text: a pass"
		grep -q "FAILED: 1 check failed" "$T/m.$fmt" || problem "text: not failed: $(cat "$T/m.$fmt")"
		grep -q "1 failure recorded in part" "$T/m.$fmt" || problem "text: not why: $(cat "$T/m.$fmt")" ;;
	tap) grep -q "^not ok" "$T/m.$fmt" || problem "tap: no not ok: $(cat "$T/m.$fmt")" ;;
	junit) grep -q 'failures="1"' "$T/m.$fmt" ||
		problem "junit: no failure: $(head -c 400 "$T/m.$fmt")"
		grep -q 'message="1 failure recorded in part' "$T/m.$fmt" ||
		problem "junit: not why: $(head -c 600 "$T/m.$fmt")" ;;
	json) python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
assert r["failure_count"] == 1, r' "$T/m.$fmt" || problem "json: no failure: $(head -c 400 "$T/m.$fmt")" ;;
	esac
done; done_t

t "fail-memset-count: the event and its statement's failure count zeroed: a failure, no pass"
run "${M[@]}" -e 'expect_string(open, pathname, "/nope")' "$A" fail-memset-count
want_rc 123; want_err_has "FAILED: 1 check failed"; want_err_has "1 failure recorded in part"
want_err_lacks "all checks passed"; done_t

t "fail-memset-orphan: the event zeroed, an orphan killed by a signal: a lost failure, no pass"
run "${M[@]}" -e 'expect_string(open, pathname, "/nope")' "$A" fail-memset-orphan
want_rc 123; want_err_has "FAILED: 1 check failed"; want_err_lacks "all checks passed"; done_t

t "a failure event retyped as an attach, a warning or a rule's turn: its count still fails the run"
for how in fail-attach fail-warn fail-consume; do
	run "${M[@]}" -e 'will_return_maybe(open, -1)' -e "$FAIL" "$A" $how
	want_rc 123; want_err_has "1 failure recorded in part"; want_err_lacks "all checks passed"
done; done_t

t "order-break: a call order marked broken with no call out of order: a failure, no pass"
run "${M[@]}" -e 'expect_function_call(getppid); expect_function_call(getpid)' "$A" order-break
want_rc 123; want_err_has "FAILED"; want_err_lacks "all checks passed"; done_t

t "an offset past a memory expectation's bytes is caught, not read"
run "${M[@]}" -e 'expect_memory(open, pathname, "expected", 8)' "$A" fail-at
want_rc 125; want_err_has "tampered with"; done_t

t "every report format survives a forged event, and -o still gets its file"
for fmt in text tap json junit; do
	rm -f "$T/r.$fmt"
	run "${M[@]}" --report "$fmt" -o "$T/r.$fmt" -e "$FAIL" "$A" fail-rule
	want_rc 125
	grep -q "tampered" "$T/r.$fmt" 2>/dev/null || problem "$fmt: no tamper verdict in the -o file: $(head -c 300 "$T/r.$fmt" 2>/dev/null)"
done; done_t

t "turns counted past their statement's count: tampered, not '1000 of 1 used'"
run "${M[@]}" -e 'will_return(getpid, 5); expect_any(close, fd)' "$A" consumed
want_rc 125; want_err_has "tampered with"; want_err_lacks "1000 of 1"; done_t

t "lanes that answered more turns than were claimed for them, or a lane of no rule used: tampered"
for how in lane-more lane-orphan; do
	run "${M[@]}" -e 'will_return_count(getpid, 5, 5000)' "$A" $how
	want_rc 125; want_err_has "tampered with"; want_err_has "lane "
	want_err_lacks "of 5000 used"
done; done_t

t "a wiped state (another token) is tampered"
run "${M[@]}" -e 'will_return(getpid, 5)' "$A" wipe
want_rc 125; want_err_has "its header was overwritten"; done_t

t "an event written past the end of the log is tampered, also one across two pages"
for how in past-end past-end-split; do
	run "${M[@]}" -e 'will_return_maybe(getpid, 5)' "$A" $how
	want_rc 125; want_err_has "past the end of the log"
done; done_t

t "an event count past the log's end cannot hide a failure in it"
run "${M[@]}" -e "$FAIL" "$A" fail-events-next
# (the slots it claims were never written: the failure in it still counts)
want_rc 123; want_err_has "FAILED"; want_err_lacks "all checks passed"; done_t

t "a call-order cursor and pid count out of range: the shim bounds them, the report says so"
run "${M[@]}" -e 'expect_function_call(getpid); will_return_maybe(getpid, 5)' "$A" cursor
want_rc 125; want_err_has "call-order cursor"; done_t

t "unterminated strings in events are bounded, and the failure still reported"
run "${M[@]}" -e "$FAIL" "$A" fail-strings
want_rc 123; want_err_has "error: open() call 1"
line=$(printf '%s\n' "$err" | awk '{ if (length($0) > n) n = length($0) } END { print n }')
[ "$line" -lt 400 ] || problem "a line of $line bytes"; done_t

t "a signal mockrun forwards keeps the program's own exit status"
"${M[@]}" -q -e 'will_return_maybe(getpid, 5)' "$A" trap-term >"$T/sig.out" 2>"$T/sig.err" &
pid=$!
for _ in $(seq 100); do
	[ -s "$T/sig.out" ] && break
	sleep 0.1
done
kill -TERM "$pid"
wait "$pid"
rc=$?
err=$(cat "$T/sig.err")
want_rc 3; done_t

finish
