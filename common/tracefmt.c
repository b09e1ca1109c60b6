/* SPDX-License-Identifier: MIT */
/*
 * --trace's line format (tracefmt.h): the arguments of a catalog or
 * syscall.def row decoded as strace shows them, and the result.
 * Compiled into each tier that writes trace lines, with its flags (the
 * shim's: no builtins), as decide.c is.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>

#include "decide.h"
#include "names.h"
#include "spec.h"
#include "tracefmt.h"

#define STR_CUT 64

/*
 * Names are compared inline, not by strcmp: a line asks about each
 * parameter's name a dozen times, nearly all of which differ at the
 * first byte (a library call each, through the PLT, cost more than the
 * rest of the line).
 */
static inline int eq(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

static inline int starts(const char *a, const char *pre)
{
	while (*pre && *a == *pre)
		a++, pre++;
	return !*pre;
}

static int contains(const char *a, const char *w)
{
	for (; *a; a++)
		if (*a == *w && starts(a, w))
			return 1;
	return 0;
}

/* Digits are written backwards into a scratch buffer and copied once;
 * decimal goes two digits a step. */
static void put_digits(struct ms_tline *o, const char *t, int k)
{
	size_t n = (size_t)(24 - k);
	char *d;

	if (o->n >= MS_TLINE - 2)
		return;
	if (n > MS_TLINE - 2 - o->n)
		n = MS_TLINE - 2 - o->n; /* cut as ms_tl_c cuts: the first digits stay */
	d = o->buf + o->n;
	o->n += n;
	t += k;
	while (n--)
		*d++ = *t++;
}

static const char pairs[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
			    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
			    "8081828384858687888990919293949596979899";

void ms_tl_u(struct ms_tline *o, uint64_t v, unsigned base)
{
	char t[24];
	int k = 24;

	if (base == 10) {
		while (v >= 100) {
			const char *q = pairs + 2 * (v % 100);

			v /= 100;
			t[--k] = q[1];
			t[--k] = q[0];
		}
		if (v >= 10) {
			t[--k] = pairs[2 * v + 1];
			t[--k] = pairs[2 * v];
		} else {
			t[--k] = (char)('0' + v);
		}
	} else if (base == 16) {
		do
			t[--k] = "0123456789abcdef"[v & 15];
		while ((v >>= 4));
	} else {
		do
			t[--k] = "0123456789abcdef"[v % base];
		while ((v /= base) && k > 0);
	}
	put_digits(o, t, k);
}

void ms_tl_ptr(struct ms_tline *o, uint64_t v)
{
	if (!v) {
		ms_tl_put(o, "NULL");
		return;
	}
	ms_tl_put(o, "0x");
	ms_tl_u(o, v, 16);
}

/* A string argument, read fault-safely, quoted, cut at STR_CUT bytes. */
void ms_tl_str(struct ms_tline *o, uint64_t v)
{
	char s[STR_CUT + 1];
	size_t n;

	if (!v) {
		ms_tl_put(o, "NULL");
		return;
	}
	n = ms_read_user(s, (const void *)(uintptr_t)v, sizeof(s));
	ms_tl_c(o, '"');
	for (size_t i = 0; i < n && i < STR_CUT && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\') {
			ms_tl_c(o, '\\');
			ms_tl_c(o, (char)c);
		} else if (c == '\n') {
			ms_tl_put(o, "\\n");
		} else if (c < 0x20 || c >= 0x7f) {
			ms_tl_put(o, "\\x");
			ms_tl_c(o, "0123456789abcdef"[c >> 4]);
			ms_tl_c(o, "0123456789abcdef"[c & 15]);
		} else {
			ms_tl_c(o, (char)c);
		}
	}
	ms_tl_c(o, '"');
	if (n > STR_CUT && memchr(s, 0, STR_CUT) == NULL)
		ms_tl_put(o, "...");
}

static const struct {
	int bit;
	const char *name;
} oflags[] = {
	{ O_CREAT, "O_CREAT" },	      { O_EXCL, "O_EXCL" },	      { O_NOCTTY, "O_NOCTTY" },
	{ O_TRUNC, "O_TRUNC" },	      { O_APPEND, "O_APPEND" },	      { O_NONBLOCK, "O_NONBLOCK" },
	{ O_DIRECTORY, "O_DIRECTORY" }, { O_NOFOLLOW, "O_NOFOLLOW" }, { O_CLOEXEC, "O_CLOEXEC" },
	{ O_SYNC, "O_SYNC" },	      { O_NOATIME, "O_NOATIME" },     { O_PATH, "O_PATH" },
	{ O_LARGEFILE, "O_LARGEFILE" },
};

static void put_oflags(struct ms_tline *o, int64_t v)
{
	int acc = (int)v & O_ACCMODE, rest = (int)v & ~O_ACCMODE;

	ms_tl_put(o, acc == O_WRONLY ? "O_WRONLY" : acc == O_RDWR ? "O_RDWR" : "O_RDONLY");
	for (size_t i = 0; i < sizeof(oflags) / sizeof(oflags[0]); i++) {
		if ((rest & oflags[i].bit) == oflags[i].bit && oflags[i].bit) {
			ms_tl_c(o, '|');
			ms_tl_put(o, oflags[i].name);
			rest &= ~oflags[i].bit;
		}
	}
	if (rest) {
		ms_tl_put(o, "|0x");
		ms_tl_u(o, (uint32_t)rest, 16);
	}
}

struct flag {
	int64_t bit;
	const char *name;
};

#define NF(x) { x, #x }
static const struct flag at_flags[] = {
	NF(AT_SYMLINK_NOFOLLOW), NF(AT_SYMLINK_FOLLOW), NF(AT_NO_AUTOMOUNT), NF(AT_EMPTY_PATH),
	NF(AT_STATX_FORCE_SYNC), NF(AT_STATX_DONT_SYNC),
};
static const struct flag msg_flags[] = {
	NF(MSG_OOB), NF(MSG_PEEK), NF(MSG_DONTROUTE), NF(MSG_CTRUNC), NF(MSG_TRUNC),
	NF(MSG_DONTWAIT), NF(MSG_EOR), NF(MSG_WAITALL), NF(MSG_NOSIGNAL), NF(MSG_MORE),
	NF(MSG_CMSG_CLOEXEC), NF(MSG_FASTOPEN), NF(MSG_ERRQUEUE),
};
static const struct flag statx_mask[] = {
	NF(STATX_TYPE), NF(STATX_MODE), NF(STATX_NLINK), NF(STATX_UID), NF(STATX_GID),
	NF(STATX_ATIME), NF(STATX_MTIME), NF(STATX_CTIME), NF(STATX_INO), NF(STATX_SIZE),
	NF(STATX_BLOCKS), NF(STATX_BTIME), NF(STATX_MNT_ID),
};
static const struct flag clocks[] = {
	NF(CLOCK_REALTIME), NF(CLOCK_MONOTONIC), NF(CLOCK_PROCESS_CPUTIME_ID),
	NF(CLOCK_THREAD_CPUTIME_ID), NF(CLOCK_MONOTONIC_RAW), NF(CLOCK_REALTIME_COARSE),
	NF(CLOCK_MONOTONIC_COARSE), NF(CLOCK_BOOTTIME), NF(CLOCK_REALTIME_ALARM),
	NF(CLOCK_BOOTTIME_ALARM), NF(CLOCK_TAI),
};
static const struct flag families[] = {
	NF(AF_UNSPEC), NF(AF_UNIX), NF(AF_INET), NF(AF_INET6), NF(AF_NETLINK), NF(AF_PACKET),
	NF(AF_BLUETOOTH), NF(AF_ALG), NF(AF_VSOCK),
};
static const struct flag sock_types[] = {
	NF(SOCK_STREAM), NF(SOCK_DGRAM), NF(SOCK_RAW), NF(SOCK_RDM), NF(SOCK_SEQPACKET),
	NF(SOCK_PACKET),
};
static const struct flag sock_flags[] = { NF(SOCK_NONBLOCK), NF(SOCK_CLOEXEC) };
#undef NF
#define N_(t) (sizeof(t) / sizeof((t)[0]))

/* FLAG|FLAG|0xREST, or 0. */
static void put_flags(struct ms_tline *o, int64_t v, const struct flag *t, size_t n, int first)
{
	uint64_t rest = (uint64_t)v;

	for (size_t i = 0; i < n; i++) {
		if (t[i].bit && (rest & (uint64_t)t[i].bit) == (uint64_t)t[i].bit) {
			if (!first)
				ms_tl_c(o, '|');
			ms_tl_put(o, t[i].name);
			rest &= ~(uint64_t)t[i].bit;
			first = 0;
		}
	}
	if (rest || first) {
		if (!first)
			ms_tl_c(o, '|');
		if (rest) {
			ms_tl_put(o, "0x");
			ms_tl_u(o, rest, 16);
		} else {
			ms_tl_c(o, '0');
		}
	}
}

/* One name of a table, or the number. */
static int put_name(struct ms_tline *o, int64_t v, const struct flag *t, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (t[i].bit == v) {
			ms_tl_put(o, t[i].name);
			return 1;
		}
	}
	ms_tl_i(o, v);
	return 0;
}

