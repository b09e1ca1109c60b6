#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# mockrun explore on a real program: Debian's jq, `jq . FILE`, failing
# malloc: it crashes, and its crashing runs are grouped by crash site
# into fewer findings.
. "$(dirname "$0")/lib-explore.sh"

command -v jq >/dev/null || { skip_t "explore jq" "no jq"; finish; exit 0; }
printf '{"a": [1, 2, {"b": "c"}], "d": null, "e": "%s"}\n' "$(head -c 300 /dev/zero | tr '\0' x)" > "$T/work/in.json"

t "jq . FILE --fns malloc: crashes found, each finding file reproduces one"
(cd "$T" && run "$M" explore --fns malloc --workdir work -j 2 -o jq -- jq . in.json
 printf '%s\n' "$rc" > "$T/.rc"; printf '%s' "$err" > "$T/.e")
rc=$(cat "$T/.rc"); err=$(cat "$T/.e")
want_rc 1
j=$T/jq/explore.json
crashing=$(jget "$j" 'j["summary"]["crash"]')
findings=$(jget "$j" 'len([f for f in j["findings"] if f["outcome"]=="crash"])')
echo "# jq: $(jget "$j" 'j["summary"]') ($(jget "$j" 'j["method"]'))"
[ "$crashing" -gt 0 ] || problem "no crashing run"
[ "$findings" -gt 0 ] || problem "no crash finding"
first=$(cd "$T/jq" && ls [0-9]*-crash-malloc.mock | head -1)
run sh -c "cd '$T' && '$M' -t 'jq/$first'"
want_rc 1; want_out_has "but it was killed by SIG"
done_t

t "jq: crashing runs grouped by crash site (fewer findings than crashing runs)"
if [ "$(jget "$j" 'sum(1 for r in j["runs"] if r["crash_site"])')" = 0 ]; then
	skip_t "grouped by crash site" "the reports name no crash sites yet"
else
	[ "$findings" -lt "$crashing" ] || problem "$findings findings for $crashing crashing runs"
	[ "$(jget "$j" 'len(set(f["crash_site"] for f in j["findings"] if f["outcome"]=="crash"))')" = "$findings" ] ||
		problem "two findings share a crash site"
	done_t
fi

t "--site-skip 'libjq*' reaches the clean run and every run: other sites, in the reproduce line"
(cd "$T" && run "$M" explore --fns malloc --site-skip 'libjq*' --workdir work -j 2 -o jqskip -- jq . in.json
 printf '%s\n' "$rc" > "$T/.rc")
rc=$(cat "$T/.rc")
[ "$rc" = 0 ] || [ "$rc" = 1 ] || problem "exit $rc"
js=$T/jqskip/explore.json
[ "$(jget "$js" 'j["site_skip"]')" = "['libjq*']" ] || problem "site_skip: $(jget "$js" 'j["site_skip"]')"
[ "$(jget "$js" 'sorted(s["site"] for s in j["sites"])')" != "$(jget "$j" 'sorted(s["site"] for s in j["sites"])')" ] ||
	problem "the same sites with and without --site-skip"
[ "$(jget "$js" 'sum(1 for s in j["sites"] if s["site"].startswith("jq+"))')" -gt 0 ] || problem "no site in jq itself"
for f in "$T"/jqskip/[0-9]*.mock; do
	[ -e "$f" ] || continue
	grep -q "mockrun --site-skip 'libjq\*' -t jqskip/" "$f" || problem "$f: no --site-skip in its reproduce line"
done
done_t

finish
