#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Reports and the command line as CI systems and TAP harnesses read them
# (DESIGN.md section 4, "Command-line conventions"): every JUnit is
# validated against tests/junit-10.xsd, every JSON against
# doc/report.schema.json, TAP is read by prove.
. "$(dirname "$0")/../lib.sh"

M=$MOCKRUN
D=$(cd "$(dirname "$0")/mock" && pwd)

t "-t: options after several test files are options"
run "$M" -t "$D/pass.mock" "$D/fail.mock" --report junit -o "$T/r1.xml"
want_rc 1; want_out ""
want_junit "$T/r1.xml"
grep -q 'testsuite name="[^"]*pass"' "$T/r1.xml" || problem "no pass.mock suite: $(head -3 "$T/r1.xml")"
run "$M" -t "$D/pass.mock" -o "$T/r2.xml" "$D/fail.mock" --report junit -j 2 --filter '*'
want_rc 1; want_out ""
want_junit "$T/r2.xml"
[ "$(grep -c '<testsuite ' "$T/r2.xml")" -eq 2 ] || problem "not 2 suites"
run "$M" -t "$D/pass.mock" "$D/fail.mock" --list-tests
want_rc 0; want_out_has "pass.mock: cat reports a read error"; want_out_has "fail.mock: wrong exit status"
run "$M" --list-tests "$D/pass.mock"
want_rc 0; want_out_has "pass.mock: cat reports a read error"
# after --, a word that looks like an option is a file
run "$M" -t -- --report
want_rc 125; want_err_has "--report: cannot read"; done_t

t "program mode: the first word that is not an option is the program"
run "$M" -q -e 'will_return_maybe(geteuid, 7)' id -u -o "$T/never"
want_rc 1; want_err_has "id: invalid option"
[ ! -e "$T/never" ] || problem "-o after the program was read as mockrun's"; done_t

t "JUnit when setup_all fails: no crash, the tests are errors with the setup's failure"
printf 'setup_all {\n\trun false\n}\ntest "t" {\n\trun true\n}\ntest "u" {\n\trun true\n}\n' > "$T/sa.mock"
run "$M" --report junit -o "$T/sa.xml" -t "$T/sa.mock"
want_rc 1
want_junit "$T/sa.xml"
grep -q '<testsuite name="[^"]*" tests="2" failures="0" errors="2"' "$T/sa.xml" || problem "counts: $(cat "$T/sa.xml")"
grep -q '<error message="the test did not run: setup_all failed">' "$T/sa.xml" || problem "no error: $(cat "$T/sa.xml")"
grep -q 'setup_all failed: false exited with status 1' "$T/sa.xml" || problem "no reason: $(cat "$T/sa.xml")"
for f in tap json text; do
	run "$M" --report $f -t "$T/sa.mock"
	want_rc 1; want_out_has "setup_all failed"
done
run "$M" --report json -o "$T/sa.json" -t "$T/sa.mock"
want_json "$T/sa.json"; done_t

t "JUnit stays well-formed when the program writes invalid UTF-8 and control characters"
cat > "$T/utf.mock" <<'MOCK'
test "bytes" {
	run printf "\377\376 ok \303\251 \001\033[2J \357\277\276 \355\240\200\n"
	expect_stdout("x")
}
test "stderr too" {
	run sh -c 'printf "\300\257 \364\220\200\200" >&2; exit 1'
}
MOCK
run "$M" --report junit -o "$T/utf.xml" -t "$T/utf.mock"
want_rc 1
want_junit "$T/utf.xml"
# the valid é is kept, each invalid sequence is U+FFFD
grep -q "ok é" "$T/utf.xml" || problem "é lost: $(cat "$T/utf.xml")"
run "$M" --report json -o "$T/utf.json" -t "$T/utf.mock"
want_rc 1; want_json "$T/utf.json"
run "$M" --report junit -o "$T/utfp.xml" -e 'expect_string(open, pathname, "\xff")' sh -c 'printf "\377\n" > /dev/null; cat "$(printf "\377\376")" 2>/dev/null'
want_rc 123; want_junit "$T/utfp.xml"
run "$M" --report json -o "$T/utfp.json" -e 'expect_string(open, pathname, "\xff")' sh -c 'cat "$(printf "\377\376")" 2>/dev/null'
want_rc 123; want_json "$T/utfp.json"; done_t

