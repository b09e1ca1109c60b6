#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Functions glibc exports in two versions: a program bound to the old
# one (.symver, versions.c) is mocked, and an unmocked call reaches the
# version it was bound to, not the default.
. "$(dirname "$0")/../lib.sh"

M=$MOCKRUN
# no #! line: the old posix_spawn runs it with /bin/sh, the new says ENOEXEC
printf 'exit 7\n' > "$T/noshebang"
chmod +x "$T/noshebang"
OLD_OUT="realpath EINVAL
posix_spawn 0, exit 7
clock_gettime real
sched_getaffinity ok"
NEW_OUT="realpath allocated
posix_spawn ENOEXEC
clock_gettime real
sched_getaffinity ok"

if [ -n "${VERSIONS_OLD:-}" ]; then
	t "the old versions, without the shim, behave as the test expects"
	run "$VERSIONS_OLD" "$T/noshebang"
	want_rc 0
	want_out "$OLD_OUT"
	done_t

	t "the program is bound to the old versions"
	imports=$(nm -D --undefined-only "$VERSIONS_OLD")
	for s in realpath@GLIBC_2.2.5 posix_spawn@GLIBC_2.2.5 clock_gettime@GLIBC_2.2.5 sched_getaffinity@GLIBC_2.3.3; do
		grep -qF "$s" <<<"$imports" || problem "no import of $s: $imports"
	done
	done_t

	t "unmocked (the functions unarmed), each call reaches the old version"
	run "$M" -e 'will_return_maybe(geteuid, 0)' "$VERSIONS_OLD" "$T/noshebang"
	want_rc 0
	want_out "$OLD_OUT"
	done_t

	t "unmocked but armed (will_call_real), each call reaches the old version"
	run "$M" -e 'will_call_real(realpath); will_call_real(posix_spawn); will_call_real(clock_gettime); will_call_real(sched_getaffinity)' "$VERSIONS_OLD" "$T/noshebang"
	want_rc 0
	want_out "$OLD_OUT"
	want_err_has "all checks passed"
	done_t

	t "bound to the old versions, every call is mocked"
	run "$M" -e 'will_fail(realpath, ENOENT); will_fail(posix_spawn, EAGAIN)' \
		-e 'will_return(clock_gettime, 0, *tp={1700000000, 0})' "$VERSIONS_OLD" "$T/noshebang"
	want_rc 0
	want_out "realpath ENOENT
posix_spawn EAGAIN
clock_gettime mocked
sched_getaffinity ok"
	want_err_has "all checks passed"
	done_t
else
	# aarch64 came to glibc in 2.17: realpath, posix_spawn and
	# clock_gettime have one version there, there is no old one to bind
	why="$(uname -m): glibc has one version of realpath, posix_spawn and clock_gettime ($GLIBC_BASE)"
	for name in "the old versions, without the shim, behave as the test expects" \
		"the program is bound to the old versions" \
		"unmocked (the functions unarmed), each call reaches the old version" \
		"unmocked but armed (will_call_real), each call reaches the old version" \
		"bound to the old versions, every call is mocked"; do
		skip_t "$name" "$why"
	done
fi

t "every catalog function whose glibc versions differ (objdump -T) is routed by the caller's version"
# derived from libc.so.6, not by hand: a name exported at two or more
# addresses has versions that behave otherwise; the shim must pick the
# one the caller bound (libmockshim/trampolines_hand.c: VERSIONED)
libc=$(ldd "$VERSIONS_NEW" | awk '$1 == "libc.so.6" { print $3 }')
if ! command -v objdump >/dev/null || [ ! -r "$libc" ]; then
	skip_t "$tname" "no objdump or libc.so.6"
else
	catalog=$("$M" --list | sed -n 's/^[a-z]*: //p' | tr ' ' '\n' | sort -u)
	multi=$(objdump -T "$libc" | awk 'NF >= 7 && $4 == ".text" { n = $NF; v = $(NF - 1); sub(/^\(/, "", v); sub(/\)$/, "", v); if (!((n, $1) in seen)) { seen[n, $1] = 1; c[n]++ } } END { for (n in c) if (c[n] > 1) print n }' | sort)
	versioned=$(grep -o '^VERSIONED[_T]*([^,]*, [a-z_0-9]*' "$SOURCE_ROOT/libmockshim/trampolines_hand.c" | sed 's/.*, //' | sort -u)
	need=$(comm -12 <(printf '%s\n' "$catalog") <(printf '%s\n' "$multi"))
	missing=$(comm -23 <(printf '%s\n' "$need") <(printf '%s\n' "$versioned"))
	[ -z "$missing" ] || problem "glibc's versions of these differ but the shim calls the default: $(echo $missing)"
	printf '# versions that differ: %s\n' "$(echo $need)"
	done_t
fi

if [ -n "$EMULATED" ]; then
	# qemu-user runs posix_spawn's clone(CLONE_VM|CLONE_VFORK) as a fork:
	# the failed exec is never reported (0, and the child exits 127),
	# with or without the shim
	skip_t "bound to the default versions, an unmocked call reaches the default" \
		"$EMULATED: posix_spawn cannot report a failed exec (ENOEXEC)"
else
	t "bound to the default versions, an unmocked call reaches the default"
	run "$M" -e 'will_call_real(realpath); will_call_real(posix_spawn)' "$VERSIONS_NEW" "$T/noshebang"
	want_rc 0
	want_out "$NEW_OUT"
	done_t
fi

finish
