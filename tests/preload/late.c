/* SPDX-License-Identifier: MIT */
/* A library that the probe dlopens after start; it reads through its PLT. */
#include <fcntl.h>
#include <unistd.h>

long read_first(const char *path, char *buf, long n);

long read_first(const char *path, char *buf, long n)
{
	int fd = open(path, O_RDONLY);
	long r;

	if (fd < 0)
		return -1;
	r = read(fd, buf, (size_t)n);
	close(fd);
	return r;
}
