/* SPDX-License-Identifier: MIT */
/*
 * Which object called: from= on every call (a table of the loaded
 * objects' executable segments, and a per-thread cache of the last
 * answer), and the caller a report names (object, symbol+offset).
 * Runs inside arbitrary calls of the program, possibly in a signal
 * handler: no interposed function but dladdr's, off the hot path.
 *
 * A call's site (at=, the trace, the report; DESIGN.md 7.1): the
 * object and offset of the innermost frame outside the system
 * libraries.  A call straight from the program's code is its return
 * address; one from a system library (malloc from strdup) is found by
 * unwinding with libgcc's _Unwind_Backtrace, which reads the CFI
 * (Debian's binaries have no frame pointers) and finds each object's
 * by _dl_find_object (glibc 2.35+, GCC 12+: no lock, no malloc,
 * async-signal-safe).  ms_site_warm() runs one unwind at attach, so
 * that its one-time set-up (libgcc's register table) is not in a
 * program's call.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <unwind.h>

#include "channel/channel.h"
#include "decide/decide.h"
#include "shim.h"
#include "catalog/catalog.h"

static const char *basename_of(const char *p)
{
	const char *b = p;

	for (; p && *p; p++)
		if (*p == '/')
			b = p + 1;
	return b;
}

/* The basename of the object containing addr ("" dli_fname: the program). */
static const char *object_of(const void *addr, Dl_info *info)
{
	if (!addr || !dladdr(addr, info) || !info->dli_fname)
		return NULL;
	return info->dli_fname[0] ? basename_of(info->dli_fname) : ms_d.exe_name;
}

/*
 * from= asks which object a return address is in on every call: a table
 * of the executable segments of the loaded objects answers without the
 * loader's lock (dladdr takes it).  An address no segment holds (a
 * library dlopened since) rebuilds the table, into the other of two
 * buffers, so that readers of the current one are not disturbed.
 */
#define MAX_SEGS 256

struct seg {
	uintptr_t lo, hi;
	uintptr_t bias;		/* the object's load bias: offsets are from it */
	int sys;		/* a system library (or the shim): no call site */
	char name[48];
};

/* The system libraries, whose frames a call site skips (and the shim,
 * and --site-skip's globs, MS_CHAN's site_skip). */
static const char *const sys_globs[] = {
	"libc.so*", "libm.so*", "ld-linux*", "libgcc_s*", "libstdc++*",
};

static int skipped_name(const char *name)
{
	const char *p;

	for (size_t i = 0; i < sizeof(sys_globs) / sizeof(sys_globs[0]); i++)
		if (ms_glob_match(sys_globs[i], name))
			return 1;
	if (!ms_d.chan || !ms_d.chan->site_skip)
		return 0;
	p = ms_d.pool + ms_d.chan->site_skip;
	while (*p) {
		char glob[128];
		size_t n = 0;

		while (p[n] && p[n] != '\n')
			n++;
		if (n && n < sizeof(glob)) {
			memcpy(glob, p, n);
			glob[n] = '\0';
			if (ms_glob_match(glob, name))
				return 1;
		}
		p += n;
		if (*p)
			p++;
	}
	return 0;
}

struct seg_table {
	unsigned n;
	struct seg seg[MAX_SEGS];
};

static struct seg_table seg_tables[2];
static struct seg_table *segs;	/* the current table, or NULL */
static int seg_busy;

static int add_segs(struct dl_phdr_info *info, size_t size, void *data)
{
	struct seg_table *t = data;
	const char *name = info->dlpi_name && info->dlpi_name[0] ? basename_of(info->dlpi_name)
								 : ms_d.exe_name;

	uintptr_t self = (uintptr_t)&add_segs;
	int sys = 0;

	(void)size;
	/* the shim's own object, whatever its name */
	for (unsigned i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && self >= info->dlpi_addr + ph->p_vaddr &&
		    self < info->dlpi_addr + ph->p_vaddr + ph->p_memsz)
			sys = 1;
	}
	sys = sys || skipped_name(name);
	for (unsigned i = 0; i < info->dlpi_phnum && t->n < MAX_SEGS; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		struct seg *g = &t->seg[t->n];

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		g->lo = info->dlpi_addr + ph->p_vaddr;
		g->hi = g->lo + ph->p_memsz;
		g->bias = info->dlpi_addr;
		g->sys = sys;
		ms_copy_str(g->name, sizeof(g->name), name);
		t->n++;
	}
	return 0;
}

