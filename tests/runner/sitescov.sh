#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Error-site coverage (DESIGN.md 7.5): --sites in program mode and -t,
# checked against the program's own trace (" at SITE") and objdump;
# mockrun sites (the table, the figures by hand, --untested, the
# formats), merging shards byte for byte, --sites-baseline.
. "$(dirname "$0")/../lib.sh"

M=$MOCKRUN
S=$SITES
export PATH="$(dirname "$S"):$PATH"	# the test files run "sites"

# the function called by the instruction just before offset $1 of $S
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

# "SITE CALLS" per site of function $2 in sites file $1, sorted
json_sites() {
	python3 - "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
n = {}
for r in d["rows"]:
    if r["function"] == sys.argv[2]:
        n[r["site"]] = n.get(r["site"], 0) + r["calls"]
for s in sorted(n):
    print(s, n[s])
PY
}

t "--sites lists exactly the sites of malloc's calls that the program's own trace shows, with their counts"
run "$M" -q --sites "$T/two.json" -e 'will_fail(malloc, ENOMEM)' --trace=malloc \
	--trace-file "$T/two.txt" "$S" two
want_rc 0
want_out "first NULL
second ok"
from_trace=$(sed -nE 's/^[0-9]+ sites: malloc\(.* at (sites\+0x[0-9a-f]+)( \(.*\))?$/\1/p' "$T/two.txt" | sort | uniq -c |
	awk '{print $2, $1}' | sort)
from_file=$(json_sites "$T/two.json" malloc)
[ -n "$from_trace" ] || problem "no malloc line in the trace: $(cat "$T/two.txt")"
[ "$from_file" = "$from_trace" ] || problem "sites file [$from_file], trace [$from_trace]"
python3 "$TESTS_DIR/check_json.py" "$TESTS_DIR/../doc/sites.schema.json" "$T/two.json" >"$T/schema.out" 2>&1 ||
	problem "the file does not follow doc/sites.schema.json: $(cat "$T/schema.out")"
done_t

t "each site of the program's own code is just after a call of malloc@plt (objdump), the failed one first"
mapfile -t own < <(grep -oE '"function": "malloc", "site": "sites\+0x[0-9a-f]+"[^}]*' "$T/two.json")
failed=$(grep -E '"outcome": "failed ENOMEM"' "$T/two.json" | sed -nE 's/.*"site": "(sites\+0x[0-9a-f]+)".*/\1/p')
[ -n "$failed" ] || problem "no failed row: $(cat "$T/two.json")"
if command -v objdump >/dev/null && [ -n "$failed" ]; then
	fn=$(called_before "${failed#sites+}")
	[ "$fn" = "malloc@plt" ] || problem "failed site $failed: the instruction before it calls '$fn'"
	first=$(grep -m1 'malloc(100)' "$T/two.txt" | sed -E 's/.* at ([^ ]+).*/\1/')
	[ "$first" = "$failed" ] || problem "the failed site $failed is not malloc(100)'s ($first)"
fi
done_t

# the two sites of the program's own malloc calls, for at=
site1=$(grep -m1 'malloc(100)' "$T/two.txt" | sed -E 's/.* at ([^ ]+).*/\1/')
site2=$(grep -m1 'malloc(200)' "$T/two.txt" | sed -E 's/.* at ([^ ]+).*/\1/')
mkfile() { # FILE A_AT A_MODE
	cat >"$1" <<EOT
test "A fails malloc" {
	will_fail(malloc, ENOMEM, at="$2")
	run sites $3
}

test "B fails strdup" {
	will_fail(strdup, ENOMEM)
	run sites strdup xyz
	expect_stdout("strdup NULL\nfirst ok\n")
}

test "C reaches malloc" {
	will_call_real(malloc)
	run sites two
	expect_stdout("first ok\nsecond ok\n")
}
EOT
}
mkfile "$T/cov.mock" "$site2" two

t "-t: the coverage figures of a small case, computed by hand"
# A: malloc from site2 failed; site1 and stdio's buffer (printf's call
# in main) real.  B: strdup's one site failed.  C: the same three malloc
# sites, real (will_call_real).  malloc: 1 of 3 sites failed; strdup: 1
# of 1; overall 2 of 4.
run "$M" -t "$T/cov.mock" -j 2 --sites "$T/cov.json"
want_rc 0
run "$M" sites "$T/cov.json"
want_rc 0
want_out_has "  malloc         1/3 (33.3%)"
want_out_has "  strdup         1/1 (100.0%)"
want_out_has "  overall        2/4 (50.0%)"
line=$(grep -E "^$(sed 's/+/\\+/' <<<"$site2") " <<<"$out")
[[ $line == *"malloc"*" 2  "*"cov.mock::A fails malloc (1)"*"failed ENOMEM, real"* ]] ||
	problem "site2's line: [$line]"
