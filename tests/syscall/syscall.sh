#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The syscall tier (issue 25): SYS_ statements answered by mockrun's
# seccomp supervisor, for what no preload sees: static programs (busybox,
# gcc -static, Go) and the calls libc makes inside itself (stdio's write).
. "$(dirname "$0")/../lib.sh"

M=$MOCKRUN
cd "$T" || exit 1
printf 'first line\nsecond line\n' > in.txt
BB=$(command -v busybox || true)
# Under a sanitizer build the shim cannot load in uninstrumented dynamic
# programs (sh, tee, cat): those tests are skipped there, and the static
# programs (which never load the shim) exercise the sanitized supervisor.
DYN=1
SH=sh
if [ "${SANITIZE:-none}" != none ]; then
	DYN=
	SH="busybox sh"
fi

# a static C program, built here
if gcc -static -O2 -o sysprobe "$SRC/sysprobe.c" 2>"$T/.cc"; then
	P=$T/sysprobe
else
	P=
fi

t "gcc -static builds the probe (libc6-dev has libc.a)"
[ -n "$P" ] || problem "gcc -static failed: $(head -5 "$T/.cc")"; done_t

if [ -n "$EMULATED" ]; then
	# qemu-user runs the guest's system calls itself, and has no
	# seccomp() for it: no filter can notify mockrun of the guest's calls
	t "$EMULATED: a SYS_ statement fails before the program runs, saying why"
	run "$M" -e 'will_return_maybe(SYS_getppid, 1)' "$P" ppid 1
	want_rc 126; want_out ""
	want_err_has "cannot install the syscall filter (seccomp): Function not implemented"
	want_err_has "an emulator such as qemu-user does not provide them"; done_t
	skip_t "the syscall tier's tests" "$EMULATED: qemu-user does not emulate seccomp() for the guest (ENOSYS): no filter, no notifications; they run on an aarch64 kernel"
	finish
	exit
fi

t "busybox head: will_fail(SYS_read, EIO) is the error head prints; busybox[PID] used it"
[ -n "$BB" ] || problem "busybox is not installed (Debian: busybox-static)"
run "$M" -e 'will_fail(SYS_read, EIO)' busybox head -n1 in.txt
want_rc 1
want_err_has "head: in.txt: Input/output error"
want_err_has "will_fail(SYS_read, EIO): 1 of 1 used, by busybox["
want_err_has "all checks passed"
want_out ""; done_t

t "busybox head with no SYS_ statement reads the file: the statement made the difference"
run "$M" -e 'will_return_maybe(getegid, 0)' busybox head -n1 in.txt
want_rc 0; want_out "first line"; done_t

t "busybox ls: a getdents64 that fails lists nothing (busybox ls does not check readdir)"
mkdir -p dir && touch dir/alpha dir/beta
run "$M" -e 'will_fail(SYS_getdents64, EIO)' busybox ls dir
want_out_lacks alpha; want_out_lacks beta
want_err_has "will_fail(SYS_getdents64, EIO): 1 of 1 used, by busybox["
run "$M" -e 'will_return_maybe(getegid, 0)' busybox ls dir
want_out "$(printf 'alpha\nbeta')"; done_t

t "no SYS_ statement: no filter; with one, the program runs under seccomp"
run "$M" -e 'will_return_maybe(getegid, 0)' busybox grep Seccomp: /proc/self/status
want_out "$(printf 'Seccomp:\t0')"
run "$M" -e 'will_return_maybe(SYS_getppid, 1)' busybox grep Seccomp: /proc/self/status
want_out "$(printf 'Seccomp:\t2')"; done_t

t "a queue on SYS_getppid: 7, then 8, then the real call"
run "$M" -e 'will_return(SYS_getppid, 7); will_return(SYS_getppid, 8)' "$P" ppid 3
want_rc 0
[ "$(printf '%s\n' "$out" | head -2 | tr '\n' ' ')" = "7 8 " ] || problem "stdout [$out]"
real=$(printf '%s\n' "$out" | sed -n 3p)
[ -n "$real" ] && [ "$real" != 7 ] && [ "$real" != 8 ] || problem "third call not real: [$out]"
want_err_has "will_return(SYS_getppid, 8): 1 of 1 used, by sysprobe["; done_t

