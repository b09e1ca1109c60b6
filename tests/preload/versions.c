/* SPDX-License-Identifier: MIT */
/*
 * Calls realpath, posix_spawn and clock_gettime, bound to their old
 * glibc versions when built with -DOLD_VERSIONS (.symver), else to the
 * default ones, and prints what each returned.  The old versions behave
 * otherwise: realpath@GLIBC_2.2.5 refuses a NULL buffer (EINVAL),
 * posix_spawn@GLIBC_2.2.5 runs a file with no #! line through /bin/sh
 * where @@GLIBC_2.15 fails with ENOEXEC; sched_getaffinity@GLIBC_2.3.3
 * takes two arguments where @@GLIBC_2.3.4 takes three.  argv[1]: such a file.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#ifdef OLD_VERSIONS
/* sched_getaffinity@GLIBC_2.3.3 takes (pid, mask), the size implied */
__asm__(".symver sched_getaffinity,sched_getaffinity@GLIBC_2.3.3");
__asm__(".symver realpath,realpath@GLIBC_2.2.5");
__asm__(".symver posix_spawn,posix_spawn@GLIBC_2.2.5");
__asm__(".symver clock_gettime,clock_gettime@GLIBC_2.2.5");
#endif

int main(int argc, char **argv_)
{
	char *argv[] = { argc > 1 ? argv_[1] : "/nonexistent", NULL };
	struct timespec ts = { 0, 0 };
	char *r;
	pid_t pid = 0;
	int e, st;

	errno = 0;
	r = realpath(".", NULL);
	printf("realpath %s\n", r ? "allocated" : strerrorname_np(errno));
	free(r);
	e = posix_spawn(&pid, argv[0], NULL, NULL, argv, NULL);
	if (e == 0 && pid > 0 && waitpid(pid, &st, 0) == pid)
		printf("posix_spawn 0, exit %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	else
		printf("posix_spawn %s\n", e ? strerrorname_np(e) : "0");
	clock_gettime(CLOCK_REALTIME, &ts);
	printf("clock_gettime %s\n", ts.tv_sec == 1700000000 ? "mocked" : "real");
	{
		cpu_set_t set;

		CPU_ZERO(&set);
		errno = 0;
#ifdef OLD_VERSIONS
		int (*dflt)(pid_t, size_t, cpu_set_t *) = sched_getaffinity;
		int (*old)(pid_t, cpu_set_t *);

		memcpy(&old, &dflt, sizeof(old));
		e = old(0, &set);
#else
		e = sched_getaffinity(0, sizeof(set), &set);
#endif
		printf("sched_getaffinity %s\n", e == 0 && CPU_COUNT(&set) > 0 ? "ok" : strerrorname_np(errno));
	}
	return 0;
}
