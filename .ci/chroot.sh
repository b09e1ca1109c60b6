#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# .ci/chroot.sh [--root-only] ARCH SUITE DIR [MESON TEST ARGUMENTS...]
#
# Builds this source tree and runs `meson test` inside a Debian root file
# system: ARCH is Debian's name (amd64, arm64), SUITE the release
# (bookworm, trixie), DIR where the root goes.  A foreign ARCH runs under
# qemu-user through binfmt_misc (apt-get install qemu-user-static
# binfmt-support debootstrap): everything inside, gcc included, is a
# real binary of that architecture, emulated.
#
#   sudo .ci/chroot.sh amd64 trixie /tmp/trixie           # Debian 13
#   sudo .ci/chroot.sh arm64 bookworm /tmp/arm64 --suite examples
#
# Without DIR/.mockshim-root the root is made with debootstrap (DIR must
# then be empty or absent); with it, the root is used as it is (a second
# run by hand skips the two minutes).  The source is copied to DIR/src
# (git's files, tracked and untracked, not the build directories), built
# in DIR/build with -Dwerror=true (for a foreign ARCH by the host's
# cross compiler, gcc-aarch64-linux-gnu g++-aarch64-linux-gnu, against the
# root's libraries; CHROOT_BUILD=native builds inside, under qemu, slowly),
# and tested inside; the summary and the number
# of TAP subtests skipped (and why) are printed, the test log is at
# DIR/build/meson-logs/testlog.json.  /proc, /dev, /dev/pts and a private
# /dev/shm are mounted for the run and unmounted on every way out.
# --root-only makes the root and installs the packages, and stops there
# (CI does that part early, beside other work).  Exit status: meson
# test's (0 when every test passed), or 2 for a set-up that failed.
# Root only (debootstrap, mount, chroot).
set -euo pipefail

usage() {
	sed -n '3,/^set -e/p' "$0" | sed -n 's/^# \{0,1\}//p' >&2
	exit 2
}
root_only=0
if [ "${1:-}" = --root-only ]; then
	root_only=1
	shift
fi
[ $# -ge 3 ] || usage
arch=$1 suite=$2 dir=$3
shift 3
[ "$(id -u)" = 0 ] || { echo "chroot.sh: needs root (debootstrap, mount, chroot)" >&2; exit 2; }
src=$(cd "$(dirname "$0")/.." && pwd)
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
log() { printf '[chroot %s %s %(%H:%M:%S)T] %s\n' "$arch" "$suite" -1 "$*" >&2; }
fail() { log "error: $*"; exit 2; }

# ---- qemu-user for a foreign architecture ----
host_arch=$(dpkg --print-architecture)
if [ "$arch" != "$host_arch" ]; then
	case $arch in
	arm64) cpu=aarch64 ;;
	armhf) cpu=arm ;;
	riscv64) cpu=riscv64 ;;
	i386) cpu=i386 ;;
	*) cpu=$arch ;;
	esac
	if [ "$arch-$host_arch" != "i386-amd64" ]; then
		[ -e /proc/sys/fs/binfmt_misc/register ] ||
			mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc ||
			fail "binfmt_misc cannot be mounted"
		[ -e "/proc/sys/fs/binfmt_misc/qemu-$cpu" ] || update-binfmts --enable "qemu-$cpu" ||
			fail "no qemu-$cpu in binfmt_misc: apt-get install qemu-user-static binfmt-support"
		# F (fix binary): the interpreter is opened now, so the root needs
		# no copy of qemu
		grep -q '^flags:.*F' "/proc/sys/fs/binfmt_misc/qemu-$cpu" ||
			fail "qemu-$cpu is registered without the F flag: the chroot cannot find it"
	fi
fi

# ---- the root ----
if [ ! -e "$dir/.mockshim-root" ]; then
	if [ -e "$dir" ] && [ -n "$(ls -A "$dir")" ]; then
		fail "$dir is not empty and not a root this script made"
	fi
	log "debootstrap --arch=$arch --variant=minbase $suite $dir"
	t0=$SECONDS
	debootstrap --arch="$arch" --variant=minbase "$suite" "$dir" "$mirror" > "$dir.debootstrap.log" 2>&1 ||
		{ tail -20 "$dir.debootstrap.log" >&2 || true; fail "debootstrap failed (log: $dir.debootstrap.log)"; }
	rm -f "$dir.debootstrap.log"
	log "root made in $((SECONDS - t0)) s"
	touch "$dir/.mockshim-root"