t "outputs: buf= into read's buffer (ret = its length), *statbuf and *buf structs"
run "$M" -e 'will_return(SYS_read, _, buf="mocked")' "$P" cat in.txt
want_rc 0; want_out "6:mocked"
run "$M" -e 'will_return(SYS_newfstatat, 0, *statbuf={.st_size = 4242})' "$P" stat in.txt
want_rc 0; want_out "size 4242"
run "$M" -e 'will_return(SYS_uname, 0, *buf={.nodename = "mocked-host"})' "$P" uname
want_rc 0; want_out "mocked-host"; done_t

t "the kernel's convention: will_fail gives -errno, libc makes it -1 and errno"
run "$M" -e 'will_fail(SYS_openat, EACCES)' "$P" cat in.txt
want_rc 1; want_out "open: Permission denied"
run "$M" -e 'will_return(SYS_read, -5)' "$P" cat in.txt
want_rc 1; want_out "read: Input/output error"; done_t

t "expect_string on a path read from the caller's memory: passes, and fails with what it saw"
run "$M" -e 'expect_string(SYS_openat, pathname, "in.txt")' "$P" cat in.txt
want_rc 0; want_out_has "first line"; want_err_has "all checks passed"
run "$M" -e 'expect_string(SYS_openat, pathname, "other.txt")' "$P" cat in.txt
want_rc 123
want_err_has 'expected "other.txt"'
want_err_has '"in.txt"'; done_t

t "leftovers: a SYS_ statement no call used (static glibc's stat is newfstatat)"
# aarch64 has no stat system call: its fstat is as unused
unused=stat
[ "$(uname -m)" = aarch64 ] && unused=fstat
run "$M" -e "will_return(SYS_$unused, 0, *statbuf={.st_size = 1})" "$P" stat in.txt
want_rc 123
want_err_has "SYS_$unused() has remaining non-returned values (0 of 1 used)"
want_out_has "size 23"; done_t

t "in=: only the named program's calls"
run "$M" -e 'will_return_always(SYS_getppid, 99, in="other*")' "$P" ppid 1
want_out_line_lacks 99
printf '%s\n' "$out" | grep -qxE '[0-9]+' || problem "ppid printed [$out]"
want_err_has "SYS_getppid() has remaining non-returned values"
run "$M" -e 'will_return_always(SYS_getppid, 99, in="sysprobe")' "$P" ppid 1
want_rc 0; want_out 99; done_t

t "in= on a SYS_ statement matches argv[0]'s basename (a link, as busybox's applets are)"
ln -sf "$P" applet
run "$M" -e 'will_return_always(SYS_getppid, 99, in="applet")' ./applet ppid 1
want_rc 0; want_out 99
run "$M" -e 'will_return_always(SYS_getppid, 99, in="other")' ./applet ppid 1
want_out_line_lacks 99; want_err_has "SYS_getppid() has remaining non-returned values"; done_t

t "a tree: sh -c runs two static programs; one queued value, taken exactly once"
cp "$P" proga && cp "$P" progb
run "$M" -e 'will_return(SYS_getppid, 4242, in="prog?")' $SH -c './proga ppid 1; ./progb ppid 1'
want_rc 0
[ "$(printf '%s\n' "$out" | grep -c '^4242$')" -eq 1 ] || problem "4242 not exactly once: [$out]"
want_err_has "1 of 1 used, by proga["; done_t

t "a tree: in= on each program gives each its own answer"
run "$M" -e 'will_return_always(SYS_getppid, 1, in="proga")' \
	-e 'will_return_always(SYS_getppid, 2, in="progb")' $SH -c './proga ppid 2; ./progb ppid 2'
want_rc 0; want_out "$(printf '1\n1\n2\n2')"; done_t

t "a Go program: os.ReadFile fails with ENOENT through SYS_openat aimed by when(pathname ~ ...)"
if ! command -v go >/dev/null; then
	skip_t "$tname" "go is not installed (Debian: golang-go)"
else
	mkdir -p gosrc && cat > gosrc/main.go <<'GO'
package main

import (
	"fmt"
	"os"
)

func main() {
	data, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	fmt.Print(string(data))
}
GO
	if ! (cd gosrc && HOME=${HOME:-$T} GOFLAGS= CGO_ENABLED=0 go build -o ../readfile main.go) \
		2>"$T/.go"; then
		problem "go build failed: $(head -5 "$T/.go")"
	fi
	run "$M" -e 'will_fail(SYS_openat, ENOENT, when(pathname ~ "*in.txt"))' ./readfile in.txt
	want_rc 1
	want_out "error: open in.txt: no such file or directory"
	want_err_has "1 of 1 used, by readfile["
	run "$M" -e 'will_fail(SYS_openat, ENOENT, when(pathname ~ "*in.txt"))' ./readfile /etc/hostname
	want_rc 123
	want_err_has "remaining non-returned values"
	done_t
