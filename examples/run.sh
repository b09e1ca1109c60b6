#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs every examples/*/*.mock with the program its "# run:" line names and
# checks its "# expect-*:" lines.
. "$(dirname "$0")/../tests/lib.sh"

for spec in "$(dirname "$0")"/*/*.mock; do
	cmd=$(sed -n 's/^# run: //p' "$spec")
	t "$(basename "$(dirname "$spec")")/$(basename "$spec"): $cmd"
	# shellcheck disable=SC2086 # the run: line is words
	run "$MOCKRUN" -q -f "$spec" $cmd
	want_rc "$(sed -n 's/^# expect-exit: //p' "$spec")"
	exp=$(sed -n 's/^# expect-stdout: //p' "$spec")
	[ -z "$exp" ] || want_out "$exp"
	exp=$(sed -n 's/^# expect-stdout-has: //p' "$spec")
	[ -z "$exp" ] || want_out_has "$exp"
	exp=$(sed -n 's/^# expect-stderr: //p' "$spec")
	[ -z "$exp" ] || want_err_has "$exp"
	done_t
done
finish
