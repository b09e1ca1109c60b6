/* SPDX-License-Identifier: MIT */
/*
 * power_loss()'s cost (bench/power.sh): MIB MiB written to DIR/file in
 * 4 KiB writes with an fsync every EVERY writes, twice: a new file
 * (every write extends it: no old bytes to keep), then the same file
 * overwritten in place (every write's old bytes are kept).  Prints, for
 * each pass, ns per write and ns per fsync; then calls getppid(), the
 * power_loss() cut point when armed.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static uint64_t now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void pass(int fd, const char *name, long n, long every)
{
	static char buf[4096];
	uint64_t tw = 0, ts = 0, t;
	long syncs = 0;

	memset(buf, name[0], sizeof(buf));
	for (long i = 0; i < n; i++) {
		t = now();
		if (pwrite(fd, buf, sizeof(buf), (off_t)i * 4096) != (ssize_t)sizeof(buf)) {
			perror("pwrite");
			exit(1);
		}
		tw += now() - t;
		if ((i + 1) % every == 0) {
			t = now();
			fsync(fd);
			ts += now() - t;
			syncs++;
		}
	}
	printf("%s write_ns %.0f fsync_ns %.0f\n", name, (double)tw / (double)n,
	       syncs ? (double)ts / (double)syncs : 0.0);
}

int main(int argc, char **argv)
{
	char path[4096];
	long mib = argc > 2 ? atol(argv[2]) : 16, every = argc > 3 ? atol(argv[3]) : 256;
	int fd;

	if (argc < 2 || mib <= 0 || every <= 0) {
		fprintf(stderr, "usage: power DIR [MIB [EVERY]]\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/file", argv[1]);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		perror(path);
		return 1;
	}
	pass(fd, "new", mib * 256, every);
	pass(fd, "overwrite", mib * 256, every);
	fflush(stdout);
	getppid();
	close(fd);
	return 0;
}
