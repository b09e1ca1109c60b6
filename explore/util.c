/* SPDX-License-Identifier: MIT */
/* explore's small helpers: memory, files, escapes, errno names. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "impl.h"

void *ex_xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		fputs("mockrun explore: out of memory\n", stderr);
		exit(EX_EXIT_ERROR);
	}
	return p;
}

char *ex_strndup(const char *s, size_t n)
{
	char *d = ex_xrealloc(NULL, n + 1);

	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

char *ex_strdup(const char *s)
{
	return ex_strndup(s, strlen(s));
}

char *ex_printf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = ex_xrealloc(NULL, 0), s = NULL;
	va_end(ap);
	if (!s)
		exit(EX_EXIT_ERROR);
	return s;
}

/* what errors are said by: "mockrun explore", or minimize's name */
const char *ex_name = "mockrun explore";

/* "mockrun explore: ...\n" on stderr; the exit status of an error */
int ex_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", ex_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return EX_EXIT_ERROR;
}

char *ex_read_file(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *d = NULL;
	size_t n = 0, cap = 0;
	ssize_t k;

	if (fd < 0)
		return NULL;
	for (;;) {
		if (cap - n < 65536)
			d = ex_xrealloc(d, cap = cap * 2 + 65536);
		k = read(fd, d + n, cap - n - 1);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		n += (size_t)k;
	}
	close(fd);
	if (k < 0) {
		free(d);
		return NULL;
	}
	d[n] = '\0';
	if (len)
		*len = n;
	return d;
}

/* written beside, then renamed: a reader never sees half a file */
int ex_write_file(const char *path, const char *data, size_t len)
{
	char *tmp = ex_printf("%s.tmp.%d", path, (int)getpid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644), err = 0;
	size_t off = 0;

	if (fd < 0) {
		err = errno;
		free(tmp);
		return -err;
	}
	while (off < len) {
		ssize_t k = write(fd, data + off, len - off);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			err = errno;
			break;
		}
		off += (size_t)k;
	}
	if (close(fd) && !err)
		err = errno;
	if (!err && rename(tmp, path))
		err = errno;
	if (err)
		unlink(tmp);
	free(tmp);
	return -err;
}

/* FNV-1a, 64 bits */
uint64_t ex_hash(const void *p, size_t n, uint64_t h)
{
	const unsigned char *c = p;

	if (!h)
		h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * 0x100000001b3ull;
	return h;
}

double ex_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* a value in a tab-separated line: \t, \n and \\ escaped */
char *ex_escape_tab(const char *s)
{
	char *d = ex_xrealloc(NULL, strlen(s) * 2 + 1), *o = d;

	for (; *s; s++) {
		if (*s == '\t' || *s == '\n' || *s == '\\') {
			*o++ = '\\';
			*o++ = *s == '\t' ? 't' : *s == '\n' ? 'n' : '\\';
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
	return d;
}

char *ex_unescape_tab(const char *s)
{
	char *d = ex_xrealloc(NULL, strlen(s) + 1), *o = d;

	for (; *s; s++) {
		if (*s == '\\' && s[1]) {
			s++;
			*o++ = *s == 't' ? '\t' : *s == 'n' ? '\n' : *s;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
	return d;
}

int ex_mkdirs(const char *path)
{
	char *p = ex_strdup(path);

	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0755) && errno != EEXIST) {
			free(p);
			return -errno;
		}
		*s = '/';
	}
	free(p);
	if (mkdir(path, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

static int spawn_wait(char *const argv[])
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		execvp(argv[0], argv);
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -EIO;
}

int ex_rm_rf(const char *path)
{
	char *argv[] = { "rm", "-rf", "--", (char *)path, NULL };

	return spawn_wait(argv);
}

/* a fresh copy of the tree `from` at `to` (cp -a: modes, times, links) */
int ex_copy_tree(const char *from, const char *to)
{
	char *src = ex_printf("%s/.", from);
	char *argv[] = { "cp", "-a", "--", src, (char *)to, NULL };
	int r;

	if (ex_mkdirs(to) < 0) {
		free(src);
		return -EIO;
	}
	r = spawn_wait(argv);
	free(src);
	return r;
}

/* `to` (absolute) as seen from the directory from_dir (absolute) */
char *ex_relpath(const char *from_dir, const char *to)
{
	size_t common = 0, i = 0, ups = 0;
	char *r;
	size_t n;

	/* the longest common prefix of whole components */
	for (;;) {
		if ((from_dir[i] == '/' || !from_dir[i]) && (to[i] == '/' || !to[i]))
			common = i;
		if (!from_dir[i] || !to[i] || from_dir[i] != to[i])
			break;
		i++;
	}
	for (const char *p = from_dir + common; *p; p++)
		if (*p == '/' && p[1])
			ups++;
	n = ups * 3 + strlen(to + common) + 2;
	r = ex_xrealloc(NULL, n);
	r[0] = '\0';
	for (size_t k = 0; k < ups; k++)
		strcat(r, k ? "/.." : "..");
	if (to[common] == '/' && to[common + 1])
		strcat(r, ups ? to + common : to + common + 1);
	if (!r[0])
		strcpy(r, ".");
	return r;
}

const char *ex_errno_name(int e)
{
	const char *n = e ? strerrorname_np(e) : NULL;

	return n ? n : "";
}

int ex_errno_known(const char *name)
{
	for (int e = 1; e < 4096; e++) {
		const char *n = strerrorname_np(e);

		if (n && strcmp(n, name) == 0)
			return e;
	}
	return 0;
}