line=$(grep -E "^$(sed 's/+/\\+/' <<<"$site1") " <<<"$out")
[[ $line == *"malloc"*" 2  -"*"real"* ]] || problem "site1's line: [$line]"
done_t

t "--untested: the reached sites no test failed, most-called first; --fns; json and markdown"
run "$M" sites --untested "$T/cov.json" --format json
want_rc 0
got=$(python3 -c 'import json,sys; d=json.load(sys.stdin); print(" ".join("%s:%s:%d" % (s["function"], s["failed"], s["calls"]) for s in d["sites"]), d["coverage"]["failed"], d["coverage"]["reached"])' <<<"$out")
[ "$got" = "malloc:False:2 malloc:False:2 2 4" ] || problem "untested json: $got"
run "$M" sites --fns strdup --format markdown "$T/cov.json"
want_rc 0
want_out_has "| \`strdup\` | 1 | "
want_out_lacks "\`malloc\`"
want_out_has "- **overall**: 1/1 (100.0%)"
done_t

t "two shards merge byte for byte into what one run writes"
run "$M" -t "$T/cov.mock" --shard 1/2 --sites "$T/s1.json"
want_rc 0
run "$M" -t "$T/cov.mock" --shard 2/2 --sites "$T/s2.json"
want_rc 0
cmp -s "$T/s1.json" "$T/cov.json" && problem "shard 1 alone is the whole run: not a test of merging"
run "$M" sites -q "$T/s2.json" "$T/s1.json" -o "$T/merged.json"
want_rc 0
cmp "$T/merged.json" "$T/cov.json" >/dev/null || problem "merged differs: $(diff "$T/merged.json" "$T/cov.json")"
done_t

t "--sites-baseline: the same tests still failing their sites pass"
run "$M" -t "$T/cov.mock" --sites "$T/again.json" --sites-baseline "$T/cov.json"
want_rc 0
done_t

t "--sites-baseline: a test that no longer reaches its failed site fails the run (123), naming both"
mkfile "$T/cov.mock" "$site2" strdup
run "$M" -t "$T/cov.mock" --sites "$T/new.json" --sites-baseline "$T/cov.json"
want_rc 123
want_err_has "malloc() at $site2 was failed by $T/cov.mock::A fails malloc (failed ENOMEM), which no longer reaches it"
done_t

t "--sites-baseline: one that reaches it but no longer fails it, too; program mode as well"
mkfile "$T/cov.mock" "$site1" two
run "$M" -t "$T/cov.mock" --sites "$T/new.json" --sites-baseline "$T/cov.json"
want_rc 123
want_err_has "malloc() at $site2 was failed by $T/cov.mock::A fails malloc (failed ENOMEM), which reaches it but no longer fails it"
run "$M" -q --sites "$T/p.json" -e "will_fail(malloc, ENOMEM, at=\"$site1\")" "$S" two
want_rc 0
run "$M" -q --sites "$T/p2.json" --sites-baseline "$T/p.json" -e "will_fail(malloc, ENOMEM, at=\"$site2\")" "$S" two
want_rc 123
want_err_has "malloc() at $site1 was failed by sites (failed ENOMEM), which reaches it but no longer fails it"
done_t

t "a malformed sites file: 125, with its line and column"
printf '{"mockshim_sites": 1,\n "rows": [{"function": "read", "calls": "x"}]}\n' >"$T/bad.json"
run "$M" sites "$T/bad.json"
want_rc 125
want_err_has "mockrun sites: $T/bad.json:2:41: expected a count"
printf '{"rows": []}\n' >"$T/nover.json"
run "$M" sites "$T/nover.json"
want_rc 125
want_err_has "not a sites file"
run "$M" --sites-baseline "$T/cov.json" true
want_rc 125
want_err_has "--sites-baseline goes with --sites FILE"
done_t

t "--html: one self-contained page (no external resource) with the figures"
run "$M" sites -q --html "$T/cov.html" "$T/cov.json"
want_rc 0
grep -q 'Sites failed by some test / sites reached: <b>2/4 (50.0%)</b>' "$T/cov.html" ||
	problem "no overall figure in the page"
grep -qiE '(src|href)=' "$T/cov.html" && problem "the page loads something: $(grep -oiE '(src|href)=[^ >]*' "$T/cov.html")"
done_t

finish
