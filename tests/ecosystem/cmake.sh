#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# examples/cmake/ as a user builds it: mockshim from `meson install` into
# a DESTDIR, find_package(mockshim CONFIG), one CTest test per test block.
. "$(dirname "$0")/../lib.sh"

if ! command -v cmake >/dev/null || ! command -v ctest >/dev/null; then
	skip_t "examples/cmake" "no cmake"
	finish
	exit 0
fi
D=$T/destdir
run "$MESON" install -C "$BUILD_ROOT" --destdir "$D" --no-rebuild --quiet
[ "$rc" -eq 0 ] || { echo "Bail out! meson install: $err"; exit 1; }
prefix=$(dirname "$(dirname "$(find "$D" -path '*/bin/mockrun' | head -1)")")
EX=$T/count
cp -r "$SOURCE_ROOT/examples/cmake" "$EX"

t "find_package(mockshim 0.1 CONFIG) and the build, with the handler module linked --no-undefined"
run cmake -S "$EX" -B "$EX/b" -DCMAKE_PREFIX_PATH="$prefix"
want_rc 0
want_err_lacks "Warning"
run cmake --build "$EX/b"
want_rc 0
done_t

t "one CTest test per test block, each mockrun -t FILE --filter NAME"
run ctest --test-dir "$EX/b" -N -V
want_rc 0
want_out_has "Total Tests: 4"
want_out_has "Test #4: count.mock: names with [glob] *characters?"
want_out_has '"--filter" "names with \[glob\] \*characters\?"'
done_t

t "ctest -j8 --output-junit shows each test, and they pass"
run ctest --test-dir "$EX/b" -j8 --output-junit "$T/junit.xml" --output-on-failure
want_rc 0
want_out_has "100% tests passed, 0 tests failed out of 4"
[ "$(grep -c '<testcase' "$T/junit.xml")" -eq 4 ] || problem "junit: $(cat "$T/junit.xml")"
done_t

t "a new test block in the file is a new CTest test after the next build"
cat >> "$EX/count.mock" <<'MOCK'

test "a wrong count fails" {
	will_return(count_lines, 7)
	run countlines
	expect_stdout("8 lines\n")
}
MOCK
run cmake --build "$EX/b"
want_rc 0
run ctest --test-dir "$EX/b" -j8 --output-on-failure
[ "$rc" -ne 0 ] || problem "the failing test passed"
want_out_has "80% tests passed, 1 tests failed out of 5"
want_out_has 'expected stdout to be "8 lines\n", got "7 lines\n"'
want_out_has "count.mock: a wrong count fails"
done_t

t "SITES_DIR: a sites file per CTest test, merged by mockrun sites into what one mockrun -t writes"
sed -i 's|^  LABELS mockshim$|  LABELS mockshim SITES_DIR sites|' "$EX/CMakeLists.txt"
grep -q "SITES_DIR sites" "$EX/CMakeLists.txt" || problem "the example's CMakeLists changed: no place for SITES_DIR"
sed -i '/^test "a wrong count fails" {/,$d' "$EX/count.mock"
run cmake -S "$EX" -B "$EX/s" -DCMAKE_PREFIX_PATH="$prefix"
want_rc 0
run cmake --build "$EX/s"
want_rc 0
run ctest --test-dir "$EX/s" -j8 --output-on-failure
want_rc 0
n=$(ls "$EX/s/sites"/*.json 2>/dev/null | wc -l)
[ "$n" -eq 4 ] || problem "$n sites files: $(ls "$EX/s/sites")"
mr=$(find "$D" -path '*/bin/mockrun' | head -1)
run "$mr" sites -q "$EX/s/sites"/*.json -o "$T/merged.json"
want_rc 0
[ "$(grep -c '::' "$T/merged.json" | head -1)" -ge 4 ] || problem "merged: $(cat "$T/merged.json")"
run env PATH="$EX/s:$PATH" "$mr" -m "$EX/s/count_mock.so" -t "$EX/count.mock" --sites "$T/one.json"
want_rc 0
cmp -s "$T/one.json" "$T/merged.json" || problem "merged differs from one run: $(diff "$T/merged.json" "$T/one.json")"
done_t

t "the version file: 0.1 fits, 9.0 does not"
mkdir -p "$T/v"
cat > "$T/v/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.19)
project(v C)
find_package(mockshim ${WANT} CONFIG REQUIRED)
add_executable(use use.c)
target_link_libraries(use PRIVATE mockshim::driver)
CM
cat > "$T/v/use.c" <<'C'
#include <mockshim/driver.h>
int main(void)
{
	struct mockshim_session *s = mockshim_session_create();
	char *argv[] = { "id", "-u", NULL };
	struct mockshim_result r;
	int ok = s && mockshim_session_add(s, "use", "will_return(geteuid, 4242)", (size_t)-1) == 0 &&
		 mockshim_session_run(s, argv, NULL, &r) == 0 && r.failures == 0;

	mockshim_session_destroy(s);
	return !ok;
}
C
run cmake -S "$T/v" -B "$T/v/b9" -DCMAKE_PREFIX_PATH="$prefix" -DWANT=9.0
[ "$rc" -ne 0 ] || problem "mockshim 9.0 was found"
want_err_has "version: 0.1.0"
run cmake -S "$T/v" -B "$T/v/b" -DCMAKE_PREFIX_PATH="$prefix" -DWANT=0.1
want_rc 0
done_t

t "mockshim::driver builds and runs a driver program"
run cmake --build "$T/v/b"
want_rc 0
run "$T/v/b/use"
want_rc 0; want_out "4242"
done_t

finish
