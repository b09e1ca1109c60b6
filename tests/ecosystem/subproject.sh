#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# examples/subproject/ as a user builds it: mockshim as a meson subproject
# (the wrap's local variant, local-wrap.sh), its tests under `meson test`,
# then `meson install` to a prefix and the installed mockrun run there.
. "$(dirname "$0")/../lib.sh"

EX=$T/greet
P=$T/prefix
cp -r "$SOURCE_ROOT/examples/subproject" "$EX"
rm -rf "$EX/subprojects/packagecache" "$EX/subprojects/mockshim-local"

t "the local wrap variant is a [wrap-file] of the source tree"
run "$EX/local-wrap.sh" "$SOURCE_ROOT" "$EX"
want_rc 0
grep -q '^\[wrap-file\]' "$EX/subprojects/mockshim.wrap" || problem "no [wrap-file] in the wrap"
done_t

t "configures with find_program('mockrun') and dependency('mockshim-handler') from the subproject"
run "$MESON" setup "$EX/b" "$EX" --prefix="$P"
want_rc 0
want_out_has "Program mockrun found: YES (overridden)"
want_out_has "Dependency mockshim-handler found: YES"
case "$out" in *cmocka*) problem "the subproject looked for cmocka" ;; esac
done_t

t "mockshim's own tests, benchmarks and valgrind setup are not the parent's"
run "$MESON" test -C "$EX/b" --list
want_rc 0
[ "$(printf '%s\n' "$out" | grep -v '^ninja' | grep -c .)" -eq 2 ] || problem "tests: $out"
want_out_has greet; want_out_has greet-plain
run "$MESON" introspect "$EX/b" --benchmarks
want_rc 0; want_out "[]"
run "$MESON" test -C "$EX/b" --setup mockshim:valgrind --list
[ "$rc" -ne 0 ] || problem "a mockshim:valgrind test setup exists"
done_t

t "the plain way first, no handler module: meson test builds mockrun and with it the shim"
# issue 47: `meson test` builds only what the tests name; without a
# handler module nothing built libmockshim.so ("cannot find libmockshim.so")
run "$MESON" test -C "$EX/b" --print-errorlogs greet-plain
want_rc 0
want_out_has "Ok:                 1"
want_out_lacks "cannot find libmockshim.so"
[ ! -e "$(find "$EX/b" -name 'greet_mock.so' | head -1)" ] || problem "the handler module was built: the test proves nothing"
done_t

t "the example's handler module links with -Wl,--no-undefined and its tests pass"
run "$MESON" test -C "$EX/b" --print-errorlogs
want_rc 0
want_out_has "Ok:                 2"
done_t

t "meson install to a prefix, and the installed mockrun runs the installed tests"
run "$MESON" install -C "$EX/b" --quiet
want_rc 0
lib=$(dirname "$(find "$P" -name libmockshim.so | head -1)")
run env PATH="$P/bin:$PATH" "$P/bin/mockrun" -m "$lib/greet/greet_mock.so" -t "$P/share/greet/greet.mock"
want_rc 0
want_out_has "ok 2 - $P/share/greet/greet.mock: a mocked name"
done_t

t "the installed mockshim-handler.pc builds a module with -Wl,--no-undefined"
run cc -shared -fPIC -Wl,--no-undefined -o "$T/mod.so" "$EX/greet_mock.c" \
	$(PKG_CONFIG_PATH="$lib/pkgconfig" pkg-config --cflags --libs mockshim-handler)
want_rc 0
run cc -shared -fPIC -Wl,--no-undefined -o "$T/mod2.so" "$EX/greet_mock.c" \
	$(PKG_CONFIG_PATH="$lib/pkgconfig" pkg-config --cflags mockshim-handler)
[ "$rc" -ne 0 ] || problem "the module linked without the shim: the test proves nothing"
done_t

t "-Dmockshim:tests=true brings mockshim's tests back"
if pkg-config --exists cmocka; then
	run "$MESON" setup "$EX/b2" "$EX" -Dmockshim:tests=true
	[ "$rc" -eq 0 ] || problem "setup: $out $err"
	want_rc 0
	run "$MESON" test -C "$EX/b2" --list
	want_out_has "mockshim:unit"
	done_t
else
	skip_t "-Dmockshim:tests=true brings mockshim's tests back" "no cmocka"
fi

finish
