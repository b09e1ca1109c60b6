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
#include <sys/resource.h>
#include <sys/stat.h>
#ifndef STATX_TYPE
#include <linux/stat.h>	/* a C library without statx (musl before 1.2.5): the kernel's */
#endif
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/sysinfo.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <time.h>

#include "names.h"

/* the name in the entry, not a pointer: nothing for the loader to
 * relocate in every process the shim is preloaded in */
struct named {
	char name[28];
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
	/* statx's mask, statvfs's flags */
	N(STATX_TYPE), N(STATX_MODE), N(STATX_NLINK), N(STATX_UID), N(STATX_GID),
	N(STATX_ATIME), N(STATX_MTIME), N(STATX_CTIME), N(STATX_INO), N(STATX_SIZE),
	N(STATX_BLOCKS), N(STATX_BASIC_STATS), N(STATX_BTIME), N(STATX_ALL),
	N(ST_RDONLY), N(ST_NOSUID), N(ST_NODEV), N(ST_NOEXEC), N(ST_SYNCHRONOUS),
	N(ST_MANDLOCK), N(ST_NOATIME), N(ST_NODIRATIME), N(ST_RELATIME),
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

/*
 * The errno and signal names, as glibc's strerrorname_np() and
 * sigabbrev_np() give them (one name a value: EAGAIN, not EWOULDBLOCK;
 * SIGPOLL, not SIGIO), from tables of our own: mockrun also links a C
 * library without those functions (musl).
 */
#define N(x) [x] = #x,
static const char *const errno_names[] = {
	N(EPERM) N(ENOENT) N(ESRCH) N(EINTR) N(EIO) N(ENXIO) N(E2BIG) N(ENOEXEC) N(EBADF)
	N(ECHILD) N(EAGAIN) N(ENOMEM) N(EACCES) N(EFAULT) N(ENOTBLK) N(EBUSY) N(EEXIST)
	N(EXDEV) N(ENODEV) N(ENOTDIR) N(EISDIR) N(EINVAL) N(ENFILE) N(EMFILE) N(ENOTTY)
	N(ETXTBSY) N(EFBIG) N(ENOSPC) N(ESPIPE) N(EROFS) N(EMLINK) N(EPIPE) N(EDOM)
	N(ERANGE) N(EDEADLK) N(ENAMETOOLONG) N(ENOLCK) N(ENOSYS) N(ENOTEMPTY) N(ELOOP)
	N(ENOMSG) N(EIDRM) N(ECHRNG) N(EL2NSYNC) N(EL3HLT) N(EL3RST) N(ELNRNG) N(EUNATCH)
	N(ENOCSI) N(EL2HLT) N(EBADE) N(EBADR) N(EXFULL) N(ENOANO) N(EBADRQC) N(EBADSLT)
	N(EBFONT) N(ENOSTR) N(ENODATA) N(ETIME) N(ENOSR) N(ENONET) N(ENOPKG) N(EREMOTE)
	N(ENOLINK) N(EADV) N(ESRMNT) N(ECOMM) N(EPROTO) N(EMULTIHOP) N(EDOTDOT) N(EBADMSG)
	N(EOVERFLOW) N(ENOTUNIQ) N(EBADFD) N(EREMCHG) N(ELIBACC) N(ELIBBAD) N(ELIBSCN)
	N(ELIBMAX) N(ELIBEXEC) N(EILSEQ) N(ERESTART) N(ESTRPIPE) N(EUSERS) N(ENOTSOCK)
	N(EDESTADDRREQ) N(EMSGSIZE) N(EPROTOTYPE) N(ENOPROTOOPT) N(EPROTONOSUPPORT)
	N(ESOCKTNOSUPPORT) N(EOPNOTSUPP) N(EPFNOSUPPORT) N(EAFNOSUPPORT) N(EADDRINUSE)
	N(EADDRNOTAVAIL) N(ENETDOWN) N(ENETUNREACH) N(ENETRESET) N(ECONNABORTED)
	N(ECONNRESET) N(ENOBUFS) N(EISCONN) N(ENOTCONN) N(ESHUTDOWN) N(ETOOMANYREFS)
	N(ETIMEDOUT) N(ECONNREFUSED) N(EHOSTDOWN) N(EHOSTUNREACH) N(EALREADY)
	N(EINPROGRESS) N(ESTALE) N(EUCLEAN) N(ENOTNAM) N(ENAVAIL) N(EISNAM) N(EREMOTEIO)
	N(EDQUOT) N(ENOMEDIUM) N(EMEDIUMTYPE) N(ECANCELED) N(ENOKEY) N(EKEYEXPIRED)
	N(EKEYREVOKED) N(EKEYREJECTED) N(EOWNERDEAD) N(ENOTRECOVERABLE) N(ERFKILL)
	N(EHWPOISON)
};
#undef N
#define N(x) [SIG##x] = #x,
static const char *const signal_names[] = {
	N(HUP) N(INT) N(QUIT) N(ILL) N(TRAP) N(ABRT) N(BUS) N(FPE) N(KILL) N(USR1) N(SEGV)
	N(USR2) N(PIPE) N(ALRM) N(TERM) N(STKFLT) N(CHLD) N(CONT) N(STOP) N(TSTP) N(TTIN)
	N(TTOU) N(URG) N(XCPU) N(XFSZ) N(VTALRM) N(PROF) N(WINCH) N(POLL) N(PWR) N(SYS)
};
#undef N

#define NAMES_N(t) (sizeof(t) / sizeof((t)[0]))

/* Value v's name in table t of n names indexed by value, or NULL. */
static const char *name_of(const char *const *t, size_t n, int v)
{
	return v > 0 && (size_t)v < n ? t[v] : NULL;
}

/* The value whose name in t (n names indexed by value) is the len bytes
 * at name: 1 and *value, or 0. */
static int value_of(const char *const *t, size_t n, const char *name, size_t len, int64_t *value)
{
	for (size_t v = 1; v < n; v++)
		if (t[v] && strlen(t[v]) == len && memcmp(t[v], name, len) == 0) {
			*value = (int64_t)v;
			return 1;
		}
	return 0;
}

const char *ms_errno_name(int err)
{
	return name_of(errno_names, NAMES_N(errno_names), err);
}

const char *ms_signal_abbrev(int sig)
{
	return name_of(signal_names, NAMES_N(signal_names), sig);
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
	if (len > 1 && name[0] == 'E' && !(len > 4 && memcmp(name, "EAI_", 4) == 0) &&
	    value_of(errno_names, NAMES_N(errno_names), name, len, value))
		return 1;
	if (len > 3 && memcmp(name, "SIG", 3) == 0 &&
	    value_of(signal_names, NAMES_N(signal_names), name + 3, len - 3, value))
		return 1;
	return lookup(eai_names, sizeof(eai_names) / sizeof(eai_names[0]), name, len, value) ||
	       lookup(other_names, sizeof(other_names) / sizeof(other_names[0]), name, len,
		      value);
}

#define F_INT(s, f, n) \
	{ n, offsetof(struct s, f), sizeof(((struct s *)0)->f), MS_FD_INT, INT64_MIN, INT64_MAX, NULL }
#define F_RANGE(s, f, n, lo, hi) \
	{ n, offsetof(struct s, f), sizeof(((struct s *)0)->f), MS_FD_INT, lo, hi, NULL }
#define F_UINT(s, f, n) \
	{ n, offsetof(struct s, f), sizeof(((struct s *)0)->f), MS_FD_UINT, 0, INT64_MAX, NULL }
#define F_CHARS(s, f, n) \
	{ n, offsetof(struct s, f), sizeof(((struct s *)0)->f), MS_FD_CHARS, 0, 0, NULL }
#define F_NEST(s, f, n, sub) \
	{ n, offsetof(struct s, f), sizeof(((struct s *)0)->f), MS_FD_NESTED, 0, 0, &sub }
#define F_STR(s, f, n) \
	{ n, offsetof(struct s, f), sizeof(((struct s *)0)->f), MS_FD_STR, 0, 0, NULL }

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
static const struct ms_struct_desc timeval_desc = S(timeval, timeval_fields);

static const struct ms_field_desc statx_timestamp_fields[] = {
	F_INT(statx_timestamp, tv_sec, "tv_sec"),
	F_RANGE(statx_timestamp, tv_nsec, "tv_nsec", 0, 999999999),
};
static const struct ms_struct_desc statx_timestamp_desc =
	S(statx_timestamp, statx_timestamp_fields);

/* what statx(2) fills; stx_mask says which fields are valid (the caller
 * checks it: write .stx_mask = STATX_BASIC_STATS, or the fields given) */
static const struct ms_field_desc statx_fields[] = {
	F_UINT(statx, stx_mask, "stx_mask"),
	F_UINT(statx, stx_blksize, "stx_blksize"),
	F_UINT(statx, stx_attributes, "stx_attributes"),
	F_UINT(statx, stx_nlink, "stx_nlink"),
	F_UINT(statx, stx_uid, "stx_uid"),
	F_UINT(statx, stx_gid, "stx_gid"),
	F_UINT(statx, stx_mode, "stx_mode"),
	F_UINT(statx, stx_ino, "stx_ino"),
	F_UINT(statx, stx_size, "stx_size"),
	F_UINT(statx, stx_blocks, "stx_blocks"),
	F_UINT(statx, stx_attributes_mask, "stx_attributes_mask"),
	F_NEST(statx, stx_atime, "stx_atime", statx_timestamp_desc),
	F_NEST(statx, stx_btime, "stx_btime", statx_timestamp_desc),
	F_NEST(statx, stx_ctime, "stx_ctime", statx_timestamp_desc),
	F_NEST(statx, stx_mtime, "stx_mtime", statx_timestamp_desc),
	F_UINT(statx, stx_rdev_major, "stx_rdev_major"),
	F_UINT(statx, stx_rdev_minor, "stx_rdev_minor"),
	F_UINT(statx, stx_dev_major, "stx_dev_major"),
	F_UINT(statx, stx_dev_minor, "stx_dev_minor"),
};
static const struct ms_field_desc statfs_fields[] = {
	F_INT(statfs, f_type, "f_type"),
	F_INT(statfs, f_bsize, "f_bsize"),
	F_UINT(statfs, f_blocks, "f_blocks"),
	F_UINT(statfs, f_bfree, "f_bfree"),
	F_UINT(statfs, f_bavail, "f_bavail"),
	F_UINT(statfs, f_files, "f_files"),
	F_UINT(statfs, f_ffree, "f_ffree"),
	F_INT(statfs, f_namelen, "f_namelen"),
	F_INT(statfs, f_frsize, "f_frsize"),
	F_INT(statfs, f_flags, "f_flags"),
};
static const struct ms_field_desc statvfs_fields[] = {
	F_UINT(statvfs, f_bsize, "f_bsize"),
	F_UINT(statvfs, f_frsize, "f_frsize"),
	F_UINT(statvfs, f_blocks, "f_blocks"),
	F_UINT(statvfs, f_bfree, "f_bfree"),
	F_UINT(statvfs, f_bavail, "f_bavail"),
	F_UINT(statvfs, f_files, "f_files"),
	F_UINT(statvfs, f_ffree, "f_ffree"),
	F_UINT(statvfs, f_favail, "f_favail"),
	F_UINT(statvfs, f_fsid, "f_fsid"),
	F_UINT(statvfs, f_flag, "f_flag"),
	F_UINT(statvfs, f_namemax, "f_namemax"),
};
static const struct ms_field_desc tm_fields[] = {
	F_RANGE(tm, tm_sec, "tm_sec", 0, 60),
	F_RANGE(tm, tm_min, "tm_min", 0, 59),
	F_RANGE(tm, tm_hour, "tm_hour", 0, 23),
	F_RANGE(tm, tm_mday, "tm_mday", 1, 31),
	F_RANGE(tm, tm_mon, "tm_mon", 0, 11),
	F_RANGE(tm, tm_year, "tm_year", INT32_MIN, INT32_MAX),
	F_RANGE(tm, tm_wday, "tm_wday", 0, 6),
	F_RANGE(tm, tm_yday, "tm_yday", 0, 365),
	F_RANGE(tm, tm_isdst, "tm_isdst", -1, 1),
	F_INT(tm, tm_gmtoff, "tm_gmtoff"),
	F_STR(tm, tm_zone, "tm_zone"),
};
static const struct ms_field_desc rusage_fields[] = {
	F_NEST(rusage, ru_utime, "ru_utime", timeval_desc),
	F_NEST(rusage, ru_stime, "ru_stime", timeval_desc),
	F_INT(rusage, ru_maxrss, "ru_maxrss"),
	F_INT(rusage, ru_ixrss, "ru_ixrss"),
	F_INT(rusage, ru_idrss, "ru_idrss"),
	F_INT(rusage, ru_isrss, "ru_isrss"),
	F_INT(rusage, ru_minflt, "ru_minflt"),
	F_INT(rusage, ru_majflt, "ru_majflt"),
	F_INT(rusage, ru_nswap, "ru_nswap"),
	F_INT(rusage, ru_inblock, "ru_inblock"),
	F_INT(rusage, ru_oublock, "ru_oublock"),
	F_INT(rusage, ru_msgsnd, "ru_msgsnd"),
	F_INT(rusage, ru_msgrcv, "ru_msgrcv"),
	F_INT(rusage, ru_nsignals, "ru_nsignals"),
	F_INT(rusage, ru_nvcsw, "ru_nvcsw"),
	F_INT(rusage, ru_nivcsw, "ru_nivcsw"),
};
static const struct ms_field_desc sysinfo_fields[] = {
	F_INT(sysinfo, uptime, "uptime"),
	F_UINT(sysinfo, totalram, "totalram"),
	F_UINT(sysinfo, freeram, "freeram"),
	F_UINT(sysinfo, sharedram, "sharedram"),
	F_UINT(sysinfo, bufferram, "bufferram"),
	F_UINT(sysinfo, totalswap, "totalswap"),
	F_UINT(sysinfo, freeswap, "freeswap"),
	F_UINT(sysinfo, procs, "procs"),
	F_UINT(sysinfo, totalhigh, "totalhigh"),
	F_UINT(sysinfo, freehigh, "freehigh"),
	F_UINT(sysinfo, mem_unit, "mem_unit"),
};

static const struct ms_struct_desc structs[] = {
	S(timespec, timespec_fields),
	S(timeval, timeval_fields),
	S(stat, stat_fields),
	{ "stat64", sizeof(struct stat), stat_fields, sizeof(stat_fields) / sizeof(stat_fields[0]) },
	S(utsname, utsname_fields),
	S(statx, statx_fields),
	S(statfs, statfs_fields),
	{ "statfs64", sizeof(struct statfs), statfs_fields, sizeof(statfs_fields) / sizeof(statfs_fields[0]) },
	S(statvfs, statvfs_fields),
	{ "statvfs64", sizeof(struct statvfs), statvfs_fields,
	  sizeof(statvfs_fields) / sizeof(statvfs_fields[0]) },
	S(tm, tm_fields),
	S(rusage, rusage_fields),
	S(sysinfo, sysinfo_fields),
};
#undef S

/* The catalog's structs, one by one (--list): NULL after the last. */
const struct ms_struct_desc *ms_struct_at(unsigned i)
{
	return i < sizeof(structs) / sizeof(structs[0]) ? &structs[i] : NULL;
}

const struct ms_struct_desc *ms_struct_find(const char *name)
{
	for (size_t i = 0; i < sizeof(structs) / sizeof(structs[0]); i++)
		if (strcmp(structs[i].name, name) == 0)
			return &structs[i];
	return NULL;
}

unsigned ms_glob_form(const char *pat, uint16_t *len)
{
	size_t n = 0, lo, hi;
	int lead, trail;

	*len = 0;
	while (pat[n])
		n++;
	lead = n > 0 && pat[0] == '*';
	trail = n > (size_t)lead && pat[n - 1] == '*';
	lo = (size_t)lead;
	hi = n - (size_t)trail;
	for (size_t i = lo; i < hi; i++)
		if (pat[i] == '*' || pat[i] == '?' || pat[i] == '[')
			return MS_GF_ANY;
	if (hi - lo > 65535)
		return MS_GF_ANY;
	*len = (uint16_t)(hi - lo);
	return lead && trail ? MS_GF_INFIX : lead ? MS_GF_SUFFIX : trail ? MS_GF_PREFIX : MS_GF_EXACT;
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
