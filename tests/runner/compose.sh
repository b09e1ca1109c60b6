#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# mockrun -t with other runners: ${DIR}/${TMP}/$NAME expansion, --shard,
# and the default -j under meson test, ctest and make's jobserver.
. "$(dirname "$0")/../lib.sh"

M=$MOCKRUN
D=$(cd "$(dirname "$0")/mock" && pwd)

t "\${DIR}, \${TMP}, \$NAME of env(), stdin_file and cwd expand; nothing else, nor in single quotes or after a backslash"
run "$M" -t "$D/expand.mock"
want_rc 0; want_out_has "1..8"
[ "$(printf '%s\n' "$out" | grep -c '^ok ')" -eq 8 ] || problem "not 8 oks: $out"; done_t

t "run words expand \${MOCKSHIM_SUITE_DIR} and mockrun's environment, \$\$ is one \$"
MS_FROM_CALLER=from-ctest MS_DOLLAR_VALUE='a$HOME' run "$M" -t "$D/expand_env.mock"
want_rc 0; want_out_has "1..4"
[ "$(printf '%s\n' "$out" | grep -c '^ok ')" -eq 4 ] || problem "not 4 oks: $out"; done_t

t "a missing stdin_file and a wrong \${DIR} fail, with where and why"
run "$M" -t "$D/expand_fail.mock"
want_rc 1
want_out_has "expand_fail.mock:3: stdin_file $D/data/nope.txt: cannot read: No such file or directory"
want_out_has "expected stdout to be \"/nowhere\\n\", got \"$D\\n\""; done_t

all=$("$M" --list-tests -t "$D"/pass.mock "$D"/fail.mock "$D"/fixtures.mock "$D"/expand.mock | sort)
t "--shard K/N for N = 1..7: disjoint, and together every test once"
for n in 1 2 3 4 5 6 7; do
	union=$(for k in $(seq 1 $n); do
		"$M" --list-tests --shard "$k/$n" -t "$D"/pass.mock "$D"/fail.mock "$D"/fixtures.mock "$D"/expand.mock
	done | sort)
	[ "$union" = "$all" ] || problem "N=$n: the shards are not every test exactly once"
done
[ "$(printf '%s\n' "$all" | wc -l)" -ge 20 ] || problem "too few tests to prove it: $all"
done_t

t "--shard is stable: a test keeps its shard when tests are added elsewhere"
before=$("$M" --list-tests --shard 2/3 -t "$D/pass.mock")
cp "$D/pass.mock" "$T/pass.mock"
printf '\ntest "a new one" {\n\trun true\n}\n' >> "$T/pass.mock"
after=$("$M" --list-tests --shard 2/3 -t "$T/pass.mock" | grep -v ': a new one$' | sed "s|^$T/|$D/|")
[ "$before" = "$after" ] || problem "shard 2/3 changed: [$before] [$after]"
run "$M" --shard 2/3 -t "$D/pass.mock"
want_rc 0; want_out_has "1..$(printf '%s\n' "$before" | grep -c .)"; done_t

t "--shard errors"
for bad in 0/3 4/3 3 a/b 1/0 "1/2x"; do
	run "$M" --shard "$bad" -t "$D/pass.mock"
	want_rc 125; want_err_has "--shard: '$bad' is not K/N"
done; done_t

# Four tests that each hold a lock in the suite directory for a while:
# two at once make one of them fail.
cat > "$T/lock.mock" <<'MOCK'
test "a" {
	run sh -c 'mkdir "$MOCKSHIM_SUITE_DIR/lock" || exit 9; sleep 0.3; rmdir "$MOCKSHIM_SUITE_DIR/lock"'
}
test "b" {
	run sh -c 'mkdir "$MOCKSHIM_SUITE_DIR/lock" || exit 9; sleep 0.3; rmdir "$MOCKSHIM_SUITE_DIR/lock"'
}
test "c" {
	run sh -c 'mkdir "$MOCKSHIM_SUITE_DIR/lock" || exit 9; sleep 0.3; rmdir "$MOCKSHIM_SUITE_DIR/lock"'
}
MOCK
t "-j 3 runs them at once (the lock test can fail)"
run "$M" -j 3 -t "$T/lock.mock"
want_rc 1; done_t

t "under meson test (MESON_TESTTHREADS) and ctest (CTEST_PARALLEL_LEVEL) the default is one job"
run env MESON_TESTTHREADS=8 "$M" -t "$T/lock.mock"
want_rc 0
run env CTEST_PARALLEL_LEVEL=8 "$M" -t "$T/lock.mock"
want_rc 0
run env MESON_TESTTHREADS=8 "$M" -j 3 -t "$T/lock.mock"
want_rc 1; done_t

t "under make's jobserver: one job plus the free tokens, given back at the end"
mkfifo "$T/js"
exec 7<>"$T/js"
printf '++' >&7
run env MAKEFLAGS="-j3 --jobserver-auth=fifo:$T/js" "$M" -t "$T/lock.mock"
want_rc 1
back=$(timeout 2 dd bs=1 count=2 <&7 2>/dev/null)
[ "$back" = "++" ] || problem "tokens not given back: [$back]"
run env MAKEFLAGS="-j3 --jobserver-auth=fifo:$T/js" "$M" -t "$T/lock.mock"
want_rc 0
run env MAKEFLAGS="-j3 --jobserver-auth=98,99" "$M" -t "$T/lock.mock"
want_rc 0
exec 7>&-
done_t

t "--list-tests writes a name per line, escaped as in TAP; --filter takes the listed name back"
printf 'test "two\\nlines \\\\ b" {\n\trun true\n}\ntest "issue # TODO" {\n\trun true\n}\ntest "plain [x]" {\n\trun true\n}\n' > "$T/names.mock"
run "$M" --list-tests -t "$T/names.mock"
want_rc 0
want_out "$T/names.mock: two\\x0alines \\\\ b
$T/names.mock: issue \\# TODO
$T/names.mock: plain [x]"
# as CMake's mockshim_add_tests does: the listed name, its *?[\ escaped
printf '%s\n' "$out" | while IFS= read -r line; do
	name=${line#"$T/names.mock: "}
	glob=$(printf '%s' "$name" | sed 's/[][*?\\]/\\&/g')
	n=$("$M" -t "$T/names.mock" --filter "$glob" | grep -c '^ok ')
	[ "$n" = 1 ] || echo "--filter '$glob' ran $n tests"
done > "$T/names.out"
[ ! -s "$T/names.out" ] || problem "$(cat "$T/names.out")"; done_t

finish