t "TAP is version 13 by default, 14 on request"
run "$M" -t "$D/pass.mock"
want_rc 0; [ "${out%%$'\n'*}" = "TAP version 13" ] || problem "first line: ${out%%$'\n'*}"
run "$M" -t "$D/pass.mock" --tap-version 14
want_rc 0; [ "${out%%$'\n'*}" = "TAP version 14" ] || problem "first line: ${out%%$'\n'*}"
run "$M" --report tap -o - -e 'will_return_maybe(getuid, 0)' true
want_rc 0; [ "${out%%$'\n'*}" = "TAP version 13" ] || problem "first line: ${out%%$'\n'*}"
run "$M" --tap-version 14 --report tap -o - -e 'will_return_maybe(getuid, 0)' true
want_rc 0; [ "${out%%$'\n'*}" = "TAP version 14" ] || problem "first line: ${out%%$'\n'*}"
run "$M" --tap-version 12 -t "$D/pass.mock"
want_rc 125; want_err_has "--tap-version: '12' is not 13 or 14"; done_t

if command -v prove >/dev/null; then
	t "prove reads the TAP of test files and of a program run"
	run prove --exec "$M -t" "$D/pass.mock"
	want_rc 0; want_out_has "Result: PASS"; want_err_lacks "version 14"
	run prove --exec "$M -t" "$D/fail.mock"
	want_rc 1; want_out_has "Failed 8/8 subtests"; want_out_has "Result: FAIL"
	printf '#!/bin/sh\nexec "%s" --report tap -o - -e "will_return(getuid, 5); will_return_maybe(getgid, 1)" true\n' "$M" > "$T/prog.t"
	run prove --exec sh "$T/prog.t"
	want_rc 1; want_out_has "Failed 1/3 subtests"
	done_t

	t "TAP names are escaped: a failing test named with a TODO directive is a failure, a newline stays on its line"
	printf 'test "issue # TODO later" {\n\trun false\n}\ntest "two\\nlines \\\\ back" {\n\trun false\n}\ntest "ok # SKIP no" {\n\trun true\n}\n' > "$T/todo.mock"
	run "$M" -t "$T/todo.mock"
	want_rc 1
	want_out_has 'not ok 1 - '"$T"'/todo.mock: issue \# TODO later'
	want_out_has 'not ok 2 - '"$T"'/todo.mock: two\x0alines \\ back'
	want_out_has 'ok 3 - '"$T"'/todo.mock: ok \# SKIP no'
	run prove --exec "$M -t" "$T/todo.mock"
	want_rc 1; want_out_has "Failed 2/3 subtests"; want_out_lacks "TODO passed"; want_out_lacks "skipped: 1"
	run "$M" --report tap -o - -e 'expect_string(open, pathname, "a#b")' true
	want_out_has 'not ok 1 - -e\#1:1: expect_string(open, pathname, "a\#b") (0 of 1 checked)'
	done_t
else
	skip_t "prove reads the TAP of test files and of a program run" "no prove (perl)"
	skip_t "TAP names are escaped" "no prove (perl)"
fi

t "program mode: tap, junit and json need -o (or -o -): never mixed with the program's stdout"
for f in tap junit json; do
	run "$M" --report $f -e 'will_return_maybe(getuid, 0)' sh -c "echo hi; touch $T/ran-$f"
	want_rc 125; want_out ""
	want_err_has "--report $f needs -o FILE (or -o - for stdout)"
	[ ! -e "$T/ran-$f" ] || problem "$f: the program ran"
done
run "$M" --report junit -o - -e 'will_return_maybe(getuid, 0)' sh -c 'echo hi >&2'
want_rc 0; want_out_has '<?xml version="1.0"'; [ "${out%%$'\n'*}" = '<?xml version="1.0" encoding="UTF-8"?>' ] || problem "not XML first"
run "$M" --report text -e 'will_return_maybe(getuid, 0)' sh -c 'echo hi'
want_rc 0; want_out "hi"; want_err_has "all checks passed"; done_t

