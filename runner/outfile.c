/* SPDX-License-Identifier: MIT */
/* Output files written whole or not at all (outfile.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"

/* A path that names an open descriptor: renaming beside it means nothing. */
static int names_fd(const char *p)
{
	return strncmp(p, "/dev/fd/", 8) == 0 || strncmp(p, "/proc/self/fd/", 14) == 0 ||
	       strcmp(p, "/dev/stdout") == 0 || strcmp(p, "/dev/stderr") == 0;
}

/*
 * The new file, unnamed (O_TMPFILE) in path's directory: a mockrun
 * killed before the end leaves nothing behind.  -1 where the file
 * system cannot (then a named one, ms_out_open).
 */
static int open_unnamed(const char *path, const char *slash)
{
	char dir[PATH_MAX];

	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if ((size_t)snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path),
				  path) >= sizeof(dir))
		return -1;
	/* the mode a new file would get: open applies the umask */
	return open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
}

/* An unnamed file's name in place of path: linked under a fresh name
 * beside it, then renamed over it.  0 or -errno. */
static int name_unnamed(struct ms_outfile *o, const char *path)
{
	const char *slash = strrchr(path, '/');
	static const char abc[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	char proc[64], *tmp = NULL;
	int e = EEXIST;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", o->fd);
	for (int tries = 0; tries < 100 && e == EEXIST; tries++) {
		unsigned char r[6];
		char sfx[7];

		if (getentropy(r, sizeof(r)) != 0)
			return -errno;
		for (int i = 0; i < 6; i++)
			sfx[i] = abc[r[i] % (sizeof(abc) - 1)];
		sfx[6] = '\0';
		free(tmp);
		if (asprintf(&tmp, "%.*s.%s.%s", slash ? (int)(slash - path + 1) : 0, path,
			     slash ? slash + 1 : path, sfx) < 0)
			return -ENOMEM;
		/* AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH; /proc does not */
		e = linkat(o->fd, "", AT_FDCWD, tmp, AT_EMPTY_PATH) == 0 ||
				    linkat(AT_FDCWD, proc, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW) == 0
			    ? 0 : errno;
	}
	if (!e && rename(tmp, path) != 0) {
		e = errno;
		unlink(tmp);
	}
	free(tmp);
	return -e;
}

int ms_out_open(struct ms_outfile *o, const char *opt, const char *path)
{
	struct stat st;
	const char *slash = strrchr(path, '/');
	mode_t um;

	int shared = o->shared;

	memset(o, 0, sizeof(*o));
	o->shared = shared;
	o->opt = opt;
	o->path = path;
	o->fd = -1;
	if (strcmp(path, "-") == 0) {
		o->fd = STDOUT_FILENO;
		return 0;
	}
	if (names_fd(path) || (stat(path, &st) == 0 && !S_ISREG(st.st_mode))) {
		o->fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY | O_TRUNC);
		if (o->fd < 0)
			return -errno;
		o->own = 1;
		return 0;
	}
	/* a symbolic link to a file: the file it names is replaced, the
	 * link stays */
	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode) && (o->real = realpath(path, NULL))) {
		path = o->real;
		slash = strrchr(path, '/');
	}
	if ((o->fd = open_unnamed(path, slash)) >= 0) {
		o->own = o->unnamed = 1;
		/* the others open it through this process's descriptor: a
		 * mockrun killed before the end leaves no file behind */
		if (o->shared && asprintf(&o->via, "/proc/%d/fd/%d", (int)getpid(), o->fd) < 0) {
			o->via = NULL;
			close(o->fd);
			o->fd = -1;
			o->own = o->unnamed = 0;
		} else {
			return 0;
		}
	}
	if (asprintf(&o->tmp, "%.*s.%s.XXXXXX", slash ? (int)(slash - path + 1) : 0, path,
		     slash ? slash + 1 : path) < 0) {
		o->tmp = NULL;
		return -ENOMEM;
	}
	o->fd = mkostemp(o->tmp, O_CLOEXEC);
	if (o->fd < 0) {
		int e = errno;

		free(o->tmp);
		o->tmp = NULL;
		free(o->real);
		o->real = NULL;
		return -e;
	}
	o->own = 1;
	/* mkostemp made it 0600: the mode a new file would get */
	um = umask(0);
	umask(um);
	if (fchmod(o->fd, 0666 & ~um) != 0) {
		/* not fatal: the file is still written */
	}
	return 0;
}

int ms_out_write(struct ms_outfile *o, const void *buf, size_t n)
{
	const char *p = buf;

	if (o->error)
		return -o->error;
	if (o->fd < 0)
		return -(o->error = EBADF);
	while (n > 0) {
		ssize_t k = write(o->fd, p, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -(o->error = k < 0 ? errno : EIO);
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

int ms_out_close(struct ms_outfile *o, int keep)
{
	int e = o->error;

	if (o->fd >= 0 && o->own) {
		/* a file system that reports a full disk only when the data
		 * goes out (NFS, some FUSE) does it at fsync or close */
		if ((o->tmp || o->unnamed) && keep && !e && fsync(o->fd) != 0 && errno != EINVAL)
			e = errno;
		if (o->unnamed && keep && !e)
			e = -name_unnamed(o, o->real ? o->real : o->path);
		if (close(o->fd) != 0 && !e && errno != EINTR)
			e = errno;
	}
	o->unnamed = 0;
	o->fd = -1;
	if (o->tmp) {
		if (keep && !e && rename(o->tmp, o->real ? o->real : o->path) != 0)
			e = errno;
		if (!keep || e)
			unlink(o->tmp);
		free(o->tmp);
		o->tmp = NULL;
	}
	free(o->real);
	o->real = NULL;
	free(o->via);
	o->via = NULL;
	o->error = e;
	return -e;
}

int ms_out_scratch(const char *path, char **name, int *named)
{
	const char *slash = strrchr(path, '/');
	int fd = open_unnamed(path, slash);

	*named = 0;
	if (fd >= 0) {
		if (asprintf(name, "/proc/%d/fd/%d", (int)getpid(), fd) >= 0)
			return fd;
		close(fd);
		return -ENOMEM;
	}
	if (asprintf(name, "%s.raw.XXXXXX", path) < 0)
		return -ENOMEM;
	fd = mkostemp(*name, O_CLOEXEC);
	if (fd < 0) {
		int e = errno;

		free(*name);
		*name = NULL;
		return -e;
	}
	*named = 1;
	return fd;
}

const char *ms_out_target(const struct ms_outfile *o)
{
	if (o->via)
		return o->via;
	if (o->tmp)
		return o->tmp;
	return strcmp(o->path, "-") == 0 ? "/dev/stdout" : o->path;
}

/* The directory's real path and the last component. */
static char *canonical(const char *p)
{
	char *d = strdup(p), *b = strdup(p), *rd = NULL, *r = NULL;

	if (d && b && (rd = realpath(dirname(d), NULL)) && asprintf(&r, "%s/%s", rd, basename(b)) < 0)
		r = NULL;
	free(d);
	free(b);
	free(rd);
	return r;
}

int ms_out_same(const char *a, const char *b)
{
	struct stat sa, sb;
	char *ca, *cb;
	int same;

	if (strcmp(a, b) == 0)
		return 1;
	if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
		return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino && S_ISREG(sa.st_mode);
	ca = canonical(a);
	cb = canonical(b);
	same = ca && cb && strcmp(ca, cb) == 0;
	free(ca);
	free(cb);
	return same;
}
