#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tools/catalog-coverage on a fixture directory of small ELF programs
# built here: which imports it counts, which it covers, what it prints.
. "$(dirname "$0")/../lib.sh"

F=$T/fixture
mkdir -p "$F/sub"
# two programs and a library; -fno-builtin keeps strlen an import
cat > "$T/a.c" <<'C'
#include <string.h>
#include <unistd.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
	char b[8];
	if (read(0, b, sizeof(b)) < 0)
		exit(1);
	return (int)write(1, argv[0], strlen(argv[0])) + argc;
}
C
cat > "$T/b.c" <<'C'
#include <unistd.h>
int main(void) { char b[4]; return (int)read(0, b, 4) + getpid(); }
C
cat > "$T/c.c" <<'C'
#include <stdio.h>
int lib_fn(FILE *f) { return ferror(f) + fileno(f); }
C
cc -O0 -fno-builtin "$T/a.c" -o "$F/a" && cc -O0 -fno-builtin "$T/b.c" -o "$F/sub/b" &&
	cc -O0 -fPIC -shared "$T/c.c" -o "$F/libc_user.so" || { echo "Bail out! cannot build the fixture"; exit 1; }
ln -s a "$F/a-link"			# the same object twice: counted once
echo 'not an ELF object' > "$F/notes.txt"
if cc -O0 -static "$T/b.c" -o "$F/static" 2>/dev/null; then :; fi	# no dynamic imports: skipped

cat > "$T/catalog.def" <<'EOF2'
MOCKSHIM_FN(ssize_t, read, (int fd, void *buf, size_t count), (fd, buf, count), "file", MOCKSHIM_ERRNO(-1, EIO), "")
MOCKSHIM_ALIAS(read, ssize_t, __read_chk, (int fd, void *buf, size_t count, size_t buflen), (fd, buf, count, buflen), (fd, buf, count))
MOCKSHIM_FN(int, fileno, (FILE *stream), (stream), "stdio", MOCKSHIM_ERRNO(-1, EBADF), "")
EOF2

t "pairs and functions: read, write, getpid, ferror and fileno count; strlen and exit do not"
run "$COVERAGE" --catalog "$T/catalog.def" "$F"
want_rc 0
# a: read write (strlen: not OS-facing, exit: excluded); b: read getpid;
# libc_user.so: ferror fileno
want_out_has "objects: 3 dynamically linked ELF objects"
want_out_has "pairs: 3 / 6 (object, OS-facing libc function) import pairs covered (50.00%)"
want_out_has "functions: 2 / 5 OS-facing functions covered"
done_t

t "the missing functions are listed by import count"
for f in write getpid ferror; do
	grep -Eq "^ +1  $f\$" <<<"$out" || problem "missing list lacks $f: $out"
done
grep -Eq ' (read|fileno|strlen|exit)$' <<<"$out" && problem "a covered or uncounted function is listed as missing: $out"
done_t

t "--json: the same figures, and the exclusion's reason for exit"
run "$COVERAGE" --catalog "$T/catalog.def" --json "$F"
want_rc 0
python3 - "$out" <<'PY' || problem "json: $out"
import json, sys
d = json.loads(sys.argv[1])
assert (d["pairs"], d["covered_pairs"], d["functions"], d["covered_functions"]) == (6, 3, 5, 2), d
assert d["left_out"]["exit"]["objects"] == 1 and "end of the process" in d["left_out"]["exit"]["reason"], d
assert [m["function"] for m in d["missing"]] == ["ferror", "getpid", "write"], d["missing"]
PY
done_t

t "--shim: covered is what the built shim exports (read and write are)"
run "$COVERAGE" --shim "$SHIM" "$F/a"
want_rc 0
want_out_has "pairs: 2 / 2"
done_t

t "a directory that does not exist counts nothing"
run "$COVERAGE" --catalog "$T/catalog.def" "$T/none"
want_rc 0
want_out_has "pairs: 0 / 0"
done_t

finish