t "JSON: unique keys, leftovers among the failures with their kind"
run "$M" --report json -o "$T/l.json" -e 'will_return_count(getuid, 0, 3)' true
want_rc 123; want_json "$T/l.json"
python3 - "$T/l.json" <<'PY' || problem "JSON: $(cat "$T/l.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["failure_count"] == 1 and len(d["failures"]) == 1, d
f = d["failures"][0]
assert f["kind"] == "leftover" and f["function"] == "getuid" and "0 of 3 used" in f["message"], f
PY
if command -v jq >/dev/null; then
	[ "$(jq '.failures | length' "$T/l.json")" = 1 ] || problem "jq .failures: $(jq .failures "$T/l.json")"
fi
run "$M" --report json -o "$T/c.json" -e 'expect_string(open, pathname, "x")' cat /etc/hostname
want_rc 123; want_json "$T/c.json"
python3 - "$T/c.json" <<'PY' || problem "JSON: $(cat "$T/c.json")"
import json, sys
d = json.load(open(sys.argv[1]))
f = d["failures"][0]
assert d["failure_count"] == 1 and f["kind"] == "check" and f["source"] == "-e#1" and f["line"] == 1, d
assert d["statements"][0]["failed_checks"] == 1, d
PY
done_t

t "JUnit fields: the failure's headline, errors for fixtures, timestamp, hostname, classname"
run "$M" --report junit -o "$T/h.xml" -e 'will_return_count(getuid, 0, 3)' true
want_rc 123; want_junit "$T/h.xml"
grep -q '<failure message="getuid() has remaining non-returned values (0 of 3 used)">-e#1:1:1: error: ' "$T/h.xml" ||
	problem "message: $(cat "$T/h.xml")"
grep -q " timestamp=\"$(date -u +%Y-%m-%d)T" "$T/h.xml" || problem "timestamp: $(cat "$T/h.xml")"
grep -q " hostname=\"$(hostname)\"" "$T/h.xml" || problem "hostname: $(cat "$T/h.xml")"
mkdir -p "$T/src/tests" "$T/src/build"
cp "$D/badsetup.mock" "$T/src/tests/x.mock"
run sh -c "cd '$T/src/build' && '$M' --report junit -o r.xml -t ../tests/x.mock"
want_rc 1; want_junit "$T/src/build/r.xml"
grep -q '<testcase classname="tests.x" name="never runs"' "$T/src/build/r.xml" || problem "classname: $(cat "$T/src/build/r.xml")"
grep -q '<error message="the test did not run: its setup failed">' "$T/src/build/r.xml" || problem "setup: $(cat "$T/src/build/r.xml")"
run sh -c "cd '$T/src' && '$M' --report junit -o r.xml -t tests/x.mock"
grep -q '<testcase classname="tests.x"' "$T/src/r.xml" || problem "classname from src: $(cat "$T/src/r.xml")"
run "$M" --report junit -o "$T/k.xml" -e 'will_return_maybe(getuid, 0)' sh -c 'kill -KILL $$'
want_rc 137; want_junit "$T/k.xml"
grep -q '<error message="sh was killed by SIGKILL">' "$T/k.xml" || problem "killed: $(cat "$T/k.xml")"; done_t

t "a failed test shows the last 20 lines of its stdout and stderr"
printf 'test "noisy" {\n\trun sh -c "seq 1 30; echo the reason >&2; exit 2"\n}\n' > "$T/noisy.mock"
run "$M" -t "$T/noisy.mock"
want_rc 1; want_out_has "  stdout: |
    11
    12"; want_out_lacks "    10
"; want_out_has "    30
  stderr: |
    the reason"
run "$M" --report text -t "$T/noisy.mock"
want_rc 1; want_out_has "  stdout (the last 20 lines):
  | 11"; want_out_has "  stderr:
  | the reason"
run "$M" --report junit -o "$T/noisy.xml" -t "$T/noisy.mock"
want_junit "$T/noisy.xml"
grep -q '<system-out>1$' "$T/noisy.xml" || problem "system-out: $(cat "$T/noisy.xml")"; done_t

t "what the program names is escaped in the text report: no forged lines, no escape sequences"
ln -s "$PROBE" "$T/$(printf 'ev\nmockshim: all checks passed\033[2K')"
run "$M" -e 'expect_value(read, fd, 99)' "$T/$(printf 'ev\nmockshim: all checks passed\033[2K')" read /dev/zero 1
want_rc 123
want_err_has 'ev\x0amockshim: all checks passed\x1b[2K'
printf '%s\n' "$err" | grep -q '^mockshim: all checks passed' && problem "a forged line: $err"
case "$err" in *$'\033'*) problem "an escape sequence reached the terminal" ;; esac
run "$M" -t "$T/todo.mock" --report text
case "$out" in *$'\n'"lines"*) problem "a test name split the line: $out" ;; esac
done_t

