#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Call sites symbolized by mockrun (sites/ through runner/): --trace on
# stderr and in a file, at="FUNC" and at="FILE:LINE" aimed at one call,
# a misspelt name, the reports, -t, Debian's jq, and no symbolizer.
. "$(dirname "$0")/../lib.sh"
: "${MOCKRUN:?}" "${PROG_G:?}" "${PROG_NOG:?}" "${PROG_SRC:?}"
M=$MOCKRUN
G=$(basename "$PROG_G")
NOG=$(basename "$PROG_NOG")
LINE=$(grep -n 'SITE: the call' "$PROG_SRC" | cut -d: -f1)
NOTE=$(grep -n 'NOTE: a call' "$PROG_SRC" | cut -d: -f1)
MAIN_MALLOC=$(grep -n 'make_buffer((size_t)' "$PROG_SRC" | cut -d: -f1)

# the site of make_buffer's malloc as the trace shows it
t "--trace on stderr: make_buffer's malloc with its function and line, as addr2line says"
run "$M" -q --trace=malloc "$PROG_G"
want_rc 0
site=$(sed -nE 's/^[0-9]+ '"$G"': malloc\(16\) = 0x[0-9a-f]+ at ('"$G"'\+0x[0-9a-f]+).*/\1/p' <<<"$err")
[ -n "$site" ] || problem "no malloc(16) line: $err"
a2l=$(addr2line -f -e "$PROG_G" "$(printf %x $((0x${site#"$G"+0x} - 1)))" | tr '\n' ' ')
case $a2l in "make_buffer "*"/site_prog.c:$LINE"*) ;; *) problem "addr2line says [$a2l] of $site" ;; esac
want_err_has "malloc(16) = "
want_err_has " at $site (make_buffer, site_prog.c:$LINE)
"
done_t

t "--trace-file: the same lines, symbolized in the file"
run "$M" -q --trace=malloc --trace-file "$T/trace.txt" "$PROG_G"
want_rc 0
grep -qE "malloc\(16\) = 0x[0-9a-f]+ at ${site/+/\\+} \(make_buffer, site_prog\.c:$LINE\)$" "$T/trace.txt" ||
	problem "no symbolized malloc(16) line: $(cat "$T/trace.txt")"
want_err_lacks "malloc("
done_t

t "without debug info: FUNC+0xN from the symbol table"
run "$M" -q --trace=malloc "$PROG_NOG"
start=$(nm "$PROG_NOG" | awk '$3 == "make_buffer" { print $1 }')
s2=$(sed -nE 's/^[0-9]+ '"$NOG"': malloc\(16\) = 0x[0-9a-f]+ at '"$NOG"'\+0x([0-9a-f]+).*/\1/p' <<<"$err")
[ -n "$s2" ] && [ -n "$start" ] || problem "no malloc(16) line or no nm: $err"
want_err_has " at $NOG+0x$s2 (make_buffer+0x$(printf %x $((0x${s2:-0} - 0x${start:-0}))))"
done_t

t "at=\"FUNC\" fails make_buffer's malloc and no other"
run "$M" -e 'will_fail(malloc, ENOMEM, at="make_buffer")' "$PROG_G"
want_rc 1; want_err_has "out of memory"
want_err_has "1 of 1 used, by $G["
want_err_has "] at $site (make_buffer, site_prog.c:$LINE)"
run "$M" -e 'will_fail(malloc, ENOMEM, at="make_buffer")' "$PROG_NOG"
want_rc 1; want_err_has "out of memory"
done_t

t "at=\"FILE:LINE\" fails the call of that line; another line's passes it by"
run "$M" -e "will_fail(malloc, ENOMEM, at=\"site_prog.c:$LINE\")" "$PROG_G"
want_rc 1; want_err_has "out of memory"
run "$M" -e "will_fail(malloc, ENOMEM, at=\"site_prog.c:$NOTE\")" "$PROG_G"
want_rc 123; want_out "x"
want_err_has "no call of malloc() had a site in {$G+"
done_t

t "a misspelt function: 125, a caret and the closest name"
run "$M" -e 'will_fail(malloc, ENOMEM, at="make_bufer")' "$PROG_G"
want_rc 125
want_err_has "error: at=\"make_bufer\": no function 'make_bufer' (did you mean make_buffer?); searched $G, libc.so"
want_err_has '                                 ^'
run "$M" -e 'will_fail(malloc, ENOMEM, at="site_prog.c:1")' "$PROG_G"
want_rc 125; want_err_has "no code at site_prog.c:1 (the nearest lines with code: "
done_t

t "a function only in libc: a warning, and the statement matches nothing"
run "$M" -e 'will_fail(malloc, ENOMEM, at="strdup")' "$PROG_G"
want_rc 123
want_err_has "mockrun: warning: at=\"strdup\": 'strdup' is defined only in libc.so.6, a system library"
done_t

t "the reports: the text's failure, JSON's site and site_text"
run "$M" -o "$T/r.json" --report json -e 'expect_value(malloc, size, 7, at="make_buffer")' "$PROG_G"
want_rc 123
want_json "$T/r.json"
python3 - "$T/r.json" "$site" "$site (make_buffer, site_prog.c:$LINE)" <<'PY' || problem "json: $(cat "$T/r.json")"
import json, sys
f = json.load(open(sys.argv[1]))["failures"]
assert len(f) == 1 and f[0]["site"] == sys.argv[2] and f[0]["site_text"] == sys.argv[3], f
PY
run "$M" -e 'expect_value(malloc, size, 7, at="make_buffer")' "$PROG_G"
want_rc 123; want_err_has "called from $site (make_buffer, site_prog.c:$LINE)"
run "$M" -o "$T/r.xml" --report junit -e 'expect_value(malloc, size, 7, at="make_buffer")' "$PROG_G"
want_rc 123
grep -qF "$site (make_buffer, site_prog.c:$LINE)" "$T/r.xml" || problem "junit: $(cat "$T/r.xml")"
run "$M" -o "$T/r.html" --report html -e 'expect_value(malloc, size, 7, at="make_buffer")' "$PROG_G"
grep -qF "$site (make_buffer, site_prog.c:$LINE)" "$T/r.html" || problem "html lacks the symbolized site"
done_t

