# SPDX-License-Identifier: MIT
# What explore.sh and explore-slow.sh share: the planted program's work
# directory and the reading of explore.json.
. "$(dirname "$0")/../lib.sh"
M=$MOCKRUN
FNS=malloc,open,write,fsync,fopen,close
mkdir -p "$T/work"
echo world > "$T/work/conf.txt"

# jget FILE EXPR: a Python expression over explore.json's document `j`
jget() {
	python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

# explore_planted PROGRAM DIR [OPTIONS...]: the planted program explored
# in a copy of $T/work (its runs in parallel), the handled sites with it
explore_planted() {
	local prog=$1 dir=$2
	shift 2
	(cd "$T" && run "$M" explore --fns "$FNS" --files out.txt --workdir work --timeout 1 -j 2 "$@" \
		-o "$dir" -- "$prog" conf.txt out.txt
	 printf '%s\n' "$rc" > "$T/.rc"; printf '%s' "$out" > "$T/.o"; printf '%s' "$err" > "$T/.e")
	rc=$(cat "$T/.rc"); out=$(cat "$T/.o"); err=$(cat "$T/.e")
}

# the line of planted.c marked SITE(name)
marked_line() {
	grep -n "SITE($1)" "$PLANTED_SRC" | cut -d: -f1
}

# mark_site BINARY NAME: the site of the call on the line of planted.c
# marked SITE(NAME) in BINARY (built with -g): OBJ+0xRET, the return
# address being the instruction after the call
mark_site() {
	python3 - "$1" "$(marked_line "$2")" "${2%%-*}" <<'PY'
import os, re, subprocess, sys
binary, line, fn = sys.argv[1], sys.argv[2], sys.argv[3]
lines = subprocess.run(["objdump", "-d", "-l", "--no-show-raw-insn", binary],
                       capture_output=True, text=True, check=True).stdout.splitlines()
cur = None
# the call of the marked function on the marked line (a line may call
# others first: clang calls strlen before write there)
for i, l in enumerate(lines):
    m = re.match(r"^\S.*planted\.c:(\d+)", l)
    if m:
        cur = m.group(1)
        continue
    if cur == line and re.match(r"^\s+[0-9a-f]+:\s+(?:call|bl)\s+[0-9a-f]+ <" + re.escape(fn) + r"[@>]", l):
        for n in lines[i + 1:]:
            m = re.match(r"^\s+([0-9a-f]+):", n)
            if m:
                print(f"{os.path.basename(binary)}+0x{m.group(1)}")
                sys.exit(0)
sys.exit(1)
PY
}
MARKS="malloc-crash strdup-doublefree write-silent fsync-hang fopen-handled malloc-handled open-handled close-handled"
