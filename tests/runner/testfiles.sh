#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# mockrun -t: test files, fixtures, reports, parallel runs, errors.
. "$(dirname "$0")/../lib.sh"

M=$MOCKRUN
D=$(cd "$(dirname "$0")/mock" && pwd)

t "a file whose tests all pass: TAP, exit 0"
run "$M" -t "$D/pass.mock"
want_rc 0; want_out_has "TAP version 13"; want_out_has "1..8"
[ "$(printf '%s\n' "$out" | grep -c '^ok ')" -eq 8 ] || problem "not 8 oks"; done_t

t "every failing test fails, with why"
run "$M" -t "$D/fail.mock"
want_rc 1
[ "$(printf '%s\n' "$out" | grep -c '^not ok ')" -eq 8 ] || problem "not 8 failures: $out"
want_out_has "fail.mock:4: expected exit status 0, but sh exited with status 3"
want_out_has 'fail.mock:10: expected stdout to be "8\n", got "7\n"'
want_out_has 'fail.mock:15: expected stderr to contain "nothing like this", got ""'
want_out_has "geteuid() has remaining non-returned values"
want_out_has 'parameter pathname: expected "/etc/passwd", got "/etc/hostname"'
want_out_has "expected the program to be killed by SIGSEGV, but it exited with status 0"
want_out_has 'expected f to contain "xyz", got "abc\n"'
want_out_has "could not be started (No such file or directory)"; done_t

t "fixtures: setup_all once, teardown after a failed test too"
run "$M" -j 1 -t "$D/fixtures.mock"
want_rc 1; want_out_has "not ok 1 - "; want_out_has "ok 2 - $D/fixtures.mock: second sees"; done_t

t "a failing setup fails the test, says so, and the test does not run"
run "$M" -t "$D/badsetup.mock"
want_rc 1; want_out_has "setup failed: sh exited with status 4"; want_out_has "setup stderr: setup broke"
want_out_has "the test did not run: its setup failed"; done_t

t "--report junit -o FILE: valid JUnit, a testsuite per file"
run "$M" --report junit -o "$T/r.xml" -t "$D/pass.mock" "$D/fail.mock"
want_rc 1
python3 - "$T/r.xml" <<'PY' || problem "bad JUnit: $(cat "$T/r.xml" | head -20)"
import sys, xml.etree.ElementTree as E
r = E.parse(sys.argv[1]).getroot()
assert r.tag == "testsuites" and len(r) == 2, r
p, f = r
assert (p.get("tests"), p.get("failures")) == ("8", "0"), p.attrib
assert (f.get("tests"), f.get("failures")) == ("8", "8"), f.attrib
c = [c for c in p if c.get("name") == "id sees a mocked euid"][0]
assert c.find("system-out").text == "4242\n", c.find("system-out").text
assert all(c.find("failure") is not None for c in f)
PY
done_t

t "--report json"
run "$M" --report json -t "$D/pass.mock"
want_rc 0
printf '%s' "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); assert len(d["tests"]) == 8 and all(t["passed"] for t in d["tests"])' || problem "bad JSON"; done_t

t "-j 4 gives the same results, in order"
run "$M" -j 4 -t "$D/pass.mock" "$D/fail.mock"
want_rc 1
[ "$(printf '%s\n' "$out" | grep -E '^(not )?ok' | awk '{print $1}' | tr '\n' ' ')" = "ok ok ok ok ok ok ok ok not not not not not not not not " ] || problem "order: $out"; done_t

t "--filter and --list-tests"
run "$M" --list-tests -t "$D/pass.mock"
want_rc 0; want_out_has "$D/pass.mock: date under a fixed clock"
run "$M" --filter '*clock*' -t "$D/pass.mock"
want_rc 0; want_out_has "1..1"; want_out_has "ok 1 - $D/pass.mock: date under a fixed clock"; done_t

