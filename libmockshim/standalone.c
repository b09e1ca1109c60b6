/* SPDX-License-Identifier: MIT */
/*
 * Standalone mode: LD_PRELOAD=libmockshim.so MOCKSHIM='statements' ./prog
 * (or MOCKSHIM_FILE=spec).  The shim parses the statements itself into a
 * memfd channel, which forked children share by memory and exec'd ones
 * by inheriting its descriptor (MOCKSHIM_CHANNEL=/proc/self/fd/N); the
 * process that made it reports at exit, and turns an exit status of 0
 * into 123 when a check failed.
 *
 * Set-up runs once, in the constructor or the first intercepted call, and
 * the report at exit: both hold the re-entry guard, so the libc calls
 * made here (snprintf, setenv, on_exit, stdio) go to the real functions.
 * Memory for the parser comes from mmap, never from the program's malloc.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "channel/channel.h"
#include "report/report.h"
#include "shim.h"
#include "lang/lang.h"

#define STANDALONE_EVENTS 4096
#define FD_FLOOR 500	/* the channel's descriptor stays out of the program's way */

struct sa_block {
	size_t size;
	size_t pad;
};

static void *sa_realloc(void *p, size_t n)
{
	struct sa_block *old = p ? (struct sa_block *)p - 1 : NULL, *b;

	b = (void *)syscall(SYS_mmap, NULL, n + sizeof(*b), PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, (off_t)0);
	if (b == MAP_FAILED)
		return NULL;
	b->size = n;
	if (old) {
		memcpy(b + 1, old + 1, old->size < n ? old->size : n);
		syscall(SYS_munmap, old, old->size + sizeof(*old));
	}
	return b + 1;
}

static void sa_free(void *p)
{
	struct sa_block *b = p ? (struct sa_block *)p - 1 : NULL;

	if (b)
		syscall(SYS_munmap, b, b->size + sizeof(*b));
}

static void die(const char *msg, size_t n)
{
	syscall(SYS_write, 2, msg, n);
	syscall(SYS_exit_group, 125);
}

static void parse_or_die(struct ms_spec *spec, const char *src, const char *text, size_t len)
{
	struct ms_diag d;
	char buf[1024];
	int r = ms_parse(spec, src, text, len, &d);

	if (r == -EINVAL)
		die(buf, ms_format_diag(buf, sizeof(buf), src, text, len, &d));
	if (r < 0) {
		int n = snprintf(buf, sizeof(buf), "mockshim: %s: out of memory\n", src);

		die(buf, n > 0 ? (size_t)n : 0);
	}
}

/* Reads a whole file with raw syscalls into sa_realloc() memory. */
static char *read_file(const char *path, size_t *len)
{
	long fd = syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
	size_t cap = 4096, n = 0;
	char *buf;

	if (fd < 0)
		return NULL;
	buf = sa_realloc(NULL, cap);
	while (buf) {
		long k = syscall(SYS_read, fd, buf + n, cap - n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			sa_free(buf);
			buf = NULL;
			break;
		}
		if (k == 0)
			break;
		n += (size_t)k;
		if (n == cap)
			buf = sa_realloc(buf, cap *= 2);
	}
	syscall(SYS_close, fd);
	*len = n;
	return buf;
}

/* A descriptor moved to FD_FLOOR or above, not close-on-exec: programs
 * this one execs attach by it.  "FD:INODE" into fdv. */
static long inheritable(long fd, char *fdv, size_t cap)
{
	long high = syscall(SYS_fcntl, fd, (long)F_DUPFD, (long)FD_FLOOR);
	struct stat sb;

	if (high >= 0) {
		syscall(SYS_close, fd);
		fd = high;
	} else {
		syscall(SYS_fcntl, fd, (long)F_SETFD, 0L);
	}
	if (syscall(SYS_fstat, fd, &sb) == 0)
		snprintf(fdv, cap, "%ld:%llu", fd, (unsigned long long)sb.st_ino);
	else
		fdv[0] = '\0';
	return fd;
}

/* The state's token, in the process that made the channel (it reports
 * unless it exec'd another program, which reads the state's own). */
static uint64_t made_token;

