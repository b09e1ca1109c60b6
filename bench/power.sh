#!/bin/sh
# SPDX-License-Identifier: MIT
# power_loss()'s cost per write and per fsync (bench/README.md): the
# same program (bench/power.c) under mockrun with a statement for
# another function (the baseline) and armed with power_loss(paths=),
# interleaved ROUNDS times; medians and their ratio.  BENCH_POWER_MIB
# (default 16; the issue's figure is 1024) and BENCH_POWER_EVERY (writes
# per fsync, default 256) size it; it writes in $TMPDIR.
set -eu
PROG=$1 MOCKRUN=$2
MIB=${BENCH_POWER_MIB:-16} EVERY=${BENCH_POWER_EVERY:-256} ROUNDS=${BENCH_POWER_ROUNDS:-5}
D=$(mktemp -d "${TMPDIR:-/tmp}/msbench-power.XXXXXX")
trap 'rm -rf "$D"' EXIT
mkdir "$D/db"
: >"$D/runs"
for r in $(seq "$ROUNDS"); do
	for v in unarmed armed; do
		rm -f "$D/db/file"
		if [ $v = armed ]; then
			stmt='power_loss(getppid, paths="db/*")'
		else
			stmt='will_call_real(getuid, -2)'
		fi
		t0=$(date +%s%N)
		(cd "$D" && "$MOCKRUN" -q -e "$stmt" "$PROG" db "$MIB" "$EVERY" 2>/dev/null) |
			sed "s/^/$v /" >>"$D/runs" || true
		echo "$v total_ns $(( $(date +%s%N) - t0 ))" >>"$D/runs"
	done
done
python3 - "$D/runs" "$MIB" "$EVERY" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    f = line.split()
    if f[1] == 'total_ns':
        rows.setdefault((f[0], 'run', 'total'), []).append(float(f[2]))
        continue
    v, name = f[0], f[1]
    for k in range(2, len(f), 2):
        rows.setdefault((v, name, f[k]), []).append(float(f[k + 1]))
med = {k: statistics.median(x) for k, x in rows.items()}
print(f"power_loss cost, {sys.argv[2]} MiB in 4 KiB pwrites, fsync every {sys.argv[3]} writes "
      f"(median of {len(rows[('armed', 'run', 'total')])} runs)\n")
print("| pass | measure | unarmed | power_loss armed | ratio |")
print("|---|---|---:|---:|---:|")
for name in ('new', 'overwrite'):
    for m in ('write_ns', 'fsync_ns'):
        a, b = med.get(('unarmed', name, m)), med.get(('armed', name, m))
        if a and b:
            print(f"| {name} | ns per {m[:-3]} | {a:.0f} | {b:.0f} | {b / a:.2f}x |")
a, b = med[('unarmed', 'run', 'total')], med[('armed', 'run', 'total')]
print(f"| whole run | ms (armed: with the cut and rollback) | {a / 1e6:.0f} | {b / 1e6:.0f} | {b / a:.2f}x |")
PY
