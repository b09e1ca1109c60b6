/* SPDX-License-Identifier: MIT */
/*
 * For the test probes: a seccomp filter of the program's own that fails
 * one system call with an errno and allows every other (no_new_privs
 * first, as an unprivileged program must).  0, or -1 with errno.
 */
#ifndef MS_TEST_SECCOMP_ERRNO_H
#define MS_TEST_SECCOMP_ERRNO_H

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static int seccomp_errno(long nr, int err)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (unsigned)err),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };

	if (syscall(SYS_prctl, PR_SET_NO_NEW_PRIVS, 1L, 0L, 0L, 0L) != 0 ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0L, &prog) != 0)
		return -1;
	return 0;
}

#endif