const char *ms_standalone_channel(char *path, unsigned long cap)
{
	const char *stmts = ms_env("MOCKSHIM"), *file = ms_env("MOCKSHIM_FILE");
	struct ms_spec spec;
	struct ms_chan_pair pair;
	uint64_t token = 0;
	const char *ret = NULL;
	char fdv[2][48], both[100];
	long sfd, tfd;

	if ((!stmts || !*stmts) && (!file || !*file))
		return NULL;
	ms_guard_enter();
	ms_spec_init(&spec, sa_realloc, sa_free);
	if (file && *file) {
		size_t len = 0;
		char *text = read_file(file, &len);

		if (!text) {
			char buf[512];
			int n = snprintf(buf, sizeof(buf), "mockshim: MOCKSHIM_FILE=%s: cannot read: %s\n",
					 file, strerror(errno));

			die(buf, n > 0 ? (size_t)n : 0);
		}
		parse_or_die(&spec, file, text, len);
		sa_free(text);
	}
	if (stmts && *stmts)
		parse_or_die(&spec, "MOCKSHIM", stmts, strlen(stmts));
	syscall(SYS_getrandom, &token, sizeof(token), 0L);
	made_token = token;
	{
		const char *sv = ms_env("MOCKSHIM_SEED");

		if (sv && *sv) {
			spec.seed = strtoull(sv, NULL, 0);
		} else {
			syscall(SYS_getrandom, &spec.seed, sizeof(spec.seed), 0L);
			spec.seed %= 1000000000ull;
		}
	}
	if (ms_channel_create(&spec, STANDALONE_EVENTS, MS_CHAN_STANDALONE, token, &pair) != 0)
		goto out;
	pair.state->owner_pid = (int32_t)syscall(SYS_getpid);
	ms_channel_unmap(&pair);
	sfd = inheritable(pair.spec_fd, fdv[0], sizeof(fdv[0]));
	tfd = inheritable(pair.state_fd, fdv[1], sizeof(fdv[1]));
	snprintf(path, cap, "/proc/self/fd/%ld,/proc/self/fd/%ld", sfd, tfd);
	setenv(MS_CHAN_ENV, path, 1);
	if (fdv[0][0] && fdv[1][0]) {
		snprintf(both, sizeof(both), "%s,%s", fdv[0], fdv[1]);
		setenv(MS_CHAN_FD_ENV, both, 1);
	} else {
		unsetenv(MS_CHAN_FD_ENV);
	}
	ret = path;
out:
	if (!ret)
		ms_diag("warning: standalone mode: cannot create the channel; the program runs unmocked",
			NULL);
	ms_spec_fini(&spec);
	ms_guard_leave();
	return ret;
}

/* fd 2 as it was at start-up: coreutils' close_stdout() closes stderr in
 * an atexit handler that runs before ours. */
static int report_fd = -1;
/* this process owns the standalone channel (it reports); it did */
static int owner, reported;

static void report_at_exit(int status, void *arg)
{
	const struct ms_chan_hdr *h = ms_channel();
	struct ms_state_hdr *live = ms_state();
	const char *dest = ms_env("MOCKSHIM_REPORT");
	struct ms_report_in in;
	FILE *out = NULL;
	unsigned failures;

	(void)arg;
	/* forked children inherit this handler: only the owner reports,
	 * once (an exit handler may call _exit after ours ran) */
	if (!h || !live || live->owner_pid != (int32_t)syscall(SYS_getpid) ||
	    __atomic_exchange_n(&reported, 1, __ATOMIC_RELAXED))
		return;
	ms_guard_enter();
	memset(&in, 0, sizeof(in));
	in.spec = h;
	in.program = ms_exe_name();
	in.result.exited = 1;
	in.result.exit_status = status;
	in.verbosity = MOCKSHIM_NORMAL;
	/* a copy: children that outlive us may still write the state */
	if (ms_report_take_state(&in, live, h->state_size, made_token ? made_token : live->token) != 0) {
		ms_guard_leave();
		return;
	}
	in.result.processes = ms_report_state(&in)->attached;
	if (dest && *dest) {
		out = fopen(dest, "we");
		if (!out)
			ms_diag("warning: MOCKSHIM_REPORT=", dest, ": cannot write; reporting on stderr",
				NULL);
	}
	if (!out && report_fd >= 0) {
		out = fdopen(report_fd, "w");
		report_fd = -1;
	}
	if (out) {
		ms_report_write(&in, out, MOCKSHIM_REPORT_TEXT);
		fclose(out);
	}
	failures = ms_report_failures(&in);
	if (in.tampered) {
		fflush(NULL);
		syscall(SYS_exit_group, 125);
	}
	if (failures && status == 0) {
		fflush(NULL);
		syscall(SYS_exit_group, 123);
	}
	ms_report_release(&in);
	ms_guard_leave();
}

void ms_standalone_owner(void)
{
	ms_guard_enter();
	report_fd = (int)syscall(SYS_fcntl, 2, F_DUPFD_CLOEXEC, (long)FD_FLOOR);
	on_exit(report_at_exit, NULL);
	__atomic_store_n(&owner, 1, __ATOMIC_RELEASE);
	ms_guard_leave();
}

/*
 * A program that ends with _exit() runs no exit handler: dash does, so
 * MOCKSHIM='...' sh -c 'a; b' printed no report and kept status 0 after a
 * failed check.  The shim's _exit reports first in the owner (in any
 * other process, a vfork child included, owner's pid does not match) and
 * then ends the process as glibc's does.  Not a catalog function: it
 * cannot be mocked, only seen.
 */
MS_EXPORT __attribute__((noreturn)) void _exit(int status)
{
	if (__atomic_load_n(&owner, __ATOMIC_ACQUIRE))
		report_at_exit(status, NULL);
	for (;;)
		syscall(SYS_exit_group, (long)status);
}

MS_EXPORT __attribute__((noreturn, alias("_exit"))) void _Exit(int status);
