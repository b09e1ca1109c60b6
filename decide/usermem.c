/* SPDX-License-Identifier: MIT */
/*
 * The calling program's memory, read and written fault-safely
 * (usermem.h): the shim's own process (process_vm_readv on itself, else
 * through a pipe) or the process mockrun's supervisor answers
 * (process_vm_readv/writev).
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "usermem.h"

/* process_vm_readv is not there (ENOSYS under qemu-user) or refused */
static int no_vm_readv;

/*
 * A copy of n bytes within one page, through a pipe: the kernel checks
 * the address a write(2) reads, failing with EFAULT instead of a fault.
 * Where not even a pipe can be made, a plain copy, as libc would make.
 */
static long pipe_copy(void *dst, const void *src, size_t n)
{
	int p[2];
	long k;

	if (syscall(SYS_pipe2, p, O_CLOEXEC) != 0) {
		memcpy(dst, src, n);
		return (long)n;
	}
	k = syscall(SYS_write, p[1], src, n);
	if (k > 0)
		k = syscall(SYS_read, p[0], dst, (size_t)k);
	syscall(SYS_close, p[0]);
	syscall(SYS_close, p[1]);
	return k;
}

/*
 * Copies n bytes from the program's memory, stopping at the first page
 * that cannot be read: process_vm_readv on ourselves faults into an error,
 * never into a crash.  Returns the bytes copied.
 */
size_t ms_read_user(void *dst, const void *src, size_t n)
{
	long pid = caller_pid();

	if (ms_d.remote)
		ms_d.touched++; /* the supervisor's one thread: the shim never counts */
	size_t done = 0;
	int saved = errno;

	while (done < n) {
		uintptr_t addr = (uintptr_t)src + done;
		size_t chunk = 4096 - (addr & 4095);
		struct iovec l, r;
		long k;

		if (chunk > n - done)
			chunk = n - done;
		l.iov_base = (char *)dst + done;
		l.iov_len = chunk;
		r.iov_base = (void *)addr;
		r.iov_len = chunk;
		k = no_vm_readv ? -1 : syscall(SYS_process_vm_readv, pid, &l, 1UL, &r, 1UL, 0UL);
		if (k < 0 && (no_vm_readv || errno != EFAULT) && !ms_d.remote) {
			/* missing (qemu-user) or refused here (seccomp) */
			no_vm_readv = 1;
			k = pipe_copy(l.iov_base, r.iov_base, chunk);
		}
		if (k <= 0)
			break;
		done += (size_t)k;
		if ((size_t)k < chunk)
			break;
	}
	errno = saved;
	return done;
}

/* Writes into the calling program's memory: the shim's own, or the
 * supervised process's, stopped in its system call. */
int ms_write_user(void *dst, const void *src, size_t n)
{
	struct iovec l, r;
	int saved = errno;
	long k;

	if (!ms_d.remote) {
		memcpy(dst, src, n);
		return 0;
	}
	ms_d.touched++;
	l.iov_base = (void *)(uintptr_t)src;
	l.iov_len = n;
	r.iov_base = dst;
	r.iov_len = n;
	k = syscall(SYS_process_vm_writev, (long)ms_d.remote, &l, 1UL, &r, 1UL, 0UL);
	errno = saved;
	return k == (long)n ? 0 : -1;
}
