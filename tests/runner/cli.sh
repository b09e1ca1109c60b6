#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# mockrun's command line, exit statuses, errors and clean-up.
. "$(dirname "$0")/../lib.sh"

M=$MOCKRUN

t "--help and --version"
run "$M" --help
want_rc 0; want_out_has "usage: mockrun"
run "$M" --version
want_rc 0; want_out_has "mockrun (mockshim)"
want_out_has "
symbolizer: "; done_t

t "a bad statement: 125 with file:line:col, the line and a caret; program not run"
run "$M" -e 'will_return(getuid, 0)' -e 'will_fail(nosuch, EIO)' sh -c "touch $T/started"
want_rc 125
want_err_has "-e#2:1:11: error: unknown function 'nosuch'"
want_err_has "    will_fail(nosuch, EIO)
              ^"
[ ! -e "$T/started" ] || problem "the program ran"; done_t

t "a bad statement in a -f file names the file and line"
printf 'will_return(getuid, 0)\n# comment\n  will_return(getuid, "zero")\n' > "$T/spec.mock"
run "$M" -f "$T/spec.mock" true
want_rc 125; want_err_has "$T/spec.mock:3:23: error: getuid() returns uid_t: expected an integer, not a string"; done_t

t "-f with statements works"
printf 'will_return(geteuid, 4242) # comment\n' > "$T/ok.mock"
run "$M" -q -f "$T/ok.mock" id -u
want_rc 0; want_out "4242"; done_t

t "-f with a missing file: 125"
run "$M" -f "$T/missing.mock" true
want_rc 125; want_err_has "$T/missing.mock: cannot read"; done_t

t "a missing program: 127"
run "$M" -e 'will_return_maybe(getuid, 0)' /nonexistent/program
want_rc 127; want_err_has "No such file or directory"; done_t

t "a program not in PATH: 127"
run "$M" no-such-program-mockshim
want_rc 127; done_t

t "a program that cannot be executed: 126"
printf 'not a program\n' > "$T/noexec"; chmod 644 "$T/noexec"
run "$M" "$T/noexec"
want_rc 126; want_err_has "Permission denied"; done_t

t "no program: 125"
run "$M" -e 'will_return(getuid, 0)'
want_rc 125; want_err_has "no program given"; done_t

t "an unknown option: 125"
run "$M" --frobnicate true
want_rc 125; done_t

t "--record without the functions to record is refused"
run "$M" --record "$T/out.mock" true
want_rc 125; want_err_has "--record needs --record-fns"; done_t

t "-- ends the options; the program's options are its own"
run "$M" -q -- sh -c 'echo "$0 $1"' -e x
want_rc 0; want_out "-e x"; done_t

t "a program killed by a signal: 128+N"
run "$M" -q sh -c 'kill -TERM $$'
want_rc 143; done_t

t "--timeout kills the tree: 124, and says what was still running"
start=$(date +%s)
run "$M" --timeout 0.5 sh -c 'sleep 30 & sleep 30; wait'
took=$(($(date +%s) - start))
want_rc 124; want_err_has "timed out"; want_err_has "still running at the timeout: sleep["
[ "$took" -lt 10 ] || problem "took ${took}s"; done_t

t "--timeout that does not expire changes nothing"
run "$M" -q --timeout 30 sh -c 'exit 4'
want_rc 4; done_t

t "SIGTERM to mockrun is forwarded: the program dies, mockrun exits 143"
"$M" -q sh -c "echo \$\$ > $T/pid; exec sleep 30" 2>/dev/null &
mpid=$!
for _ in $(seq 50); do [ -s "$T/pid" ] && break; sleep 0.1; done
sleep 0.2
kill -TERM "$mpid"
wait "$mpid"; rc=$?
want_rc 143
kill -0 "$(cat "$T/pid")" 2>/dev/null && problem "the program survived"; done_t

t "on a terminal the program gets the foreground and reads it"
if command -v script >/dev/null; then
	out=$(printf 'hello\n' | timeout 20 script -qec "$M -q sh -c 'read x; echo got \$x'" /dev/null 2>&1 | tr -d '\r')
	case "$out" in *"got hello"*) ;; *) problem "the program did not read the terminal: [$out]" ;; esac
	done_t
