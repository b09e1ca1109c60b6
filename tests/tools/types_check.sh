#!/bin/sh
# SPDX-License-Identifier: MIT
# tools/types_check.py, which the build runs before the shim: a type
# table entry that no header of libmockshim/sysdecl.h declares, or that
# the compiler sizes otherwise, is one line naming it, not the compiler's
# screen of errors.  Args: the project's source root, then the compiler.
set -u
src=$1
shift
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
n=0
fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); echo "not ok $n - $1"; fail=1; }
check() {
	"$src/tools/types_check.py" "$tmp/out.h" "$tmp/t.c" -- "$@" \
		-I"$src" -I"$src/include" -I"$src/libmockshim" > "$tmp/log" 2>&1
}

# the table as it is: passes, and writes the stamp
cp "$src/libmockshim/types_check.c" "$tmp/t.c"
sed -i 's|#include "sysdecl.h"|#include "libmockshim/sysdecl.h"|' "$tmp/t.c"
if check "$@" && [ -f "$tmp/out.h" ]; then ok "the table agrees with sysdecl.h's headers"
else notok "the table agrees with sysdecl.h's headers"; sed 's/^/# /' "$tmp/log"; fi
rm -f "$tmp/out.h"

# an entry no header declares, and one of the wrong size
cat >> "$tmp/t.c" <<'C'
MS_CTYPE_ASSERT(regex_t, MS_T_PTR, 0)
MS_CTYPE_ASSERT(pid_t, MS_T_INT, 8)
C
if check "$@"; then notok "a bad table fails"; else ok "a bad table fails"; fi
[ ! -f "$tmp/out.h" ] && ok "no stamp on failure" || notok "no stamp on failure"
sed 's/^/# /' "$tmp/log"
lines=$(wc -l < "$tmp/log")
[ "$lines" -eq 2 ] && ok "one line per entry at fault ($lines)" || notok "one line per entry at fault ($lines)"
grep -q "catalog/ctype.h: error: the type table names regex_t, which no header of libmockshim/sysdecl.h declares" "$tmp/log" &&
	ok "the undeclared entry is named with what to do" || notok "the undeclared entry is named with what to do"
grep -q "catalog/ctype.h: error: pid_t's size or sign in the type table is not the compiler's" "$tmp/log" &&
	ok "the missized entry is named" || notok "the missized entry is named"
echo "1..$n"
exit $fail
