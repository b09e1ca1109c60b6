#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# doc/mockrun.1 renders without a groff warning, and says what mockrun
# does: every option of --help, every environment variable the sources
# read, the test-file directives.
. "$(dirname "$0")/../lib.sh"

M=$MOCKRUN
SRC=$TESTS_DIR/..
MAN=$SRC/doc/mockrun.1

if ! command -v groff >/dev/null || ! command -v man >/dev/null; then
	skip_t "the man page renders without warnings" "no groff or man (groff-base, man-db)"
	finish
	exit
fi

t "the man page renders without warnings"
# -ww: every warning; any line on stderr is an error
run groff -man -Tutf8 -ww -z "$MAN"
want_rc 0; [ -z "$err" ] || problem "groff warns: $err"
run env MANWIDTH=100 LC_ALL=C.UTF-8 man --nh --nj --warnings=all -l "$MAN"
want_rc 0; [ -z "$err" ] || problem "man warns: $err"
page=$out
done_t

t "quoted option values render with both quotes"
case "$page" in *'in="GLOB"'*) ;; *) problem "no in=\"GLOB\"" ;; esac
case "$page" in *'from="GLOB"'*) ;; *) problem "no from=\"GLOB\"" ;; esac
done_t

t "every option of --help is in the man page"
run "$M" --help
for o in $(printf '%s\n' "$out" | grep -oE -- '--[a-z][a-z-]+' | sort -u); do
	case "$page" in *"$o"*) ;; *) problem "$o is not in the man page" ;; esac
done; done_t

t "every environment variable the sources read is in ENVIRONMENT"
envsec=$(printf '%s\n' "$page" | sed -n '/^ENVIRONMENT/,/^[A-Z]/p')
for v in $(grep -rhoE 'getenv\("[A-Z_]+"\)|"(MOCKSHIM[A-Z_]*)=' "$SRC/runner" "$SRC/libmockshim" "$SRC/common" |
	grep -oE '[A-Z][A-Z_]+' | sort -u); do
	case "$v" in LD_LIBRARY_PATH|LD_AUDIT|LD_TRACE_LOADED_OBJECTS|HOME|PATH) continue ;; esac
	case "$envsec" in *"$v"*) ;; *) problem "$v is not in ENVIRONMENT" ;; esac
done; done_t

t "test files: the directives, fixtures, several runs, and the -t exit statuses"
# the phrases as read, wherever a line ends: groff 1.23 (Debian 13)
# breaks the lines elsewhere than groff 1.22 (Debian 12)
flat=$(printf '%s\n' "$page" | tr -s ' \n' '  ')
for w in expect_file_contains expect_stderr_contains expect_signal 'MOCKSHIM_SUITE_DIR' 'module "x.so"' \
	'A test may have several run steps' 'expect_power_loss()' 'serial test "NAME" {' 'A serial test runs alone' setup_all teardown_all 'With -t: 0 when every test passed' 'TAP version 13'; do
	case "$flat" in *"$w"*) ;; *) problem "no [$w]" ;; esac
done; done_t

t "CMocka's names: the table of spellings and what they stand for"
for w in "CMocka's names" 'expect_any_always(FN, PARAM)' 'expect_function_call_any(FN)' 'expect_any_count(FN, PARAM, -1)' \
	expect_int_in_set will_return_int 'will_return_TYPE_count, _always, _maybe'; do
	case "$page" in *"$w"*) ;; *) problem "no [$w]" ;; esac
done; done_t

finish
