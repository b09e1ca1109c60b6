# SPDX-License-Identifier: MIT
"""Where `meson install` puts the package: a directory the interpreter
searches once installed.

    python3 -E -s site_dir.py PREFIX PROPOSED

PROPOSED is meson's python.get_install_dir().  Meson 1.0 takes it from
Debian's deb_system scheme, PREFIX/lib/python3/dist-packages: right for
prefix /usr, but Debian's python3 does not search
/usr/local/lib/python3/dist-packages; it searches
/usr/local/lib/python3.X/dist-packages (site.getsitepackages()).  Print
PROPOSED when the interpreter searches it, else the first site directory
it searches under PREFIX; with none (a prefix like /opt/x) print PROPOSED
and, on a second line, why it will need PYTHONPATH.
"""
import os
import site
import sys


def main(prefix, proposed):
    prefix = os.path.normpath(prefix)
    proposed = os.path.normpath(proposed)
    # site directories whether they exist yet or not (sys.path lists only
    # those that exist)
    searched = [os.path.normpath(p) for p in site.getsitepackages()]
    if proposed in searched:
        return proposed, None
    for p in searched:
        if p.startswith(prefix + os.sep) or prefix == os.sep:
            return p, None
    return proposed, "%s does not search %s (it searches %s): set PYTHONPATH" % (
        sys.executable, proposed, ", ".join(searched))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: site_dir.py PREFIX PROPOSED")
    d, note = main(sys.argv[1], sys.argv[2])
    print(d)
    if note:
        print(note)