CRASH=$(grep -n 'CRASH: the faulting store' "$PROG_SRC" | cut -d: -f1)
t "a crash's site: the faulting instruction's own function and line, in text, JSON and JUnit"
at=$(nm "$PROG_G" | awk '$3 == "crash_here" { print $1 }')
run "$M" "$PROG_G" crash
want_rc 139
csite=$(sed -nE 's/.*killed by SIGSEGV at ('"$G"'\+0x[0-9a-f]+).*/\1/p' <<<"$err")
# (on x86-64 the store is crash_here's first instruction: the one before
# it is another function's, which a return address's lookup would name;
# aarch64 loads the value first, one instruction before the store)
off=$((0x${csite#"$G"+0x}))
case $(uname -m) in
x86_64) [ "$off" = $((0x$at)) ] || problem "crash site [$csite], crash_here at 0x$at" ;;
*) [ "$off" -ge $((0x$at)) ] && [ "$off" -lt $((0x$at + 16)) ] ||
	problem "crash site [$csite], not within crash_here's first instructions (0x$at)" ;;
esac
want_err_has "killed by SIGSEGV at $csite (crash_here, site_prog.c:$CRASH)"
want_err_has "stack: $csite (crash_here, site_prog.c:$CRASH), $G+0x"
run "$M" -o "$T/c.json" --report json "$PROG_G" crash
want_rc 139
want_json "$T/c.json"
python3 - "$T/c.json" "$csite" "$csite (crash_here, site_prog.c:$CRASH)" <<'PY' || problem "json: $(cat "$T/c.json")"
import json, sys
d = json.load(open(sys.argv[1]))
c = [p["crash"] for p in d["processes"] if "crash" in p][0]
assert c["site"] == sys.argv[2] and c["site_text"] == sys.argv[3], c
assert c["stack"][0] == sys.argv[2] and c["stack_text"][0] == sys.argv[3], c
assert len(c["stack_text"]) == len(c["stack"]) and c["stack_text"][1].startswith(c["stack"][1] + " (main, "), c
# names without a symbol's version (glibc's symbol table has
# "__libc_start_main@@GLIBC_2.34" where its debug info is installed)
assert not any("@" in t for t in c["stack_text"]), c
PY
run "$M" -o "$T/c.xml" --report junit "$PROG_G" crash
grep -qF "$csite (crash_here, site_prog.c:$CRASH)" "$T/c.xml" || problem "junit: $(cat "$T/c.xml")"
done_t

t "-t: at=\"FUNC\" in a test file, the program of its first run (\${DIR}/prog)"
mkdir -p "$T/tf"
cp "$PROG_G" "$T/tf/prog"
cat > "$T/tf/at.mock" <<MOCK
test "make_buffer's malloc fails" {
	will_fail(malloc, ENOMEM, at="make_buffer")
	run \${DIR}/prog
	expect_exit(1)
	expect_stderr_contains("prog: out of memory")
}
MOCK
cat > "$T/tf/bad.mock" <<MOCK
test "a misspelt name" {
	will_fail(malloc, ENOMEM, at="make_bufer")
	run \${DIR}/prog
}
MOCK
run env -C "$T/tf" "$M" -t at.mock
want_rc 0; want_out_has "ok 1 - at.mock: make_buffer's malloc fails"
run env -C "$T/tf" "$M" -t bad.mock
want_rc 125
want_err_has "bad.mock:2:31: error: at=\"make_bufer\": no function 'make_bufer' (did you mean make_buffer?); searched prog, libc.so"
done_t

if ! command -v jq >/dev/null; then
	skip_t "Debian's jq: sites in libjq.so.1 named from its .dynsym" "jq is not installed"
else
	t "Debian's jq: sites in libjq.so.1 named from its .dynsym"
	echo '{"a":[1,2]}' > "$T/in.json"
	run "$M" -q --trace=malloc jq . "$T/in.json"
	want_rc 0
	lib=$(ldd "$(command -v jq)" | awk '$1 ~ /^libjq[.]so/ { print $3 }')
	base=$(nm -D --defined-only "$lib" | awk '$3 == "jv_mem_alloc" { print $1 }')
	off=$(sed -nE 's/.* at libjq\.so\.1\+0x([0-9a-f]+) \(jv_mem_alloc\+0x[0-9a-f]+\)$/\1/p' <<<"$err" | head -1)
	[ -n "$off" ] && [ -n "$base" ] || problem "no jv_mem_alloc site ($base): $(head -5 <<<"$err")"
	want_err_has "at libjq.so.1+0x$off (jv_mem_alloc+0x$(printf %x $((0x${off:-0} - 0x${base:-0}))))"
	done_t
fi

t "no symbolizer: raw sites, and at=\"FUNC\" says what is missing"
run env MOCKSHIM_SYMBOLIZER=/nonexistent "$M" -q --trace=malloc "$PROG_G"
want_rc 0
grep -qE "malloc\(16\) = 0x[0-9a-f]+ at ${site/+/\\+}$" <<<"$err" || problem "not a raw site: $err"
run env MOCKSHIM_SYMBOLIZER=/nonexistent "$M" --version
want_out_has "symbolizer: none"
done_t

finish
