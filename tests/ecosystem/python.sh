#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The installed Python package: meson install into a DESTDIR, and
# Debian's pytest loads the plugin through its pytest11 entry point, with
# no conftest.py.
. "$(dirname "$0")/../lib.sh"

if ! command -v pytest-3 >/dev/null; then
	skip_t "the installed pytest plugin" "no pytest-3 (python3-pytest)"
	finish
	exit 0
fi
D=$T/destdir
run "$MESON" install -C "$BUILD_ROOT" --destdir "$D" --no-rebuild --quiet
[ "$rc" -eq 0 ] || { echo "Bail out! meson install: $err"; exit 1; }
init=$(find "$D" -path '*/mockshim/__init__.py' | head -1)
site=$(dirname "$(dirname "$init")")

t "meson install puts the package, its paths and the entry point in one site directory"
[ -n "$init" ] || problem "no mockshim/__init__.py installed"
for f in mockshim/pytest_plugin.py mockshim/_paths.py mockshim-*.dist-info/entry_points.txt; do
	compgen -G "$site/$f" >/dev/null || problem "no $f in $site"
done
grep -q 'LIBDIR = "/' "$site/mockshim/_paths.py" || problem "_paths.py: $(cat "$site/mockshim/_paths.py")"
done_t

mkdir -p "$T/proj"
cat > "$T/proj/test_user.py" <<'PY'
def test_cat_reports_eio(mockshim):
    mockshim.add('will_fail(read, EIO, in="cat")')
    r = mockshim.run(["cat", "/etc/hostname"])
    assert r.returncode == 1 and b"Input/output error" in r.stderr

def test_left_over(mockshim):
    mockshim.add("will_return(getuid, 1)")
    mockshim.run(["true"])
PY
t "pytest finds the fixture by the entry point; a leftover fails its test with the report"
lib=$(dirname "$(find "$D" -name 'libmockshim-driver.so.0' | head -1)")
cd "$T/proj" && run env PYTHONPATH="$site" MOCKSHIM_DRIVER="$lib/libmockshim-driver.so.0" \
	pytest-3 -p no:cacheprovider --basetemp "$T/pt" -rf test_user.py
[ "$rc" -eq 1 ] || problem "pytest exit $rc, expected 1 (one failed)"
want_out_has "1 failed, 1 passed"
want_out_has "FAILED test_user.py::test_left_over"
want_out_has "getuid() has remaining non-returned values"
done_t

finish