fi

t "fake_time on a Go program: the run and --check say that Go reads the clock from the vDSO, and what works"
if ! command -v go >/dev/null || ! command -v cc >/dev/null; then
	skip_t "$tname" "go or a C compiler is not installed (Debian: golang-go, gcc)"
elif [ "${SANITIZE:-none}" != none ]; then
	skip_t "$tname" "the sanitizer shim cannot load in uninstrumented dynamic programs"
else
	# cgo makes it a dynamic program: the shim loads, and still no clock is read
	mkdir -p godyn && cat > godyn/main.go <<'GO'
package main

/*
#include <unistd.h>
*/
import "C"

import (
	"fmt"
	"os"
	"time"
)

func main() {
	_ = C.getpid()
	if len(os.Args) > 1 {
		data, err := os.ReadFile(os.Args[1])
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		fmt.Print(string(data))
	}
	fmt.Println(time.Now().Year())
}
GO
	if ! (cd godyn && HOME=${HOME:-$T} GOFLAGS= CGO_ENABLED=1 go build -o ../dyngo main.go) \
		2>"$T/.go"; then
		problem "go build failed: $(head -5 "$T/.go")"
	fi
	run "$M" -e 'fake_time("2001-01-01")' ./dyngo
	want_rc 0; want_out_lacks "2001"
	want_err_has "mockrun: warning: fake_time: ./dyngo is a Go program: its runtime reads the clock from the vDSO itself"
	want_err_has "SYS_clock_gettime does not either; give the program its time from outside"
	want_err_has 'fake_time("2001-01-01"): clocks read 0 times; ./dyngo is a Go program, which reads the clock from the vDSO itself'
	run "$M" --check -e 'fake_time("2001-01-01")' ./dyngo
	want_err_has "warning: fake_time: ./dyngo is a Go program"
	done_t
fi

t "--check on a dynamic Go program: one line per function, the Go runtime's way in; cgo's imports as imports"
if [ ! -x dyngo ]; then
	skip_t "$tname" "no dynamic Go program was built (above)"
else
	run "$M" --check -e 'will_fail_count(read, EIO, -2); will_return_maybe(getpid, 1)' ./dyngo
	want_err_has "check: read() is not imported (a Go program: its runtime makes system calls itself); SYS_read reaches it"
	n=$(printf '%s\n' "$err" | grep -c 'read()\|SYS_read')
	[ "$n" = 1 ] || problem "$n lines about read(), not 1: $err"
	want_err_lacks "libc's own calls"
	want_err_has "check: getpid() is imported by ./dyngo"
	done_t
fi

if [ -n "$DYN" ]; then
t "stdio inside libc: tee, sort -o and python's print to a file fail with ENOSPC via SYS_write"
run "$M" -e 'will_fail(SYS_write, ENOSPC, when(fd ~ "*/out.txt"))' tee out.txt <<<"hello"
want_rc 1; want_err_has "tee: out.txt: No space left on device"
want_out "hello"
run "$M" -e 'will_fail(SYS_write, ENOSPC, when(fd ~ "*/sorted.txt"))' sort -o sorted.txt in.txt
want_rc 2; want_err_has "sorted.txt: No space left on device"
run "$M" -e 'will_fail(SYS_write, ENOSPC, when(fd ~ "*/py.txt"))' /usr/bin/python3 -I -c '
with open("py.txt", "w") as f:
    print("x", file=f)'
want_rc 1; want_err_has "OSError: [Errno 28] No space left on device"; done_t
else
	skip_t "stdio inside libc: tee, sort -o and python" "the sanitizer shim cannot load in uninstrumented dynamic programs"
fi

if [ -n "$DYN" ]; then
t "both tiers in one run: the preload answers write(), which never reaches the kernel"
run "$M" -e 'will_fail(write, ENOSPC)' -e 'will_fail_count(SYS_write, EIO, -2, when(fd == 1))' \
	sh -c 'cat in.txt | cat'
