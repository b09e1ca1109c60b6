/* SPDX-License-Identifier: MIT */
/*
 * A program with known error sites, for mockrun explore's tests
 * (explore.sh): `planted CONF OUT` reads CONF and writes a line to OUT.
 * Four sites are bugs, the others handle their errors.  Each site is on
 * a line of its own, marked SITE(name), which the test finds by
 * addr2line: keep one call per marked line.  Built with -DFIXED, the
 * same program handles every error (the finding files must pass on it).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* the fopen failure is reported properly: handled */
static int read_config(const char *path, char *line, size_t size)
{
	FILE *f = fopen(path, "r"); /* SITE(fopen-handled) */

	if (!f) {
		perror(path);
		return -1;
	}
	if (!fgets(line, (int)size, f))
		line[0] = '\0';
	fclose(f);
	line[strcspn(line, "\n")] = '\0';
	return 0;
}

int main(int argc, char **argv)
{
	char conf[64], *greeting, *owner, *label;
	ssize_t n;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: planted CONF OUT\n");
		return 2;
	}
	if (read_config(argv[1], conf, sizeof(conf)))
		return 1;
	/* the unchecked malloc: a failure crashes */
	greeting = malloc(64); /* SITE(malloc-crash) */
#ifdef FIXED
	if (!greeting)
		return 1;
#endif
	memcpy(greeting, "hello, ", 8);
	owner = malloc(16); /* SITE(malloc-handled) */
	if (!owner) {
		perror("malloc");
		return 1;
	}
	strcpy(owner, conf);
	/* the strdup whose failure frees owner twice */
	label = strdup(greeting); /* SITE(strdup-doublefree) */
	if (!label) {
#ifndef FIXED
		free(owner);
#endif
		goto fail;
	}
	/* label is only freed: a compiler may drop an allocation that is
	 * only freed (clang does, with its strdup); it stays */
	__asm__ volatile("" : : "r"(label) : "memory");
	fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644); /* SITE(open-handled) */
	if (fd < 0) {
		perror(argv[2]);
		free(label);
		goto fail;
	}
	strcat(greeting, owner);
	strcat(greeting, "\n");
	/* the write whose error is ignored: OUT is short, the exit 0 */
	n = write(fd, greeting, strlen(greeting)); /* SITE(write-silent) */
#ifdef FIXED
	if (n != (ssize_t)strlen(greeting))
		return 1;
#endif
	(void)n;
	/* a failed fsync waits for a signal that never comes */
	if (fsync(fd) != 0) /* SITE(fsync-hang) */
#ifdef FIXED
		return 1;
#else
		for (;;)
			pause();
#endif
	/* a failed close changes nothing: the data is on disk */
	close(fd); /* SITE(close-handled) */
	free(label);
	free(owner);
	free(greeting);
	return 0;
fail:
	free(owner);
	free(greeting);
	return 1;
}