/* An exec's argv: ["sh", "-c", "..."], bounded. */
static void put_argv(struct ms_tline *o, uint64_t v)
{
	uint64_t p;

	if (!v) {
		ms_tl_put(o, "NULL");
		return;
	}
	ms_tl_c(o, '[');
	for (unsigned i = 0;; i++) {
		if (ms_read_user(&p, (const void *)(uintptr_t)(v + 8 * i), 8) != 8) {
			ms_tl_put(o, "?");
			break;
		}
		if (!p)
			break;
		if (i == 8) {
			ms_tl_put(o, ", ...");
			break;
		}
		if (i)
			ms_tl_put(o, ", ");
		ms_tl_str(o, p);
	}
	ms_tl_c(o, ']');
}

/* A struct the call reads (const) or filled (after a success): its
 * values, as strace shows them; only the catalog's time and stat types. */
static int put_struct(struct ms_tline *o, const struct ms_param *p, uint64_t v)
{
	const void *src = (const void *)(uintptr_t)v;

	if (eq(p->type.strct, "timespec")) {
		struct timespec ts;

		if (ms_read_user(&ts, src, sizeof(ts)) != sizeof(ts))
			return 0;
		ms_tl_put(o, "{tv_sec=");
		ms_tl_i(o, ts.tv_sec);
		ms_tl_put(o, ", tv_nsec=");
		ms_tl_i(o, ts.tv_nsec);
		ms_tl_c(o, '}');
		return 1;
	}
	if (eq(p->type.strct, "timeval")) {
		struct timeval tv;

		if (ms_read_user(&tv, src, sizeof(tv)) != sizeof(tv))
			return 0;
		ms_tl_put(o, "{tv_sec=");
		ms_tl_i(o, tv.tv_sec);
		ms_tl_put(o, ", tv_usec=");
		ms_tl_i(o, tv.tv_usec);
		ms_tl_c(o, '}');
		return 1;
	}
	if (eq(p->type.strct, "stat")) {
		struct stat st;

		if (ms_read_user(&st, src, sizeof(st)) != sizeof(st))
			return 0;
		ms_tl_put(o, "{st_mode=0");
		ms_tl_u(o, (uint32_t)st.st_mode, 8);
		ms_tl_put(o, ", st_size=");
		ms_tl_i(o, st.st_size);
		ms_tl_put(o, ", ...}");
		return 1;
	}
	if (contains(p->type.text, "statx")) {
		struct statx sx;

		if (ms_read_user(&sx, src, sizeof(sx)) != sizeof(sx))
			return 0;
		ms_tl_put(o, "{stx_mode=0");
		ms_tl_u(o, sx.stx_mode, 8);
		ms_tl_put(o, ", stx_size=");
		ms_tl_u(o, sx.stx_size, 10);
		ms_tl_put(o, ", ...}");
		return 1;
	}
	return 0;
}

