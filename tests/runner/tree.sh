#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The process tree under mockrun: a stopped orphan is named instead of
# hanging the run in silence, and a timeout keeps the program's own
# status when only its descendants outlived it.
. "$(dirname "$0")/../lib.sh"

M=$MOCKRUN
Q='will_return_maybe(getrandom, 0)'

name="an orphan that stops itself is named after 2 s; the timeout ends it, keeping the program's status"
if [ -n "$EMULATED" ]; then
	# the orphan would go to init, stopped, holding this test's pipe
	skip_t "$name" "$EMULATED: no PR_SET_CHILD_SUBREAPER, mockrun cannot adopt orphans"
else
	t "$name"
	# shellcheck disable=SC2016
	run "$M" --timeout 4 -e "$Q" sh -c 'sh -c "sleep 0.2; kill -STOP \$\$; echo never" & exit 0'
	want_rc 124
	want_err_has "is stopped (SIGSTOP): the run ends when it does"
	want_err_has "sh exited with status 0 (its descendants did not, by the timeout)"
	want_err_has "still running at the timeout: sh["
	case "$out" in *never*) problem "the orphan ran on after the timeout" ;; esac; done_t
fi

t "a program killed at the timeout is reported as timed out"
run "$M" --timeout 1 -e "$Q" sleep 5
want_rc 124; want_err_has "sleep timed out and was killed by SIGTERM"; done_t

finish
