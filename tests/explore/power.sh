#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# mockrun explore --power-loss on update protocols (powerprog.c): the
# wrong ones (rename or append without fsync, no fsync of the directory)
# give findings, the right ones (temp+fsync+rename+fsync(dir), in place
# with fsync) none; a finding file fails under mockrun -t; bad input.
. "$(dirname "$0")/../lib.sh"
M=$MOCKRUN
export TMPDIR=$T/tmp
mkdir -p "$TMPDIR"

if [ -n "$EMULATED" ]; then
	skip_t "explore --power-loss" "$EMULATED: no PR_SET_CHILD_SUBREAPER, mockrun cannot kill the whole tree"
	finish
	exit
fi

# the check: after "done" (ack) the new content; before it old or new
check() {
	printf 'if [ -e ack ]; then printf "%s" | cmp -s - db/data; else printf "old\\n" | cmp -s - db/data || printf "%s" | cmp -s - db/data; fi' "$1" "$1"
}

# pexp PROTOCOL NEW: explore it in a copy of $T/work, -o $T/PROTOCOL
pexp() {
	rm -rf "$T/work"
	mkdir -p "$T/work/db"
	printf 'old\n' >"$T/work/db/data"
	run env -C "$T" "$M" explore --power-loss 'paths="db/*"' --check "$(check "$2")" --workdir work \
		-o "$1" -- "$POWERPROG" "$1"
}

nfind() {
	ls "$T/$1" | grep -c '^[0-9]\{4\}-power-.*\.mock$'
}

for p in rename nodirsync append; do
	t "explore --power-loss finds $p (a wrong protocol)"
	new='new\n'
	[ $p = append ] && new='old\nnew\n'
	pexp $p "$new"
	want_rc 1
	[ "$(nfind $p)" -ge 1 ] || problem "no finding: $(ls "$T/$p")"
	grep -q '"method": "power-loss"' "$T/$p/explore.json" || problem "explore.json: $(cat "$T/$p/explore.json")"
	python3 "$TESTS_DIR/check_json.py" "$TESTS_DIR/../doc/explore.schema.json" "$T/$p/explore.json" \
		>"$T/schema.out" 2>&1 || problem "explore.json against doc/explore.schema.json: $(cat "$T/schema.out")"
	grep -q 'power-' "$T/$p/index.html" || problem "index.html lists no finding"
	f=$(ls "$T/$p" | grep -m1 '^[0-9]\{4\}-power-.*\.mock$')
	grep -q 'expect_power_loss()' "$T/$p/$f" || problem "$f: no expect_power_loss()"
	# the finding reproduces: its second run's check fails
	run env -C "$T/$p" "$M" -t "$f"
	[ "$rc" != 0 ] || problem "$f passes under mockrun -t: $out$err"
	case "$out$err" in *"step 2 of 2"*"expected exit status 0"*) ;; *) problem "$f fails, not at its check: $out$err" ;; esac
	done_t
done

for p in safe inplace; do
	t "explore --power-loss finds nothing in $p (a right protocol)"
	pexp $p 'new\n'
	want_rc 0
	[ "$(nfind $p)" = 0 ] || problem "findings: $(ls "$T/$p")"
	grep -q '"findings": 0' "$T/$p/explore.json" || problem "explore.json: $(cat "$T/$p/explore.json")"
	# the crash points were tried: the opens, writes, fsyncs and the rename
	n=$(grep -c '"function"' "$T/$p/explore.json")
	[ "$n" -ge 5 ] || problem "only $n crash points"
	done_t
done

t "explore --power-loss without --check, --workdir or paths= says which"
run env -C "$T" "$M" explore --power-loss 'paths="db/*"' --workdir work -- "$POWERPROG" safe
want_rc 125; case "$err" in *"needs --check"*) ;; *) problem "no --check error: $err" ;; esac
run env -C "$T" "$M" explore --power-loss 'paths="db/*"' --check true -- "$POWERPROG" safe
want_rc 125; case "$err" in *"needs --workdir"*) ;; *) problem "no --workdir error: $err" ;; esac
run env -C "$T" "$M" explore --power-loss 'mode=drop' --check true --workdir work -- "$POWERPROG" safe
want_rc 125; case "$err" in *"paths="*) ;; *) problem "no paths= error: $err" ;; esac
done_t

finish