t "--report names every format; an unknown option is one line"
run "$M" --report xml true
want_rc 125; want_err_has "unknown format 'xml' (text, tap, junit, json, html)"
run "$M" --frobnicate true
want_rc 125; want_err_has "unrecognized option '--frobnicate'"; want_err_has "see mockrun --help"
[ "$(printf '%s\n' "$err" | wc -l)" -le 2 ] || problem "more than 2 lines: $err"; done_t

t "a refused option in mockrun's own words, whichever C library it links"
for c in "--tr|option '--tr' is ambiguous" "--version=3|option '--version' doesn't allow an argument" \
	"--trace-file|option '--trace-file' requires an argument" "-x|invalid option -- 'x'" \
	"-qx|invalid option -- 'x'" "-e|option requires an argument -- 'e'"; do
	run "$M" ${c%%|*}
	want_rc 125; want_err_has "mockrun: ${c#*|}"; want_err_has "see mockrun --help"
	[ "$(printf '%s\n' "$err" | wc -l)" -eq 2 ] || problem "${c%%|*}: not 2 lines: $err"
done; done_t

t "messages: a caret in a long line, strings not pointers, the name the user wrote, 1 time"
long="will_return_maybe(getuid, 0)"
for i in $(seq 30); do long="$long; will_return_maybe(getuid, $i)"; done
run "$M" -e "$long; will_fail(nosuch, EIO)" true
want_rc 125
# the caret is under the token it names, in a window of the line
caret=$(printf '%s\n' "$err" | sed -n 3p); shown=$(printf '%s\n' "$err" | sed -n 2p)
col=${caret%%^*}
[ "${shown:${#col}:6}" = nosuch ] || problem "the caret points at [${shown:${#col}:10}]"
run "$M" -e 'expect_string(open, pathname, "/etc/hostname")' sh -c 'cat /etc/hostname /etc/passwd >/dev/null'
want_rc 123; want_err_has 'no expected value left (all 1 declared were checked); got "/etc/passwd"'
run "$M" -e 'will_return(getline, 5)' true
want_rc 123; want_err_has "getline() has remaining non-returned values"; want_err_lacks "getdelim"
run "$M" -e 'will_return_always(geteuid, 5)' id -u
want_err_has "used 1 time (always)"; want_err_lacks "1 times"
run "$M" -e 'will_fail(getaddrinfo, ENOENT)' true
want_rc 125; want_err_has "getaddrinfo() fails with an EAI_* code, not 2"
run "$M" -e 'will_fail(read, EIO, errno=ENOSPC)' true
want_rc 125; want_err_has "disagree"
run "$M" -e 'will_return(read, 0, delay=-1s)' true
want_rc 125; want_err_has "a duration cannot be negative: -1s"
printf 'will_return(getuid, 0)\nwill_return(geteuid, 0\nwill_return(getgid, 1)\n' > "$T/paren.mock"
run "$M" -f "$T/paren.mock" true
want_rc 125; want_err_has "$T/paren.mock:2:23: error: expected ')' at the end of the line, to close 'will_return(' (note: opened at 2:12)"
done_t

t "--trace: an exec is logged before it runs; flags, clocks and structs as values"
run "$M" -q --trace=execvp env true
want_rc 0; want_err_has ': execvp("true", ["true"]) ... at env+0x'
run "$M" -q --trace=execvp env /nonexistent/x
want_err_has 'execvp("/nonexistent/x", ["/nonexistent/x"]) = -1 ENOENT'
run "$M" -q --trace=statx,fstatat,stat,lstat ls -ld /
want_rc 0
case "$err" in
*"statx(AT_FDCWD, \"/\", AT_SYMLINK_NOFOLLOW|AT_NO_AUTOMOUNT, STATX_"*"{stx_mode=040"*) ;;
*"stat"*"{st_mode=040"*) ;;
*) problem "stat flags and outputs: $err" ;;
esac
run "$M" -q --trace=clock_gettime date +%s
want_err_has "clock_gettime(CLOCK_REALTIME, {tv_sec="
run "$M" -q --trace=socket python3 -c 'import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)'
want_err_has "socket(AF_INET, SOCK_DGRAM|SOCK_CLOEXEC, 0) = "
done_t