fi
# a root debootstrap made for another architecture may have no /etc/hosts
# (the tests resolve localhost, as on any installed system)
[ -s "$dir/etc/hosts" ] ||
	printf '127.0.0.1\tlocalhost\n::1\t\tlocalhost ip6-localhost ip6-loopback\n' > "$dir/etc/hosts"

mounted=()
cleanup() {
	local i
	for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
		umount "${mounted[i]}" 2>/dev/null || umount -l "${mounted[i]}" || true
	done
	mounted=()
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP
mnt() {	# mnt TARGET MOUNT-ARGUMENTS...
	local target=$dir$1
	shift
	mkdir -p "$target"
	mount "$@" "$target"
	mounted+=("$target")
	# nothing mounted under it reaches the host's tree, nor the reverse
	mount --make-private "$target"
}
# the root a mount point of its own: unshare -m inside (the tests'
# sandboxes, the setuid test's private /etc) makes / private, which a
# directory that is not a mount point refuses (EINVAL)
mnt "" --bind "$dir"
mnt /proc -t proc proc
mnt /dev --bind /dev
mnt /dev/pts --bind /dev/pts
mnt /dev/shm -t tmpfs -o mode=1777,nosuid,nodev tmpfs
in_root() { chroot "$dir" /usr/bin/env -i HOME=/root LC_ALL=C.UTF-8 TERM=dumb \
	PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive "$@"; }

# ---- what the build and the tests need ----
t0=$SECONDS
pkgs=(meson ninja-build gcc g++ libc6-dev pkg-config libcmocka-dev python3
	binutils coreutils procps libc-bin util-linux bsdutils busybox-static
	groff-base man-db perl libxml2-utils jq strace file python3-pytest git libdw-dev)
# valgrind runs on an architecture it supports, not inside qemu-user;
# the Go test is the syscall tier's, which qemu-user cannot run; musl
# links mockrun in a native build only (runner/meson.build)
[ "$arch" = "$host_arch" ] && pkgs+=(valgrind golang-go musl-tools)
if [ ! -e "$dir/.mockshim-packages" ] || [ "$(cat "$dir/.mockshim-packages")" != "${pkgs[*]}" ]; then
	# man-db's index is rebuilt after each package otherwise: minutes
	# under qemu, for pages nobody reads here (the tests call man -l)
	echo 'man-db man-db/auto-update boolean false' | in_root debconf-set-selections
	in_root apt-get update -q > "$dir/apt.log" 2>&1 &&
		in_root apt-get install -y -q --no-install-recommends "${pkgs[@]}" >> "$dir/apt.log" 2>&1 ||
		{ tail -20 "$dir/apt.log" >&2 || true; fail "apt-get install failed"; }
	echo "${pkgs[*]}" > "$dir/.mockshim-packages"
	log "packages installed in $((SECONDS - t0)) s"
fi
log "$(in_root sh -c 'echo "$(uname -m), Debian $(cat /etc/debian_version), $(ldd --version | head -1), $(gcc --version | head -1)"')"
[ "$root_only" = 0 ] || exit 0

# ---- the source, built and tested ----
rm -rf "$dir/src" "$dir/build"
mkdir -p "$dir/src"
if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
	git -C "$src" ls-files -z --cached --others --exclude-standard |
		(cd "$src" && tar --null -T - --ignore-failed-read -cf - 2>/dev/null) | tar -xf - -C "$dir/src"
else
	tar -C "$src" --exclude='./build*' -cf - . | tar -xf - -C "$dir/src"
fi
cross=
if [ "$arch" != "$host_arch" ] && [ "${CHROOT_BUILD:-cross}" = cross ]; then
	case $arch in
	arm64) cross=aarch64-linux-gnu ;;
	armhf) cross=arm-linux-gnueabihf ;;
	*) cross=$cpu-linux-gnu ;;
	esac
fi
t0=$SECONDS
if [ -n "$cross" ]; then
	# gcc under qemu takes half an hour for this tree: the host's cross
	# compiler (the same gcc release) builds it against the root's own
	# headers and libraries (--sysroot), and the tests run inside
	command -v "$cross-gcc" >/dev/null && command -v "$cross-g++" >/dev/null ||
		fail "no $cross-gcc: apt-get install gcc-$cross g++-$cross (or CHROOT_BUILD=native, slow)"
	cat > "$dir/cross.ini" <<EOF
