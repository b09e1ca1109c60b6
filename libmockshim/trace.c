/* SPDX-License-Identifier: MIT */
/*
 * --trace: one line per intercepted call, strace-like,
 *	1234 cat: open("/etc/hostname", O_RDONLY) = 3
 *	1234 cat: read(3, 0x7ffd..., 131072) = -1 EIO (mocked: -e#1:1)
 * formatted into a stack buffer and written with one write(2) (a whole
 * line at once), no stdio, no malloc; errno preserved.
 *
 * The arguments and results are formatted by decide/tracefmt.c, which
 * mockrun's syscall supervisor shares for its SYS_ lines.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "channel/channel.h"
#include "shim.h"
#include "catalog/catalog.h"
#include "decide/decide.h"

static int trace_fd = -1;
int ms_trace_timed;
static __thread uint64_t call_start __attribute__((tls_model("initial-exec")));

/*
 * The pid each line starts with, cached: read at open, refreshed by the
 * fork hook (ms_trace_forked).  A vfork child shares this memory (and
 * the vforking thread's TLS) with its parent, so it must not store here:
 * ms_trace_vfork marks the vforking thread, and a marked thread asks the
 * kernel on each line until it sees the parent's own pid again (the
 * parent, resumed: one system call after each vfork).  Other threads of
 * the parent, which run on meanwhile, keep the cache.
 */
static int32_t trace_pid;
static __thread int32_t vfork_parent __attribute__((tls_model("initial-exec")));

static void cache_prefix(int32_t pid);

static int32_t vfork_line_pid(void)
{
	int32_t p = (int32_t)syscall(SYS_getpid);

	if (p == vfork_parent)
		vfork_parent = 0;
	return p;
}

static inline int32_t line_pid(void)
{
	if (ms_likely(!vfork_parent))
		return __atomic_load_n(&trace_pid, __ATOMIC_RELAXED);
	return vfork_line_pid();
}

void ms_trace_forked(int32_t pid)
{
	__atomic_store_n(&trace_pid, pid, __ATOMIC_RELAXED);
	vfork_parent = 0;
	if (trace_fd >= 0)
		cache_prefix(pid);
}

void ms_trace_vfork(void)
{
	if (trace_fd >= 0)
		vfork_parent = __atomic_load_n(&trace_pid, __ATOMIC_RELAXED);
}

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

void ms_trace_open(const struct ms_chan_hdr *h, const char *pool, struct ms_state_hdr *st)
{
	if (!(h->flags & MS_CHAN_TRACE))
		return;
	ms_catalog_init();
	if (h->trace_path) {
		/* moved up out of the way, as the no-path one: a program
		 * that closes its descriptors from 3 (a daemon's loop,
		 * closefrom(3)) keeps its trace */
		int low = (int)syscall(SYS_openat, AT_FDCWD, pool + h->trace_path,
				       O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);

		trace_fd = low;
		/* a process with its own /proc (unshare -pf --mount-proc)
		 * or another uid cannot reach mockrun's /proc/PID/fd/N:
		 * every line of it is lost, which mockrun says, never
		 * silently */
		if (low < 0 && st)
			ms_trace_unopened(st, errno);
		if (low >= 0 && low < 500) {
			trace_fd = (int)syscall(SYS_fcntl, low, F_DUPFD_CLOEXEC, 500L);
			if (trace_fd >= 0)
				syscall(SYS_close, low);
			else
				trace_fd = low; /* no descriptor that high: keep the low one */
		}
	} else
		trace_fd = (int)syscall(SYS_fcntl, 2, F_DUPFD_CLOEXEC, 500L);
	if (trace_fd < 0)
		ms_diag("warning: --trace: cannot open the trace file", NULL);
	__atomic_store_n(&trace_pid, (int32_t)syscall(SYS_getpid), __ATOMIC_RELAXED);
	if (trace_fd >= 0)
		cache_prefix(trace_pid);
	ms_trace_timed = trace_fd >= 0 && (h->flags & MS_CHAN_TRACE_TIMED);
}

/*
 * "PID EXE: ", the same on every line of a process: built at open and
 * after fork (one thread then), copied in 8-byte words; a vfork child,
 * whose pid is not the cached one, builds its own.
 */
#define PREFIX_MAX 128
static char prefix[PREFIX_MAX + 8];
static size_t prefix_n;
static int32_t prefix_pid;

static void build_prefix(struct ms_tline *o, int32_t pid)
{
	ms_tl_i(o, pid);
	ms_tl_c(o, ' ');
	ms_tl_put(o, ms_exe_name());
	ms_tl_put(o, ": ");
}