t "spec files and stdin are at most 64 MiB"
run "$M" -f /dev/zero true
want_rc 125; want_err_has "/dev/zero: a spec is at most 64 MiB"
run sh -c "head -c 70000000 /dev/zero | tr '\\0' ' ' | '$M' -f - true"
want_rc 125; want_err_has "-: a spec is at most 64 MiB"
run "$M" -t /dev/zero
want_rc 125; want_err_has "/dev/zero: cannot read it as text"; done_t

t "the HTML page lists each turn taken; a turn no call number was given says none (not call 0)"
run "$M" --report html -o "$T/turns.html" -e 'will_return(getuid, 7)' sh -c true
want_rc 0
grep -q 'getuid() in dash\[[0-9]*\] (thread [0-9]*): -e#1:1: returned 7' "$T/turns.html" ||
	problem "no turn listed: $(grep -o 'getuid()[^<]*' "$T/turns.html")"
grep -q 'call 0' "$T/turns.html" && problem "a turn says call 0"
run "$M" -v -e 'will_return(getuid, 7)' sh -c true
want_err_has "getuid() call 1 in dash["; done_t

t "a leftover whose in= matched no program names the programs that ran"
# (in="sh" reaches dash started as sh: argv[0] matches too)
run "$M" -e 'will_fail(open, EACCES, in="bash"); will_return(getuid, 0, in="nomatch")' sh -c 'cat /etc/hostname >/dev/null; id -u >/dev/null'
want_rc 123
want_err_has 'note: in="bash" matched no program of the run; the programs were dash, cat, id'
run "$M" -e 'will_fail(open, EACCES, in="cat"); will_return(unlink, 0, in="cat")' sh -c 'cat /etc/hostname'
want_rc 123
want_err_lacks "matched no program"; done_t