want_err_has "write error: No space left on device"
want_err_has "will_fail(write, ENOSPC): 1 of 1 used, by cat["
want_err_has "will_fail_count(SYS_write, EIO, -2, when(fd == 1)): used 0 times (maybe)"; done_t
else
	skip_t "both tiers in one run" "the sanitizer shim cannot load in uninstrumented dynamic programs"
fi

t "another ABI: its program is refused before it runs; on x86-64 the filter lets x32's calls by"
# an ELF header is all the check reads: 32-bit, this machine's e_machine
case $(uname -m) in
x86_64) mach='\076\000' ;;
aarch64) mach='\267\000' ;;
esac
printf "\177ELF\001\001\001\000\000\000\000\000\000\000\000\000\002\000$mach" > abi32
head -c 64 /dev/zero >> abi32 && chmod +x abi32
run "$M" -e 'will_return_maybe(SYS_getppid, 4242)' ./abi32
want_rc 125; want_out ""
want_err_has "SYS_ statements answer 64-bit $(uname -m) system calls only: ./abi32 is a program of another ABI"
if [ "$(uname -m)" = x86_64 ]; then
	# getppid by x32's number: never notified, the kernel's own answer
	# (the parent, or -ENOSYS without x32), whatever the statement says
	run "$M" -e 'will_return_maybe(SYS_getppid, 4242)' "$P" x32ppid
	want_rc 0; want_out_line_lacks 4242
	printf '%s\n' "$out" | grep -qxE -- '-38|[0-9]+' || problem "x32ppid printed [$out]"
	want_err_has "will_return_maybe(SYS_getppid, 4242): used 0 times (maybe)"
fi; done_t

t "a program with a seccomp filter of its own: both filters act (they stack)"
run "$M" -e 'will_return(SYS_getppid, 4242)' "$P" seccomp
want_rc 0; want_out "$(printf '4242\ngetuid: Operation not permitted')"; done_t

if [ -n "$DYN" ]; then
t "strace -f inside the run: ptrace and the supervisor work together"
if command -v strace >/dev/null; then
	run "$M" -e 'will_return(SYS_getppid, 4242)' strace -f -o strace.log "$P" ppid 1
	want_rc 0; want_out 4242
	grep -q 'getppid() *= 4242' strace.log || problem "strace saw: $(grep getppid strace.log)"
else
	problem "strace is not installed"
fi; done_t
else
	skip_t "strace -f inside the run" "the sanitizer shim cannot load in strace (uninstrumented)"
fi

t "bad input: an unknown SYS_ name, a parameter it lacks, an output it has not: 125 with a caret"
run "$M" -e 'will_fail(SYS_wrte, EIO)' true
want_rc 125; want_err_has "-e#1:1:11: error: unknown system call 'SYS_wrte'"; want_err_has "^"
run "$M" -e 'expect_value(SYS_read, bogus, 1)' true
want_rc 125; want_err_has "SYS_read() has no parameter 'bogus' (parameters: fd, buf, count)"
run "$M" -e 'will_return(SYS_write, 1, buf="x")' true
want_rc 125; want_err_has "'buf' is not an output parameter of SYS_write()"
run "$M" -e 'will_fail(SYS_read, EIO, from="libc.so*")' true
want_rc 125; want_err_has "a system call has none the supervisor can tell"
run "$M" -e 'will_call_real(SYS_openat, pathname="x")' true
want_rc 125; want_err_has "cannot replace an argument of a system call"
run "$M" --trace=SYS_bogus "$P" ppid 1
want_rc 125; want_out ""
want_err_has "mockrun: --trace: 'SYS_bogus' is not a system call the syscall tier knows"; done_t

t "a system call of another architecture only: a positioned error where it does not exist"
if [ "$(uname -m)" = aarch64 ]; then
	run "$M" -e 'will_fail(SYS_open, EIO)' "$P" ppid 1
	want_rc 125; want_out ""
	want_err_has "-e#1:1:11: error: SYS_open does not exist on aarch64: its kernel has the generic system call table, without it (libc calls SYS_openat)"
	want_err_has "^"
	run "$M" --trace=SYS_fork "$P" ppid 1
	want_rc 125; want_err_has "--trace: SYS_fork does not exist on aarch64"
else
	# x86-64 has them: the same statements are accepted
	run "$M" -e 'will_fail_count(SYS_open, EIO, -2)' --trace=SYS_fork "$P" ppid 1
	want_rc 0; want_err_has "all checks passed"
