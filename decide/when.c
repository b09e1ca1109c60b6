/* SPDX-License-Identifier: MIT */
/*
 * Whether a statement is for a call (when.h): in= and probability=
 * here, from= by the tier's hook, and when(COND, ...): whether a call's
 * arguments satisfy a statement's conditions.  A string is read fault-safely (ms_read_user), an fd's
 * (or a FILE *'s, through its fd) path from /proc/self/fd/N (/proc/PID/fd/N for a supervised process's
 * system call), a socket address formatted the way the
 * language writes one ("10.0.0.1:443", "[::1]:53", a unix socket's path).
 *
 * Runs on the armed path, perhaps in a signal handler: raw system calls,
 * the stack and a process-wide cache of fd paths whose slots a seqlock
 * guards (a reader that meets a slot being written reads the path itself).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <stddef.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "catalog/catalog.h"
#include "channel/channel.h"
#include "events.h"
#include "usermem.h"
#include "when.h"

static int64_t cnorm(uint64_t v, const struct ms_cond *c)
{
	unsigned sh;

	if (c->psize == 8)
		return (int64_t)v;
	sh = 64 - 8u * c->psize;
	v <<= sh;
	return c->psigned ? (int64_t)v >> sh : (int64_t)(v >> sh);
}

/* ---- the path an fd refers to ---- */

/*
 * fd's path into buf (MS_STRING_BOUND + 1 bytes), as /proc/self/fd/N
 * names it now: read at every call, since a file can be renamed or
 * unlinked under its fd, and anonymous inodes share one inode.
 */
static int put_digits(char *p, unsigned v)
{
	char digits[12];
	int k = 0, d = 0;

	do
		digits[d++] = (char)('0' + v % 10);
	while ((v /= 10) && d < 11);
	while (d)
		p[k++] = digits[--d];
	return k;
}

