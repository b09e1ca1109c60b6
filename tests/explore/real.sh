#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# mockrun explore on real programs (each skipped where it is not
# installed): xz, gzip, sort -o, tar cf with the default functions, and
# sqlite3 inserting into a database file with @file.  Each finishes
# within its timeouts with a list of sites; every finding file it writes
# fails with mockrun -t, as found.
. "$(dirname "$0")/lib-explore.sh"

seq 1 20000 > "$T/work/in.txt"

# real NAME [OPTIONS...] -- PROGRAM ARGS...
real() {
	local name=$1
	shift
	t "explore $name"
	(cd "$T" && run "$M" explore --workdir work -j 2 -o "$name" "$@"
	 printf '%s\n' "$rc" > "$T/.rc"; printf '%s' "$err" > "$T/.e")
	rc=$(cat "$T/.rc"); err=$(cat "$T/.e")
	[ "$rc" = 0 ] || [ "$rc" = 1 ] || problem "exit $rc"
	j=$T/$name/explore.json
	[ -r "$j" ] || { problem "no explore.json"; done_t; return; }
	[ "$(jget "$j" 'j["complete"]')" = True ] || problem "not complete"
	[ "$(jget "$j" 'len(j["sites"])')" -gt 0 ] || problem "no site"
	[ "$(jget "$j" 'j["method"]')" = site ] || problem "no call sites"
	echo "# $name: $(jget "$j" 'j["summary"]')"
	for f in "$T/$name"/[0-9]*.mock; do
		[ -e "$f" ] || continue
		echo "# $name: ${f##*/}: $(jget "$j" '[(x["function"], x["errno"], x["site"], x["crash_site"]) for x in j["findings"] if x["file"]=="'"${f##*/}"'"]')"
		(cd "$T" && "$M" -t "$name/${f##*/}" > /dev/null 2>&1)
		[ $? = 1 ] || problem "${f##*/} does not fail with mockrun -t"
	done
	done_t
}

if command -v xz >/dev/null; then real xz --files 'in.txt*' -- xz -k -f in.txt
else skip_t "explore xz" "no xz"; fi
if command -v gzip >/dev/null; then real gzip --files 'in.txt*' -- gzip -k -f in.txt
else skip_t "explore gzip" "no gzip"; fi
real sort --files out.txt -- sort -o out.txt in.txt
if command -v tar >/dev/null; then real tar --files out.tar -- tar cf out.tar in.txt
else skip_t "explore tar" "no tar"; fi
if command -v sqlite3 >/dev/null; then
	sqlite3 "$T/work/db.sqlite" 'create table t(x)'
	real sqlite3 --fns @file --files db.sqlite -- sqlite3 db.sqlite 'insert into t values(1)'
else
	skip_t "explore sqlite3" "no sqlite3"
fi

finish
