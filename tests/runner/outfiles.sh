#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The files mockrun writes (-o, --record, --trace-file, JUnit of -t):
# checked before the program runs, written whole or not at all, and a
# failed write is 125 with the reason (DESIGN.md section 4).
. "$(dirname "$0")/../lib.sh"

M=$MOCKRUN
D=$(cd "$(dirname "$0")/mock" && pwd)

t "a path that cannot be written is 125 before the program runs"
for opt in -o --record --trace-file; do
	extra=()
	[ "$opt" = --record ] && extra=(--record-fns getuid)
	run "$M" "$opt" /nonexistent/dir/f "${extra[@]}" -e 'will_return_maybe(getuid, 0)' sh -c "touch $T/ran"
	want_rc 125; want_err_has "mockrun: $opt /nonexistent/dir/f: No such file or directory"
	[ ! -e "$T/ran" ] || problem "$opt: the program ran"
done
run "$M" --report junit -o /nonexistent/dir/r.xml -t "$D/pass.mock"
want_rc 125; want_err_has "mockrun: -o /nonexistent/dir/r.xml: No such file or directory"
want_out ""; done_t

t "/dev/full: a failed write is 125 with the reason, and wins over the verdict"
run "$M" -o /dev/full -e 'will_return_maybe(getuid, 0)' true
want_rc 125; want_err_has "mockrun: -o /dev/full: No space left on device"
run "$M" -o /dev/full -e 'will_return(getuid, 0)' true
want_rc 125
run "$M" -o /dev/full sh -c 'exit 3'
want_rc 125
run "$M" --record /dev/full --record-fns getuid id -u
want_rc 125; want_err_has "mockrun: --record /dev/full: No space left on device"
run "$M" --report junit -o /dev/full -t "$D/pass.mock"
want_rc 125; want_err_has "mockrun: -o /dev/full: No space left on device"
run sh -c "'$M' -t '$D/pass.mock' > /dev/full"
want_rc 125; want_err_has "No space left on device"; done_t

t "--trace-file /dev/full: lost lines are 125 with the reason and the count, over the verdict"
run "$M" -q --trace --trace-file /dev/full -e 'will_return_maybe(getuid, 0)' id -u
want_rc 125; want_err_has "mockrun: --trace-file /dev/full: No space left on device: "
case "$err" in *": "[1-9]*" trace lines lost"*) ;; *) problem "no count of lost lines: [$err]" ;; esac
run "$M" -q --trace --trace-file /dev/full -e 'will_return(mkdir, 0)' id -u
want_rc 125; want_err_has "mockrun: --trace-file /dev/full: No space left on device"
run "$M" -q --trace --trace-file /dev/full sh -c 'exit 3'
want_rc 125; want_err_has "mockrun: --trace-file /dev/full: No space left on device"
# not traced, nothing lost: the run's own status
run "$M" -q --trace=mkdir --trace-file /dev/full sh -c 'exit 3'
want_rc 3; want_err_lacks "--trace-file"; done_t

t "--trace-file: a program that closes fds 3..63 keeps its trace, its own status"
# the shim's descriptor is above them: every line written, no warning
run "$M" -q --trace=getppid --trace-file "$T/closed.txt" \
	perl -MPOSIX -e 'POSIX::close($_) for 3..63; getppid(); exit 0'
want_rc 0; want_err_lacks "--trace-file"
grep -q 'getppid() = ' "$T/closed.txt" || problem "the line after the closes is missing: $(cat "$T/closed.txt")"
done_t

t "--trace-file: a program that closes every descriptor (EBADF) is a warning, not 125"
# closefrom(3): an honest program, not lost evidence; the file is kept
run "$M" -q --trace=getppid --trace-file "$T/closed2.txt" \
	perl -MPOSIX -e 'POSIX::close($_) for 3..1023; getppid(); exit 0'
want_rc 0
want_err_has "mockrun: warning: --trace-file $T/closed2.txt: the program closed the trace's descriptor "
want_err_has "(Bad file descriptor): 1 trace line lost"
[ -e "$T/closed2.txt" ] || problem "no trace file"
done_t

t "--trace-file a process cannot open (its own /proc, another uid) is 125 with the reason, never silent"
# the unnamed trace file is reached through /proc/<mockrun>/fd/N
# (not under qemu-user, which answers parts of /proc itself)
if [ -z "$EMULATED" ] && unshare -pf --mount-proc true 2>/dev/null; then
	run "$M" -q --trace=getppid --trace-file "$T/ns.txt" unshare -pf --mount-proc perl -e 'getppid()'
	want_rc 125
	want_err_has "mockrun: --trace-file $T/ns.txt: a process cannot open the trace file: No such file or directory"
