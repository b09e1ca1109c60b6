#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The type table against the compiler, before the shim is compiled.

types_check.py OUTPUT SOURCE -- CC [ARGS...]

Compiles SOURCE (libmockshim/types_check.c: sysdecl.h's headers and the
type table's assertions) with -fsyntax-only, once in the trampolines'
context (-DMS_SYSDECL_TRAMPOLINES) and once with _GNU_SOURCE as the
shim's other files.  On success it writes OUTPUT, an empty header the
shim's targets depend on, so that ninja runs this first.  On failure it
prints one line per table entry at fault, naming it and what to do, in
place of the compiler's errors (which it prints only when it cannot tell
which entry is at fault), and exits 1.
"""
import os
import re
import subprocess
import sys

TABLE = 'catalog/ctype.h'
HEADERS = 'libmockshim/sysdecl.h'

# gcc: unknown type name 'X' / 'X' undeclared; clang: unknown type name
# 'X' / use of undeclared identifier 'X'
Q = "['\u2018\u2019]"
UNDECLARED = re.compile(rf"(?:unknown type name|use of undeclared identifier) {Q}([A-Za-z_]\w*){Q}"
                        rf"|{Q}([A-Za-z_]\w*){Q} undeclared")
ASSERT = re.compile(r'"catalog/ctype\.h: ([^"]*)"|catalog/ctype\.h: ([^"\n]*)')


def faults(output):
    """The entries at fault, in the order the compiler met them."""
    seen = []
    for line in output.splitlines():
        if 'error' not in line:
            continue
        m = UNDECLARED.search(line)
        if m:
            name = m.group(1) or m.group(2)
            what = (f"{TABLE}: error: the type table names {name}, which no header of "
                    f"{HEADERS} declares: include its header there (or drop the entry)")
        else:
            m = ASSERT.search(line)
            if not m:
                continue
            text = (m.group(1) or m.group(2)).strip().replace("\\'", "'")
            what = f"{TABLE}: error: {text}"
        if what not in seen:
            seen.append(what)
    return seen


def main(argv):
    if len(argv) < 5 or argv[3] != '--':
        sys.stderr.write(__doc__)
        return 2
    output, source, cc = argv[1], argv[2], argv[4:]
    bad = []
    env = dict(os.environ, LC_ALL='C')
    for context in (['-DMS_SYSDECL_TRAMPOLINES'], ['-D_GNU_SOURCE']):
        r = subprocess.run(cc + context + ['-fsyntax-only', source], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0:
            found = faults(r.stdout)
            if not found:
                sys.stdout.write(r.stdout)
                return 1
            bad += [f for f in found if f not in bad]
    if bad:
        print('\n'.join(bad))
        return 1
    with open(output, 'w') as f:
        f.write('/* generated: the type table agreed with the compiler (tools/types_check.py) */\n')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