static void cache_prefix(int32_t pid)
{
	struct ms_tline t;

	t.n = 0;
	build_prefix(&t, pid);
	__atomic_store_n(&prefix_pid, 0, __ATOMIC_RELAXED);
	if (t.n > PREFIX_MAX)
		return;
	memcpy(prefix, t.buf, t.n);
	prefix_n = t.n;
	__atomic_store_n(&prefix_pid, pid, __ATOMIC_RELEASE);
}

/* Inline, as the rest of a traced call's line before its pieces (the
 * timed fields, line_pid, trace_line, trace_write): ms_trace_plain is
 * one function but for the catalog's row and ms_tl_line. */
static inline __attribute__((always_inline)) void put_prefix(struct ms_tline *o)
{
	int32_t pid = line_pid();

	if (ms_likely(pid == __atomic_load_n(&prefix_pid, __ATOMIC_ACQUIRE))) {
		/* after at most the timed fields: MS_TLINE has room to spare;
		 * most prefixes fit in 32 bytes, copied whole */
		char *d = o->buf + o->n;

		__builtin_memcpy(d, prefix, 32);
		for (size_t i = 32; i < prefix_n; i += 8)
			__builtin_memcpy(d + i, prefix + i, 8);
		o->n += prefix_n;
		return;
	}
	build_prefix(o, pid);
}

/* "@START END TID PPID ", under --trace-format chrome: the driver turns
 * it into trace events */
static void put_timed(struct ms_tline *o)
{
	uint64_t end = now_ns();

	ms_tl_c(o, '@');
	ms_tl_u(o, call_start && call_start <= end ? call_start : end, 10);
	ms_tl_c(o, ' ');
	ms_tl_u(o, end, 10);
	ms_tl_c(o, ' ');
	ms_tl_i(o, (int64_t)syscall(SYS_gettid));
	ms_tl_c(o, ' ');
	ms_tl_i(o, (int64_t)syscall(SYS_getppid));
	ms_tl_c(o, ' ');
	call_start = 0;
}

/* The timed fields, if asked, and "PID EXE: " into o, from its start. */
static inline __attribute__((always_inline)) void put_head(struct ms_tline *o)
{
	o->n = 0;
	if (ms_unlikely(ms_trace_timed)) {
		put_timed(o);
		put_prefix(o);
		return;
	}
	/* apart: here the prefix's offset is the compiler's 0, not o->n read
	 * back after put_timed's call */
	put_prefix(o);
}

/* ---- declared functions: the types come from the declaration's text ---- */

/* A double without printf: the integer part and up to 6 decimals. */
static void put_double(struct ms_tline *o, uint64_t bits)
{
	double v;
	uint64_t ip, frac;
	char f[7];
	int n = 6;

	memcpy(&v, &bits, sizeof(v));
	if (v != v) {
		ms_tl_put(o, "nan");
		return;
	}
	if (v < 0) {
		ms_tl_c(o, '-');
		v = -v;
	}
	if (v >= 1e19) {
		ms_tl_put(o, v > 1.7e308 ? "inf" : "1e19+");
		return;
	}
	ip = (uint64_t)v;
	frac = (uint64_t)((v - (double)ip) * 1e6 + 0.5);
	if (frac >= 1000000) {
		ip++;
		frac -= 1000000;
	}
	ms_tl_u(o, ip, 10);
	for (int k = 5; k >= 0; k--, frac /= 10)
		f[k] = (char)('0' + frac % 10);
	while (n > 0 && f[n - 1] == '0')
		n--;
	if (n) {
		ms_tl_c(o, '.');
		for (int k = 0; k < n; k++)
			ms_tl_c(o, f[k]);
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
static void put_typed(struct ms_tline *o, const char *t, size_t n, uint64_t v, int ptr)
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
			ms_tl_str(o, v);
		else
			ms_tl_ptr(o, v);
		return;
	}
	if (has(t, n, "bool")) {
		ms_tl_put(o, (v & 0xff) ? "true" : "false");
		return;
	}
	if (bits < 64) {
		uint64_t mask = (1ull << bits) - 1;

		v &= mask;
		if (!uns && (v >> (bits - 1)))
			v |= ~mask;
	}
	if (uns)
		ms_tl_u(o, v, 10);
	else
		ms_tl_i(o, (int64_t)v);
}

/* One line, written whole; a line the descriptor did not take (a full
 * disk, a file size limit) is counted with its errno: with --trace-file,
 * mockrun's 125.  EBADF is the program closing the descriptor
 * (close_range(3, ~0U), closefrom): counted apart, a warning. */
