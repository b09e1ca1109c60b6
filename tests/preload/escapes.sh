#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Escapes anywhere in the tree are named: a process of the run that execs
# or spawns a program the shim cannot reach (static, setuid, a cleared
# environment) leaves a warning that names the program and its starter.
. "$(dirname "$0")/../lib.sh"

M=$MOCKRUN
Q='will_return_maybe(getrandom, 0)'
if [ -z "${PROBE_STATIC:-}" ]; then
	skip_t "escapes below the top program are named" "a sanitized build has no static probe"
	finish
	exit
fi

t "a static program exec'd by a shell is named, with the shell"
run "$M" -e "$Q" sh -c "$PROBE_STATIC; true"
want_rc 0; want_err_has "warning: \`$PROBE_STATIC\` (exec'd by dash["
want_err_has "is static: nothing in it was mocked"; done_t

t "a static program posix_spawn'd is named as started"
run "$M" -e "$Q" "$PROBE" spawners "$PROBE_STATIC"
want_err_has "warning: \`$PROBE_STATIC\` (started by probe["; want_err_has "is static"; done_t

t "a script whose interpreter is static names the interpreter"
printf '#!%s\n' "$PROBE_STATIC" > "$T/script"
chmod +x "$T/script"
run "$M" -e "$Q" sh -c "'$T/script'"
want_err_has "warning: \`$PROBE_STATIC\` (exec'd by dash["; done_t

t "env -i: the program it starts runs without the shim, and the report says so"
run "$M" -e "$Q" env -i /bin/cat /dev/null
want_rc 0; want_err_has "warning: \`/bin/cat\` (exec'd by env["
want_err_has "without the shim in LD_PRELOAD"; done_t

t "an environment that keeps LD_PRELOAD but drops the channel is named"
# shellcheck disable=SC2016
run "$M" -e "$Q" sh -c 'unset MOCKSHIM_CHANNEL; exec cat /dev/null'
want_err_has "/cat\` (exec'd by dash["; want_err_has "without MOCKSHIM_CHANNEL"; done_t

if [ "$(id -u)" = 0 ]; then
	t "a setuid program exec'd below the top is named (not one setuid to its caller)"
	cp "$PROBE" "$T/suid"
	chmod 4755 "$T/suid"
	# setuid root, run by root: no secure execution, it is mocked
	run "$M" -e "$Q" sh -c "'$T/suid' getuid 1"
	want_err_lacks "warning"; want_err_has "suid["
	chmod 755 "$T"
	chown nobody "$T/suid"
	chmod 4755 "$T/suid"
	run "$M" -e "$Q" sh -c "'$T/suid' getuid 1"
	want_err_has "warning: \`$T/suid\` (exec'd by dash["; want_err_has "is setuid or setgid"; done_t
else
	skip_t "a setuid program exec'd below the top is named" "not root: cannot make a setuid file"
fi

t "a name with control characters is escaped, never sent raw"
esc="$T/$(printf 'x\033[2Jy')"
cp "$PROBE_STATIC" "$esc"
run "$M" -e "$Q" sh -c '"$0"' "$esc"
want_err_has 'x\x1b[2Jy'
case "$err" in *$'\033'*) problem "an escape sequence reached the report" ;; esac; done_t

t "an exec given bad pointers fails with EFAULT, the shim does not crash"
run "$M" -q -e "$Q" "$PROBE" exec-bad
want_rc 0; want_out "execve: EFAULT
execve env: EFAULT"; done_t

t "execve with a NULL environment: the program ran without the shim"
run "$M" -e "$Q" "$PROBE" exec-null-env /bin/true
want_rc 0; want_err_has "warning: \`/bin/true\` (exec'd by probe["
want_err_has "without the shim in LD_PRELOAD"; done_t

t "ordinary programs, and an exec the spec fails, warn of nothing"
run "$M" -e "$Q" sh -c "cat /dev/null; '$PROBE' getuid 1 >/dev/null"
want_rc 0; want_err_lacks "warning"
run "$M" -e "$Q; will_fail(execve, EACCES)" sh -c "exec '$PROBE_STATIC'"
want_err_lacks "warning"; done_t

t "an orphan mockrun reaps that carried the shim is not called unmocked"
run "$M" -e "$Q" sh -c "(sleep 0.2; true) & sleep 0.1 & true"
want_rc 0; want_err_lacks "warning"; done_t

if command -v busybox >/dev/null && ! ldd "$(command -v busybox)" >/dev/null 2>&1; then
	t "busybox-static run from a shell is named"
	run "$M" -e "$Q" sh -c "busybox true"
	want_err_has "$(command -v busybox)\` (exec'd by dash["; want_err_has "is static"; done_t

	if [ -n "$EMULATED" ]; then
		# qemu-user answers prctl(PR_SET_CHILD_SUBREAPER) with EINVAL
		skip_t "an orphan of a static program, reaped by mockrun, is named as never attached" \
			"$EMULATED: no PR_SET_CHILD_SUBREAPER, mockrun cannot adopt orphans"
	else
		t "an orphan of a static program, reaped by mockrun, is named as never attached"
		run "$M" -e "$Q" busybox sh -c "(sleep 0.2; true) & true"
		want_err_has "an orphan of the tree, never attached: nothing in it was mocked"; done_t
	fi
else
	skip_t "busybox-static run from a shell is named" "no static busybox installed"
	skip_t "an orphan of a static program is named as never attached" "no static busybox installed"
fi

finish
