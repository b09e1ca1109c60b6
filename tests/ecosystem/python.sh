#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The installed Python package: meson install into a DESTDIR, and
# Debian's pytest-3 (/usr/bin/python3) finds it where it would find it in
# the real prefix: through the pytest11 entry point alone, and with a
# conftest.py that names the plugin as the README says (issue 47).
. "$(dirname "$0")/../lib.sh"

if ! command -v pytest-3 >/dev/null; then
	skip_t "the installed pytest plugin" "no pytest-3 (python3-pytest)"
	finish
	exit 0
fi
PY=$(head -1 "$(command -v pytest-3)" | sed 's/^#! *//; s/ .*//')
D=$T/destdir
run "$MESON" install -C "$BUILD_ROOT" --destdir "$D" --no-rebuild --quiet
[ "$rc" -eq 0 ] || { echo "Bail out! meson install: $err"; exit 1; }
init=$(find "$D" -path '*/mockshim/__init__.py' | head -1)
site=$(dirname "$(dirname "$init")")
prefix=$("$MESON" introspect "$BUILD_ROOT" --buildoptions |
	"$PY" -c 'import json, sys; print([o["value"] for o in json.load(sys.stdin) if o["name"] == "prefix"][0])')
# where pytest-3's python looks under the prefix, whether or not the
# directory exists yet: the first of its site directories there
want_site=$("$PY" -E -s -c 'import os, site, sys
p = os.path.normpath(sys.argv[1])
print(next((d for d in site.getsitepackages() if d.startswith(p + "/")), ""))' "$prefix")

t "meson install puts the package, its paths and the entry point in one site directory"
[ -n "$init" ] || problem "no mockshim/__init__.py installed"
for f in mockshim/pytest_plugin.py mockshim/_paths.py mockshim-*.dist-info/entry_points.txt; do
	compgen -G "$site/$f" >/dev/null || problem "no $f in $site"
done
grep -q 'LIBDIR = "/' "$site/mockshim/_paths.py" || problem "_paths.py: $(cat "$site/mockshim/_paths.py")"
done_t

t "the site directory is one $PY searches under the prefix $prefix"
[ -n "$want_site" ] || problem "$PY searches no site directory under $prefix"
[ "${site#"$D"}" = "$want_site" ] ||
	problem "installed in ${site#"$D"}, $PY searches $want_site"
if [ -e /etc/debian_version ] && [ "$PY" = /usr/bin/python3 ]; then
	case $want_site in */dist-packages) ;; *) problem "Debian's $PY: $want_site is no dist-packages" ;; esac
fi
done_t

# the choice for the other prefixes, as python/meson.build makes it from
# meson's proposal (Debian's deb_system scheme: PREFIX/lib/python3/dist-packages)
sd=$SOURCE_ROOT/python/site_dir.py
t "site_dir.py: a directory $PY searches, for prefix /usr, /usr/local, and a warning for /opt/x"
run "$PY" -E -s "$sd" /usr /usr/lib/python3/dist-packages
if [ -e /etc/debian_version ] && [ "$PY" = /usr/bin/python3 ]; then
	want_out /usr/lib/python3/dist-packages
	run "$PY" -E -s "$sd" /usr/local /usr/local/lib/python3/dist-packages
	want_rc 0
	want_out "$("$PY" -c 'import sys; print("/usr/local/lib/python%d.%d/dist-packages" % sys.version_info[:2])')"
fi
run "$PY" -E -s "$sd" /opt/x /opt/x/lib/python3/dist-packages
want_rc 0
want_out_has "/opt/x/lib/python3/dist-packages"
want_out_has "does not search /opt/x/lib/python3/dist-packages"
want_out_has "set PYTHONPATH"
done_t

# pytest-3 as it would run on the installed tree: the package found at
# the real prefix's site directory (under DESTDIR here), the driver
# library under DESTDIR too
lib=$(dirname "$(find "$D" -name 'libmockshim-driver.so.0' | head -1)")
PYENV=(env PYTHONPATH="$D$want_site" MOCKSHIM_DRIVER="$lib/libmockshim-driver.so.0"
	PYTHONDONTWRITEBYTECODE=1)

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
t "pytest-3 finds the fixture by the entry point; a leftover fails its test with the report"
cd "$T/proj" && run "${PYENV[@]}" pytest-3 -p no:cacheprovider --basetemp "$T/pt" -rf test_user.py
[ "$rc" -eq 1 ] || problem "pytest exit $rc, expected 1 (one failed)"
want_out_has "1 failed, 1 passed"
want_out_has "FAILED test_user.py::test_left_over"
want_out_has "getuid() has remaining non-returned values"
done_t

# the README's way: conftest.py names the plugin while the entry point
# loads it too (pytest skips a plugin already registered under its name)
mkdir -p "$T/conf"
printf 'pytest_plugins = ["mockshim.pytest_plugin"]\n' >"$T/conf/conftest.py"
cat > "$T/conf/test_conf.py" <<'PY'
def test_getuid(mockshim):
    mockshim.add("will_return(getuid, 4242)")
    r = mockshim.run(["id", "-ru"])
    assert r.stdout == b"4242\n"
PY
t "conftest.py's pytest_plugins = [\"mockshim.pytest_plugin\"] with the entry point installed"
cd "$T/conf" && run "${PYENV[@]}" pytest-3 -p no:cacheprovider --basetemp "$T/pc" test_conf.py
want_rc 0
want_out_has "1 passed"
want_out_lacks "already registered"
want_err_lacks "already registered"
done_t

t "-p mockshim.pytest_plugin with the entry point installed"
cd "$T/conf" && run "${PYENV[@]}" pytest-3 -p no:cacheprovider -p mockshim.pytest_plugin \
	--noconftest --basetemp "$T/pp" test_conf.py
want_rc 0
want_out_has "1 passed"
want_err_lacks "already registered"
done_t

t "-p no:mockshim.pytest_plugin turns the entry point off"
cd "$T/proj" && run "${PYENV[@]}" pytest-3 -p no:cacheprovider -p no:mockshim.pytest_plugin \
	--basetemp "$T/pn" test_user.py
want_rc 1
want_out_has "fixture 'mockshim' not found"
done_t

finish