/* A row's name without SYS_: a system call's arguments read as the
 * libc function's of that name do. */
static const char *strip(const char *name)
{
	/* the first letter first: most names are the catalog's */
	return name[0] == 'S' && starts(name, "SYS_") ? name + 4 : name;
}

static int is_fn(const struct ms_fn_meta *m, const char *name)
{
	return eq(strip(m->name), name);
}

static void put_arg(struct ms_tline *o, const struct ms_fn_meta *m, unsigned i, uint64_t v, int filled)
{
	const struct ms_param *p = &m->params[i];
	int64_t iv = p->type.size == 4 ? (int64_t)(int32_t)(uint32_t)v : (int64_t)v;

	if (p->type.tclass == MS_T_STR) {
		ms_tl_str(o, v);
	} else if (p->type.tclass == MS_T_PTR && eq(p->name, "argv") &&
		   starts(strip(m->name), "exec")) {
		put_argv(o, v);
	} else if (p->type.tclass == MS_T_PTR) {
		/* a struct read or filled: its values; else the pointer */
		if (!v || !(filled || starts(p->type.text, "const")) || !put_struct(o, p, v))
			ms_tl_ptr(o, v);
	} else if ((eq(p->name, "flags") || eq(p->name, "flag")) &&
		   (is_fn(m, "statx") || is_fn(m, "fstatat") || is_fn(m, "newfstatat") ||
		    is_fn(m, "faccessat") || is_fn(m, "faccessat2") || is_fn(m, "unlinkat") ||
		    is_fn(m, "linkat") || is_fn(m, "fchownat"))) {
		if (is_fn(m, "unlinkat") && (iv & AT_REMOVEDIR)) {
			ms_tl_put(o, "AT_REMOVEDIR");
			if (iv & ~AT_REMOVEDIR) {
				ms_tl_c(o, '|');
				put_flags(o, iv & ~AT_REMOVEDIR, at_flags, N_(at_flags), 1);
			}
		} else if ((is_fn(m, "faccessat") || is_fn(m, "faccessat2")) && (iv & AT_EACCESS)) {
			ms_tl_put(o, "AT_EACCESS");
			if (iv & ~AT_EACCESS) {
				ms_tl_c(o, '|');
				put_flags(o, iv & ~AT_EACCESS, at_flags, N_(at_flags), 1);
			}
		} else {
			put_flags(o, iv, at_flags, N_(at_flags), 1);
		}
	} else if (eq(p->name, "mask") && is_fn(m, "statx")) {
		put_flags(o, (int64_t)(uint32_t)v, statx_mask, N_(statx_mask), 1);
	} else if (eq(p->name, "flags") &&
		   (starts(strip(m->name), "send") || starts(strip(m->name), "recv"))) {
		put_flags(o, iv, msg_flags, N_(msg_flags), 1);
	} else if (eq(p->name, "clockid") || eq(p->name, "clk_id")) {
		put_name(o, iv, clocks, N_(clocks));
	} else if (eq(p->name, "domain") && (is_fn(m, "socket") || is_fn(m, "socketpair"))) {
		put_name(o, iv, families, N_(families));
	} else if (eq(p->name, "type") && (is_fn(m, "socket") || is_fn(m, "socketpair"))) {
		put_name(o, iv & 0xf, sock_types, N_(sock_types));
		if (iv & ~0xf) {
			ms_tl_c(o, '|');
			put_flags(o, iv & ~0xf, sock_flags, N_(sock_flags), 1);
		}
	} else if (eq(p->name, "flags") &&
		   (is_fn(m, "open") || is_fn(m, "openat"))) {
		put_oflags(o, iv);
	} else if (eq(p->type.text, "mode_t")) {
		ms_tl_c(o, '0');
		ms_tl_u(o, (uint32_t)v, 8);
	} else if ((eq(p->name, "dirfd") || eq(p->name, "olddirfd") ||
		    eq(p->name, "newdirfd")) && iv == AT_FDCWD) {
		ms_tl_put(o, "AT_FDCWD");
	} else if (p->type.tclass == MS_T_UINT) {
		ms_tl_u(o, p->type.size == 4 ? (uint32_t)v : v, 10);
	} else {
		ms_tl_i(o, iv);
	}
}

