#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# --report html in a real browser: headless Chromium (Debian's chromium)
# loads the page of a failing run (and of a test-file run) without a
# console error, the failure text is in its DOM, and it takes a screenshot
# (kept in the build tree as report.png for a person to look at).
. "$(dirname "$0")/../lib.sh"

M=$MOCKRUN
chrome=$(command -v chromium || true)
[ -n "$chrome" ] || { skip_t "the HTML report in a browser" "no chromium"; finish; exit 0; }
browse() {
	"$chrome" --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
		--disable-component-update --disable-sync --user-data-dir="$(mktemp -d "$T/ud.XXXXXX")" \
		--enable-logging=stderr --v=0 "$@"
}

t "a failing run's page: verdict, statements, failure with expected and actual"
run "$M" --report html -o "$T/fail.html" -e 'will_fail(read, EIO, in="cat")' \
	-e 'expect_string(open, pathname, "/etc/passwd")' sh -c 'cat /etc/hostname'
want_rc 123
grep -qiE '<script|<link|<img|<iframe| src=|url\(|@import' "$T/fail.html" && problem "the page loads something or runs a script"
run browse --dump-dom "file://$T/fail.html"
want_out_has '<h1 id="verdict">FAILED</h1>'
want_out_has 'parameter pathname: expected "/etc/passwd", got "/etc/hostname"'
want_out_has 'will_fail(read, EIO, in="cat")'
case "$err" in *CONSOLE*|*"Refused to"*|*"Uncaught"*) problem "console: $(grep -E 'CONSOLE|Refused|Uncaught' <<<"$err")" ;; esac
done_t

t "the console check sees a page's error (its failing twin)"
printf '<!DOCTYPE html><html><body><script>console.error("boom"); nosuch();</script></body></html>' > "$T/bad.html"
run browse --dump-dom "file://$T/bad.html"
case "$err" in *CONSOLE*'"boom"'*) ;; *) problem "no console error seen: the check above proves nothing" ;; esac
done_t

t "a passing run's page says PASSED"
run "$M" --report html -o "$T/pass.html" -e 'will_return(geteuid, 4242)' id -u
want_rc 0
run browse --dump-dom "file://$T/pass.html"
want_out_has '<h1 id="verdict">PASSED</h1>'
want_out_has 'will_return(geteuid, 4242)'
done_t

t "a screenshot of the failing page"
rm -f "$SHOT"
run browse --window-size=1100,800 --screenshot="$SHOT" "file://$T/fail.html"
[ -s "$SHOT" ] && [ "$(head -c 8 "$SHOT" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] ||
	problem "no PNG at $SHOT"
done_t

t "a test-file run's page (-t): a section per test with its statements and failures"
cat > "$T/page.mock" <<'MOCK'
test "reads the fake clock" {
	fake_time("2001-02-03 04:05:06")
	run date
	expect_stdout_contains("2001")
}
test "a leftover" {
	will_return(getuid, 7)
	run true
}
MOCK
run "$M" --report html -o "$T/tests.html" -t "$T/page.mock"
want_rc 1
grep -qiE '<script|<link|<img|<iframe| src=|url\(|@import' "$T/tests.html" && problem "the page loads something or runs a script"
run browse --dump-dom "file://$T/tests.html"
want_out_has '<h1 id="verdict">FAILED</h1>'
want_out_has '<section class="test" id="test-1">'
want_out_has 'clocks read 1 time by date['
want_out_has '<div class="msg">getuid() has remaining non-returned values (0 of 1 used)</div>'
case "$err" in *CONSOLE*|*"Refused to"*|*"Uncaught"*) problem "console: $(grep -E 'CONSOLE|Refused|Uncaught' <<<"$err")" ;; esac
done_t

t "mockrun sites --html: the error-site coverage page, self-contained, with its figures and rows"
cat > "$T/cov.mock" <<'MOCK'
test "<a file> & no access" {
	will_fail(open, EACCES)
	run cat /etc/hostname
	expect_exit(1)
}
test "two files" {
	expect_any_always(fstat, fd)
	run cat /etc/hostname /etc/hostname
}
MOCK
run "$M" -t "$T/cov.mock" --sites "$T/cov.json"
want_rc 0
run "$M" sites -q --html "$T/sites.html" "$T/cov.json"
want_rc 0
grep -qiE '<script|<link|<img|<iframe| src=|url\(|@import' "$T/sites.html" && problem "the page loads something or runs a script"
run browse --dump-dom "file://$T/sites.html"
want_out_has '<h1>Error-site coverage</h1>'
want_out_has 'Sites failed by some test / sites reached: <b>'
want_out_has '<tr class="untested"><td><code>cat+0x'
want_out_has 'cov.mock::&lt;a file&gt; &amp; no access (1)</td><td>failed EACCES</td>'
case "$err" in *CONSOLE*|*"Refused to"*|*"Uncaught"*) problem "console: $(grep -E 'CONSOLE|Refused|Uncaught' <<<"$err")" ;; esac
done_t

t "explore's index.html: the findings, their sites and reproduce commands, no console error"
mkdir -p "$T/ework"
echo world > "$T/ework/conf.txt"
run sh -c "cd '$T' && '$M' explore --fns malloc,write,fsync --files out.txt --workdir ework --timeout 1 -o ex -- '$PLANTED' conf.txt out.txt"
want_rc 1
grep -qiE '<script|<link|<img|<iframe| src=|url\(|@import' "$T/ex/index.html" && problem "the page loads something or runs a script"
run browse --dump-dom "file://$T/ex/index.html"
want_out_has '<h1 id="verdict">4 findings</h1>'
want_out_has '<code class="reproduce">mockrun -t ex/0001-'
want_out_has 'double free'
want_out_has '<span class="silent">silent</span> write EIO at <code>planted+0x'
case "$err" in *CONSOLE*|*"Refused to"*|*"Uncaught"*) problem "console: $(grep -E 'CONSOLE|Refused|Uncaught' <<<"$err")" ;; esac
rm -f "$SHOT_EXPLORE"
run browse --window-size=1100,800 --screenshot="$SHOT_EXPLORE" "file://$T/ex/index.html"
[ -s "$SHOT_EXPLORE" ] || problem "no screenshot at $SHOT_EXPLORE"
done_t

finish
