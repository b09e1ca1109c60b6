# SPDX-License-Identifier: MIT
# TAP helpers for the shell test suites.  Each test:
#	t "name"; run CMD...; want_rc N; want_out "exact"; want_err_has "text"; done_t
# Output is captured through pipes, never regular files (coreutils cat
# takes another path when its stdout is a file).
set -u
# The system's programs first: the tests are about Debian's python3,
# perl and coreutils, not a version manager's shim in front of them (a
# pyenv shim is a bash script that starts a dozen processes under the
# mock before its python, and a python of its own)
PATH=/usr/bin:/bin:$PATH

TESTS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# glibc's first symbol version on this architecture: what a program's
# imports of the oldest functions are bound to (nm -D shows read@GLIBC_2.2.5)
case $(uname -m) in
aarch64) GLIBC_BASE=GLIBC_2.17 ;;
*) GLIBC_BASE=GLIBC_2.2.5 ;;
esac
# Under qemu-user (another architecture through binfmt_misc, as CI runs
# the arm64 tests) the kernel is the host's, and so is /proc/cpuinfo:
# EMULATED says so, for a test that cannot run there to skip with why
EMULATED=
case $(uname -m) in
x86_64 | i?86) ;;
*) grep -qE '^(vendor_id|flags)[[:space:]]*:' /proc/cpuinfo 2>/dev/null &&
	EMULATED="$(uname -m) under qemu-user" ;;
esac

T=$(mktemp -d "${TMPDIR:-/tmp}/mockshim-test.XXXXXX")
trap 'rm -rf "$T"' EXIT
tap_n=0
tap_failed=0
echo "TAP version 14"

t() {
	tname=$1
	tproblems=()
}

# run CMD...: $rc, $out (stdout), $err (stderr), both through pipes
run() {
	( "$@" 2>&1 1>&3 3>&- | cat >"$T/.err"; exit "${PIPESTATUS[0]}" ) 3>&1 | cat >"$T/.out"
	rc=${PIPESTATUS[0]}
	out=$(cat "$T/.out")
	err=$(cat "$T/.err")
}

# Trace lines without their " at SITE" ending (for tests of the rest of
# a line): nosite [-i] [FILE...], or a filter
nosite() {
	sed -E 's/ at [^ "]+\+0x[0-9a-f]+( \([^)]*\))?$//' "$@"
}

problem() {
	tproblems+=("$1")
}

want_rc() {
	[ "$rc" -eq "$1" ] || problem "exit status $rc, expected $1"
}

want_out() {
	[ "$out" = "$1" ] || problem "stdout [$out], expected [$1]"
}

want_out_has() {
	case "$out" in *"$1"*) ;; *) problem "stdout lacks [$1]: [$out]" ;; esac
}

want_out_lacks() {
	case "$out" in *"$1"*) problem "stdout has [$1]: [$out]" ;; *) ;; esac
}

# want_out_line_lacks LINE: no line of stdout is exactly LINE (a pid
# printed by a program may hold the digits of a mocked value)
want_out_line_lacks() {
	if printf '%s\n' "$out" | grep -qxF -- "$1"; then
		problem "stdout has the line [$1]: [$out]"
	fi
}

want_err_has() {
	case "$err" in *"$1"*) ;; *) problem "stderr lacks [$1]: [$err]" ;; esac
}

want_err_lacks() {
	case "$err" in *"$1"*) problem "stderr has [$1]: [$err]" ;; *) ;; esac
}

want() {
	# want DESCRIPTION CMD...: CMD must succeed
	local what=$1
	shift
	"$@" || problem "$what"
}

# want_junit FILE: well-formed XML, valid against the JUnit schema
# (tests/junit-10.xsd, Jenkins' shape) as a CI system reads it
want_junit() {
	if ! command -v xmllint >/dev/null; then
		problem "xmllint is not installed (Debian: libxml2-utils)"
	elif ! xmllint --noout --schema "$TESTS_DIR/junit-10.xsd" "$1" 2>"$T/.xmllint"; then
		problem "$1 is not valid JUnit: $(head -5 "$T/.xmllint")"
	fi
}

# want_json FILE: one JSON document, unique keys, valid against
# doc/report.schema.json
want_json() {
	python3 "$TESTS_DIR/check_json.py" "$TESTS_DIR/../doc/report.schema.json" "$1" >"$T/.json" 2>&1 ||
		problem "$(cat "$T/.json")"
}

done_t() {
	tap_n=$((tap_n + 1))
	if [ ${#tproblems[@]} -eq 0 ]; then
		echo "ok $tap_n - $tname"
	else
		tap_failed=$((tap_failed + 1))
		echo "not ok $tap_n - $tname"
		for p in "${tproblems[@]}"; do
			printf '%s\n' "$p" | head -c 4000 | sed 's/^/# /'
		done
		if [ -n "${err:-}" ]; then
			printf '%s\n' "$err" | head -20 | sed 's/^/# stderr: /'
		fi
	fi
}

skip_t() {
	tap_n=$((tap_n + 1))
	echo "ok $tap_n - $1 # SKIP $2"
}

# pass and fails run the probe ($P) under mockrun ($M):
# pass NAME STMTS ARGS...: the checks hold
pass() {
	local name=$1 stmts=$2
	shift 2
	t "$name"
	run "$M" -e "$stmts" "$P" "$@"
	want_rc 0; want_err_has "all checks passed"; done_t
}

# fails NAME STMTS WANT ARGS...: exit 123 and stderr has WANT
fails() {
	local name=$1 stmts=$2 wanted=$3
	shift 3
	t "$name"
	run "$M" -e "$stmts" "$P" "$@"
	want_rc 123; want_err_has "$wanted"; done_t
}

finish() {
	echo "1..$tap_n"
	[ "$tap_failed" -eq 0 ]
}