t "a bad statement in a test: 125 with file:line:col, nothing runs"
printf 'test "x" {\n\twill_fail(raed)\n\trun sh -c "touch %s/ran"\n}\n' "$T" > "$T/bad.mock"
run "$M" -t "$T/bad.mock"
want_rc 125; want_err_has "$T/bad.mock:2:12: error: unknown function 'raed'"
[ ! -e "$T/ran" ] || problem "something ran"; done_t

t "--list-tests lists a file whose statements name a module that is not loaded"
printf 'test "uses a module" {\n\twill_return(chef_cook, 1)\n\trun true\n}\n' > "$T/mod.mock"
run "$M" --list-tests -t "$T/mod.mock"
want_rc 0; want_out "$T/mod.mock: uses a module"
run "$M" -t "$T/mod.mock"
want_rc 125; want_err_has "$T/mod.mock:2:"; done_t

t "syntax errors in test files: 125 with position"
printf 'test "x" {\n\trun true\n' > "$T/open.mock"
run "$M" -t "$T/open.mock"
want_rc 125; want_err_has "open.mock:1:1: error: block 'x' is not closed"
printf 'test "x" {\n\texpect_exit(1)\n}\n' > "$T/norun.mock"
run "$M" -t "$T/norun.mock"
want_rc 125; want_err_has "norun.mock:1:1: error: test \"x\" has no run"
printf 'test "x" {\n\trun_background b {\n\t\trun true\n\t\trun true\n\t}\n}\n' > "$T/tworuns.mock"
run "$M" -t "$T/tworuns.mock"
want_rc 125; want_err_has "tworuns.mock:4:3: error: a run_background block has one run (declared at line 3)"
printf 'test "x" {\n\trun true\n\texpect_stdout(unquoted)\n}\n' > "$T/q.mock"
run "$M" -t "$T/q.mock"
want_rc 125; want_err_has "q.mock:3:16: error: expected a string in double quotes"
printf 'test "x" {\n\trun true\n}\ntest "x" {\n\trun true\n}\n' > "$T/dup.mock"
run "$M" -t "$T/dup.mock"
want_rc 125; want_err_has "dup.mock:4:1: error: a test \"x\" exists already (line 1)"
run "$M" -t "$T/none.mock"
want_rc 125; want_err_has "none.mock: cannot read"; done_t

t "a syntax error in the second file stops everything before the first runs"
printf 'test "first" {\n\trun sh -c "touch %s/first-ran"\n}\n' "$T" > "$T/first.mock"
printf 'test "second" {\n\trun true\n\texpect_exit(x)\n}\n' > "$T/second.mock"
run "$M" -t "$T/first.mock" "$T/second.mock"
want_rc 125; want_err_has "second.mock:3:14: error: 'x' is not a number"
[ ! -e "$T/first-ran" ] || problem "the first file ran"; done_t

t "the TAP output, exactly"
mkdir -p "$T/exact"
cat > "$T/exact/e.mock" <<'MOCK'
test "passes" {
	will_return(geteuid, 42)
	run id -u
	expect_stdout("42\n")
}
test "fails" {
	run sh -c 'echo out; exit 3'
	expect_exit(0)
	expect_stdout("other\n")
}
MOCK
run sh -c "cd \"$T/exact\" && \"$M\" -t e.mock"
want_rc 1
want_out 'TAP version 13
1..2
ok 1 - e.mock: passes
not ok 2 - e.mock: fails
  ---
  at: "e.mock:6"
  message: |
    e.mock:8: expected exit status 0, but sh exited with status 3
    e.mock:9: expected stdout to be "other\n", got "out\n"
  stdout: |
    out
  ...'; done_t

