#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# meson install: everything in the standard places of the prefix, and the
# installed mockrun finds the installed shim when run from a DESTDIR.
. "$(dirname "$0")/../lib.sh"

D=$T/destdir
t "meson install puts mockrun, the shim, the driver, headers, pkg-config files and mockrun(1) in place"
run "$MESON" install -C "$BUILD_ROOT" --destdir "$D" --no-rebuild --quiet
want_rc 0
prefix=$("$MESON" introspect "$BUILD_ROOT" --buildoptions | python3 -c \
	'import json, sys; print({o["name"]: o["value"] for o in json.load(sys.stdin)}["prefix"])')
for f in bin/mockrun include/mockshim/handler.h include/mockshim/driver.h include/mockshim/result.h \
	include/mockshim/catalog.def share/man/man1/mockrun.1; do
	[ -f "$D$prefix/$f" ] || problem "no $prefix/$f"
done
for f in libmockshim.so libmockshim-driver.so pkgconfig/mockshim-driver.pc; do
	[ -n "$(find "$D$prefix" -path "*/lib*/$f" -print -quit)" ] || problem "no lib*/$f under $prefix"
done
done_t

t "the installed mockrun finds the installed shim and mocks"
run "$D$prefix/bin/mockrun" -q -e 'will_return(geteuid, 4242)' id -u
want_rc 0; want_out "4242"; done_t

t "the installed mockrun finds the installed call sites' symbolizer"
libexecdir=$("$MESON" introspect "$BUILD_ROOT" --buildoptions | python3 -c \
	'import json, sys; print({o["name"]: o["value"] for o in json.load(sys.stdin)}["libexecdir"])')
helper=$(find "$D$prefix" -name mockshim-symbolize -print -quit)
if [ -z "$helper" ] && [ "$SYMBOLIZE" = yes ]; then
	problem "no mockshim-symbolize under $prefix"
elif [ -n "$helper" ]; then
	[ "$helper" = "$D$prefix/$libexecdir/mockshim-symbolize" ] ||
		problem "mockshim-symbolize in ${helper#"$D"}, not $prefix/$libexecdir"
	run env -u MOCKSHIM_SYMBOLIZER "$D$prefix/bin/mockrun" --version
	want_rc 0; want_out_has "symbolizer: $helper"
fi
done_t

t "LD_PRELOAD names the installed shim by its real path, no '..' in it, also through a link to mockrun"
shim=$(realpath "$(find "$D$prefix" -path '*/lib*/libmockshim.so' -print -quit)")
ln -s "$D$prefix/bin/mockrun" "$T/mockrun-link"
for m in "$D$prefix/bin/mockrun" "$T/mockrun-link"; do
	run env -u LD_PRELOAD "$m" -q sh -c 'printf %s "$LD_PRELOAD"'
	want_rc 0; want_out "$shim"
done
done_t

t "mockrun(1) renders without a warning, and documents every option of --help"
if command -v groff >/dev/null; then
	run groff -man -ww -z "$D$prefix/share/man/man1/mockrun.1"
	want_rc 0; [ -z "$err" ] || problem "groff: $err"
	page=$(groff -man -Tutf8 "$D$prefix/share/man/man1/mockrun.1" 2>/dev/null | col -b 2>/dev/null ||
		groff -man -Tascii "$D$prefix/share/man/man1/mockrun.1" | sed 's/.\x08//g')
	for o in $("$D$prefix/bin/mockrun" --help | grep -oE -- '--[a-z][a-z-]+' | sort -u); do
		grep -qF -- "$o" <<<"$page" || problem "mockrun(1) lacks $o"
	done
	done_t
else
	skip_t "mockrun(1) renders without a warning" "no groff"
fi

finish
