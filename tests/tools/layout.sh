#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The rule of doc/ARCHITECTURE.md, "What may include what": a folder
# includes another only through its face ("catalog/catalog.h"), only a
# folder below it, and a bare "name.h" only from its own folder.
. "$(dirname "$0")/../lib.sh"
SRC=$(cd "$TESTS_DIR/.." && pwd)

# folder:rank:face, bottom up; folders of one rank never include each other
LAYERS="arch:0:arch.h catalog:1:catalog.h channel:2:channel.h lang:3:lang.h
decide:3:decide.h power:3:power.h report:4:report.h sites:4:sites.h libmockshim:5: runner:5: explore:6:explore.h"

# check ROOT: one line per breach of the rule on stdout
check() {
	local root=$1 spec f d r inc to file
	declare -A rank face
	for spec in $LAYERS; do
		IFS=: read -r d r f <<< "$spec"
		rank[$d]=$r face[$d]=$f
	done
	for d in "${!rank[@]}"; do
		[ -d "$root/$d" ] || { echo "$d/: no such folder"; continue; }
		for file in "$root/$d"/*.[ch]; do
			[ -e "$file" ] || continue
			sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$file" |
			while read -r inc; do
				case $inc in
				mockshim/*) continue ;;	# include/: the installed API
				*/*)
					to=${inc%%/*}
					if [ -z "${rank[$to]+x}" ]; then
						echo "$d/${file##*/}: includes $inc, of no folder of the layout"
					elif [ "$to" = "$d" ]; then
						echo "$d/${file##*/}: includes its own folder's $inc by the folder's name"
					elif [ "${rank[$to]}" -ge "${rank[$d]}" ]; then
						echo "$d/${file##*/}: includes $inc, of a folder not below $d/"
					elif [ "${inc#*/}" != "${face[$to]}" ]; then
						echo "$d/${file##*/}: includes $inc, not $to/${face[$to]}, the face of $to/"
					fi ;;
				*)
					[ -e "$root/$d/$inc" ] || [ -e "$root/$d/$inc.in" ] ||
						echo "$d/${file##*/}: includes \"$inc\", which is not in $d/"
					;;
				esac
			done
		done
	done
}

t "every folder includes only the faces of the folders below it"
check "$SRC" > "$T/breaches"
[ -s "$T/breaches" ] && problem "$(cat "$T/breaches")"
done_t

t "the check sees a breach (a circle, a private header, a bare name across folders)"
mkdir -p "$T/tree"
for spec in $LAYERS; do
	d=${spec%%:*}
	mkdir -p "$T/tree/$d"
done
printf '#include "report/report.h"\n' > "$T/tree/channel/up.c"
printf '#include "decide/events.h"\n' > "$T/tree/runner/inner.c"
printf '#include "spec.h"\n' > "$T/tree/lang/bare.c"
printf '#include "lang/lang.h"\n' > "$T/tree/decide/side.c"
check "$T/tree" > "$T/seen"
for want in "channel/up.c: includes report/report.h, of a folder not below channel/" \
	"runner/inner.c: includes decide/events.h, not decide/decide.h" \
	"lang/bare.c: includes \"spec.h\", which is not in lang/" \
	"decide/side.c: includes lang/lang.h, of a folder not below decide/"; do
	grep -qF "$want" "$T/seen" || problem "not seen: $want (saw: $(cat "$T/seen"))"
done
done_t

finish