t "the JUnit output of the same file, exactly"
run sh -c "cd \"$T/exact\" && \"$M\" --report junit -t e.mock | sed -e 's/time=\"[0-9.]*\"/time=\"T\"/g' -e 's/timestamp=\"[-0-9T:]*\"/timestamp=\"D\"/' -e \"s/hostname=\\\"\$(hostname)\\\"/hostname=\\\"H\\\"/\""
want_rc 0
want_out '<?xml version="1.0" encoding="UTF-8"?>
<testsuites>
  <testsuite name="e" tests="2" failures="1" errors="0" skipped="0" time="T" timestamp="D" hostname="H">
    <testcase classname="e" name="passes" time="T">
      <system-out>42
</system-out>
      <system-err></system-err>
    </testcase>
    <testcase classname="e" name="fails" time="T">
      <failure message="e.mock:8: expected exit status 0, but sh exited with status 3">e.mock:8: expected exit status 0, but sh exited with status 3
e.mock:9: expected stdout to be &quot;other\n&quot;, got &quot;out\n&quot;
</failure>
      <system-out>out
</system-out>
      <system-err></system-err>
    </testcase>
  </testsuite>
</testsuites>'; done_t

t "the DESIGN.md example file runs"
cat > "$T/design.mock" <<'MOCK'
will_return_maybe(geteuid, 4242)
test "cat reports a read error" {
	will_fail(read, EIO, in="cat")
	run cat /etc/hostname
	expect_exit(1)
	expect_stderr_contains("Input/output error")
}
MOCK
run "$M" -t "$T/design.mock"
want_rc 0; want_out_has "ok 1 - $T/design.mock: cat reports a read error"; done_t

t "test directories are removed"
mkdir "$T/tmpdir"
run env TMPDIR="$T/tmpdir" "$M" -t "$D/pass.mock" "$D/fixtures.mock"
[ -z "$(ls -A "$T/tmpdir")" ] || problem "left behind: $(ls -A "$T/tmpdir")"; done_t

t "-j: a slow test does not hold the pool; results stay in file order"
run "$M" -j 2 -t "$D/pool.mock"
want_rc 0
printf '%s\n' "$out" | grep '^ok' | sed 's/.*: //' | tr '\n' ' ' | grep -qx 'waits for the others one two three four ' ||
	problem "not in file order: $out"; done_t

t "SIGTERM or SIGINT to mockrun -t: the tests' programs stop, nothing is left, mockrun ends by the signal"
mkdir -p "$T/stop/tmp"
cat > "$T/stop/slow.mock" <<'MOCK'
test "slow one" {
	run sleep 31.25
}
test "slow two" {
	run sleep 31.25
}
test "never started" {
	run true
}
MOCK
# (no ^: under qemu-user the command line starts with the emulator's)
for sig in TERM INT; do
	# a background job of a script ignores SIGINT: the subshell restores it
	( trap - INT; exec env TMPDIR="$T/stop/tmp" "$M" -j 2 -t "$T/stop/slow.mock" -o "$T/stop/out.tap" ) &
	pid=$!
	for _ in $(seq 100); do [ "$(pgrep -c -f 'sleep 31.25$')" = 2 ] && break; sleep 0.05; done
	kill -$sig "$pid"
	wait "$pid"
	rc=$?
	want=$((128 + $(kill -l $sig)))
	[ "$rc" = "$want" ] || problem "SIG$sig: mockrun exited $rc, not $want"
	for _ in $(seq 40); do pgrep -f 'sleep 31.25$' >/dev/null || break; sleep 0.05; done
	pgrep -f 'sleep 31.25$' >/dev/null && problem "SIG$sig: a test's program still runs"
	[ -z "$(ls -A "$T/stop/tmp")" ] || problem "SIG$sig: left behind: $(ls -A "$T/stop/tmp")"
	[ ! -e "$T/stop/out.tap" ] || problem "SIG$sig: a report was written"
	[ -z "$(ls -A "$T/stop" | grep -v -e '^tmp$' -e '^slow.mock$')" ] ||
		problem "SIG$sig: left beside the report: $(ls -A "$T/stop")"
done
pkill -f 'sleep 31.25$' 2>/dev/null; done_t

