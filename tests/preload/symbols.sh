#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The shim exports exactly the catalog's symbols, unversioned.
. "$(dirname "$0")/../lib.sh"

"$SYMLIST" | sort > "$T/catalog"
# the catalog, and the API of handler modules (include/mockshim/handler.h)
{ cat "$T/catalog"; printf '%s\n' mockshim_register mockshim_mock_value mockshim_mock_double mockshim_check_expected \
	mockshim_function_called mockshim_dlsym; } | sort > "$T/expected"
nm -D --defined-only "$SHIM" | awk '{print $3}' | sort > "$T/exports"

t "the shim exports exactly the catalog's symbols and the handler API"
if ! diff -u "$T/expected" "$T/exports" > "$T/diff"; then
	problem "exports differ from the catalog (- expected, + exports): $(cat "$T/diff")"
fi
done_t

t "no export carries a symbol version (an anonymous version script)"
if nm -D --defined-only "$SHIM" | grep -q '@'; then
	problem "versioned exports: $(nm -D --defined-only "$SHIM" | grep '@' | head)"
fi
done_t

t "every catalog symbol has a real definition in libc and resolves to the shim"
run env LD_PRELOAD="$SHIM" "$RESOLVE" $(cat "$T/catalog")
want_rc 0
[ "$(printf '%s\n' "$out" | grep -c '^ok')" -eq "$(wc -l < "$T/catalog")" ] || problem "$(printf '%s\n' "$out" | grep -A1 '^not ok')"
done_t

t "the shim's internal objects call no catalog function"
# Internals bypass interposable symbols: they use syscall() and the real
# table.  Only the trampolines may name catalog functions, as definitions.
# standalone.c and the report library are left out on purpose: they run
# only while the re-entry guard is held (set-up and exit), where every
# call they make goes straight to the real function.
for o in "$SHIM_OBJDIR"/*runtime.c.o "$TRAMP_OBJDIR"/*hand.c.o "$SHIM_OBJDIR"/*trace.c.o \
	"$SHIM_OBJDIR"/*addrinfo.c.o "$COMMON_OBJDIR"/*.o; do
	[ -e "$o" ] || { problem "no object file $o (the build's layout changed?)"; continue; }
	nm -u "$o" | awk '{print $2}' | sort -u > "$T/undef"
	bad=$(comm -12 "$T/undef" "$T/catalog" | tr '\n' ' ')
	[ -z "$bad" ] || problem "$(basename "$o") calls catalog functions: $bad"
done
done_t

finish