fi
run "$M" --list SYS_openat
want_out_has "the syscall tier ($(uname -m) system call "; done_t

t "--trace=SYS_openat: a static program's openat, its path read from the caller, continued"
run "$M" --trace=SYS_openat "$P" cat in.txt
want_rc 0; want_out_has "first line"
printf '%s\n' "$err" | grep -qE '^[0-9]+ sysprobe: SYS_openat\(AT_FDCWD, "in\.txt", O_RDONLY\) = \? \(continued\) at sysprobe\+0x[0-9a-f]+( \([^)]*\))?$' ||
	problem "no openat line with its path and site: [$err]"
# the site: the instruction after the system call's, as objdump shows it
site=$(printf '%s\n' "$err" | sed -nE 's/.*SYS_openat\(AT_FDCWD, "in\.txt".* at sysprobe\+(0x[0-9a-f]+)$/\1/p' | head -1)
if [ -n "$site" ] && command -v objdump >/dev/null; then
	# syscall is 2 bytes, svc 4
	len=2; [ "$(uname -m)" = aarch64 ] && len=4
	before=$(objdump -d --no-show-raw-insn "$P" --start-address=$((site - len)) --stop-address=$((site)) |
		grep -E '^ *[0-9a-f]+:' | tail -1)
	case $before in
	*syscall* | *svc*) ;;
	*) problem "the instruction before sysprobe+$site is not a system call: [$before]" ;;
	esac
fi
want_err_lacks "SYS_read("; done_t

t "--trace=SYS_: a call a statement answered shows the reply, and which statement"
run "$M" --trace=SYS_openat,SYS_read -e 'will_return(SYS_read, _, buf="mocked")' "$P" cat in.txt
want_rc 0; want_out "6:mocked"
printf '%s\n' "$err" | nosite | grep -qE '^[0-9]+ sysprobe: SYS_read\(3, 0x[0-9a-f]+, 64\) = 6 \(mocked: -e#1:1\)$' ||
	problem "no mocked read line: [$err]"
run "$M" --trace=SYS_openat -e 'will_fail(SYS_openat, EACCES, when(pathname ~ "*in.txt"))' "$P" cat in.txt
want_rc 1
want_err_has 'sysprobe: SYS_openat(AT_FDCWD, "in.txt", O_RDONLY) = -1 EACCES (mocked: -e#1:1)'
run "$M" --trace=SYS_read -e 'will_return(SYS_read, -5)' "$P" cat in.txt
want_rc 1; want_out "read: Input/output error"
want_err_has ", 64) = -1 EIO (mocked: -e#1:1)"
# getppid never fails: glibc passes -5 on, and so does the line (strace too)
run "$M" --trace=SYS_getppid -e 'will_return(SYS_getppid, -5)' "$P" ppid 1
want_rc 0; want_out "-5"; want_err_has "sysprobe: SYS_getppid() = -5 (mocked: -e#1:1)"
run "$M" --trace=SYS_getppid --trace-format chrome --trace-file tr.json \
	-e 'will_return(SYS_getppid, 5)' "$P" ppid 2
want_rc 0
grep -q '"name":"SYS_getppid","cat":"mocked".*"result":"5","mocked_by":"-e#1:1"' tr.json ||
	problem "no mocked SYS_getppid slice: [$(cat tr.json)]"
grep -q '"name":"SYS_getppid","cat":"real".*"result":"? (continued)"' tr.json ||
	problem "no continued SYS_getppid slice: [$(cat tr.json)]"; done_t