else
	skip_t "on a terminal the program gets the foreground and reads it" "no script(1)"
fi

t "a program stopped and continued off a terminal is waited for"
run "$M" -q sh -c 'sh -c "sleep 0.3; kill -CONT $$" & kill -STOP $$; echo resumed'
want_rc 0; want_out "resumed"; done_t

t "--report json on -o FILE"
run "$M" --report json -o "$T/r.json" -e 'will_return(geteuid, 5)' id -u
want_rc 0
if command -v python3 >/dev/null; then
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["statements"][0]["consumed"] == 1 and d["statements"][0]["function"] == "geteuid" and d["processes"][0]["exe"] == "id", d' "$T/r.json" 2>"$T/json.err" || problem "bad JSON: $(cat "$T/json.err")"
fi; done_t

t "--report tap marks a leftover not ok"
run "$M" --report tap -o - -e 'will_return(geteuid, 5); will_return(getgid, 1)' id -u
want_rc 123; want_out_has "ok 1 - -e\#1:1: will_return(geteuid, 5)"; want_out_has "not ok 2 - -e\#1:1: will_return(getgid, 1)"; done_t

t "-o writes the text report to a file, stderr stays the program's"
run "$M" -o "$T/r.txt" -e 'will_fail(read, EIO)' cat /etc/hostname
want_rc 1; want_err_has "Input/output error"; want_err_lacks "mockshim:"
grep -q "will_fail(read, EIO): 1 of 1 used" "$T/r.txt" || problem "report: $(cat "$T/r.txt")"; done_t

t "--list shows the catalog and one function"
run "$M" --list
want_rc 0; want_out_has "file: open openat close read"
run "$M" --list read
want_rc 0; want_out_has "ssize_t read(int fd, void *buf, size_t count)"; want_out_has "aliases: __read_chk"
want_out_has "failure: returns -1, errno EIO"
run "$M" --list getaddrinfo
want_rc 0; want_out_has "failure: returns the error code (default EAI_NONAME)"
run "$M" --list getpwuid_r
want_rc 0; want_out_has "failure: returns the error code (default EIO)"
want_out_has "ERANGE when buflen is too small"
run "$M" --list getline
want_rc 0; want_out_has "ssize_t getdelim(char **lineptr, size_t *n, int delim, FILE *stream)"
want_out_has "aliases: __getdelim getline"
run "$M" --list nosuch
want_rc 125; done_t

t "nothing is left behind in /dev/shm or the temporary directory, even when the program is SIGKILLed"
# the runs get a TMPDIR of their own, which must end empty; the rest of
# /tmp belongs to the machine (other suites and programs write there), so
# only /dev/shm entries that name mockshim are compared
shm_listing() { ls -A /dev/shm 2>/dev/null | grep -i mockshim | sort; }
mkdir "$T/tmp" "$T/cwd"
cd "$T/cwd" || exit 1
before_shm=$(shm_listing)
run env TMPDIR="$T/tmp" "$M" -q -e 'will_return(getuid, 0)' sh -c 'kill -KILL $$'
want_rc 137
run env TMPDIR="$T/tmp" "$M" -q -e 'will_fail(read)' cat /etc/hostname
run env TMPDIR="$T/tmp" "$M" -q -o "$T/cwd/r.txt" --record "$T/cwd/r.mock" --record-fns getuid \
	-e 'will_return(getuid, 0)' sh -c 'kill -KILL $$'
[ "$(shm_listing)" = "$before_shm" ] || problem "/dev/shm changed: $(shm_listing)"
[ -z "$(ls -A "$T/tmp")" ] || problem "TMPDIR is not empty: $(ls -A "$T/tmp")"
rm -f "$T/cwd/r.txt" "$T/cwd/r.mock"
[ -z "$(ls -A "$T/cwd")" ] || problem "files left in the working directory: $(ls -A "$T/cwd")"
cd - >/dev/null || exit 1
done_t

t "events written before a crash are reported"
# in=: dash itself calls getuid, and drops privileges when it differs from geteuid
run "$M" -e 'will_return(getuid, 5, in="probe")' sh -c "\"$PROBE\" getuid 1; kill -SEGV \$\$"
want_rc 139; want_out "5"; want_err_has "1 of 1 used, by probe["; done_t

finish
