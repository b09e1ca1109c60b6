#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# mockrun explore's longer runs: shards merged equal the unsharded run,
# and a run interrupted by SIGINT resumes without rerunning its runs.
. "$(dirname "$0")/lib-explore.sh"

# explore.json without its times (the only part that may differ)
timeless() {
	sed -E 's/"(seconds|timeout_seconds)":[0-9.]+/"\1":0/g' "$1"
}

t "--shard 1/2 and 2/2 merged: the unsharded explore.json, byte for byte but the times"
explore_planted "$PLANTED" whole
want_rc 1
explore_planted "$PLANTED" s1 --shard 1/2
s1=$rc
explore_planted "$PLANTED" s2 --shard 2/2
s2=$rc
[ "$s1$s2" = 11 ] || [ "$s1$s2" = 10 ] || [ "$s1$s2" = 01 ] || problem "shards' exit: $s1 $s2"
n1=$(jget "$T/s1/explore.json" 'j["summary"]["runs"]'); n2=$(jget "$T/s2/explore.json" 'j["summary"]["runs"]')
[ "$n1" -gt 0 ] && [ "$n2" -gt 0 ] || problem "a shard ran nothing: $n1 $n2"
[ "$((n1 + n2))" = "$(jget "$T/whole/explore.json" 'j["summary"]["runs"]')" ] || problem "shards' runs: $n1 + $n2"
run sh -c "cd '$T' && '$M' explore --merge s1 s2 -o merged"
want_rc 1
timeless "$T/whole/explore.json" > "$T/whole.json"
timeless "$T/merged/explore.json" > "$T/merged.json"
cmp -s "$T/whole.json" "$T/merged.json" || problem "merged differs: $(diff "$T/whole.json" "$T/merged.json" | head -5)"
[ "$(cd "$T/whole" && ls [0-9]*.mock)" = "$(cd "$T/merged" && ls [0-9]*.mock)" ] || problem "other finding files"
run sh -c "cd '$T' && '$M' explore --merge s1 g-nope -o m2"
want_rc 125; want_err_has "g-nope holds no finished clean run"
done_t

t "SIGINT stops explore (130); rerun with the same -o finishes without rerunning a finished run"
# runs one at a time (-j 1), the hang's timeout 3 s: the signal comes
# while a run is in flight and after at least one finished
(cd "$T" && exec "$M" explore --fns "$FNS" --files out.txt --workdir work --timeout 3 -j 1 -o resume \
	-- "$PLANTED" conf.txt out.txt) > "$T/r1.out" 2> "$T/r1.err" &
pid=$!
for _ in $(seq 300); do
	[ -s "$T/resume/journal" ] && [ "$(wc -l < "$T/resume/journal")" -ge 2 ] && break
	sleep 0.05
done
kill -INT "$pid"
wait "$pid"
rc=$?
want_rc 130
grep -q "interrupted; rerun with the same -o to go on" "$T/r1.err" || problem "no word of the interruption: $(cat "$T/r1.err")"
before=$(wc -l < "$T/resume/journal")
total=$(jget "$T/resume/explore.json" 'len(j["sites"])')
[ "$before" -ge 2 ] && [ "$before" -lt "$total" ] || problem "journal has $before of $total runs"
cp "$T/resume/journal" "$T/journal.before"
explore_planted "$PLANTED" resume
want_rc 1
want_err_has "resuming in $T/resume"
after=$(wc -l < "$T/resume/journal")
[ "$after" = "$total" ] || problem "journal has $after runs, not $total"
# the first lines stay, and no run id twice
cmp -s "$T/journal.before" <(head -n "$before" "$T/resume/journal") || problem "the journal's first runs changed"
[ "$(cut -f2 "$T/resume/journal" | sort | uniq -d)" = "" ] || problem "a run ran twice: $(cut -f2 "$T/resume/journal" | sort | uniq -d)"
[ "$(jget "$T/resume/explore.json" 'j["complete"]')" = True ] || problem "not complete"
[ "$(jget "$T/resume/explore.json" 'len(j["findings"])')" = 4 ] || problem "not 4 findings after resuming"
done_t

finish
