#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# catalog/syscall.def's number columns are the kernel's: each row's number
# on x86-64 and on aarch64 is __NR_name of that architecture's
# <asm/unistd.h>, -1 where it has no such call.  Checked with the build's
# compiler (its own architecture) and with every cross compiler installed.
. "$(dirname "$0")/../lib.sh"

DEF=$SRC/../../catalog/syscall.def
# the build's compiler, or where it does not run here (a cross build
# tested inside the target's root) the system's
read -r -a CC_NATIVE <<<"${CC:-cc}"
command -v "${CC_NATIVE[0]}" >/dev/null || CC_NATIVE=(cc)

# the rows: "x86_64 aarch64 name"
sed -nE 's/^MS_SYS\((-?[0-9]+), (-?[0-9]+), ([a-z0-9_]+),.*/\1 \2 \3/p' "$DEF" | sort -u > "$T/rows"

t "syscall.def has rows"
[ "$(wc -l < "$T/rows")" -gt 50 ] || problem "$(wc -l < "$T/rows") rows read from $DEF"; done_t

# check COLUMN COMPILER...: the column (1 x86_64, 2 aarch64) against the
# compiler's <asm/unistd.h>
check() {
	local col=$1
	shift
	{
		echo '#include <asm/unistd.h>'
		while read -r x a name; do
			printf '#ifdef __NR_%s\nrow %s __NR_%s\n#else\nrow %s -1\n#endif\n' \
				"$name" "$name" "$name" "$name"
		done < "$T/rows"
	} > "$T/nr.c"
	if ! "$@" -E -P "$T/nr.c" > "$T/nr.out" 2> "$T/nr.err"; then
		problem "$* -E failed: $(head -3 "$T/nr.err")"
		return
	fi
	while read -r x a name; do
		want=$x
		[ "$col" = 2 ] && want=$a
		got=$(sed -nE "s/^row $name (.*)$/\1/p" "$T/nr.out" | tr -d '() ')
		[ "$got" = "$want" ] || problem "$name: syscall.def says $want, <asm/unistd.h> says $got"
	done < "$T/rows"
}

column_of() {
	case $1 in
	x86_64-*) echo 1 ;;
	aarch64-*) echo 2 ;;
	*) echo 0 ;;
	esac
}

native=$("${CC_NATIVE[@]}" -dumpmachine 2>/dev/null)
t "the ${native%%-*} column is the build compiler's <asm/unistd.h>"
col=$(column_of "$native")
if [ "$col" = 0 ]; then
	problem "syscall.def has no column for $native"
else
	check "$col" "${CC_NATIVE[@]}"
fi; done_t

for cross in x86_64-linux-gnu-gcc aarch64-linux-gnu-gcc; do
	machine=${cross%-gcc}
	[ "$(column_of "$native")" = "$(column_of "$machine-")" ] && continue
	if ! command -v "$cross" >/dev/null; then
		skip_t "the ${machine%%-*} column" "no $cross (Debian: gcc-${machine//_/-})"
		continue
	fi
	# a cross compiler without its C library's kernel headers (gcc-aarch64-linux-gnu
	# alone) cannot say: skip, not fail
	if ! echo '#include <asm/unistd.h>' | "$cross" -E -x c - > /dev/null 2> "$T/hdr.err" &&
		grep -q 'asm/unistd\.h' "$T/hdr.err"; then
		deb=amd64
		[ "$(column_of "$machine-")" = 2 ] && deb=arm64
		skip_t "the ${machine%%-*} column" "$cross has no <asm/unistd.h> (Debian: linux-libc-dev-$deb-cross)"
		continue
	fi
	t "the ${machine%%-*} column is $cross's <asm/unistd.h>"
	check "$(column_of "$machine-")" "$cross"; done_t
done

finish