static const struct seg *seg_lookup(const struct seg_table *t, uintptr_t a)
{
	for (unsigned i = 0; t && i < t->n; i++)
		if (a >= t->seg[i].lo && a < t->seg[i].hi)
			return &t->seg[i];
	return NULL;
}

/* The segment holding addr, copied into *out: 1, or 0 when no loaded
 * object holds it. */
static int seg_find(const void *addr, struct seg *out)
{
	const struct seg_table *t = __atomic_load_n(&segs, __ATOMIC_ACQUIRE);
	const struct seg *g = seg_lookup(t, (uintptr_t)addr);
	int expect = 0;
	Dl_info info;
	struct link_map *lm = NULL;
	const char *name;

	if (!addr)
		return 0;
	if (g) {
		*out = *g;
		return 1;
	}
	/* a miss: rebuild, unless another thread is at it */
	if (__atomic_compare_exchange_n(&seg_busy, &expect, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
		struct seg_table *next = t == &seg_tables[0] ? &seg_tables[1] : &seg_tables[0];

		next->n = 0;
		dl_iterate_phdr(add_segs, next);
		__atomic_store_n(&segs, next, __ATOMIC_RELEASE);
		__atomic_store_n(&seg_busy, 0, __ATOMIC_RELEASE);
		g = seg_lookup(next, (uintptr_t)addr);
		if (g) {
			*out = *g;
			return 1;
		}
	}
	/* Another thread rebuilding, or this one, interrupted by the signal
	 * handler that made this call, or an object past MAX_SEGS: the
	 * loader answers (its lock is recursive, so the interrupted rebuild
	 * does not block it).  Never "no object" for a loaded one: that
	 * would let the call through unmocked. */
	if (!dladdr1(addr, &info, (void **)&lm, RTLD_DL_LINKMAP) || !info.dli_fname)
		return 0;
	name = info.dli_fname[0] ? basename_of(info.dli_fname) : ms_d.exe_name;
	out->lo = out->hi = (uintptr_t)addr;
	out->bias = lm ? (uintptr_t)lm->l_addr : (uintptr_t)info.dli_fbase;
	out->sys = skipped_name(name);
	ms_copy_str(out->name, sizeof(out->name), name);
	return 1;
}

/* The basename of the executable object holding addr, or NULL. */
static const char *caller_object(const void *addr)
{
	const struct seg_table *t = __atomic_load_n(&segs, __ATOMIC_ACQUIRE);
	const struct seg *g = seg_lookup(t, (uintptr_t)addr);
	static __thread struct seg last;
	Dl_info info;

	if (g || !addr)
		return g ? g->name : NULL;
	if (seg_find(addr, &last))
		return last.name;
	return object_of(addr, &info);
}

/* ---- call sites ---- */

/* The unwind from the shim's frame: frames up to and including the
 * immediate caller's are passed over, then system libraries' too; the
 * first other frame is the site. */
struct walk {
	uintptr_t caller;
	unsigned depth;
	int seen;	/* the immediate caller's frame was passed */
	int found;
	uintptr_t ip;
	uintptr_t cfa;	/* at the site's frame: the CFA of the frame that
			 * returns to it (libgcc's context lags one frame) */
	struct seg g;
};

static _Unwind_Reason_Code walk_frame(struct _Unwind_Context *ctx, void *arg)
{
	struct walk *w = arg;
	int before = 0;
	uintptr_t ip = (uintptr_t)_Unwind_GetIPInfo(ctx, &before);

	if (!ip || ++w->depth > 64)
		return _URC_END_OF_STACK;
	if (!w->seen) {
		w->seen = ip == w->caller;
		return _URC_NO_REASON;
	}
	if (!seg_find((const void *)ip, &w->g) || w->g.sys)
		return _URC_NO_REASON;
	w->found = 1;
	w->ip = ip;
	w->cfa = (uintptr_t)_Unwind_GetCFA(ctx);
	return _URC_END_OF_STACK;
}

#ifdef __x86_64__
/*
 * An unwind costs some 1,500 instructions a frame.  A loop calls from one
 * place: each thread keeps its last few answers, keyed by the immediate
 * caller and this function's frame address (the same path through the
 * shim from the same depth of the stack), and checked against the stack
 * itself: the site's return address must still be in the slot it was
 * read from (x86-64: CFA - 8 of the frame it returns from).  A signal
 * handler's call may find an entry half written: the sequence number
 * makes it ask again.
 */
#define SITE_CACHE 4
static __thread struct {
	unsigned seq, next;
	struct {
		uintptr_t caller, frame, slot, ip;
		struct seg g;
	} e[SITE_CACHE];
} t_site __attribute__((tls_model("initial-exec")));

static int site_cached(uintptr_t caller, uintptr_t frame, struct seg *g, uintptr_t *ip)
{
	unsigned seq = t_site.seq;

	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (seq & 1)
		return 0;
	for (unsigned i = 0; i < SITE_CACHE; i++) {
		if (t_site.e[i].caller != caller || t_site.e[i].frame != frame || !t_site.e[i].slot ||
		    *(const uintptr_t *)t_site.e[i].slot != t_site.e[i].ip)
			continue;
		*g = t_site.e[i].g;
		*ip = t_site.e[i].ip;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		return t_site.seq == seq;
	}
	return 0;
}

static void site_keep(uintptr_t caller, uintptr_t frame, uintptr_t slot, const struct seg *g,
		      uintptr_t ip)
{
	unsigned seq = t_site.seq, k;

	if (seq & 1)
		return;
	t_site.seq = seq + 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	k = t_site.next++ % SITE_CACHE;
	t_site.e[k].caller = caller;
	t_site.e[k].frame = frame;
	t_site.e[k].slot = slot;
	t_site.e[k].ip = ip;
	t_site.e[k].g = *g;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t_site.seq = seq + 2;
}
#endif

/* The site of a call from caller, its frame's segment in *g and its
 * return address: 1; 0 when caller is in no object. */
static __attribute__((noinline)) int site_of(const void *caller, struct seg *g, uintptr_t *ip)
{
	struct walk w;

	if (!seg_find(caller, g))
		return 0;
	*ip = (uintptr_t)caller;
	if (!g->sys)
		return 1; /* the common case: the program called */
#ifdef __x86_64__
	if (site_cached((uintptr_t)caller, (uintptr_t)__builtin_frame_address(0), g, ip))
		return 1;
#endif
	w.caller = (uintptr_t)caller;
	w.depth = 0;
	w.seen = 0;
	w.found = 0;
	w.cfa = 0;
	_Unwind_Backtrace(walk_frame, &w);
	if (w.found) {
		*g = w.g;
		*ip = w.ip;
#ifdef __x86_64__
		/* a slot near this frame, on the stack in use (a program's
		 * own stacks, coroutines', may come and go elsewhere) */
		if (w.cfa && w.cfa - 8 > (uintptr_t)__builtin_frame_address(0) &&
		    w.cfa - 8 - (uintptr_t)__builtin_frame_address(0) < 64 * 1024)
			site_keep((uintptr_t)caller, (uintptr_t)__builtin_frame_address(0), w.cfa - 8, g,
				  w.ip);
#endif
	}
	/* else the system library's own frame (a call from its start-up
	 * code, a thread it started, or a stack it cannot unwind) */
	return 1;
}

int ms_hook_site(const void *caller, char *obj, size_t cap, uint64_t *off)
{
	struct seg g;
	uintptr_t ip;
	int saved = errno;

	if (!site_of(caller, &g, &ip)) {
		errno = saved;
		return -1;
	}
	ms_copy_str(obj, cap, g.name);
	*off = (uint64_t)(ip - g.bias);
	ms_t_site_direct = ip == (uintptr_t)caller;
	errno = saved;
	return 0;
}

static char *put_hex(char *p, char *end, uint64_t v);

size_t ms_site_str(const void *caller, char *buf, size_t cap)
{
	uint64_t off;
	char *p;

	if (cap < 24 || ms_hook_site(caller, buf, cap - 20, &off)) {
		if (cap)
			buf[0] = '\0';
		return 0;
	}
	p = buf + ms_slen(buf);
	*p++ = '+';
	p = put_hex(p, buf + cap, off);
	return (size_t)(p - buf);
}

/*
 * The object and offset of ip, for a crash's frames: no rebuild of the
 * table and no loader lock (the crash may have happened holding it):
 * _dl_find_object where glibc has it (2.35+), else the table as it is.
 * 0, or -1 when unknown.
 */
int ms_frame_site(uintptr_t ip, char *obj, size_t cap, uint64_t *off, int *sys)
{
	const struct seg *g;
#ifdef DLFO_STRUCT_HAS_EH_DBASE
	struct dl_find_object fo;

	if (_dl_find_object((void *)ip, &fo) == 0 && fo.dlfo_link_map) {
		const struct link_map *lm = fo.dlfo_link_map;
		const char *name = lm->l_name && lm->l_name[0] ? basename_of(lm->l_name) : ms_d.exe_name;
		struct dl_find_object me;

		ms_copy_str(obj, cap, name);
		*off = (uint64_t)(ip - (uintptr_t)lm->l_addr);
		*sys = skipped_name(name) ||
		       (_dl_find_object((void *)&seg_busy, &me) == 0 && me.dlfo_link_map == lm);
		return 0;
	}
#endif
	g = seg_lookup(__atomic_load_n(&segs, __ATOMIC_ACQUIRE), ip);
	if (!g)
		return -1;
	ms_copy_str(obj, cap, g->name);
	*off = (uint64_t)(ip - g->bias);
	*sys = g->sys;
	return 0;
}

/* One unwind through a system library's frame, outside any program's
 * call: libgcc's one-time set-up (its register table) happens here. */
static __attribute__((noinline)) _Unwind_Reason_Code warm_frame(struct _Unwind_Context *ctx, void *arg)
{
	(void)ctx;
	return ++*(unsigned *)arg > 4 ? _URC_END_OF_STACK : _URC_NO_REASON;
}

void ms_site_warm(void)
{
	unsigned n = 0;
	int saved = errno;

	/* a table made before the channel lacks --site-skip's globs */
	__atomic_store_n(&segs, NULL, __ATOMIC_RELEASE);
	_Unwind_Backtrace(warm_frame, &n);
	errno = saved;
}

/*
 * from= for this call.  A loop calls from one place: each thread keeps its
 * last answer (return address, glob, result).  The entry is three words,
 * so a sequence number guards it against a signal handler that calls a
 * mocked function while this thread is writing or reading it: odd while
 * written (the handler then neither uses nor writes it), and changed
 * under a reader that was interrupted (the reader then asks again).
 */
static __thread struct {
	unsigned seq;
	uint32_t glob;
	int match;
	const void *caller;
} t_from __attribute__((tls_model("initial-exec")));

/* A cache miss: which object called, and does it match (errno kept). */
static __attribute__((noinline)) int from_lookup(uint32_t from_glob, const void *caller,
						 unsigned seq)
{
	int saved = errno, match;
	const char *obj = caller_object(caller);

	match = obj && ms_glob_match(ms_d.pool + from_glob, obj);
	if (!(seq & 1) && t_from.seq == seq) {
		t_from.seq = seq + 1;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		t_from.caller = caller;
		t_from.glob = from_glob;
		t_from.match = match;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		t_from.seq = seq + 2;
	}
	errno = saved;
	return match;
}

static inline int from_here(uint32_t from_glob, const void *caller)
{
	unsigned seq = t_from.seq;
	int match;

	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (ms_likely(!(seq & 1) && t_from.caller == caller && t_from.glob == from_glob)) {
		match = t_from.match;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		if (ms_likely(t_from.seq == seq))
			return match;
	}
	return from_lookup(from_glob, caller, seq);
}

static char *put_hex(char *p, char *end, uint64_t v)
{
	char tmp[16];
	int n = 0;

	do
		tmp[n++] = "0123456789abcdef"[v & 15];
	while ((v >>= 4) && n < 16);
	if (p + 2 + n >= end)
		return p;
	*p++ = '0';
	*p++ = 'x';
	while (n)
		*p++ = tmp[--n];
	*p = '\0';
	return p;
}

/* ---- the decision's hooks (decide.h): what only a call of this process has ---- */

int ms_hook_from(uint32_t from_glob, const void *caller)
{
	return from_here(from_glob, caller);
}

/* The report's caller is the call's site (the offset from the object's
 * load bias, as objdump shows it), and the nearest dynamic symbol there. */
void ms_hook_caller(const void *caller, struct ms_event *e)
{
	Dl_info info;
	struct seg g;
	uintptr_t ip;

	if (!site_of(caller, &g, &ip)) {
		e->caller_off = (uint64_t)(uintptr_t)caller;
		return;
	}
	e->caller_off = (uint64_t)(ip - g.bias);
	ms_copy_str(e->caller, MS_EV_CALLER, g.name);
	if (object_of((const void *)ip, &info) && info.dli_sname && info.dli_saddr) {
		char *p, *end = e->sym + MS_EV_SYM;

		ms_copy_str(e->sym, MS_EV_SYM - 20, info.dli_sname);
		p = e->sym + ms_slen(e->sym);
		if (p + 1 < end) {
			*p++ = '+';
			put_hex(p, end, ip - (uintptr_t)info.dli_saddr);
		}
	}
}
