/* SPDX-License-Identifier: MIT */
/*
 * --trace: one line per intercepted call, strace-like,
 *	1234 cat: open("/etc/hostname", O_RDONLY) = 3
 *	1234 cat: read(3, 0x7ffd..., 131072) = -1 EIO (mocked: -e#1:1)
 * formatted into a stack buffer and written with one write(2) (a whole
 * line at once), no stdio, no malloc; errno preserved.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "channel.h"
#include "shim.h"
#include "spec.h"
#include "names.h"

#define LINE 1024
#define STR_CUT 64

struct out {
	char buf[LINE];
	size_t n;
};

static int trace_fd = -1;
int ms_trace_timed;
static __thread uint64_t call_start __attribute__((tls_model("initial-exec")));

/* CLOCK_MONOTONIC in ns by the system call: clock_gettime is in the
 * catalog, and the shim calls none of its functions */
static uint64_t now_ns(void)
{
	struct timespec ts;

	if (syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void ms_trace_start(void)
{
	call_start = now_ns();
}

static void put(struct out *o, const char *s)
{
	while (*s && o->n < LINE - 2)
		o->buf[o->n++] = *s++;
}

static void put_c(struct out *o, char c)
{
	if (o->n < LINE - 2)
		o->buf[o->n++] = c;
}

static void put_u(struct out *o, uint64_t v, unsigned base)
{
	char t[24];
	int k = 0;

	do
		t[k++] = "0123456789abcdef"[v % base];
	while ((v /= base) && k < 24);
	while (k)
		put_c(o, t[--k]);
}

static void put_i(struct out *o, int64_t v)
{
	if (v < 0) {
		put_c(o, '-');
		put_u(o, (uint64_t)0 - (uint64_t)v, 10);
	} else {
		put_u(o, (uint64_t)v, 10);
	}
}

static void put_ptr(struct out *o, uint64_t v)
{
	if (!v) {
		put(o, "NULL");
		return;
	}
	put(o, "0x");
	put_u(o, v, 16);
}

/* A string argument, read fault-safely, quoted, cut at STR_CUT bytes. */
static void put_str(struct out *o, uint64_t v)
{
	char s[STR_CUT + 1];
	size_t n;

	if (!v) {
		put(o, "NULL");
		return;
	}
	n = ms_read_user(s, (const void *)(uintptr_t)v, sizeof(s));
	put_c(o, '"');
	for (size_t i = 0; i < n && i < STR_CUT && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\') {
			put_c(o, '\\');
			put_c(o, (char)c);
		} else if (c == '\n') {
			put(o, "\\n");
		} else if (c < 0x20 || c >= 0x7f) {
			put(o, "\\x");
			put_c(o, "0123456789abcdef"[c >> 4]);
			put_c(o, "0123456789abcdef"[c & 15]);
		} else {
			put_c(o, (char)c);
		}
	}
	put_c(o, '"');
	if (n > STR_CUT && memchr(s, 0, STR_CUT) == NULL)
		put(o, "...");
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

static void put_oflags(struct out *o, int64_t v)
{
	int acc = (int)v & O_ACCMODE, rest = (int)v & ~O_ACCMODE;

	put(o, acc == O_WRONLY ? "O_WRONLY" : acc == O_RDWR ? "O_RDWR" : "O_RDONLY");
	for (size_t i = 0; i < sizeof(oflags) / sizeof(oflags[0]); i++) {
		if ((rest & oflags[i].bit) == oflags[i].bit && oflags[i].bit) {
			put_c(o, '|');
			put(o, oflags[i].name);
			rest &= ~oflags[i].bit;
		}
	}
	if (rest) {
		put(o, "|0x");
		put_u(o, (uint32_t)rest, 16);
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
static void put_flags(struct out *o, int64_t v, const struct flag *t, size_t n, int first)
{
	uint64_t rest = (uint64_t)v;

	for (size_t i = 0; i < n; i++) {
		if (t[i].bit && (rest & (uint64_t)t[i].bit) == (uint64_t)t[i].bit) {
			if (!first)
				put_c(o, '|');
			put(o, t[i].name);
			rest &= ~(uint64_t)t[i].bit;
			first = 0;
		}
	}
	if (rest || first) {
		if (!first)
			put_c(o, '|');
		if (rest) {
			put(o, "0x");
			put_u(o, rest, 16);
		} else {
			put_c(o, '0');
		}
	}
}

/* One name of a table, or the number. */
static int put_name(struct out *o, int64_t v, const struct flag *t, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (t[i].bit == v) {
			put(o, t[i].name);
			return 1;
		}
	}
	put_i(o, v);
	return 0;
}

/* An exec's argv: ["sh", "-c", "..."], bounded. */
static void put_argv(struct out *o, uint64_t v)
{
	uint64_t p;

	if (!v) {
		put(o, "NULL");
		return;
	}
	put_c(o, '[');
	for (unsigned i = 0;; i++) {
		if (ms_read_user(&p, (const void *)(uintptr_t)(v + 8 * i), 8) != 8) {
			put(o, "?");
			break;
		}
		if (!p)
			break;
		if (i == 8) {
			put(o, ", ...");
			break;
		}
		if (i)
			put(o, ", ");
		put_str(o, p);
	}
	put_c(o, ']');
}

/* A struct the call reads (const) or filled (after a success): its
 * values, as strace shows them; only the catalog's time and stat types. */
static int put_struct(struct out *o, const struct ms_param *p, uint64_t v)
{
	const void *src = (const void *)(uintptr_t)v;

	if (strcmp(p->type.strct, "timespec") == 0) {
		struct timespec ts;

		if (ms_read_user(&ts, src, sizeof(ts)) != sizeof(ts))
			return 0;
		put(o, "{tv_sec=");
		put_i(o, ts.tv_sec);
		put(o, ", tv_nsec=");
		put_i(o, ts.tv_nsec);
		put_c(o, '}');
		return 1;
	}
	if (strcmp(p->type.strct, "timeval") == 0) {
		struct timeval tv;

		if (ms_read_user(&tv, src, sizeof(tv)) != sizeof(tv))
			return 0;
		put(o, "{tv_sec=");
		put_i(o, tv.tv_sec);
		put(o, ", tv_usec=");
		put_i(o, tv.tv_usec);
		put_c(o, '}');
		return 1;
	}
	if (strcmp(p->type.strct, "stat") == 0) {
		struct stat st;

		if (ms_read_user(&st, src, sizeof(st)) != sizeof(st))
			return 0;
		put(o, "{st_mode=0");
		put_u(o, (uint32_t)st.st_mode, 8);
		put(o, ", st_size=");
		put_i(o, st.st_size);
		put(o, ", ...}");
		return 1;
	}
	if (strstr(p->type.text, "statx")) {
		struct statx sx;

		if (ms_read_user(&sx, src, sizeof(sx)) != sizeof(sx))
			return 0;
		put(o, "{stx_mode=0");
		put_u(o, sx.stx_mode, 8);
		put(o, ", stx_size=");
		put_u(o, sx.stx_size, 10);
		put(o, ", ...}");
		return 1;
	}
	return 0;
}

static int is_fn(const struct ms_fn_meta *m, const char *name)
{
	return strcmp(m->name, name) == 0;
}

static void put_arg(struct out *o, const struct ms_fn_meta *m, unsigned i, uint64_t v, int filled)
{
	const struct ms_param *p = &m->params[i];
	int64_t iv = p->type.size == 4 ? (int64_t)(int32_t)(uint32_t)v : (int64_t)v;

	if (p->type.tclass == MS_T_STR) {
		put_str(o, v);
	} else if (p->type.tclass == MS_T_PTR && strcmp(p->name, "argv") == 0 &&
		   strncmp(m->name, "exec", 4) == 0) {
		put_argv(o, v);
	} else if (p->type.tclass == MS_T_PTR) {
		/* a struct read or filled: its values; else the pointer */
		if (!v || !(filled || strncmp(p->type.text, "const", 5) == 0) || !put_struct(o, p, v))
			put_ptr(o, v);
	} else if ((strcmp(p->name, "flags") == 0 || strcmp(p->name, "flag") == 0) &&
		   (is_fn(m, "statx") || is_fn(m, "fstatat") || is_fn(m, "faccessat") ||
		    is_fn(m, "unlinkat") || is_fn(m, "linkat"))) {
		if (is_fn(m, "unlinkat") && (iv & AT_REMOVEDIR)) {
			put(o, "AT_REMOVEDIR");
			if (iv & ~AT_REMOVEDIR) {
				put_c(o, '|');
				put_flags(o, iv & ~AT_REMOVEDIR, at_flags, N_(at_flags), 1);
			}
		} else if (is_fn(m, "faccessat") && (iv & AT_EACCESS)) {
			put(o, "AT_EACCESS");
			if (iv & ~AT_EACCESS) {
				put_c(o, '|');
				put_flags(o, iv & ~AT_EACCESS, at_flags, N_(at_flags), 1);
			}
		} else {
			put_flags(o, iv, at_flags, N_(at_flags), 1);
		}
	} else if (strcmp(p->name, "mask") == 0 && is_fn(m, "statx")) {
		put_flags(o, (int64_t)(uint32_t)v, statx_mask, N_(statx_mask), 1);
	} else if (strcmp(p->name, "flags") == 0 &&
		   (strncmp(m->name, "send", 4) == 0 || strncmp(m->name, "recv", 4) == 0)) {
		put_flags(o, iv, msg_flags, N_(msg_flags), 1);
	} else if (strcmp(p->name, "clockid") == 0 || strcmp(p->name, "clk_id") == 0) {
		put_name(o, iv, clocks, N_(clocks));
	} else if (strcmp(p->name, "domain") == 0 && (is_fn(m, "socket") || is_fn(m, "socketpair"))) {
		put_name(o, iv, families, N_(families));
	} else if (strcmp(p->name, "type") == 0 && (is_fn(m, "socket") || is_fn(m, "socketpair"))) {
		put_name(o, iv & 0xf, sock_types, N_(sock_types));
		if (iv & ~0xf) {
			put_c(o, '|');
			put_flags(o, iv & ~0xf, sock_flags, N_(sock_flags), 1);
		}
	} else if (strcmp(p->name, "flags") == 0 &&
		   (strcmp(m->name, "open") == 0 || strcmp(m->name, "openat") == 0)) {
		put_oflags(o, iv);
	} else if (strcmp(p->type.text, "mode_t") == 0) {
		put_c(o, '0');
		put_u(o, (uint32_t)v, 8);
	} else if ((strcmp(p->name, "dirfd") == 0 || strcmp(p->name, "olddirfd") == 0 ||
		    strcmp(p->name, "newdirfd") == 0) && iv == AT_FDCWD) {
		put(o, "AT_FDCWD");
	} else if (p->type.tclass == MS_T_UINT) {
		put_u(o, p->type.size == 4 ? (uint32_t)v : v, 10);
	} else {
		put_i(o, iv);
	}
}

void ms_trace_open(const struct ms_chan_hdr *h, const char *pool)
{
	if (!(h->flags & MS_CHAN_TRACE))
		return;
	ms_catalog_init();
	if (h->trace_path)
		trace_fd = (int)syscall(SYS_openat, AT_FDCWD, pool + h->trace_path,
					O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	else
		trace_fd = (int)syscall(SYS_fcntl, 2, F_DUPFD_CLOEXEC, 500L);
	if (trace_fd < 0)
		ms_diag("warning: --trace: cannot open the trace file", NULL);
	ms_trace_timed = trace_fd >= 0 && (h->flags & MS_CHAN_TRACE_TIMED);
}

/* "PID EXE: FN(ARGS)" into o; filled: the call succeeded, its outputs
 * are shown as values. */
static void put_call(struct out *o, const struct ms_fn_meta *m, const uint64_t *a, int filled)
{
	o->n = 0;
	if (ms_trace_timed) {
		/* "@START END TID PPID ": the driver turns it into trace events */
		uint64_t end = now_ns();

		put_c(o, '@');
		put_u(o, call_start && call_start <= end ? call_start : end, 10);
		put_c(o, ' ');
		put_u(o, end, 10);
		put_c(o, ' ');
		put_i(o, (int64_t)syscall(SYS_gettid));
		put_c(o, ' ');
		put_i(o, (int64_t)syscall(SYS_getppid));
		put_c(o, ' ');
		call_start = 0;
	}
	put_i(o, (int64_t)syscall(SYS_getpid));
	put_c(o, ' ');
	put(o, ms_exe_name());
	put(o, ": ");
	put(o, m->name);
	put_c(o, '(');
	for (unsigned i = 0; i < m->nparams; i++) {
		/* open's mode is only read with O_CREAT or O_TMPFILE: as strace */
		if (strcmp(m->params[i].name, "mode") == 0 && i > 0 &&
		    (strcmp(m->name, "open") == 0 || strcmp(m->name, "openat") == 0) &&
		    !(a[i - 1] & O_CREAT) && (a[i - 1] & O_TMPFILE) != O_TMPFILE)
			break;
		if (i)
			put(o, ", ");
		put_arg(o, m, i, a[i], filled);
	}
	put_c(o, ')');
}

/* ---- declared functions: the types come from the declaration's text ---- */

/* A double without printf: the integer part and up to 6 decimals. */
static void put_double(struct out *o, uint64_t bits)
{
	double v;
	uint64_t ip, frac;
	char f[7];
	int n = 6;

	memcpy(&v, &bits, sizeof(v));
	if (v != v) {
		put(o, "nan");
		return;
	}
	if (v < 0) {
		put_c(o, '-');
		v = -v;
	}
	if (v >= 1e19) {
		put(o, v > 1.7e308 ? "inf" : "1e19+");
		return;
	}
	ip = (uint64_t)v;
	frac = (uint64_t)((v - (double)ip) * 1e6 + 0.5);
	if (frac >= 1000000) {
		ip++;
		frac -= 1000000;
	}
	put_u(o, ip, 10);
	for (int k = 5; k >= 0; k--, frac /= 10)
		f[k] = (char)('0' + frac % 10);
	while (n > 0 && f[n - 1] == '0')
		n--;
	if (n) {
		put_c(o, '.');
		for (int k = 0; k < n; k++)
			put_c(o, f[k]);
	}
}

static int has(const char *s, size_t n, const char *w)
{
	size_t k = strlen(w);

	for (size_t i = 0; i + k <= n; i++)
		if (memcmp(s + i, w, k) == 0)
			return 1;
	return 0;
}

static size_t count_c(const char *s, size_t n, char c)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		k += s[i] == c;
	return k;
}

/* A value of the C type written t[0..n): a string, a pointer, or an
 * integer of the type's width (the register's upper bits are not the
 * value's). */
static void put_typed(struct out *o, const char *t, size_t n, uint64_t v, int ptr)
{
	int uns = has(t, n, "unsigned") || has(t, n, "uint") || has(t, n, "size_t");
	unsigned bits = has(t, n, "long") || has(t, n, "size_t") || has(t, n, "64") ||
				has(t, n, "intptr")
			? 64
			: has(t, n, "short") || has(t, n, "16") ? 16
			: has(t, n, "char") || has(t, n, "bool") || has(t, n, "8_t") ? 8
										  : 32;

	if (ptr) {
		if (has(t, n, "char") && count_c(t, n, '*') == 1)
			put_str(o, v);
		else
			put_ptr(o, v);
		return;
	}
	if (has(t, n, "bool")) {
		put(o, (v & 0xff) ? "true" : "false");
		return;
	}
	if (bits < 64) {
		uint64_t mask = (1ull << bits) - 1;

		v &= mask;
		if (!uns && (v >> (bits - 1)))
			v |= ~mask;
	}
	if (uns)
		put_u(o, v, 10);
	else
		put_i(o, (int64_t)v);
}

/* One line, written whole; a line the descriptor did not take (the
 * program closed it: close_range, a daemon's loop) is counted for the
 * report. */
static void trace_write(const struct out *o)
{
	if (syscall(SYS_write, trace_fd, o->buf, o->n) != (long)o->n && ms_state())
		__atomic_fetch_add(&ms_state()->trace_lost, 1, __ATOMIC_RELAXED);
}

void ms_trace_decl(const struct ms_chan_dyn *d, const char *pool, const uint64_t *a,
		   uint64_t ret, const char *mocked_by)
{
	const char *proto = pool + d->proto, *open = proto, *name = pool + d->name, *p;
	struct out o;
	int saved = errno;
	size_t rn;

	if (trace_fd < 0)
		return;
	while (*open && *open != '(')
		open++;
	/* the return type: the text before the name */
	{
		size_t k = (size_t)(open - proto);

		while (k > 0 && proto[k - 1] == ' ')
			k--;
		while (k > 0 && proto[k - 1] != ' ' && proto[k - 1] != '*')
			k--; /* k: the name's start */
		rn = k;
	}
	o.n = 0;
	put_i(&o, (int64_t)syscall(SYS_getpid));
	put_c(&o, ' ');
	put(&o, ms_exe_name());
	put(&o, ": ");
	put(&o, name);
	put_c(&o, '(');
	p = *open ? open + 1 : open;
	for (unsigned i = 0; i < d->nparams; i++) {
		const char *e = p;

		while (*e && *e != ',' && *e != ')')
			e++;
		if (i)
			put(&o, ", ");
		if (d->dblmask & (1u << i))
			put_double(&o, a[i]);
		else
			put_typed(&o, p, (size_t)(e - p), a[i], (d->ptrmask >> i) & 1);
		p = *e ? e + 1 : e;
	}
	put_c(&o, ')');
	if (!(rn >= 4 && memcmp(proto, "void", 4) == 0 && count_c(proto, rn, '*') == 0)) {
		put(&o, " = ");
		if (d->ret == MS_DYN_RET_DOUBLE)
			put_double(&o, ret);
		else
			put_typed(&o, proto, rn, ret, count_c(proto, rn, '*') > 0);
	}
	if (mocked_by) {
		put(&o, " (mocked: ");
		put(&o, mocked_by);
		put_c(&o, ')');
	}
	o.buf[o.n++] = '\n';
	trace_write(&o);
	errno = saved;
}

/*
 * An exec that succeeds never returns to be traced: its line is written
 * before, as strace does, ending in " ..."; a failed exec then gets its
 * own line with the result.
 */
void ms_trace_exec(unsigned id, const uint64_t *a)
{
	const struct ms_fn_meta *m = ms_catalog_get(id);
	struct out o;
	int saved = errno;

	if (trace_fd < 0 || !m)
		return;
	put_call(&o, m, a, 0);
	put(&o, " ...");
	o.buf[o.n++] = '\n';
	trace_write(&o);
	errno = saved;
}

void ms_trace_call(unsigned id, const uint64_t *a, int64_t ret, int err, const char *mocked_by,
		   const char *passed_by)
{
	const struct ms_fn_meta *m = ms_catalog_get(id);
	struct out o;
	int saved = errno, ok;

	if (trace_fd < 0 || !m)
		return;
	if (m->ret.tclass >= MS_T_PTR)
		ok = ret != 0;
	else if (m->fail_kind == MS_FK_RC)
		ok = ret == 0;
	else
		ok = m->fail_kind != MS_FK_ERRNO ||
		     (m->ret.size == 4 ? (int64_t)(int32_t)ret : ret) != m->fail_value;
	put_call(&o, m, a, ok);
	if (m->ret.tclass != MS_T_VOID) {
		int failed;

		put(&o, " = ");
		if (m->ret.tclass >= MS_T_PTR) {
			put_ptr(&o, (uint64_t)ret);
			failed = ret == 0 && m->fail_kind == MS_FK_ERRNO;
		} else {
			int64_t r = m->ret.size == 4 ? (int64_t)(int32_t)ret : ret;

			if (m->ret.tclass == MS_T_UINT)
				put_u(&o, m->ret.size == 4 ? (uint32_t)ret : (uint64_t)ret, 10);
			else
				put_i(&o, r);
			failed = m->fail_kind == MS_FK_ERRNO && r == m->fail_value;
			if (m->fail_kind == MS_FK_RC && r != 0 && ms_eai_name((int)r)) {
				put_c(&o, ' ');
				put(&o, ms_eai_name((int)r));
			}
		}
		/* a row whose failure sets no errno (getenv) shows none: it is stale */
		if (failed && err > 0 && m->fail_errno && ms_errno_name(err)) {
			put_c(&o, ' ');
			put(&o, ms_errno_name(err));
		}
	}
	if (mocked_by) {
		put(&o, " (mocked: ");
		put(&o, mocked_by);
		put_c(&o, ')');
	}
	if (passed_by) {
		/* when() or probability= let this call by a statement */
		put(&o, " (passed by: ");
		put(&o, passed_by);
		put_c(&o, ')');
	}
	o.buf[o.n++] = '\n';
	trace_write(&o);
	errno = saved;
}
