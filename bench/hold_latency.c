/* SPDX-License-Identifier: MIT */
/*
 * How soon mockrun ctl --wait-held returns once a thread is held
 * (DESIGN.md 7.4; bench/README.md, "Hold points").
 *
 *   hold_latency MOCKRUN [ROUNDS]
 *
 * Each round runs `MOCKRUN --control SOCK -e 'will_hold(fsync,
 * name="lat")' -- hold_latency target`, whose target sleeps 100 ms (so
 * that ctl is already waiting), prints CLOCK_MONOTONIC and calls fsync,
 * where it is held; `MOCKRUN ctl SOCK --wait-held lat` runs meanwhile.
 * The latency is from the target's clock reading to the moment this
 * program sees ctl exit (waitpid), so it includes ctl's exit.  The
 * baseline, in the same run: `MOCKRUN ctl --help` from spawn to exit, the
 * least any ctl command costs.  Prints the median, min and max of each.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static int64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static pid_t spawn(char **argv, int out)
{
	posix_spawn_file_actions_t fa;
	pid_t pid;

	posix_spawn_file_actions_init(&fa);
	if (out >= 0)
		posix_spawn_file_actions_adddup2(&fa, out, 1);
	else
		posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	if (posix_spawn(&pid, argv[0], &fa, NULL, argv, environ) != 0) {
		perror(argv[0]);
		exit(1);
	}
	posix_spawn_file_actions_destroy(&fa);
	return pid;
}

static int wait_for(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		;
	return st;
}

static void show(const char *what, int64_t *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp);
	printf("%-44s median %7.2f ms  min %7.2f ms  max %7.2f ms  (%d rounds)\n", what,
	       (double)v[n / 2] / 1e6, (double)v[0] / 1e6, (double)v[n - 1] / 1e6, n);
}

int main(int argc, char **argv)
{
	char self[4096], sock[256], dir[] = "/tmp/mockshim-holdlat.XXXXXX";
	int64_t lat[200], base[200];
	int rounds = argc > 2 ? atoi(argv[2]) : 20;

	if (argc == 2 && strcmp(argv[1], "target") == 0) {
		struct timespec pause = { 0, 100000000 };

		nanosleep(&pause, NULL);
		printf("%lld\n", (long long)now_ns());
		fflush(stdout);
		return fsync(1) != 0;
	}
	if (argc < 2 || rounds < 1 || rounds > 200) {
		fprintf(stderr, "usage: hold_latency MOCKRUN [ROUNDS (1..200)]\n");
		return 2;
	}
	if (readlink("/proc/self/exe", self, sizeof(self) - 1) < 0 || !mkdtemp(dir))
		return 1;
	self[sizeof(self) - 1] = '\0';
	snprintf(sock, sizeof(sock), "%s/ctl.sock", dir);
	for (int i = 0; i < rounds; i++) {
		char *run[] = { argv[1], "--control", sock, "-q", "-e", "will_hold(fsync, name=\"lat\")",
				"--", self, "target", NULL };
		char *wait[] = { argv[1], "ctl", sock, "--wait-held", "lat", "--timeout", "30", NULL };
		char *release[] = { argv[1], "ctl", sock, "--release", "lat", NULL };
		char *help[] = { argv[1], "ctl", "--help", NULL };
		char buf[64] = "";
		int p[2];
		pid_t r, c;
		int64_t t0, t1;
		ssize_t k;

		if (pipe(p) != 0)
			return 1;
		r = spawn(run, p[1]);
		close(p[1]);
		c = spawn(wait, -1);
		wait_for(c);
		t1 = now_ns();
		k = read(p[0], buf, sizeof(buf) - 1);
		close(p[0]);
		buf[k > 0 ? k : 0] = '\0';
		t0 = strtoll(buf, NULL, 10);
		wait_for(spawn(release, -1));
		wait_for(r);
		if (!t0) {
			fprintf(stderr, "round %d: the target printed no time\n", i);
			return 1;
		}
		lat[i] = t1 - t0;
		t0 = now_ns();
		wait_for(spawn(help, -1));
		base[i] = now_ns() - t0;
	}
	rmdir(dir);
	show("--wait-held: hold to ctl's exit", lat, rounds);
	show("baseline: mockrun ctl --help, spawn to exit", base, rounds);
	return 0;
}
