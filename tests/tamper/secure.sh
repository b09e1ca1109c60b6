#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Secure execution: a setuid program that loads the shim (here through
# /etc/ld.so.preload, in a private mount namespace) ignores every
# MOCKSHIM* variable, as the loader ignores its own LD_* ones: the user
# who runs it cannot mock its getuid(), make it read a file of root's
# (MOCKSHIM_FILE) or write one (MOCKSHIM_REPORT).  The same program
# without its setuid bit is mocked, which shows the shim was loaded.
. "$(dirname "$0")/../lib.sh"

if [ "${SANITIZE:-none}" != none ]; then
	skip_t "a setuid program ignores MOCKSHIM*" "a sanitized shim cannot load into the uninstrumented setpriv and env"
	finish
	exit
fi
if [ "$(id -u)" != 0 ] || ! unshare -m true 2>/dev/null || ! command -v setpriv >/dev/null; then
	skip_t "a setuid program ignores MOCKSHIM*" "not root, or unshare/setpriv not permitted"
	finish
	exit
fi
chmod 755 "$T"
mkdir "$T/up" "$T/work" "$T/private"
chmod 700 "$T/private"
cp "$SHIM" "$T/libmockshim.so"
cp "$SECURE" "$T/suid"
cp "$SECURE" "$T/plain"
chmod 755 "$T/libmockshim.so" "$T/plain"
chmod 4755 "$T/suid"
echo "secret" > "$T/private/secret.mock"
chmod 600 "$T/private/secret.mock"

# as nobody, in a namespace whose /etc/ld.so.preload names the shim
as_nobody() {
	unshare -m sh -c '
		mount -t overlay overlay -o "lowerdir=/etc,upperdir=$1/up,workdir=$1/work" /etc || exit 90
		echo "$1/libmockshim.so" > /etc/ld.so.preload
		shift
		exec setpriv --reuid=65534 --regid=65534 --clear-groups "$@"' sh "$T" "$@"
}

if ! as_nobody true 2>/dev/null; then
	skip_t "a setuid program ignores MOCKSHIM*" "overlay mounts not permitted here"
	finish
	exit
fi

# qemu-user run through binfmt_misc without its C flag runs a setuid
# program as the caller (no AT_SECURE either): nothing to test there
if [ "$(as_nobody "$T/suid" euid 2>/dev/null)" != "euid 0" ]; then
	skip_t "a setuid program ignores MOCKSHIM*" "the setuid bit is not honored here (qemu-user through binfmt_misc without the C flag)"
	finish
	exit
fi

t "without its setuid bit the program is mocked (the shim is loaded)"
run as_nobody env MOCKSHIM='will_return(getuid, 0)' "$T/plain"
want_rc 0; want_out "uid 0"; done_t

t "setuid: getuid() is not mocked, nothing is reported"
run as_nobody env MOCKSHIM='will_return(getuid, 0)' "$T/suid"
want_rc 0; want_out "uid 65534"; want_err_lacks "mockshim"; done_t

t "setuid: MOCKSHIM_FILE is not read (no error naming root's file), MOCKSHIM_REPORT not written"
run as_nobody env MOCKSHIM_FILE="$T/private/secret.mock" MOCKSHIM_REPORT="$T/private/report" "$T/suid"
want_rc 0; want_out "uid 65534"; want_err_lacks "secret"; want_err_lacks "mockshim"
[ ! -e "$T/private/report" ] || problem "a report was written into root's directory"
# the control: without the bit, the same variables are acted on (as nobody: cannot read it)
run as_nobody env MOCKSHIM_FILE="$T/private/secret.mock" "$T/plain"
want_rc 125; want_err_has "cannot read"; done_t

t "setuid: a channel named by MOCKSHIM_CHANNEL is not opened"
run as_nobody env MOCKSHIM_CHANNEL="$T/private/secret.mock,$T/private/secret.mock" "$T/suid"
want_rc 0; want_out "uid 65534"; want_err_lacks "mockshim"; done_t

finish
