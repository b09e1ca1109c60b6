#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The shim exports exactly the catalog's symbols, unversioned.
. "$(dirname "$0")/../lib.sh"

"$SYMLIST" | sort > "$T/catalog"
# the catalog, the API of handler modules (include/mockshim/handler.h),
# and _exit, before which standalone mode reports (standalone.c)
{ cat "$T/catalog"; printf '%s\n' mockshim_register mockshim_mock_value mockshim_mock_double mockshim_check_expected \
	mockshim_function_called mockshim_dlsym _exit _Exit; } | sort > "$T/expected"
nm -D --defined-only "$SHIM" | awk '{print $3}' | sort > "$T/exports"

t "the shim exports exactly the catalog's symbols, the handler API and _exit"
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

t "no object of the shim calls a catalog function, but those exempted here"
# Internals bypass interposable symbols: they use syscall() and the real
# table.  Every object linked into the shim is checked (a new file is
# checked without being named here) but these, each for its reason:
#  standalone.c  parses MOCKSHIM= and prints the report at exit, only
#                while the re-entry guard is held (set-up and exit),
#                where every call goes straight to the real function;
#  report*.c, audit.c, trace_chrome.c  the report library, which the
#                shim runs only from standalone.c, under the same guard.
exempt=" standalone.c.o report.c.o report_msg.c.o report_text.c.o report_data.c.o report_html.c.o audit.c.o trace_chrome.c.o "
seen=" "
# (meson names an object of a file in another directory .._DIR_FILE.o)
for o in "$SHIM_OBJDIR"/*.o "$SHIM_OBJDIR"/.*.o "$TRAMP_OBJDIR"/*.o "$COMMON_OBJDIR"/*.o "$REPORT_OBJDIR"/*.o; do
	[ -e "$o" ] || { problem "no object file $o (the build's layout changed?)"; continue; }
	seen="$seen$(basename "$o") "
	case "$exempt" in *" $(basename "$o") "*) continue ;; esac
	nm -u "$o" | awk '{print $2}' | sort -u > "$T/undef"
	bad=$(comm -12 "$T/undef" "$T/catalog" | tr '\n' ' ')
	[ -z "$bad" ] || problem "$(basename "$o") calls catalog functions: $bad"
done
# the list does not rot: each exemption names an object of the shim, and
# the objects that matter most were seen
for x in $exempt attach.c.o caller.c.o reply.c.o handler.c.o trampolines.c.o declared.c.o record.c.o symbols.c.o .._decide_when.c.o \
	.._decide_decide.c.o lang_parser.c.o; do
	case "$seen" in *" $x "*) ;; *) problem "$x is not among the shim's objects:$seen" ;; esac
done
done_t

finish