static inline __attribute__((always_inline)) void trace_write(const struct ms_tline *o)
{
#ifdef MS_ARCH_SYSCALL3
	/* inline: syscall()'s variadic wrapper and its errno cost as much
	 * as the line's pieces; a failure is -errno here, -1 there */
	long r = ms_arch_syscall3(SYS_write, trace_fd, (long)(uintptr_t)o->buf, (long)o->n);
#else
	long r = syscall(SYS_write, trace_fd, o->buf, o->n);

	if (r < 0)
		r = -errno;
#endif

	if (ms_unlikely(r != (long)o->n) && ms_state()) {
		if (r == -EBADF)
			ms_trace_badf(ms_state(), trace_fd);
		else
			ms_trace_lost(ms_state(), r);
	}
}

void ms_hook_trace_decl(const struct ms_chan_dyn *d, const char *pool, const uint64_t *a,
			uint64_t ret, const char *mocked_by, const void *caller)
{
	const char *proto = pool + d->proto, *open = proto, *name = pool + d->name, *p;
	struct ms_tline o;
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
	put_prefix(&o);
	ms_tl_put(&o, name);
	ms_tl_c(&o, '(');
	p = *open ? open + 1 : open;
	for (unsigned i = 0; i < d->nparams; i++) {
		const char *e = p;

		while (*e && *e != ',' && *e != ')')
			e++;
		if (i)
			ms_tl_put(&o, ", ");
		if (d->dblmask & (1u << i))
			put_double(&o, a[i]);
		else
			put_typed(&o, p, (size_t)(e - p), a[i], (d->ptrmask >> i) & 1);
		p = *e ? e + 1 : e;
	}
	ms_tl_c(&o, ')');
	if (!(rn >= 4 && memcmp(proto, "void", 4) == 0 && count_c(proto, rn, '*') == 0)) {
		ms_tl_put(&o, " = ");
		if (d->ret == MS_DYN_RET_DOUBLE)
			put_double(&o, ret);
		else
			put_typed(&o, proto, rn, ret, count_c(proto, rn, '*') > 0);
	}
	{
		char site[96];

		ms_tl_end(&o, mocked_by, NULL, ms_site_str(caller, site, sizeof(site)) ? site : NULL);
	}
	trace_write(&o);
	errno = saved;
}

/*
 * An exec that succeeds never returns to be traced: its line is written
 * before, as strace does, ending in " ..."; a failed exec then gets its
 * own line with the result.
 */
void ms_hook_trace_exec(unsigned id, const uint64_t *a, const void *caller)
{
	const struct ms_fn_meta *m = ms_catalog_get(id);
	struct ms_tline o;
	int saved = errno;
	char site[96];

	if (trace_fd < 0 || !m)
		return;
	put_head(&o);
	ms_tl_call(&o, m, a, 0);
	ms_tl_put(&o, " ...");
	ms_tl_end(&o, NULL, NULL, ms_site_str(caller, site, sizeof(site)) ? site : NULL);
	trace_write(&o);
	errno = saved;
}

/* The line of a call; errno is the caller's to keep.  Inline in its two
 * callers: ms_trace_plain's is the hot one. */
static inline __attribute__((always_inline)) void trace_line(unsigned id, const uint64_t *a,
							     int64_t ret, int err,
							     const char *mocked_by,
							     const char *passed_by,
							     const void *caller)
{
	/* ms_trace_open parsed every row before it opened the trace */
	const struct ms_fn_meta *m = id < MS_FN_COUNT ? &ms_catalog_table[id] : NULL;
	struct ms_tline o;
	char site[96];

	if (trace_fd < 0 || !m)
		return;
	put_head(&o);
	/* a success's outputs are shown as values: a statement's, or what
	 * the real call of this process wrote */
	ms_tl_line(&o, m, a, ret, err, mocked_by ? 1 : MS_TL_WRITTEN);
	/* the site last on the line: mockrun's symbolizer appends to it */
	ms_tl_end(&o, mocked_by, passed_by, ms_site_str(caller, site, sizeof(site)) ? site : NULL);
	trace_write(&o);
}

void ms_hook_trace_call(unsigned id, const uint64_t *a, int64_t ret, int err,
			const char *mocked_by, const char *passed_by, const void *caller)
{
	int saved = errno;

	trace_line(id, a, ret, err, mocked_by, passed_by, caller);
	errno = saved;
}

int64_t ms_trace_plain(unsigned id, const uint64_t *a, int64_t ret, const void *caller)
{
	int err = errno;

	trace_line(id, a, ret, err, NULL, NULL, caller);
	errno = err;
	return ret;
}