static int fd_path(int fd, char *buf)
{
	char proc[48] = "/proc/self/fd/", digits[12];
	unsigned v = (unsigned)fd;
	int k = 14, d = 0;
	long n;

	if (fd < 0)
		return -1;
	if (ms_d.remote) {
		ms_d.touched++;
		k = 6 + put_digits(proc + 6, (unsigned)ms_d.remote);
		memcpy(proc + k, "/fd/", 4);
		k += 4;
	}
	do
		digits[d++] = (char)('0' + v % 10);
	while ((v /= 10) && d < 11);
	while (d)
		proc[k++] = digits[--d];
	proc[k] = '\0';
	n = syscall(SYS_readlinkat, AT_FDCWD, proc, buf, (long)MS_STRING_BOUND);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

/*
 * A FILE *'s path, through the fd glibc keeps in it (_fileno), read as
 * the caller's memory: no stdio function runs (fileno() may be
 * interposed, and the supervisor's side has no FILE of the program), so
 * a stream being closed elsewhere reads as a path or as nothing.
 */
static int file_path(const void *stream, char *buf)
{
#ifdef __GLIBC__
	int fd;

	if (ms_read_user(&fd, (const char *)stream + offsetof(FILE, _fileno), sizeof(fd)) !=
	    sizeof(fd))
		return -1;
	return fd_path(fd, buf);
#else
	(void)stream;
	(void)buf;
	return -1;
#endif
}

/* ---- a socket address as the language writes it ---- */

static size_t put_dec(char *p, unsigned v)
{
	char d[12];
	size_t n = 0, k = 0;

	do
		d[n++] = (char)('0' + v % 10);
	while ((v /= 10) && n < sizeof(d));
	while (n)
		p[k++] = d[--n];
	return k;
}

static int addr_text(const void *ptr, char *buf, size_t cap)
{
	struct sockaddr_storage ss;
	size_t got = ms_read_user(&ss, ptr, sizeof(ss)), n = 0;

	if (got < sizeof(sa_family_t))
		return -1;
	if (ss.ss_family == AF_UNIX && got <= offsetof(struct sockaddr_un, sun_path))
		return -1;
	if (ss.ss_family == AF_INET && got >= sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *in = (const void *)&ss;
		const unsigned char *b = (const unsigned char *)&in->sin_addr;

		for (int i = 0; i < 4; i++) {
			n += put_dec(buf + n, b[i]);
			buf[n++] = i < 3 ? '.' : ':';
		}
		n += put_dec(buf + n, ntohs(in->sin_port));
	} else if (ss.ss_family == AF_INET6 && got >= sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6 *in6 = (const void *)&ss;

		buf[n++] = '[';
		if (!inet_ntop(AF_INET6, &in6->sin6_addr, buf + n, (socklen_t)(cap - n - 8)))
			return -1;
		n += strlen(buf + n);
		buf[n++] = ']';
		buf[n++] = ':';
		n += put_dec(buf + n, ntohs(in6->sin6_port));
	} else if (ss.ss_family == AF_UNIX) {
		const struct sockaddr_un *un = (const void *)&ss;
		size_t k = 0;

		size_t have = got - offsetof(struct sockaddr_un, sun_path);

		memcpy(buf, "unix:", 5);
		n = 5;
		/* an abstract socket's name starts with a NUL: shown as '@' */
		if (have && !un->sun_path[0]) {
			buf[n++] = '@';
			k = 1;
		}
		while (k < have && k < sizeof(un->sun_path) && un->sun_path[k] && n < cap - 1)
			buf[n++] = un->sun_path[k++];
	} else {
		return -1;
	}
	buf[n] = '\0';
	return 0;
}

/* ---- conditions ---- */

/* The text a string, fd or address condition looks at, into buf
 * (MS_STRING_BOUND + 1 bytes): 1, or 0 for a NULL string, -1 when it
 * cannot be read (the condition does not hold). */
static int cond_text(const struct ms_cond *c, uint64_t arg, char *buf)
{
	size_t got;

	switch (c->arg) {
	case MS_CA_FD:
		return fd_path((int)(int32_t)arg, buf) == 0 ? 1 : -1;
	case MS_CA_FILE:
		return arg && file_path((const void *)(uintptr_t)arg, buf) == 0 ? 1 : -1;
	case MS_CA_ADDR:
		if (!arg)
			return 0;
		return addr_text((const void *)(uintptr_t)arg, buf, MS_STRING_BOUND) == 0 ? 1 : -1;
	default:
		if (!arg)
			return 0;
		/* to the end of its page first: most strings end there */
		got = 0;
		for (uintptr_t p = (uintptr_t)arg; got < MS_STRING_BOUND;) {
			size_t chunk = 4096 - (p & 4095), k;

			if (chunk > MS_STRING_BOUND - got)
				chunk = MS_STRING_BOUND - got;
			k = ms_read_user(buf + got, (const void *)p, chunk);
			if (memchr(buf + got, '\0', k))
				return 1;
			got += k;
			p += k;
			if (k < chunk)
				break;
		}
		buf[got] = '\0';
		return 1;
	}
}

/* glob c against s, by its shape when it has a simple one */
static int glob_match(const struct ms_cond *c, const char *pat, const char *s)
{
	size_t n;

	switch (c->gform) {
	case MS_GF_EXACT:
		return strcmp(pat, s) == 0;
	case MS_GF_PREFIX:
		return strncmp(pat, s, c->glen) == 0;
	case MS_GF_SUFFIX:
		n = strlen(s);
		return n >= c->glen && memcmp(s + n - c->glen, pat + 1, c->glen) == 0;
	case MS_GF_INFIX:
		return memmem(s, strlen(s), pat + 1, c->glen) != NULL;
	default:
		return ms_glob_match(pat, s);
	}
}

static int text_holds(const struct ms_chan_hdr *h, const struct ms_cond *c, const uint64_t *a,
		      char *buf);

/* An integer condition, or -1 for one that needs the argument's text. */
static int int_holds(const struct ms_chan_hdr *h, const struct ms_cond *c, const uint64_t *a)
{
	const char *pool = ms_chan_at(h, h->pool_off);
	int64_t v = cnorm(a[c->param], c);

	switch (c->op) {
	case MS_C_EQ:
		return v == c->value;
	case MS_C_NE:
		return v != c->value;
	case MS_C_LT:
		return c->psigned ? v < c->value : (uint64_t)v < (uint64_t)c->value;
	case MS_C_LE:
		return c->psigned ? v <= c->value : (uint64_t)v <= (uint64_t)c->value;
	case MS_C_GT:
		return c->psigned ? v > c->value : (uint64_t)v > (uint64_t)c->value;
	case MS_C_GE:
		return c->psigned ? v >= c->value : (uint64_t)v >= (uint64_t)c->value;
	case MS_C_ANYBITS:
		return (v & c->value) != 0;
	case MS_C_NOBITS:
		return (v & c->value) == 0;
	case MS_C_IN: {
		const char *set = pool + c->set;

		for (uint32_t i = 0; i < c->nset; i++) {
			int64_t s;

			memcpy(&s, set + 8 * i, sizeof(s));
			if (cnorm((uint64_t)s, c) == v)
				return 1;
		}
		return 0;
	}
	case MS_C_ISNULL:
		return a[c->param] == 0;
	case MS_C_NOTNULL:
		return a[c->param] != 0;
	default:
		return -1;
	}
}

static int text_holds(const struct ms_chan_hdr *h, const struct ms_cond *c, const uint64_t *a,
		      char *buf)
{
	const char *pool = ms_chan_at(h, h->pool_off);
	/* a NULL string never matches ~ (nor an unreadable one), and is not
	 * equal to any string */
	int t = cond_text(c, a[c->param], buf);

	switch (c->op) {
	case MS_C_GLOB:
		return t == 1 && glob_match(c, pool + c->str, buf);
	case MS_C_NOGLOB:
		return t == 1 && !glob_match(c, pool + c->str, buf);
	case MS_C_STREQ:
		return t == 1 && strcmp(pool + c->str, buf) == 0;
	case MS_C_STRNE:
		return t != 1 || strcmp(pool + c->str, buf) != 0;
	default:
		return 0;
	}
}

/* The text conditions, with the buffer they need (a frame of its own:
 * integer conditions run on a small stack, a signal handler's). */
static __attribute__((noinline)) int texts_hold(const struct ms_chan_hdr *h,
						const struct ms_cond *c, uint32_t n,
						const uint64_t *a, struct ms_passby *why)
{
	char buf[MS_STRING_BOUND + 1];

	for (uint32_t i = 0; i < n; i++) {
		if (c[i].op < MS_C_GLOB || c[i].op > MS_C_STRNE)
			continue; /* an integer one: tested already */
		buf[0] = '\0';
		if (text_holds(h, &c[i], a, buf))
			continue;
		if (why) {
			size_t k = strlen(buf);

			why->param = c[i].param;
			why->value = (int64_t)a[c[i].param];
			why->is_text = 1;
			if (k >= sizeof(why->text))
				k = sizeof(why->text) - 1;
			memcpy(why->text, buf, k);
			why->text[k] = '\0';
		}
		return 0;
	}
	return 1;
}

/* at=: whether the call's site is in one of c's ranges; the site is
 * found once per call (site->obj[0] set) by the tier's hook. */
struct call_site {
	char obj[MS_EV_CALLER];
	uint64_t off;
	int known;	/* 0: not asked yet, 1: found, -1: none */
};

static int site_holds(const struct ms_chan_hdr *h, const struct ms_cond *c, const void *caller,
		      struct call_site *cs)
{
	const char *pool = ms_chan_at(h, h->pool_off);

	if (!cs->known)
		cs->known = ms_hook_site(caller, cs->obj, sizeof(cs->obj), &cs->off) ? -1 : 1;
	if (cs->known < 0)
		return 0;
	for (uint32_t j = 0; j < c->nset; j++) {
		struct ms_site_rng g;

		memcpy(&g, pool + c->set + j * sizeof(g), sizeof(g));
		if (cs->off >= g.lo && cs->off <= g.hi && strcmp(pool + g.object, cs->obj) == 0)
			return 1;
	}
	return 0;
}

/* "OBJ+0xHEX" into text (MS_EV_TEXT bytes), as the trace writes it. */
static void site_text(const struct call_site *cs, char *text)
{
	char hex[17];
	size_t k = 0, n = 0;
	uint64_t v = cs->off;

	if (cs->known < 0) {
		ms_copy_str(text, MS_EV_TEXT, "?");
		return;
	}
	do
		hex[n++] = "0123456789abcdef"[v & 15];
	while ((v >>= 4) && n < 16);
	ms_copy_str(text, MS_EV_TEXT - 20, cs->obj);
	k = strlen(text);
	text[k++] = '+';
	text[k++] = '0';
	text[k++] = 'x';
	while (n)
		text[k++] = hex[--n];
	text[k] = '\0';
}

int ms_conds_hold(const struct ms_chan_hdr *h, const struct ms_stmt *s, const uint64_t *a,
		  const void *caller, struct ms_passby *why)
{
	const struct ms_cond *c = (const struct ms_cond *)ms_chan_at(h, h->conds_off) + s->cond_first;
	uint32_t n = s->ncond;
	int saved = errno, texts = 0, r = 1;
	struct call_site cs;

	cs.known = 0;
	for (uint32_t i = 0; i < n; i++) {
		int k;

		if (c[i].arg == MS_CA_SITE) {
			if (site_holds(h, &c[i], caller, &cs))
				continue;
			if (why) {
				why->param = MS_SITE_PARAM;
				why->value = 0;
				why->is_text = 1;
				site_text(&cs, why->text);
			}
			errno = saved;
			return 0;
		}
		k = int_holds(h, &c[i], a);

		if (k < 0) {
			texts = 1;
			continue;
		}
		if (!k) {
			if (why) {
				why->param = c[i].param;
				why->value = (int64_t)a[c[i].param];
				why->is_text = 0;
				why->text[0] = '\0';
			}
			return 0;
		}
	}
	if (texts)
		r = texts_hold(h, c, n, a, why);
	errno = saved;
	return r;
}

/* ---- the selection: in=, when() and probability= ---- */

/* in=: a glob matches the executable's basename or argv[0]'s (a program
 * started as "python3" whose executable is python3.11, a busybox applet). */
int ms_in_names(const char *glob)
{
	return ms_glob_match(glob, ms_d.exe_name) ||
	       (ms_d.arg0_name[0] && ms_glob_match(glob, ms_d.arg0_name));
}

/* in= is decided once per process: a function whose statements all name
 * other programs stays unarmed here, and costs nothing.  The answers are
 * kept (the executable does not change until the next exec) in a small
 * table of single words, (glob << 32) | match, which threads and signal
 * handlers read and write without tearing. */
static uint64_t here_cache[64];

int ms_in_here(uint32_t in_glob)
{
	uint64_t e;
	int match;

	if (!in_glob)
		return 1;
	e = __atomic_load_n(&here_cache[in_glob % 64], __ATOMIC_RELAXED);
	if ((uint32_t)(e >> 32) == in_glob)
		return (int)(e & 1);
	match = ms_in_names(ms_d.pool + in_glob);
	__atomic_store_n(&here_cache[in_glob % 64], (uint64_t)in_glob << 32 | (uint64_t)match,
			 __ATOMIC_RELAXED);
	return match;
}

void ms_in_here_reset(void)
{
	memset(here_cache, 0, sizeof(here_cache));
}

/* The last rule this thread's call passed by, for --trace (when.h). */
__thread uint64_t ms_t_passby;

/*
 * when(): whether statement i of a table (0 rules, 1 expectations,
 * 2 call order) is for this call.  One it passes by counts the call,
 * and logs the first few with what it saw (the report lists them for a
 * statement no call matched: a typo shows).
 */
int ms_dec_passes(unsigned table, uint32_t i, unsigned id, const struct ms_stmt *s,
		  const uint64_t *a, const void *caller)
{
	struct ms_passby why;
	uint32_t *passed;
	struct ms_event *e;
	int logs;

	passed = table == 0 ? &ms_d.rst[i].passed : table == 1 ? &ms_d.xst[i].passed : &ms_d.ost[i].passed;
	/* what a call saw is written only for the first few pass-bys */
	logs = __atomic_load_n(passed, __ATOMIC_RELAXED) < MS_PASSBY_LOGGED;
	why.text[0] = '\0';
	why.param = 0;
	why.value = 0;
	why.is_text = 0;
	if (ms_conds_hold(ms_d.chan, s, a, caller, logs ? &why : NULL))
		return 1;
	if (table == 0 && (ms_d.fns[id].flags & MS_FF_TRACED))
		ms_t_passby = (uint64_t)id << 32 | (i + 1);
	if (__atomic_fetch_add(passed, 1, __ATOMIC_RELAXED) < MS_PASSBY_LOGGED) {
		int saved = errno;

		e = ms_ev_begin(MS_EV_PASSBY, id, i, 0);
		if (e) {
			e->kind = (uint16_t)table;
			e->param = why.param;
			e->value = why.value;
			e->flags = why.is_text ? MS_EVF_TEXT : 0;
			ms_copy_str(e->text, MS_EV_TEXT, why.text);
			e->len = (uint32_t)strlen(e->text);
			ms_ev_commit(e);
		}
		errno = saved;
	}
	return 0;
}

/*
 * probability=P: the k-th call of a process that reaches rule ri takes it
 * when a hash of (seed, the process's key, ri, k) falls under P: each
 * process draws from a stream of its own (its program and arguments, a
 * forked child its place among its parent's forks), so processes running
 * side by side do not shift each other's draws.  The same seed gives the
 * same outcome to a process's k-th call in every run.  The supervisor's
 * calls (SYS_ statements) and rules beyond the process's table draw
 * from one stream of the tree: the k-th call that reaches the rule.
 */
int ms_dec_draw(uint32_t ri)
{
	uint64_t k = __atomic_fetch_add(&ms_d.rst[ri].tries, 1, __ATOMIC_RELAXED), key = 0;
	uint64_t z;

	if (!ms_d.remote && ri < ms_d.ndraw && ms_d.draw_tries) {
		k = __atomic_fetch_add(&ms_d.draw_tries[ri], 1, __ATOMIC_RELAXED);
		key = ms_d.draw_key;
	}
	z = ms_d.chan->seed ^ key ^ ((uint64_t)ri << 32 | k) * 0x9e3779b97f4a7c15ull;

	/* splitmix64's finaliser */
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	if ((uint32_t)(z >> 32) < ms_d.rules[ri].prob)
		return 1;
	__atomic_fetch_add(&ms_d.rst[ri].declined, 1, __ATOMIC_RELAXED);
	if (ms_d.fns[ms_d.rules[ri].stmt.fn].flags & MS_FF_TRACED)
		ms_t_passby = (uint64_t)ms_d.rules[ri].stmt.fn << 32 | (ri + 1);
	return 0;
}