if [ -n "$DYN" ]; then
t "--trace=read,SYS_read: both tiers in one trace file; the system call's line comes first"
run "$M" --trace=read,SYS_read --trace-file tr.txt cat in.txt
want_rc 0; want_out "$(cat in.txt)"
nosite -i tr.txt
# cat's read of the file, then the system call it made, on the line before
lib=$(grep -E '^[0-9]+ cat: read\([0-9]+, 0x[0-9a-f]+, [0-9]+\) = 23$' tr.txt)
call=${lib#* cat: read}; call=${call% = 23}
[ -n "$lib" ] || problem "no read line: [$(cat tr.txt)]"
grep -B1 -xF "$lib" tr.txt | head -1 | grep -qxF "${lib%% *} cat: SYS_read$call = ? (continued)" ||
	problem "the SYS_read$call line is not just before [$lib]: [$(cat tr.txt)]"; done_t
else
	skip_t "--trace=read,SYS_read" "the sanitizer shim cannot load in uninstrumented dynamic programs"
fi

t "setuid under the filter: without CAP_SYS_ADMIN it runs without its privilege, and says so"
if [ "$(id -u)" -ne 0 ] || ! command -v setpriv >/dev/null; then
	skip_t "$tname" "needs root (to make a setuid copy) and setpriv (util-linux)"
else
	mkdir -p suid && cp "$P" suid/sysprobe && chmod 4755 suid/sysprobe
	cp "$P" suid/nobody && chown 65534 suid/nobody && chmod 4755 suid/nobody
	chmod 755 "$T" suid
	nobody="setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all"
	run $nobody suid/sysprobe euid
	want_rc 0; want_out 0
	run $nobody "$M" -e 'will_return_maybe(SYS_getppid, 1)' suid/sysprobe euid
	want_rc 0; want_out 65534
	want_err_has "is setuid: the loader ignores LD_PRELOAD for it, and under the syscall filter (no_new_privs) it runs without its privilege"
	run "$M" -e 'will_return_maybe(SYS_getppid, 1)' suid/nobody euid
	want_rc 0; want_out 65534
	want_err_has "it keeps its privilege (mockrun has CAP_SYS_ADMIN"
	done_t
fi

t "--check names the way in: static and Go programs, libc's own writes behind stdio"
run "$M" --check -e 'will_fail(read, EIO)' busybox head -n1 in.txt
want_err_has "check: read() is not imported (static binary); SYS_read reaches it"
if [ -x readfile ]; then
	run "$M" --check -e 'will_fail(openat, ENOENT)' ./readfile in.txt
	want_err_has "check: openat() is not imported (static binary); SYS_openat reaches it"
fi
run "$M" --check -e 'will_fail(write, ENOSPC)' "$P" ppid 1
want_err_has "check: write() is not imported (static binary); SYS_write reaches it"
if [ -n "$DYN" ]; then
	run "$M" --check -e 'will_fail_count(write, ENOSPC, -2, when(fd == 9))' cat in.txt
	want_err_has "check: write() is imported by /usr/bin/cat"
	want_err_has "use SYS_write with when(fd ...) for them"
	run "$M" --check -e 'will_fail_count(write, ENOSPC, -2)' tee out2.txt </dev/null
	want_err_has "libc's own calls reach the kernel as SYS_write, which a preload does not see: SYS_write statements reach them"
fi
run "$M" -e 'will_fail(SYS_read, EIO)' busybox head -n1 in.txt
want_err_has "note: /usr/bin/busybox is statically linked: LD_PRELOAD cannot reach it, the SYS_ statements do"
want_err_has "(syscall tier)"; done_t

t "-q: a static program the SYS_ statements reach is a note, not a warning, and -q leaves it out"
# issue 47: -q printed "warning: `busybox` ... is static" for every exec
run "$M" -q -e 'will_fail(SYS_read, EIO, in="busybox")' busybox head -n1 in.txt
want_rc 1; want_err_has "head: in.txt: Input/output error"
want_err_lacks "statically linked"; want_err_lacks "is static"
if [ -n "$DYN" ]; then
	run "$M" -q -e 'will_fail(SYS_read, EIO, in="busybox")' sh -c 'busybox head -n1 in.txt; busybox head -n1 in.txt'
	want_rc 0; want_out "first line"
	want_err_lacks "is static"; want_err_lacks "warning"
	run "$M" -e 'will_fail(SYS_read, EIO, in="busybox")' sh -c 'busybox head -n1 in.txt; busybox head -n1 in.txt'
	want_err_has "note: \`$BB\` (exec'd by dash["
	want_err_has "is static: LD_PRELOAD cannot reach it, only the SYS_ statements act in it"
	want_err_lacks "warning"
fi
done_t

t "--list: the SYS_ names, and SYS_clock_gettime says the vDSO answers it"
run "$M" --list
want_out_has "syscall (SYS_ statements"; want_out_has " SYS_getdents64 "
run "$M" --list SYS_clock_gettime
want_out_has "the vDSO answers most calls of it without entering the kernel"
run "$M" --list SYS_write
want_out_has "long SYS_write(int fd, const void *buf, size_t count)"
want_out_has "returns -errno, the kernel's way (default EIO)"; done_t

finish
