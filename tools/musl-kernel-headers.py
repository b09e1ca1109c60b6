#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
musl-kernel-headers.py CC OUTDIR: the kernel's headers (linux/, asm/,
asm-generic/) for a musl build, which musl-gcc's include path lacks: OUTDIR
gets a link to each directory where CC (the build's C compiler) finds them.
They are the kernel's, the same for any C library.
"""
import os
import shlex
import subprocess
import sys

PROBES = ('linux/stat.h', 'asm/unistd.h', 'asm-generic/errno.h')


def main():
    cc, out = shlex.split(sys.argv[1]), sys.argv[2]
    src = ''.join('#include <%s>\n' % h for h in PROBES)
    r = subprocess.run(cc + ['-E', '-H', '-x', 'c', '-', '-o', os.devnull], input=src,
                       capture_output=True, text=True)
    if r.returncode:
        sys.exit('musl-kernel-headers: %s cannot find the kernel headers:\n%s' % (cc[0], r.stderr))
    found = {}
    for line in r.stderr.splitlines():
        path = line.lstrip('. ').strip()
        for h in PROBES:
            if path.endswith('/' + h) and h not in found:
                found[h] = os.path.dirname(os.path.realpath(path))
    os.makedirs(out, exist_ok=True)
    for h in PROBES:
        if h not in found:
            sys.exit('musl-kernel-headers: no %s in %s -H' % (h, cc[0]))
        link = os.path.join(out, h.split('/')[0])
        if os.path.islink(link) or os.path.exists(link):
            os.remove(link)
        os.symlink(found[h], link)


if __name__ == '__main__':
    main()