int ms_tl_ok(const struct ms_fn_meta *m, int64_t ret, int err)
{
	if (m->syscall)
		return !err && (ret >= 0 || ret < -4095 || (m->sys_flags & MS_SYSF_NOFAIL));
	if (m->ret.tclass >= MS_T_PTR)
		return ret != 0;
	if (m->fail_kind == MS_FK_RC)
		return ret == 0;
	return m->fail_kind != MS_FK_ERRNO ||
	       (m->ret.size == 4 ? (int64_t)(int32_t)ret : ret) != m->fail_value;
}

void ms_tl_call(struct ms_tline *o, const struct ms_fn_meta *m, const uint64_t *a, int filled)
{
	ms_tl_put(o, m->name);
	ms_tl_c(o, '(');
	for (unsigned i = 0; i < m->nparams; i++) {
		/* open's mode is only read with O_CREAT or O_TMPFILE: as strace */
		if (i > 0 && eq(m->params[i].name, "mode") &&
		    (eq(strip(m->name), "open") || eq(strip(m->name), "openat")) &&
		    !(a[i - 1] & O_CREAT) && (a[i - 1] & O_TMPFILE) != O_TMPFILE)
			break;
		if (i)
			ms_tl_put(o, ", ");
		put_arg(o, m, i, a[i], filled);
	}
	ms_tl_c(o, ')');
}