fi
# (the other uid must reach the build's shim, or no shim opens anything)
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null &&
	setpriv --reuid=65534 --regid=65534 --clear-groups sh -c 'test -x "$1" && test -r "$2"' sh \
		"$M" "$(dirname "$M")/../libmockshim/libmockshim.so"; then
	run "$M" -q --trace=getppid --trace-file "$T/uid.txt" \
		setpriv --reuid=65534 --regid=65534 --clear-groups perl -e 'getppid()'
	want_rc 125
	want_err_has "mockrun: --trace-file $T/uid.txt: a process cannot open the trace file: Permission denied"
fi
done_t

t "--trace-file past RLIMIT_FSIZE (EFBIG): 125, the earlier file intact, nothing left"
mkdir "$T/fsize"; printf 'earlier\n' > "$T/fsize/tr.txt"
# the program lowers its own limit and ignores SIGXFSZ: its trace
# lines past 1 KiB fail with EFBIG (mockrun's limit is not lowered)
run "$M" -q --trace=open,openat,read,close --trace-file "$T/fsize/tr.txt" sh -c \
	"trap '' XFSZ; ulimit -f 2; for i in \$(seq 40); do cat /etc/hostname; done > /dev/null"
want_rc 125; want_err_has "mockrun: --trace-file $T/fsize/tr.txt: File too large: "
[ "$(cat "$T/fsize/tr.txt")" = earlier ] || problem "the earlier file changed: $(head -c 200 "$T/fsize/tr.txt")"
[ "$(ls -A "$T/fsize")" = tr.txt ] || problem "left behind: $(ls -A "$T/fsize")"
done_t

t "a device, -o - and /dev/fd/N are written in place"
run "$M" --report tap -o - -e 'will_return_maybe(getuid, 0)' true
want_rc 0; want_out_has "TAP version 13"
run sh -c "'$M' --report tap -o /dev/fd/3 -e 'will_return_maybe(getuid, 0)' true 3>&1 >/dev/null"
want_rc 0; want_out_has "TAP version 13"
run "$M" -o /dev/null true
want_rc 0
run "$M" --report json -o /dev/stdout -e 'will_return_maybe(getuid, 0)' true
want_rc 0; want_out_has '"program":"true"'; done_t

t "the earlier file stays as it was when the run fails before the report"
printf 'earlier\n' > "$T/keep.txt"
run "$M" -o "$T/keep.txt" -e 'will_fail(nosuch)' true
want_rc 125; [ "$(cat "$T/keep.txt")" = earlier ] || problem "changed: $(cat "$T/keep.txt")"
run "$M" -o "$T/keep.txt" /nonexistent/program
want_rc 127; [ "$(cat "$T/keep.txt")" = earlier ] || problem "changed: $(cat "$T/keep.txt")"
[ -z "$(ls -A "$T" | grep '^\.keep')" ] || problem "a temporary file is left: $(ls -A "$T")"
run "$M" -o "$T/keep.txt" -e 'will_return_maybe(getuid, 0)' true
want_rc 0; grep -q "all checks passed" "$T/keep.txt" || problem "not replaced: $(cat "$T/keep.txt")"
done_t

t "-o through a symbolic link replaces the file it names, the link stays"
printf 'old\n' > "$T/target.txt"; ln -s target.txt "$T/link.txt"
run "$M" -o "$T/link.txt" -e 'will_return_maybe(getuid, 0)' true
want_rc 0; [ -L "$T/link.txt" ] || problem "the link was replaced"
grep -q "all checks passed" "$T/target.txt" || problem "target: $(cat "$T/target.txt")"; done_t

t "--record X -o X is refused, and so is --trace-file X -o X"
run "$M" --record "$T/same" --record-fns getuid -o "$T/same" true
want_rc 125; want_err_has "--record $T/same: the same file as -o"
run "$M" --record "$T/same" --record-fns getuid -o "$T/../$(basename "$T")/same" true
want_rc 125; want_err_has "the same file as -o"
run "$M" --trace-file "$T/same" -o "$T/same" true
want_rc 125; want_err_has "the same file as --trace-file"
[ ! -e "$T/same" ] || problem "created"; done_t

t "--trace-file starts a new file each run"
run "$M" -q --trace=geteuid --trace-file "$T/trace" id -u
want_rc 0
run "$M" -q --trace=geteuid --trace-file "$T/trace" id -u
want_rc 0
[ "$(grep -c 'geteuid()' "$T/trace")" -eq 1 ] || problem "not one run's trace: $(cat "$T/trace")"
[ -z "$(ls -A "$T" | grep '^\.trace')" ] || problem "a temporary file is left: $(ls -A "$T")"
done_t

