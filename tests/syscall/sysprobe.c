/* SPDX-License-Identifier: MIT */
/*
 * A program the syscall tier's tests build static (gcc -static): no
 * preload reaches it, only SYS_ statements do.
 *	sysprobe ppid N		getppid N times, one value a line
 *	sysprobe cat FILE	open, read (64 bytes at most), write to stdout
 *	sysprobe stat FILE	the size stat gives
 *	sysprobe uname		the node name
 *	sysprobe euid		the effective uid (a setuid copy shows its owner's)
 *	sysprobe seccomp	installs a filter of its own (getuid fails with
 *				EPERM), then prints getppid() and getuid()
 *	sysprobe x32ppid	(x86-64) getppid by x32's number (x86-64's with
 *				bit 30): its result, or -errno (-ENOSYS
 *				where the kernel has no x32)
 */
#include <errno.h>
#include <sys/syscall.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "../seccomp_errno.h"

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "ppid") == 0) {
		for (int i = atoi(argv[2]); i > 0; i--)
			printf("%ld\n", (long)getppid());
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "cat") == 0) {
		char buf[64];
		int fd = open(argv[2], O_RDONLY);
		ssize_t n;

		if (fd < 0) {
			printf("open: %s\n", strerror(errno));
			return 1;
		}
		n = read(fd, buf, sizeof(buf));
		if (n < 0) {
			printf("read: %s\n", strerror(errno));
			return 1;
		}
		printf("%zd:%.*s\n", n, (int)n, buf);
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "stat") == 0) {
		struct stat st;

		if (stat(argv[2], &st) != 0) {
			printf("stat: %s\n", strerror(errno));
			return 1;
		}
		printf("size %lld\n", (long long)st.st_size);
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "uname") == 0) {
		struct utsname u;

		if (uname(&u) != 0)
			return 1;
		printf("%s\n", u.nodename);
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "euid") == 0) {
		printf("%ld\n", (long)geteuid());
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "seccomp") == 0) {
		long uid;

		if (seccomp_errno(SYS_getuid, EPERM) != 0) {
			printf("seccomp: %s\n", strerror(errno));
			return 1;
		}
		printf("%ld\n", (long)getppid());
		uid = syscall(SYS_getuid);
		printf("getuid: %s\n", uid < 0 ? strerror(errno) : "allowed");
		return 0;
	}
#if defined(__x86_64__)
	if (argc == 2 && strcmp(argv[1], "x32ppid") == 0) {
		long r = syscall(0x40000000L | SYS_getppid);

		printf("%ld\n", r < 0 ? -(long)errno : r);
		return 0;
	}
#endif
	fprintf(stderr, "usage: sysprobe ppid N | cat FILE | stat FILE | uname | euid | seccomp | "
			"x32ppid\n");
	return 2;
}
