/* SPDX-License-Identifier: MIT */
/*
 * mockrun -t's default -j, composed with the runner above it: the number
 * of CPUs when mockrun is the top-level runner; one job when meson test
 * (MESON_TESTTHREADS) or ctest (CTEST_PARALLEL_LEVEL) already runs tests
 * in parallel, so that `meson test`/`ctest -j` do not run N x nproc
 * programs; under make's jobserver (MAKEFLAGS --jobserver-auth=R,W or
 * fifo:PATH), one job plus the tokens it can take now without waiting,
 * given back at exit.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jobs.h"

static int js_rfd = -1, js_wfd = -1, js_held;

static void give_back(void)
{
	char t = '+';

	while (js_held > 0 && js_wfd >= 0 && write(js_wfd, &t, 1) == 1)
		js_held--;
}

/* The jobserver's fds, or -1: "--jobserver-auth=R,W" or "=fifo:PATH"
 * (--jobserver-fds in make before 4.2). */
static int jobserver_open(const char *flags)
{
	const char *a = strstr(flags, "--jobserver-auth=");
	int r, w;

	if (!a && (a = strstr(flags, "--jobserver-fds=")))
		a += strlen("--jobserver-fds=");
	else if (a)
		a += strlen("--jobserver-auth=");
	else
		return -1;
	if (strncmp(a, "fifo:", 5) == 0) {
		char path[4096];
		size_t n = strcspn(a + 5, " ");

		if (n >= sizeof(path))
			return -1;
		memcpy(path, a + 5, n);
		path[n] = '\0';
		js_rfd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
		js_wfd = js_rfd;
		return js_rfd;
	}
	if (sscanf(a, "%d,%d", &r, &w) != 2 || fcntl(r, F_GETFD) < 0 || fcntl(w, F_GETFD) < 0)
		return -1; /* make did not pass them to us (no + on the recipe) */
	/* a private non-blocking reader: the pipe is shared with make */
	{
		char p[64];

		snprintf(p, sizeof(p), "/proc/self/fd/%d", r);
		js_rfd = open(p, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	}
	js_wfd = w;
	return js_rfd;
}

int ms_default_jobs(void)
{
	const char *mf = getenv("MAKEFLAGS");
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int jobs = 1;

	if (cpus < 1)
		cpus = 1;
	if (mf && (strstr(mf, "--jobserver-auth=") || strstr(mf, "--jobserver-fds="))) {
		char t;

		if (jobserver_open(mf) < 0)
			return 1;
		while (jobs < cpus && read(js_rfd, &t, 1) == 1) {
			js_held++;
			jobs++;
		}
		if (js_held)
			atexit(give_back);
		return jobs;
	}
	if ((getenv("MESON_TESTTHREADS") && *getenv("MESON_TESTTHREADS")) ||
	    (getenv("CTEST_PARALLEL_LEVEL") && *getenv("CTEST_PARALLEL_LEVEL")))
		return 1;
	return (int)cpus;
}

/* FNV-1a over the file's base name and the test's name: the same shard
 * on every machine and whatever other tests are added. */
int ms_shard_of(const char *path, const char *name, int n)
{
	const char *base = strrchr(path, '/');
	uint64_t h = 1469598103934665603ull;

	for (const char *p = base ? base + 1 : path; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	h = (h ^ 0) * 1099511628211ull;
	for (const char *p = name; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	return (int)(h % (uint64_t)n);
}
