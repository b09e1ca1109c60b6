#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A fork bomb under mockrun, as an unprivileged user bounded by ulimit
# -u: --timeout ends the run, and the kill reaches the processes forked
# while it goes on (each bomb process in a session of its own, so no one
# kill of a process group reaches them): none is left behind.
. "$(dirname "$0")/../lib.sh"

M=$MOCKRUN
name="a fork bomb (ulimit -u 40, each process in its own session) ends at --timeout, nothing left"

if [ -n "$EMULATED" ]; then
	skip_t "$name" "$EMULATED: no PR_SET_CHILD_SUBREAPER, mockrun cannot adopt orphans"
	finish
	exit
fi
if [ "$(id -u)" -ne 0 ]; then
	skip_t "$name" "needs root, to make a throwaway user (ulimit -u does not bound root)"
	finish
	exit
fi
for c in useradd userdel setpriv pgrep pkill perl; do
	if ! command -v "$c" >/dev/null; then
		skip_t "$name" "no $c (passwd, util-linux, procps, perl)"
		finish
		exit
	fi
done

# a user of this run only: pkill -u reaches nothing of anyone else's
user=msfb$$
pub=
gone_user() {
	# every process of the user, until none is left (a bomb forks on)
	for _ in $(seq 100); do
		pkill -KILL -u "$user" 2>/dev/null || break
		sleep 0.05
	done
	userdel "$user" 2>/dev/null
	[ -n "$pub" ] && rm -rf "$pub"
	rm -rf "$T"
}
if ! useradd --system --no-create-home --shell /bin/false --user-group "$user" 2>"$T/useradd"; then
	skip_t "$name" "useradd $user failed: $(head -1 "$T/useradd")"
	finish
	exit
fi
trap gone_user EXIT
uid=$(id -u "$user")
gid=$(id -g "$user")
as_user=(setpriv --reuid="$uid" --regid="$gid" --clear-groups)

# The build directory may be closed to that user (a home directory):
# then mockrun and the shim are copied where it can read them.
MR=$M SH=$SHIM
# shellcheck disable=SC2016
if ! (cd / && "${as_user[@]}" sh -c '[ -x "$1" ] && [ -r "$2" ]' sh "$M" "$SHIM"); then
	pub=$(mktemp -d "${TMPDIR:-/tmp}/mockshim-pub.XXXXXX")
	cp "$M" "$SHIM" "$pub/"
	chmod 755 "$pub" "$pub"/*
	MR=$pub/$(basename "$M") SH=$pub/$(basename "$SHIM")
	echo "# $user cannot read the build directory: mockrun and the shim copied to $pub"
fi

# The bomb: every process forks for ever, each child first making a
# session of its own; SIGTERM ignored (the SIGKILL rounds do the work),
# SIGCHLD too, so that a child's slot is free the moment it dies, and
# the bomb forks while mockrun kills (a failed fork waits 1 ms: the
# machine is shared)
# shellcheck disable=SC2016
bomb='use POSIX; $SIG{TERM} = $SIG{CHLD} = "IGNORE"; while (1) { my $p = fork; if (!defined $p) { select(undef, undef, undef, 0.001) } elsif (!$p) { POSIX::setsid() } }'
chmod 755 "$T"

t "$name"
t0=$(($(date +%s%N) / 1000000))
run timeout -k 5 40 env -C / MOCKSHIM_LIBRARY="$SH" "${as_user[@]}" \
	bash -c 'ulimit -u 40 && exec "$@"' bash "$MR" --timeout 2 -e 'will_return_maybe(getrandom, 0)' \
	perl -e "$bomb"
took=$(($(date +%s%N) / 1000000 - t0))
echo "# the run took $took ms"
want_rc 124
want_err_has "still running at the timeout:"
# SIGTERM at 2 s, SIGKILL at 4 s: the first SIGKILL must end it
[ "$took" -lt 5500 ] || problem "the run took $took ms: the first SIGKILL missed processes"
left=$(pgrep -u "$user" | wc -l)
[ "$left" -eq 0 ] || problem "$left processes of $user left behind: $(pgrep -a -u "$user" | head -5)"
done_t

finish
