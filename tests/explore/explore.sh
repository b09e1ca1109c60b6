#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# mockrun explore on the planted program (planted.c): the four bugs, each
# once, at their sites, none of the handled sites; every finding file
# reproduces its outcome and passes on the fixed program; bad input.
. "$(dirname "$0")/lib-explore.sh"

check_planted() {
	local prog=$1 dir=$2 j=$T/$2/explore.json
	run ls "$T/$dir"
	for want in crash-malloc hang-fsync silent-write; do
		want_out_has "$want.mock"
	done
	[ "$(ls "$T/$dir" | grep -c '^[0-9]\{4\}-.*\.mock$')" = 4 ] || problem "not 4 finding files: $(ls "$T/$dir")"
	[ "$(ls "$T/$dir" | grep -c '^[0-9]\{4\}-crash-malloc\.mock$')" = 2 ] || problem "not 2 malloc crashes"
	ls "$T/$dir" | grep -E -- '-(fopen|close|open)\.mock$' && problem "a handled site is a finding"
	# runs = reached sites x errors (one error each by default)
	[ "$(jget "$j" 'j["summary"]["runs"]')" = "$(jget "$j" 'len(j["sites"])')" ] || problem "runs != sites"
	[ "$(jget "$j" 'j["summary"]["unreached"]')" = 0 ] || problem "unreached runs"
	[ "$(jget "$j" 'sorted(f["outcome"]+"-"+f["function"] for f in j["findings"])')" = \
		"['crash-malloc', 'crash-malloc', 'hang-fsync', 'silent-write']" ] || problem "findings: $(jget "$j" 'j["findings"]')"
	# the double free by its glibc message, the unchecked malloc by SIGSEGV
	[ "$(jget "$j" 'sorted(f["signal"] for f in j["findings"] if f["outcome"]=="crash")')" = "[6, 11]" ] ||
		problem "crash signals: $(jget "$j" 'j["findings"]')"
	jget "$j" '[f["message"] for f in j["findings"] if f["signal"]==6]' | grep -q "free(): double free detected" ||
		problem "no glibc message in the SIGABRT finding: $(jget "$j" 'j["findings"]')"
	python3 "$TESTS_DIR/check_json.py" "$TESTS_DIR/../doc/explore.schema.json" "$j" >"$T/.json" 2>&1 ||
		problem "explore.json against its schema: $(cat "$T/.json")"
	if [ "$(jget "$j" 'j["method"]')" = site ]; then
		# each finding at the call planted.c marks (the -g build's
		# offsets: -g changes no code)
		for pair in "crash malloc-crash" "crash strdup-doublefree" "hang fsync-hang" "silent write-silent"; do
			set -- $pair
			want_site=$(mark_site "$PLANTED" "$2")
			want_site=${prog##*/}+${want_site#*+}
			[ "$(jget "$j" '" ".join(f["site"] for f in j["findings"] if f["outcome"]=="'"$1"'")' | tr ' ' '\n' |
				grep -cxF "$want_site")" = 1 ] || problem "no $1 finding at $want_site ($2): $(jget "$j" 'j["findings"]')"
		done
	else
		echo "# the trace names no call sites: runs by call count, sites not checked"
	fi
}

t "the planted program built with -g: exactly its four bugs"
explore_planted "$PLANTED" g
want_rc 1
want_err_has "4 findings"
check_planted "$PLANTED" g
done_t

t "the planted program built without -g: the same four"
explore_planted "$PLANTED_NOG" nog
want_rc 1
check_planted "$PLANTED_NOG" nog
done_t

t "every finding file reproduces its outcome with mockrun -t"
run sh -c "cd '$T' && '$M' -t g/[0-9]*.mock"
want_rc 1
[ "$(printf '%s\n' "$out" | grep -c '^not ok')" = 4 ] || problem "not 4 failing tests: $out"
want_out_has "to exit by itself, but it was killed by SIGSEGV"
want_out_has "to exit by itself, but it was killed by SIGABRT"
want_out_has "double free detected"
want_out_has "to exit by itself, but it timed out"
want_out_has "expected an exit status other than 0, but"
done_t

t "the finding files pass once the program handles the errors (planted built -DFIXED)"
# the same calls in the fixed build: at= by the marked lines' sites there
mkdir -p "$T/fixed"
for f in "$T"/g/[0-9]*.mock; do
	sed -e "s|^\trun \"[^\"]*\"|\trun \"$PLANTED_FIXED\"|" \
		-e "s|\"\${DIR}/[^\"]*work\"/\\.|\"$T/work\"/.|" "$f" > "$T/fixed/${f##*/}"
	for m in $MARKS; do
		sed -i "s|at=\"$(mark_site "$PLANTED" "$m")\"|at=\"$(mark_site "$PLANTED_FIXED" "$m")\"|" "$T/fixed/${f##*/}"
	done
done
run "$M" -t "$T"/fixed/*.mock
want_rc 0
[ "$(printf '%s\n' "$out" | grep -c '^ok')" = 4 ] || problem "not 4 passing tests: $out"
done_t

t "explore on the fixed program: no finding, exit 0"
explore_planted "$PLANTED_FIXED" fixed-explore
want_rc 0
want_err_has ", 0 findings"
done_t

t "index.html: self-contained, the findings and how to reproduce them"
h=$T/g/index.html
grep -qiE '<script|<link|<img|<iframe| src=|url\(|@import' "$h" && problem "the page loads something or runs a script"
grep -q '<h1 id="verdict">4 findings</h1>' "$h" || problem "no verdict"
grep -q 'mockrun -t g/0001-' "$h" || problem "no reproduce command"
done_t

t "--errnos all's table (catalog/errlist.c) names catalog rows that can fail and real errors"
for row in $(sed -n 's/^[[:space:]]*{ "\([a-z_0-9]*\)", "\([A-Z0-9,]*\)" },$/\1:\2/p' "$TESTS_DIR/../catalog/errlist.c"); do
	fn=${row%%:*}
	run "$M" --list "$fn"
	[ "$rc" = 0 ] || problem "$fn is not in the catalog"
	case "$out" in *"never fails"*|*"cannot fail"*) problem "$fn cannot fail" ;; esac
	python3 -c 'import errno, sys; bad=[e for e in sys.argv[1].split(",") if not hasattr(errno, e)]; sys.exit(", ".join(bad) if bad else 0)' "${row#*:}" ||
		problem "$fn: not errors"
done
[ "$(grep -c '^[[:space:]]*{ "' "$TESTS_DIR/../catalog/errlist.c")" -gt 40 ] || problem "the table was not read"
done_t

t "--errnos all: a run per listed error at each site"
(cd "$T" && run "$M" explore --fns fsync,close --errnos all --workdir work -j 2 --timeout 1 -o all -- "$PLANTED_FIXED" conf.txt out.txt
 printf '%s\n' "$rc" > "$T/.rc")
rc=$(cat "$T/.rc")
want_rc 0
[ "$(jget "$T/all/explore.json" 'sorted((r["function"], r["errno"]) for r in j["runs"])')" = \
	"[('close', 'EDQUOT'), ('close', 'EINTR'), ('close', 'EIO'), ('close', 'ENOSPC'), ('fsync', 'EDQUOT'), ('fsync', 'EIO'), ('fsync', 'ENOSPC'), ('fsync', 'EROFS')]" ] ||
	problem "runs: $(jget "$T/all/explore.json" '[(r["function"], r["errno"]) for r in j["runs"]]')"
done_t

t "--max-runs 3 stops after 3 runs (complete: false); the rerun does the rest"
(cd "$T" && run "$M" explore --fns "$FNS" --workdir work -j 2 --timeout 1 --max-runs 3 -o max -- "$PLANTED_FIXED" conf.txt out.txt
 printf '%s\n' "$rc" > "$T/.rc"; printf '%s' "$err" > "$T/.e")
rc=$(cat "$T/.rc"); err=$(cat "$T/.e")
want_rc 0
want_err_has "unfinished: rerun with the same -o to go on"
[ "$(jget "$T/max/explore.json" 'j["summary"]["runs"]')" = 3 ] || problem "not 3 runs"
[ "$(jget "$T/max/explore.json" 'j["complete"]')" = False ] || problem "complete after 3 runs"
(cd "$T" && run "$M" explore --fns "$FNS" --workdir work -j 2 --timeout 1 -o max -- "$PLANTED_FIXED" conf.txt out.txt
 printf '%s\n' "$rc" > "$T/.rc")
[ "$(cat "$T/.rc")" = 0 ] || problem "rerun: exit $(cat "$T/.rc")"
[ "$(jget "$T/max/explore.json" 'j["complete"]')" = True ] || problem "not complete after the rerun"
[ "$(wc -l < "$T/max/journal")" = "$(jget "$T/max/explore.json" 'len(j["sites"])')" ] || problem "journal: $(cat "$T/max/journal")"
done_t

t "bad input: a clear error, 125, nothing run"
run "$M" explore --fns nosuch -- true
want_rc 125; want_err_has "--fns: 'nosuch' is neither a catalog function"
run "$M" explore --fns @disk -- true
want_rc 125; want_err_has "--fns: no group @disk (groups: @alloc @file @stdio @net @process @time)"
run "$M" explore --fns getpid -- true
want_rc 125; want_err_has "--fns: getpid cannot fail"
run "$M" explore --errnos ENOPE -- true
want_rc 125; want_err_has "--errnos: 'ENOPE' is not an errno name"
run "$M" explore -j 2 -- true
want_rc 125; want_err_has "give --workdir DIR to run them in parallel"
run "$M" explore --shard 3/2 -- true
want_rc 125; want_err_has "--shard 3/2: K is above N"
run "$M" explore --oracle crash,loud -- true
want_rc 125; want_err_has "--oracle: no oracle 'loud'"
run "$M" explore --max-time 5x -- true
want_rc 125; want_err_has "--max-time: '5x' is not a duration"
run "$M" explore
want_rc 125; want_err_has "no program to explore"
run "$M" explore --merge
want_rc 125; want_err_has "--merge needs the shards' directories"
run sh -c "cd '$T' && '$M' explore --fns malloc -o g -- true"
want_rc 125; want_err_has "-o $T/g holds another exploration"
done_t

t "explore as the first argument is the subcommand; after -- it is a program"
mkdir -p "$T/bin"
printf '#!/bin/sh\necho "a program named explore"\n' > "$T/bin/explore"
chmod +x "$T/bin/explore"
run env PATH="$T/bin:$PATH" "$M" -- explore
want_rc 0; want_out "a program named explore"
run "$M" explore --help
want_rc 0; want_out_has "usage: mockrun explore"
done_t

finish
