#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One test per catalog row and alias, generated from the catalog (rows.c):
# the reply of will_fail (or will_return for a row that cannot fail) is
# the row's failure value and errno, the expectation on its first
# parameter is checked, and the report accounts for both.
. "$(dirname "$0")/../lib.sh"

M=$MOCKRUN

# rows_tap SPEC-CMD RUN-CMD: one TAP point per line of rows' output
rows_tap() {
	"$ROWS" "$1" > "$T/$1.mock" || { t "rows $1"; problem "cannot generate the spec"; done_t; return; }
	run "$M" -f "$T/$1.mock" "$ROWS" "$2"
	local report=$err status=$rc lines=$out
	if [ "$status" -ne 0 ] || [ -z "$lines" ]; then
		t "rows $2: mockrun ran it"
		problem "exit status $status"
		done_t
	fi
	while IFS= read -r line; do
		local sym=${line%%[ :]*}
		t "$sym: the mocked reply is the row's failure value and errno${3:+, $3}"
		case "$line" in "$sym ok") ;; *) problem "$line" ;; esac
		# a failed check names the function: "error: NAME() call ..."
		if grep -qF "error: $sym()" <<<"$report"; then
			problem "the report has failures for it: $(grep -F "error: $sym()" <<<"$report" | head -3)"
		fi
		done_t
	done <<<"$lines"
	t "rows $2: every statement was used or checked, nothing left over"
	err=$report
	want_err_has "all checks passed"
	done_t
}

rows_tap spec run "and its first parameter is checked"
rows_tap aliases-spec aliases

t "the rows run covers the whole catalog"
n=$("$SYMLIST" | wc -l)
got=$({ "$M" -q -f "$T/spec.mock" "$ROWS" run; "$M" -q -f "$T/aliases-spec.mock" "$ROWS" aliases; } 2>/dev/null | wc -l)
[ "$got" -eq "$n" ] || problem "$got symbols called, the catalog has $n"
done_t

finish