void ms_tl_result(struct ms_tline *o, const struct ms_fn_meta *m, int64_t ret, int err)
{
	int failed;

	if (m->ret.tclass == MS_T_VOID)
		return;
	if (m->syscall && !(m->sys_flags & MS_SYSF_NOFAIL) && !err && ret < 0 && ret >= -4095) {
		/* the kernel's -errno: what the caller's libc makes of it */
		err = (int)-ret;
		ret = -1;
	}
	ms_tl_put(o, " = ");
	if (m->ret.tclass >= MS_T_PTR) {
		ms_tl_ptr(o, (uint64_t)ret);
		failed = ret == 0 && m->fail_kind == MS_FK_ERRNO;
	} else {
		int64_t r = m->ret.size == 4 ? (int64_t)(int32_t)ret : ret;

		if (m->ret.tclass == MS_T_UINT)
			ms_tl_u(o, m->ret.size == 4 ? (uint32_t)ret : (uint64_t)ret, 10);
		else
			ms_tl_i(o, r);
		failed = m->fail_kind == MS_FK_ERRNO && r == m->fail_value;
		if (m->fail_kind == MS_FK_RC && r != 0 && ms_eai_name((int)r)) {
			ms_tl_c(o, ' ');
			ms_tl_put(o, ms_eai_name((int)r));
		}
	}
	/* a row whose failure sets no errno (getenv) shows none: it is stale */
	if (failed && err > 0 && m->fail_errno && ms_errno_name(err)) {
		ms_tl_c(o, ' ');
		ms_tl_put(o, ms_errno_name(err));
	}
}

void ms_tl_end(struct ms_tline *o, const char *mocked_by, const char *passed_by)
{
	if (mocked_by) {
		ms_tl_put(o, " (mocked: ");
		ms_tl_put(o, mocked_by);
		ms_tl_c(o, ')');
	}
	if (passed_by) {
		/* when() or probability= let this call by a statement */
		ms_tl_put(o, " (passed by: ");
		ms_tl_put(o, passed_by);
		ms_tl_c(o, ')');
	}
	o->buf[o->n++] = '\n';
}