[binaries]
c = '$cross-gcc'
cpp = '$cross-g++'
ar = '$cross-ar'
strip = '$cross-strip'
pkgconfig = 'pkg-config'

[built-in options]
c_args = ['--sysroot=$dir']
c_link_args = ['--sysroot=$dir']
cpp_args = ['--sysroot=$dir']
cpp_link_args = ['--sysroot=$dir']

[properties]
sys_root = '$dir'
pkg_config_libdir = '$dir/usr/lib/$cross/pkgconfig:$dir/usr/share/pkgconfig'
needs_exe_wrapper = false

[host_machine]
system = 'linux'
cpu_family = '$cpu'
cpu = '$cpu'
endian = 'little'
EOF
	# (meson-test-prereq: the tests' programs, which meson 1.7 and later
	# leave out of a plain compile, as meson test --no-rebuild needs them)
	# the programs meson finds (python3, pytest-3) are run inside: the
	# system's paths, which the root has too, not a version manager's
	(cd "$dir/src" && PATH=/usr/sbin:/usr/bin:/sbin:/bin PKG_CONFIG_SYSROOT_DIR=$dir meson setup "$dir/build" --cross-file "$dir/cross.ini" \
		-Dwerror=true > "$dir/build-setup.log" 2>&1 &&
		meson compile -C "$dir/build" > "$dir/build-compile.log" 2>&1 &&
		ninja -C "$dir/build" meson-test-prereq >> "$dir/build-compile.log" 2>&1) ||
		{ tail -n 40 "$dir/build-setup.log" "$dir/build-compile.log" >&2 || true; fail "the build failed"; }
	# the build's paths (under $dir) are the same files inside the root:
	# bind mounts, not a symlink, so that a path resolved (mockrun's own,
	# the shim's) is still the one meson wrote
	mnt "$dir/src" --bind "$dir/src"
	mnt "$dir/build" --bind "$dir/build"
	src_in=$dir/src build_in=$dir/build
else
	in_root sh -c 'cd /src && meson setup /build -Dwerror=true > /build-setup.log 2>&1 &&
		meson compile -C /build > /build-compile.log 2>&1 &&
		ninja -C /build meson-test-prereq >> /build-compile.log 2>&1' ||
		{ tail -n 40 "$dir/build-setup.log" "$dir/build-compile.log" >&2 || true; fail "the build failed"; }
	src_in=/src build_in=/build
fi
log "built in $((SECONDS - t0)) s${cross:+ (with $cross-gcc)}"
# emulation is slow: the tests' timeouts are for a real processor
slow=()
[ "$arch" = "$host_arch" ] || slow=(--timeout-multiplier "${CHROOT_TIMEOUT_MULTIPLIER:-4}")
t0=$SECONDS
set +e
in_root sh -c 'cd "$1" && shift && exec meson test -C "$@" --no-rebuild --print-errorlogs' meson-test \
	"$src_in" "$build_in" "${slow[@]}" "$@"
status=$?
set -e
log "tested in $((SECONDS - t0)) s (meson test: exit $status)"

# ---- the summary: tests, and the TAP subtests skipped and why ----
python3 - "$dir/build/meson-logs/testlog.json" "$arch" "$suite" <<'PY'
import collections, json, re, sys
path, arch, suite = sys.argv[1:]
counts = collections.Counter()
why = collections.Counter()
try:
    lines = open(path).read().splitlines()
except OSError:
    lines = []
for line in lines:
    if not line.strip():
        continue
    r = json.loads(line)
    counts[r["result"]] += 1
    for m in re.finditer(r"^ok \d+ (.*?)\s*# SKIP\S*\s*(.*)$", r.get("stdout") or "", re.M | re.I):
        why[f"{r['name']}: {m.group(1)}: {m.group(2)}"] += 1
passed = counts["OK"] + counts["EXPECTEDFAIL"]
skipped = counts["SKIP"]
failed = sum(counts.values()) - passed - skipped
print(f"{arch} {suite}: {passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else "")
      + f"; {sum(why.values())} TAP subtests skipped")
for w in sorted(why):
    print(f"  skipped: {w}")
PY
exit "$status"