t "-t JUnit: a failure's message is the failure, not the run's summary line"
cat > "$T/msg.mock" <<'MOCK'
test "leftover" {
	will_return(getuid, 7)
	run true
}
test "check" {
	expect_string(open, pathname, "/etc/passwd")
	run cat /etc/hostname
}
test "order" {
	expect_function_call(getuid)
	expect_function_call(geteuid)
	run id
}
test "exit" {
	will_return_maybe(getuid, 7)
	run sh -c 'exit 3'
}
MOCK
run "$M" --report junit -o "$T/msg.xml" -t "$T/msg.mock"
want_rc 1
want_junit "$T/msg.xml"
grep -q 'message="mockshim: ' "$T/msg.xml" && problem "a summary line as message: $(grep -o 'message="[^"]*"' "$T/msg.xml")"
for m in 'msg.mock:2:2: error: getuid() has remaining non-returned values (0 of 1 used)' \
	'msg.mock:6:2: error: open() call 1 in cat\[[0-9]*\]: parameter pathname: expected &quot;/etc/passwd&quot;' \
	'msg.mock:10:2: error: geteuid() call 1 in id\[[0-9]*\]: called out of order' \
	'msg.mock:16: expected exit status 0, but sh exited with status 3'; do
	grep -q "<failure message=\"[^\"]*$m" "$T/msg.xml" || problem "no message like $m: $(grep -o 'message="[^"]*"' "$T/msg.xml")"
done; done_t

t "the HTML page's statements table has fake_time's row, as the text report words it"
run "$M" --report html -o "$T/ft.html" -e 'fake_time("2001-02-03 04:05:06")' -e 'will_return(getuid, 7)' \
	sh -c 'date; id -u'
want_rc 0; want_out_has "Sat Feb  3 04:05:06 UTC 2001"
row=$(sed -n '/<section id="statements">/,/<\/section>/p' "$T/ft.html")
grep -q '<td><code>-e#1:1:1</code></td><td><code>fake_time(&quot;2001-02-03 04:05:06&quot;)</code></td><td>clocks read 1 time by date\[[0-9]*\]</td>' <<<"$row" ||
	problem "no fake_time row: $row"
grep -q '<td><code>will_return(getuid, 7)</code></td><td>1 of 1 used' <<<"$row" || problem "no will_return row: $row"
run "$M" --report html -o "$T/ft0.html" -e 'fake_time("2001-02-03 04:05:06")' true
want_rc 0
grep -q '<td class="left">clocks read 0 times</td>' "$T/ft0.html" ||
	problem "a clock nobody read is not marked: $(grep -o '<tr>.*fake_time.*</tr>' "$T/ft0.html")"; done_t

if ! [ -x /bin/busybox ] || ldd /bin/busybox >/dev/null 2>&1; then
	skip_t "in= naming a static program that ran" "no static /bin/busybox"
elif [ -n "$EMULATED" ]; then
	skip_t "in= naming a static program that ran" "$EMULATED: its SYS_ statements need seccomp(), which qemu-user does not emulate"
else
t "in= naming a static program that ran but made no call the statement takes says so"
run "$M" -e 'will_return(SYS_read, 0, in="busybox")' sh -c '/bin/busybox true'
want_rc 123
want_err_lacks 'matched no program'
want_err_has 'note: in="busybox" matched /bin/busybox (exec'"'"'d by dash['
want_err_has ']), which ran (static) but made no call this statement takes'
run "$M" -e 'will_return(SYS_read, 0, in="busybox")' /bin/busybox true
want_rc 123
want_err_lacks 'matched no program'
want_err_has 'note: in="busybox" matched the program, /bin/busybox, which ran (no process attached: static, setuid or without LD_PRELOAD) but made no call this statement takes'
# a program that did not run is still "no program of the run"
run "$M" -e 'will_return(SYS_read, 0, in="nomatch")' sh -c '/bin/busybox true'
want_rc 123
want_err_has 'note: in="nomatch" matched no program of the run; the programs were dash'
done_t
fi

t "-t --report html: one self-contained page, a section per test with its statements and failures"
cat > "$T/page.mock" <<'MOCK'
test "reads the fake clock" {
	fake_time("2001-02-03 04:05:06")
	will_return(getuid, 7)
	run sh -c 'date; id -u'
	expect_stdout_contains("2001")
}
test "a leftover" {
	will_return(getuid, 7)
	run true
}
MOCK
run "$M" -t "$T/page.mock" --report html -o "$T/page.html"
want_rc 1; want_out ""
h=$(cat "$T/page.html")
grep -qiE '<script|<link|<img|<iframe| src=|url\(|@import' <<<"$h" && problem "the page loads something or runs a script"
grep -q '^<!DOCTYPE html>' <<<"$h" && grep -q '</body></html>$' <<<"$h" || problem "not a whole page: $h"
grep -q '<h1 id="verdict">FAILED</h1><p>1 passed, 1 failed</p>' <<<"$h" || problem "no verdict: $h"
[ "$(grep -c '<section class="test" id="test-[12]">' <<<"$h")" -eq 2 ] || problem "not a section per test: $h"
sec1=$(sed -n '/id="test-1"/,/<\/section>/p' <<<"$h")
grep -q '<span class="tpass">PASS</span> [^<]*page.mock: reads the fake clock' <<<"$sec1" || problem "test 1's head: $sec1"
grep -q '<td><code>fake_time(&quot;2001-02-03 04:05:06&quot;)</code></td><td>clocks read 1 time by date\[' <<<"$sec1" ||
	problem "test 1 has no fake_time row: $sec1"
grep -q '<td><code>will_return(getuid, 7)</code></td><td>1 of 1 used, by dash\[' <<<"$sec1" || problem "test 1's will_return: $sec1"
sec2=$(sed -n '/id="test-2"/,/<\/section>/p' <<<"$h")
grep -q '<span class="tfail">FAIL</span> [^<]*page.mock: a leftover' <<<"$sec2" || problem "test 2's head: $sec2"
grep -q '<td class="left">0 of 1 used</td>' <<<"$sec2" || problem "test 2's unused statement: $sec2"
grep -q '<div class="msg">getuid() has remaining non-returned values (0 of 1 used)</div><div><code>[^<]*page.mock:8:2</code>' <<<"$sec2" ||
	problem "test 2's failure: $sec2"
run "$M" -t "$T/page.mock" --report html --filter 'reads*'
want_rc 0; want_out_has '<h1 id="verdict">PASSED</h1><p>1 passed, 0 failed</p>'; done_t

finish
