#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The functions the shim itself may call under its re-entry guard
# (MS_REENTRANT_FNS in libmockshim/shim.h): only their trampolines test the
# guard before answering from a fast slot, so the list must hold every
# catalog function that libmockshim.so, libc.so.6 or the loader call
# through their PLT (there the call binds to the shim's own trampoline).
. "$(dirname "$0")/../lib.sh"

list=$(sed -n '/^#define MS_REENTRANT_FNS/,/^$/p' "$TESTS_DIR/../libmockshim/shim.h" |
	grep -o 'X([a-z0-9_]*)' | sed 's/^X(//; s/)$//' | sort -u)

# the catalog function (canonical row) a name stands for, or nothing
canonical() {
	"$MOCKRUN" --list "$1" 2>/dev/null | head -n 1 | sed -n 's/^.*[ *]\([a-z0-9_]*\)(.*$/\1/p'
}

# the names an object's relocations bind, versions left out
bound_names() {
	readelf -rW "$1" | awk '$3 ~ /JUMP_SLOT|GLOB_DAT|_64$|ABS64/ { print $5 }' |
		sed 's/@.*//' | sort -u
}

exported=$(nm -D --defined-only "$SHIM" | awk '{ print $3 }' | sed 's/@.*//' | sort -u)
libc=$(ldd "$PROBE" | awk '/libc\.so/ { print $3 }')
loader=$(readelf -lW "$PROBE" | sed -n 's/.*Requesting program interpreter: \(.*\)\]/\1/p')

t "the list names catalog functions"
[ -n "$list" ] || problem "no MS_REENTRANT_FNS list in shim.h"
for f in $list; do
	[ "$(canonical "$f")" = "$f" ] || problem "$f in MS_REENTRANT_FNS is not a catalog row"
done
done_t

for obj in "$SHIM" "$libc" "$loader"; do
	t "every catalog function $(basename "$obj") calls through its PLT is in the list"
	[ -r "$obj" ] || problem "cannot read '$obj'"
	n=0
	for f in $(bound_names "$obj" | comm -12 - <(printf '%s\n' "$exported")); do
		c=$(canonical "$f")
		[ -n "$c" ] || continue
		n=$((n + 1))
		grep -qx "$c" <<<"$list" ||
			problem "$(basename "$obj") calls $f ($c) through its PLT: add $c to MS_REENTRANT_FNS"
	done
	# the shim calls stdio for its report, libc its allocator; the loader may
	# call none (glibc 2.36's calls none through its PLT)
	case $obj in
	"$loader") ;;
	*) [ "$n" -gt 0 ] || problem "found no catalog function in $(basename "$obj")'s relocations: the check reads nothing" ;;
	esac
	done_t
done

# fwrite's 2 is what the real call returns (a sanitizer's interceptor reads
# that many bytes); nothing on stdout says the calls were mocked
t "standalone: the report's own fputc and fwrite are real while the program's are mocked"
run env LD_PRELOAD="$SHIM" MOCKSHIM='will_return_always(fputc, 7); will_return_always(fwrite, 2)' \
	"$PROBE" stdio 3
want_rc 0; want_out ""
want_err_has "fputc: 7 fwrite: 2"
want_err_has "mockshim: probe exited with status 0"
want_err_has "will_return_always(fputc, 7): used 3 times (always), by probe["
want_err_has "
mockshim: all checks passed"; done_t

name="standalone: the allocator stays real for the report while the program's calls fail"
if [ "${SANITIZE:-none}" = none ]; then
	t "$name"
	run env LD_PRELOAD="$SHIM" MOCKSHIM='will_return_always(malloc, NULL, errno=ENOMEM, in="probe")' \
		"$PROBE" mallocn 8
	want_rc 0; want_out "mallocn: ok 0 null 8 ENOMEM"
	want_err_has "used 9 times (always), by probe["
	want_err_has "mockshim: all checks passed"; done_t
else
	skip_t "$name" "a sanitizer's runtime answers the program's malloc itself"
fi

finish
