/* SPDX-License-Identifier: MIT */
/* Named constants of the statement language, and known struct layouts. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <time.h>

#include "spec.h"

struct named {
	const char *name;
	int64_t value;
};

#define N(x) { #x, x }
static const struct named eai_names[] = {
	N(EAI_BADFLAGS), N(EAI_NONAME), N(EAI_AGAIN), N(EAI_FAIL), N(EAI_FAMILY),
	N(EAI_SOCKTYPE), N(EAI_SERVICE), N(EAI_MEMORY), N(EAI_SYSTEM),
	N(EAI_OVERFLOW), N(EAI_NODATA), N(EAI_ADDRFAMILY), N(EAI_INPROGRESS),
	N(EAI_CANCELED), N(EAI_NOTCANCELED), N(EAI_ALLDONE), N(EAI_INTR),
	N(EAI_IDN_ENCODE),
};

static const struct named other_names[] = {
	N(O_RDONLY), N(O_WRONLY), N(O_RDWR), N(O_CREAT), N(O_EXCL), N(O_NOCTTY),
	N(O_TRUNC), N(O_APPEND), N(O_NONBLOCK), N(O_DSYNC), N(O_SYNC), N(O_RSYNC),
	N(O_DIRECTORY), N(O_NOFOLLOW), N(O_CLOEXEC), N(O_DIRECT), N(O_NOATIME),
	N(O_PATH), N(O_TMPFILE), N(O_LARGEFILE), N(O_ACCMODE),
	N(S_IFMT), N(S_IFSOCK), N(S_IFLNK), N(S_IFREG), N(S_IFBLK), N(S_IFDIR),
	N(S_IFCHR), N(S_IFIFO), N(S_ISUID), N(S_ISGID), N(S_ISVTX),
	N(S_IRWXU), N(S_IRUSR), N(S_IWUSR), N(S_IXUSR), N(S_IRWXG), N(S_IRGRP),
	N(S_IWGRP), N(S_IXGRP), N(S_IRWXO), N(S_IROTH), N(S_IWOTH), N(S_IXOTH),
	N(AF_UNSPEC), N(AF_UNIX), N(AF_LOCAL), N(AF_INET), N(AF_INET6),
	N(AF_NETLINK), N(AF_PACKET),
	N(SOCK_STREAM), N(SOCK_DGRAM), N(SOCK_RAW), N(SOCK_SEQPACKET),
	N(SOCK_NONBLOCK), N(SOCK_CLOEXEC),
	N(CLOCK_REALTIME), N(CLOCK_MONOTONIC), N(CLOCK_PROCESS_CPUTIME_ID),
	N(CLOCK_THREAD_CPUTIME_ID), N(CLOCK_MONOTONIC_RAW), N(CLOCK_REALTIME_COARSE),
	N(CLOCK_MONOTONIC_COARSE), N(CLOCK_BOOTTIME), N(CLOCK_TAI),
	N(EOF),
	N(POLLIN), N(POLLPRI), N(POLLOUT), N(POLLERR), N(POLLHUP), N(POLLNVAL),
	N(POLLRDNORM), N(POLLRDBAND), N(POLLWRNORM), N(POLLWRBAND), N(POLLRDHUP),
};
#undef N

static int lookup(const struct named *t, size_t n, const char *name, size_t len,
		  int64_t *value)
{
	for (size_t i = 0; i < n; i++) {
		if (strlen(t[i].name) == len && memcmp(t[i].name, name, len) == 0) {
			*value = t[i].value;
			return 1;
		}
	}
	return 0;
}

const char *ms_errno_name(int err)
{
	return err > 0 ? strerrorname_np(err) : NULL;
}

const char *ms_eai_name(int code)
{
	for (size_t i = 0; i < sizeof(eai_names) / sizeof(eai_names[0]); i++)
		if (eai_names[i].value == code)
			return eai_names[i].name;
	return NULL;
}

int ms_name_value(const char *name, size_t len, int64_t *value)
{
	if (len > 1 && name[0] == 'E' && !(len > 4 && memcmp(name, "EAI_", 4) == 0)) {
		for (int e = 1; e < 256; e++) {
			const char *s = strerrorname_np(e);

			if (s && strlen(s) == len && memcmp(s, name, len) == 0) {
				*value = e;
				return 1;
			}
		}
	}
	if (len > 3 && memcmp(name, "SIG", 3) == 0) {
		for (int s = 1; s < NSIG; s++) {
			const char *a = sigabbrev_np(s);

			if (a && strlen(a) == len - 3 && memcmp(a, name + 3, len - 3) == 0) {
				*value = s;
				return 1;
			}
		}
	}
	return lookup(eai_names, sizeof(eai_names) / sizeof(eai_names[0]), name, len, value) ||
	       lookup(other_names, sizeof(other_names) / sizeof(other_names[0]), name, len,
		      value);
}

#define F_INT(s, f, n) \
	{ n, offsetof(struct s, f), sizeof(((struct s *)0)->f), MS_FD_INT, INT64_MIN, INT64_MAX }
#define F_RANGE(s, f, n, lo, hi) \
	{ n, offsetof(struct s, f), sizeof(((struct s *)0)->f), MS_FD_INT, lo, hi }
#define F_UINT(s, f, n) \
	{ n, offsetof(struct s, f), sizeof(((struct s *)0)->f), MS_FD_UINT, 0, INT64_MAX }
#define F_CHARS(s, f, n) \
	{ n, offsetof(struct s, f), sizeof(((struct s *)0)->f), MS_FD_CHARS, 0, 0 }

static const struct ms_field_desc timespec_fields[] = {
	F_INT(timespec, tv_sec, "tv_sec"),
	F_RANGE(timespec, tv_nsec, "tv_nsec", 0, 999999999),
};
static const struct ms_field_desc timeval_fields[] = {
	F_INT(timeval, tv_sec, "tv_sec"),
	F_RANGE(timeval, tv_usec, "tv_usec", 0, 999999),
};
static const struct ms_field_desc stat_fields[] = {
	F_UINT(stat, st_dev, "st_dev"),
	F_UINT(stat, st_ino, "st_ino"),
	F_UINT(stat, st_mode, "st_mode"),
	F_UINT(stat, st_nlink, "st_nlink"),
	F_UINT(stat, st_uid, "st_uid"),
	F_UINT(stat, st_gid, "st_gid"),
	F_UINT(stat, st_rdev, "st_rdev"),
	F_INT(stat, st_size, "st_size"),
	F_INT(stat, st_blksize, "st_blksize"),
	F_INT(stat, st_blocks, "st_blocks"),
	F_INT(stat, st_atim.tv_sec, "st_atime"),
	F_INT(stat, st_mtim.tv_sec, "st_mtime"),
	F_INT(stat, st_ctim.tv_sec, "st_ctime"),
};
static const struct ms_field_desc utsname_fields[] = {
	F_CHARS(utsname, sysname, "sysname"),
	F_CHARS(utsname, nodename, "nodename"),
	F_CHARS(utsname, release, "release"),
	F_CHARS(utsname, version, "version"),
	F_CHARS(utsname, machine, "machine"),
	F_CHARS(utsname, domainname, "domainname"),
};

#define S(n, f) { #n, sizeof(struct n), f, sizeof(f) / sizeof(f[0]) }
static const struct ms_struct_desc structs[] = {
	S(timespec, timespec_fields),
	S(timeval, timeval_fields),
	S(stat, stat_fields),
	{ "stat64", sizeof(struct stat), stat_fields, sizeof(stat_fields) / sizeof(stat_fields[0]) },
	S(utsname, utsname_fields),
};
#undef S

const struct ms_struct_desc *ms_struct_find(const char *name)
{
	for (size_t i = 0; i < sizeof(structs) / sizeof(structs[0]); i++)
		if (strcmp(structs[i].name, name) == 0)
			return &structs[i];
	return NULL;
}

int ms_glob_match(const char *p, const char *s)
{
	const char *star_p = NULL, *star_s = NULL;

	while (*s) {
		if (*p == '*') {
			star_p = ++p;
			star_s = s;
			continue;
		}
		if (*p == '[') {
			const char *q = p + 1;
			int neg = *q == '!' || *q == '^', hit = 0;

			if (neg)
				q++;
			/* a ']' first is a member, as in fnmatch; never read past the NUL */
			if (*q == ']') {
				hit |= *s == ']';
				q++;
			}
			while (*q && *q != ']') {
				if (q[1] == '-' && q[2] && q[2] != ']') {
					hit |= *s >= q[0] && *s <= q[2];
					q += 3;
				} else {
					hit |= *s == *q;
					q++;
				}
			}
			/* an unclosed '[' is an ordinary character */
			if (*q != ']') {
				if (*s == '[') {
					p++;
					s++;
					continue;
				}
			} else if (hit != neg) {
				p = q + 1;
				s++;
				continue;
			}
		} else if (*p && (*p == '?' || *p == *s)) {
			p++;
			s++;
			continue;
		}
		if (!star_p)
			return 0;
		p = star_p;
		s = ++star_s;
	}
	while (*p == '*')
		p++;
	return *p == '\0';
}
