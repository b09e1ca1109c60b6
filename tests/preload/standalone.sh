#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Standalone mode: LD_PRELOAD=libmockshim.so MOCKSHIM='...' PROGRAM, no mockrun.
. "$(dirname "$0")/../lib.sh"

sa() {
	run env LD_PRELOAD="$SHIM" "$@"
}
uid=$(id -u)

t "MOCKSHIM: cat fails with EIO, the report is on stderr"
sa MOCKSHIM='will_fail(read, EIO)' cat /etc/hostname
want_rc 1; want_err_has "cat: /etc/hostname: Input/output error"
want_err_has "MOCKSHIM:1:1: will_fail(read, EIO): 1 of 1 used, by cat["; done_t

t "MOCKSHIM: the program's status stands when the checks pass"
sa MOCKSHIM='will_return(geteuid, 4242)' id -u
want_rc 0; want_out "4242"; want_err_has "all checks passed"; done_t

t "MOCKSHIM: a failed check turns exit status 0 into 123"
sa MOCKSHIM='will_return(geteuid, 4242); will_return(getgid, 1)' id -u
want_rc 123; want_out "4242"; want_err_has "getgid() has remaining non-returned values"; done_t

t "MOCKSHIM: a failed expectation turns exit status 0 into 123"
sa MOCKSHIM='expect_string(open, pathname, "/etc/passwd")' cat /etc/hostname
want_rc 123; want_err_has 'parameter pathname: expected "/etc/passwd", got "/etc/hostname"'; done_t

t "MOCKSHIM: a bad statement exits 125 with position and caret, before main"
sa MOCKSHIM='will_return(getuid, 0); will_fail(raed)' sh -c "touch $T/ran"
want_rc 125; want_err_has "MOCKSHIM:1:35: error: unknown function 'raed'"
want_err_has "                                      ^"
[ ! -e "$T/ran" ] || problem "the program ran"; done_t

t "MOCKSHIM_FILE: statements from a file"
printf '# comment\nwill_return(geteuid, 4243)\n' > "$T/spec.mock"
sa MOCKSHIM_FILE="$T/spec.mock" id -u
want_rc 0; want_out "4243"; done_t

t "MOCKSHIM_FILE: an error names the file, line and column"
printf 'will_return(geteuid, 1)\nwill_return(geteuid, "x")\n' > "$T/bad.mock"
sa MOCKSHIM_FILE="$T/bad.mock" id -u
want_rc 125; want_err_has "$T/bad.mock:2:22: error: geteuid() returns uid_t"; done_t

t "MOCKSHIM_FILE: a missing file exits 125"
sa MOCKSHIM_FILE="$T/none.mock" id -u
want_rc 125; want_err_has "MOCKSHIM_FILE=$T/none.mock: cannot read"; done_t

t "MOCKSHIM_REPORT: the report goes to the file"
sa MOCKSHIM='will_return(geteuid, 7)' MOCKSHIM_REPORT="$T/report.txt" id -u
want_rc 0; want_out "7"; want_err_lacks "mockshim:"
grep -q "will_return(geteuid, 7): 1 of 1 used" "$T/report.txt" || problem "report: $(cat "$T/report.txt" 2>&1)"; done_t

t "forked children share the queue: exactly COUNT values consumed"
sa MOCKSHIM='will_return_count(getpid, 42, 1000)' "$PROBE" fork-threads 4 4 200 42
want_rc 0; want_out "1000"; want_err_has "1000 of 1000 used"; done_t

t "an exec'd program shares the queue"
sa MOCKSHIM='will_return(getuid, 77)' "$PROBE" exec "$PROBE" getuid 2
want_rc 0; want_out "77 $uid"; want_err_has "1 of 1 used"; done_t

t "programs a shell starts share one queue"
sa MOCKSHIM='will_return(getuid, 5, in="probe")' sh -c "\"$PROBE\" getuid 1; \"$PROBE\" getuid 1"
want_rc 0; want_out "5
$uid"; want_err_has "1 of 1 used, by probe["; done_t

t "a shell that ends with _exit (dash) still reports, and a failed check makes its 0 a 123"
sa MOCKSHIM='will_return(getuid, 5, in="probe"); will_return(unlink, 0)' sh -c "\"$PROBE\" getuid 1; true"
want_rc 123; want_out "5"
want_err_has "mockshim: dash exited with status 0"
want_err_has "unlink() has remaining non-returned values"
sa MOCKSHIM='will_return(getuid, 5, in="probe")' sh -c "\"$PROBE\" getuid 1; exit 3"
want_rc 3; want_err_has "mockshim: dash exited with status 3"; want_err_has "all checks passed"; done_t

if unshare --pid --fork --mount-proc true 2>/dev/null; then
	t "a child in a sandbox shares the queue (its own /proc; no /proc: the inherited descriptor)"
	sa MOCKSHIM='will_return(getuid, 5, in="probe")' unshare --pid --fork --mount-proc "$PROBE" getuid 1
	want_rc 0; want_out "5"; want_err_has "1 of 1 used, by probe[1]"
	sa MOCKSHIM='will_return(getuid, 6, in="probe")' unshare --mount --fork \
		sh -c 'mount -t tmpfs none /proc && exec "$0" getuid 1' "$PROBE"
	want_rc 0; want_out "6"; want_err_has "1 of 1 used, by probe["
	# the owner itself in a sandbox with no /proc
	run unshare --mount --fork sh -c 'mount -t tmpfs none /proc &&
		exec env LD_PRELOAD="$1" MOCKSHIM="$2" "$3" getuid 1' _ "$SHIM" 'will_return(getuid, 9, in="probe")' "$PROBE"
	want_rc 0; want_out "9"; want_err_lacks "ignoring the channel"; done_t
else
	skip_t "a child in a sandbox shares the queue" "unshare not permitted"
fi

t "standalone mode leaves nothing on disk"
before=$(ls -A /dev/shm | sort)
sa MOCKSHIM='will_fail(read, EIO)' cat /etc/hostname
[ "$(ls -A /dev/shm | sort)" = "$before" ] || problem "/dev/shm changed"; done_t

t "under mockrun, MOCKSHIM in the environment is ignored"
run env MOCKSHIM='will_return(geteuid, 1)' "$MOCKRUN" -q -e 'will_return(geteuid, 2)' id -u
want_rc 0; want_out "2"; done_t

finish
