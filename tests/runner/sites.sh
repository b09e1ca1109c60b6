#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Call sites (DESIGN.md 7.1): the trace's "at SITE", at= on statements,
# sites in the report.  The program is built optimised, without frame
# pointers (as Debian builds); each site is checked against objdump.
. "$(dirname "$0")/../lib.sh"

M=$MOCKRUN
S=$SITES
SITE_RE='sites\+0x[0-9a-f]+'
# what mockrun adds after a site it symbolized: " (first_site, sites.c:17)"
SYM_RE='( \([^)]*\))?'

# the function called by the instruction just before offset $1 of $S
# ("malloc@plt"), as objdump disassembles it
called_before() {
	local want=$(( $1 )) prev= line a
	while IFS= read -r line; do
		[[ $line =~ ^\ *([0-9a-f]+): ]] || continue
		a=$(( 16#${BASH_REMATCH[1]} ))
		if [ "$a" -eq "$want" ]; then
			sed -nE 's/.*(call|bl)[[:space:]]+[0-9a-f]+ <([^>]+)>.*/\2/p' <<<"$prev"
			return
		fi
		prev=$line
	done < <(objdump -d --no-show-raw-insn "$S")
}

t "--trace: each line ends with the call's site, the return address's offset as objdump shows it"
run "$M" -q --trace=malloc --trace-file "$T/two.txt" "$S" two
want_rc 0
mapfile -t sites < <(grep -E '^[0-9]+ sites: malloc\((100|200)\) = 0x[0-9a-f]+ at '"$SITE_RE$SYM_RE"'$' "$T/two.txt" |
	sed -E 's/.* at ('"$SITE_RE"').*$/\1/')
if [ "${#sites[@]}" != 2 ] || [ "${sites[0]}" = "${sites[1]}" ]; then
	problem "want two malloc lines with two sites: $(cat "$T/two.txt")"
elif command -v objdump >/dev/null; then
	for s in "${sites[@]}"; do
		fn=$(called_before "${s#sites+}")
		[ "$fn" = "malloc@plt" ] || problem "site $s: the instruction before it calls '$fn', not malloc@plt"
	done
fi
done_t
site1=${sites[0]:-none} site2=${sites[1]:-none}

t "at=\"OBJ+0xHEX\" fails the call from that site only; the other site's passes it by"
run "$M" -e "will_fail(malloc, ENOMEM, at=\"$site1\")" "$S" two
want_rc 0; want_out "first NULL
second ok"
run "$M" -e "will_fail(malloc, ENOMEM, at=\"$site2\")" "$S" two
want_rc 0; want_out "first ok
second NULL"
done_t

t "a call from a system library on the program's behalf has the site of the program's call: strdup's malloc"
run "$M" -q --trace=malloc,strdup --trace-file "$T/dup.txt" "$S" strdup xyz
want_rc 0
dup=$(sed -nE 's/^[0-9]+ sites: strdup\("xyz"\) = 0x[0-9a-f]+ at ('"$SITE_RE"')'"$SYM_RE"'$/\1/p' "$T/dup.txt")
inner=$(sed -nE 's/^[0-9]+ sites: malloc\(4\) = 0x[0-9a-f]+ at ('"$SITE_RE"')'"$SYM_RE"'$/\1/p' "$T/dup.txt")
[ -n "$dup" ] && [ "$inner" = "$dup" ] || problem "strdup at [$dup], its malloc(4) at [$inner]: $(cat "$T/dup.txt")"
if [ -n "$dup" ] && command -v objdump >/dev/null; then
	fn=$(called_before "${dup#sites+}")
	[ "$fn" = "strdup@plt" ] || problem "site $dup: the instruction before it calls '$fn', not strdup@plt"
fi
run "$M" -e "will_fail(malloc, ENOMEM, at=\"$dup\")" "$S" strdup xyz
want_rc 0; want_out "strdup NULL
first ok"
done_t

t "strdup from two places in turn: each malloc has its own strdup's site (the unwinder's cache tells them apart)"
run "$M" -q --trace=malloc,strdup --trace-file "$T/alt.txt" "$S" alternate
want_rc 0
python3 - "$T/alt.txt" <<'PY' || problem "$(cat "$T/alt.txt")"
import re, sys
lines = [l for l in open(sys.argv[1]) if re.search(r": (malloc\(|strdup\()", l)]
pairs, last = [], None
for l in lines:
    site = l.rsplit(" at ", 1)[1].strip()
    if ": malloc(" in l:
        last = site
    elif last is not None:
        pairs.append((last, site))
        last = None
assert len(pairs) == 6, pairs
assert all(m == s for m, s in pairs), pairs
assert len({s for _, s in pairs}) == 2, pairs
PY
done_t

t "--site-skip GLOB: a library's frames are passed over as the system libraries' are"
W=$SITES_WRAPPED
run "$M" -q --trace=malloc --trace-file "$T/w1.txt" "$W" wrapped
want_rc 0
grep -qE '^[0-9]+ sites_wrapped: malloc\(50\) = 0x[0-9a-f]+ at libsitewrap\.so\+0x[0-9a-f]+'"$SYM_RE"'$' "$T/w1.txt" ||
	problem "without --site-skip the site is the library's: $(cat "$T/w1.txt")"
# symbolized when the symbolizer is there: the library found by the
# program's RUNPATH ($ORIGIN/)
if "$M" --version | grep -q '^symbolizer: /'; then
	grep -qE ' at libsitewrap\.so\+0x[0-9a-f]+ \(wrap_alloc, sitewrap\.c:[0-9]+\)$' "$T/w1.txt" ||
		problem "the library's site is not symbolized: $(cat "$T/w1.txt")"
fi
run "$M" -q --site-skip 'libsitewrap*' --trace=malloc --trace-file "$T/w2.txt" "$W" wrapped
want_rc 0
wsite=$(sed -nE 's/^[0-9]+ sites_wrapped: malloc\(50\) = 0x[0-9a-f]+ at (sites_wrapped\+0x[0-9a-f]+)'"$SYM_RE"'$/\1/p' "$T/w2.txt")
[ -n "$wsite" ] || problem "with --site-skip the site is not the program's: $(cat "$T/w2.txt")"
if [ -n "$wsite" ] && command -v objdump >/dev/null; then
	fn=$(S=$W; called_before "${wsite#sites_wrapped+}")
	[ "$fn" = "wrap_alloc@plt" ] || problem "site $wsite: the instruction before it calls '$fn', not wrap_alloc@plt"
fi
run "$M" --site-skip 'libsitewrap*' -e "will_fail(malloc, ENOMEM, at=\"${wsite:-none}\")" "$W" wrapped
want_rc 0; want_out "wrapped NULL"
run "$M" --site-skip 'a/b' true
want_rc 125; want_err_has "--site-skip a/b: a glob of an object's basename"
done_t

t "a site no call comes from: the statement is left over, and the report names the sites it passed by"
run "$M" -e 'will_fail(malloc, ENOMEM, at="sites+0x1")' "$S" two
want_rc 123; want_out "first ok
second ok"
want_err_has 'no call of malloc() had a site in {sites+0x1}; the closest of the calls it passed by had site "sites+0x'
done_t

t "a failed check names its call's site: text (called from) and JSON (\"site\")"
run "$M" -o "$T/r.json" --report json -e "expect_value(malloc, size, 7, at=\"$site2\")" "$S" two
want_rc 123
python3 - "$T/r.json" "$site2" <<'PY' || problem "json: $(cat "$T/r.json")"
import json, sys
d = json.load(open(sys.argv[1]))
fs = d["failures"]
assert len(fs) == 1 and fs[0].get("site") == sys.argv[2], fs
PY
run "$M" -e "expect_value(malloc, size, 7, at=\"$site2\")" "$S" two
want_rc 123; want_err_has "called from $site2"
done_t

t "a reply's first turn in a process: the report says where (by sites[PID] at SITE)"
run "$M" -e "will_fail(malloc, ENOMEM, at=\"$site1\")" "$S" two
want_rc 0
grep -qE "1 of 1 used, by sites\[[0-9]+\] at ${site1/+/\\+}$SYM_RE;" <<<"$err" || problem "no 'by sites[PID] at $site1': $err"
done_t

t "a malformed at= is 125 with a caret; a name needs the symbolizer"
run "$M" -e 'will_fail(malloc, ENOMEM, at="sites+0xZZ")' "$S" two
want_rc 125; want_err_has 'error: at="sites+0xZZ" is not a call site'
want_err_has '                          ^'
run "$M" -e 'will_fail(malloc, ENOMEM, at="sites+12")' "$S" two
want_rc 125; want_err_has 'is not a call site'
run "$M" -e 'will_fail(malloc, ENOMEM, at=12)' "$S" two
want_rc 125; want_err_has 'at= needs a call site as a string'
XXX
run "$M" -e 'will_fail(SYS_getpid, EPERM, at="sites+0x10")' "$S" two
want_rc 125; want_err_has 'at= names the program'"'"'s code that makes a call'
done_t

t "mockrun ctl -e adds a statement with at= to a running program"
site=$("$M" -q --trace=geteuid id -u 2>&1 >/dev/null | sed -nE 's/.* at (id\+0x[0-9a-f]+)$/\1/p' | head -1)
C=$T/ctl.sock
"$M" --control "$C" sh -c 'sleep 2; id -u' >"$T/ctl.out" 2>"$T/ctl.err" &
pid=$!
for _ in $(seq 100); do [ -S "$C" ] && break; sleep 0.05; done
run "$M" ctl "$C" --timeout 10 -e "will_return_count(geteuid, 4242, 1, at=\"${site:-id+0x1}\")"
want_rc 0
run "$M" ctl "$C" --timeout 10 -e 'will_return(geteuid, 1, at="id+0xZZ")'
want_rc 125; want_err_has 'is not a call site'
wait "$pid"
[ "$(cat "$T/ctl.out")" = 4242 ] || problem "id -u printed [$(cat "$T/ctl.out")]: $(cat "$T/ctl.err")"
done_t

t "at= in a test file aims its statement as on the command line"
cat > "$T/at.mock" <<MOCK
test "the first site fails" {
	will_fail(malloc, ENOMEM, at="$site1")
	run $S two
	expect_stdout("first NULL\nsecond ok\n")
}
MOCK
run "$M" -t "$T/at.mock"
want_rc 0; want_out_has "ok 1 - $T/at.mock: the first site fails"
done_t

# the function of $S that holds offset $1 (nm), for a crash site
function_at() {
	local want=$(( $1 )) best= bestv=-1 v a type name
	while read -r a type name; do
		[[ $type == [tT] ]] || continue
		v=$(( 16#$a ))
		if [ "$v" -le "$want" ] && [ "$v" -gt "$bestv" ]; then
			bestv=$v best=$name
		fi
	done < <(nm "$S")
	printf '%s\n' "$best"
}

t "a NULL dereference after a failed malloc: the report names the crash site, in the function that crashed"
if [ "$SANITIZE" != none ]; then
	skip_t "$tname" "a sanitizer's own SIGSEGV handler reports the crash"
else
	run "$M" -o "$T/crash.json" --report json -e "will_fail(malloc, ENOMEM, at=\"$site1\")" "$S" crash
	want_rc 139
	want_json "$T/crash.json"
	crash=$(python3 - "$T/crash.json" "$site1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ps = [p for p in d["processes"] if "crash" in p]
assert len(ps) == 1 and ps[0]["signal"] == 11, ps
c = ps[0]["crash"]
assert c["stack"] and c["stack"][0] == c["site"], c
rb = c["replies_before"]
assert len(rb) == 1 and rb[0]["function"] == "malloc" and rb[0]["site"] == sys.argv[2], rb
print(c["site"])
PY
) || problem "json: $(cat "$T/crash.json")"
	case $crash in
	sites+0x*)
		if command -v nm >/dev/null; then
			fn=$(function_at "${crash#sites+}")
			[ "$fn" = unchecked_store ] || problem "crash site $crash is in '$fn', not unchecked_store"
		fi ;;
	*) problem "crash site [$crash]" ;;
	esac
	run "$M" -e "will_fail(malloc, ENOMEM, at=\"$site1\")" "$S" crash
	want_rc 139
	grep -qE "^mockshim: sites\[[0-9]+\] killed by SIGSEGV at ${crash/+/\\+}$SYM_RE\$" <<<"$err" ||
		problem "no 'sites[PID] killed by SIGSEGV at $crash' line: $err"
	want_err_has "mockshim:   stack: $crash"
	want_err_has "mockshim:   replies before it, most recent first: malloc() by -e#1:1:1 at $site1"
	run "$M" -o "$T/crash.xml" --report junit -e "will_fail(malloc, ENOMEM, at=\"$site1\")" "$S" crash
	want_rc 139
	grep -qE "killed by SIGSEGV at ${crash/+/\\+}" "$T/crash.xml" || problem "JUnit lacks the crash site: $(cat "$T/crash.xml")"
	run "$M" -o "$T/crash.html" --report html -e "will_fail(malloc, ENOMEM, at=\"$site1\")" "$S" crash
	want_rc 139
	grep -qE "killed by SIGSEGV at ${crash/+/\\+}" "$T/crash.html" || problem "the HTML report lacks the crash site"
fi
done_t

t "abort(): the crash site is the program's call, past libc's frames; the exit status stays 134"
if [ "$SANITIZE" != none ]; then
	skip_t "$tname" "a sanitizer's own handlers"
else
	run "$M" "$S" abort
	want_rc 134
	site=$(sed -nE 's/^mockshim: sites\[[0-9]+\] killed by SIGABRT at (sites\+0x[0-9a-f]+)'"$SYM_RE"'$/\1/p' <<<"$err")
	[ -n "$site" ] || problem "no SIGABRT site: $err"
	# abort() does not return: its return address may be past the
	# function's end, so the call is what holds the byte before it
	if [ -n "$site" ] && command -v nm >/dev/null; then
		fn=$(function_at $(( ${site#sites+} - 1 )))
		[ "$fn" = in_abort ] || problem "site $site: the call before it is in '$fn', not in_abort"
	fi
fi
done_t

t "a program's own SIGSEGV handler keeps precedence: it runs, and nothing is recorded"
run "$M" -o "$T/h.json" --report json -e 'will_fail(malloc, ENOMEM)' "$S" handler
want_rc 3; want_out "handler ran"
grep -q '"crash"' "$T/h.json" && problem "a crash recorded: $(cat "$T/h.json")"
want_err_lacks "killed by"
done_t

t "under the recorder a crash is still the kernel's: the parent sees status 139 (signal 11)"
run "$M" -e 'will_fail(malloc, ENOMEM, in="sites")' sh -c "\"$S\" crash; echo \$?"
want_out 139
done_t

finish