t "a full file system (tmpfs of 64k): 125, the earlier file intact, nothing left"
mnt="$T/small"
mkdir "$mnt"
if mount -t tmpfs -o size=64k tmpfs "$mnt" 2>/dev/null; then
	# a report larger than the file system: 3000 statements listed
	for i in $(seq 3000); do echo "will_return_maybe(getuid, $i)"; done > "$T/big.mock"
	printf 'earlier\n' > "$mnt/r.txt"
	run "$M" -f "$T/big.mock" -o "$mnt/r.txt" true
	want_rc 125; want_err_has "mockrun: -o $mnt/r.txt: No space left on device"
	[ "$(cat "$mnt/r.txt")" = earlier ] || problem "the earlier file changed: $(head -c 200 "$mnt/r.txt")"
	[ "$(ls -A "$mnt")" = r.txt ] || problem "left behind: $(ls -A "$mnt")"
	run "$M" -f "$T/big.mock" --report junit -o "$mnt/r.txt" true
	want_rc 125; [ "$(cat "$mnt/r.txt")" = earlier ] || problem "the earlier file changed (junit)"
	# -t: many tests, a JUnit that does not fit
	{ for i in $(seq 150); do printf 'test "t%s" {\n\trun sh -c "seq 1 200"\n}\n' "$i"; done; } > "$T/many.mock"
	run "$M" -j 2 --report junit -o "$mnt/r.txt" -t "$T/many.mock"
	want_rc 125; want_err_has "mockrun: -o $mnt/r.txt: No space left on device"
	[ "$(cat "$mnt/r.txt")" = earlier ] || problem "the earlier file changed (-t)"
	[ "$(ls -A "$mnt")" = r.txt ] || problem "left behind: $(ls -A "$mnt")"
	# --trace-file and --record larger than the file system: 5000
	# getuid calls, a line and a statement each
	getuids=(python3 -c 'import os; [os.getuid() for _ in range(5000)]')
	printf 'earlier\n' > "$mnt/t.txt"
	run "$M" -q --trace=getuid --trace-file "$mnt/t.txt" "${getuids[@]}"
	want_rc 125; want_err_has "mockrun: --trace-file $mnt/t.txt: No space left on device: "
	[ "$(cat "$mnt/t.txt")" = earlier ] || problem "the earlier trace changed: $(head -c 200 "$mnt/t.txt")"
	run "$M" -q --record "$mnt/t.txt" --record-fns getuid "${getuids[@]}"
	want_rc 125; want_err_has "mockrun: --record $mnt/t.txt: No space left on device"
	[ "$(cat "$mnt/t.txt")" = earlier ] || problem "the earlier record changed: $(head -c 200 "$mnt/t.txt")"
	rm "$mnt/t.txt"
	[ "$(ls -A "$mnt")" = r.txt ] || problem "left behind: $(ls -A "$mnt")"
	# a report that fits is written
	run "$M" -o "$mnt/r.txt" -e 'will_return_maybe(getuid, 0)' true
	want_rc 0; grep -q "all checks passed" "$mnt/r.txt" || problem "not written"
	umount "$mnt"
	done_t
else
	skip_t "a full file system (tmpfs of 64k): 125, the earlier file intact, nothing left" "mount is not permitted here"
fi

t "mockrun SIGKILLed during the run leaves no file beside -o or --record"
mkdir -p "$T/kill"
( cd "$T/kill" && exec "$M" -o rep.txt --record rec.mock --record-fns read sleep 29.75 ) &
pid=$!
for _ in $(seq 100); do pgrep -P "$pid" >/dev/null && break; sleep 0.05; done
kill -KILL "$pid"; wait "$pid" 2>/dev/null
pkill -f "sleep 29.75$" 2>/dev/null
[ -z "$(ls -A "$T/kill")" ] || problem "left behind: $(ls -A "$T/kill")"; done_t

# The program under test can SIGKILL mockrun (the same user): the report
# is lost, and the loss shows: its caller sees 137, and no file (report,
# record, trace) is left, none claiming a pass, none half-written.
for opts in "-o r.txt" "--report tap -o r.tap" "--report junit -o r.xml" "--report json -o r.json" \
	"--report html -o r.html" "--record rec.mock --record-fns getpid" "--trace --trace-file trace.txt" \
	"--trace --trace-format chrome --trace-file trace.json"; do
	t "the program SIGKILLs mockrun ($opts): 137, no file left"
	rm -rf "$T/selfkill" && mkdir "$T/selfkill"
	# shellcheck disable=SC2086,SC2016
	run env -C "$T/selfkill" timeout -k 2 20 "$M" $opts -e 'will_return_maybe(getrandom, 0)' \
		sh -c 'kill -KILL $PPID'
	want_rc 137
	[ -z "$(ls -A "$T/selfkill")" ] || problem "left behind: $(ls -A "$T/selfkill")"
	done_t
done

finish