t "serial: under -j 4 a serial test runs alone (a lock dir each takes), others in parallel"
mkdir -p "$T/serial"
# each test takes the lock directory or fails: two that overlap fail
lock='mkdir "$LOCKDIR/lock" || exit 1; sleep 1; rmdir "$LOCKDIR/lock"'
{
	echo 'test "free one" {'; echo "	run sh -c 'sleep 1'"; echo '}'
	for n in a b c; do
		echo "serial test \"port $n\" {"; echo "	run sh -c '$lock'"; echo '}'
	done
	echo 'test "free two" {'; echo "	run sh -c '[ ! -d \"\$LOCKDIR/lock\" ]'"; echo '}'
} > "$T/serial/tests.mock"
{ echo '# every test of this file runs alone'; echo 'serial'
	for n in d e; do
		echo "test \"port $n\" {"; echo "	run sh -c '$lock'"; echo '}'
	done
} > "$T/serial/file.mock"
# the same tests without the marker overlap: the lock catches it
sed 's/^serial test/test/' "$T/serial/tests.mock" > "$T/serial/unmarked.mock"
run env LOCKDIR="$T/serial" "$M" -j 4 -t "$T/serial/tests.mock" "$T/serial/file.mock"
want_rc 0
[ "$(printf '%s\n' "$out" | grep -c '^ok ')" -eq 7 ] || problem "not 7 oks: $out"
run env LOCKDIR="$T/serial" "$M" -j 4 -t "$T/serial/unmarked.mock"
want_rc 1; want_out_has "not ok"
rmdir "$T/serial/lock" 2>/dev/null; done_t

t "serial: a word after it other than test, or inside a test, is an error with its position"
printf 'serial tset "x" {\n\trun true\n}\n' > "$T/serial/bad1.mock"
run "$M" -t "$T/serial/bad1.mock"
want_rc 125; want_err_has "bad1.mock:1:8: error: expected 'test' or the end of the line after 'serial'"
printf 'test "x" {\n\tserial\n\trun true\n}\n' > "$T/serial/bad2.mock"
run "$M" -t "$T/serial/bad2.mock"
want_rc 125; want_err_has "bad2.mock:2:2: error: 'serial' marks a test from outside: serial test \"x\" { ... }"
printf 'serial\nserial\ntest "x" {\n\trun true\n}\n' > "$T/serial/bad3.mock"
run "$M" -t "$T/serial/bad3.mock"
want_rc 125; want_err_has "bad3.mock:2:1: error: the file is serial already (line 1)"; done_t

t "expect_no_signal(), expect_exit_not(N) and timeout(S): each fails what it should and passes the rest"
cat > "$T/ends.mock" <<'MOCK'
test "killed" {
	run sh -c 'kill -SEGV $$'
	expect_no_signal()
}
test "hangs" {
	timeout(1)
	run sleep 30
	expect_no_signal()
}
test "any status" {
	run sh -c 'exit 3'
	expect_no_signal()
}
test "swallowed" {
	run true
	expect_exit_not(0)
}
test "reported" {
	run false
	expect_exit_not(0)
}
MOCK
run "$M" -t "$T/ends.mock"
want_rc 1
want_out_has "not ok 1 - $T/ends.mock: killed"
want_out_has "ends.mock:3: expected sh to exit by itself, but it was killed by SIGSEGV"
want_out_has "not ok 2 - $T/ends.mock: hangs"
want_out_has "ends.mock:8: expected sleep to exit by itself, but it timed out"
want_out_has "ok 3 - $T/ends.mock: any status"
want_out_has "ends.mock:16: expected an exit status other than 0, but true exited with status 0"
want_out_has "ok 5 - $T/ends.mock: reported"
printf 'test "x" {\n\ttimeout(0)\n\trun true\n}\n' > "$T/badtimeout.mock"
run "$M" -t "$T/badtimeout.mock"
want_rc 125; want_err_has "badtimeout.mock:2:9: error: timeout(0): a test's timeout is 1 second or more"
done_t

finish
