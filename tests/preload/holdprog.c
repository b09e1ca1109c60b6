/* SPDX-License-Identifier: MIT */
/*
 * Programs for the hold and kill point tests (hold.sh, holdrace.sh),
 * knowing nothing of mockshim:
 *   holdprog server DIR   appends a record to DIR/log, fsyncs it, then
 *                         commits: writes DIR/commit
 *   holdprog client DIR   what a client sees of the server's log now:
 *                         "record=yes|no commit=yes|no"
 *   holdprog wal DIR      a writer: DIR/data.db gets "A" (fsync'd), then
 *                         DIR/wal gets "rec1" (fsync), then "rec2" (fsync)
 *   holdprog sigheld FILE a SIGUSR1 handler that creates FILE; then one
 *                         fsync of stdout's file; prints what it returned
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char *mark;

static int put(const char *dir, const char *name, const char *text, int flags, int sync)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | flags, 0644);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
		perror(path);
		return -1;
	}
	if (sync && fsync(fd) != 0) {
		fprintf(stderr, "fsync %s: %s\n", path, strerror(errno));
		close(fd);
		return -1;
	}
	return close(fd);
}

static int exists(const char *dir, const char *name)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return access(path, F_OK) == 0;
}

static void on_usr1(int sig)
{
	int fd = open(mark, O_WRONLY | O_CREAT, 0644);

	(void)sig;
	if (fd >= 0)
		close(fd);
}

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	if (strcmp(argv[1], "server") == 0) {
		if (put(argv[2], "log", "record\n", O_APPEND, 1) < 0)
			return 1;
		return put(argv[2], "commit", "ok\n", O_TRUNC, 0) < 0;
	}
	if (strcmp(argv[1], "client") == 0) {
		printf("record=%s commit=%s\n", exists(argv[2], "log") ? "yes" : "no",
		       exists(argv[2], "commit") ? "yes" : "no");
		return 0;
	}
	if (strcmp(argv[1], "wal") == 0) {
		if (put(argv[2], "data.db", "A", O_TRUNC, 1) < 0 ||
		    put(argv[2], "wal", "rec1", O_APPEND, 1) < 0 ||
		    put(argv[2], "wal", "rec2", O_APPEND, 1) < 0)
			return 1;
		return 0;
	}
	if (strcmp(argv[1], "sigheld") == 0) {
		struct sigaction sa;
		int r;

		memset(&sa, 0, sizeof(sa));
		mark = argv[2];
		sa.sa_handler = on_usr1;
		sigaction(SIGUSR1, &sa, NULL);
		r = fsync(1);
		printf("fsync=%d\n", r);
		return 0;
	}
	return 2;
}
