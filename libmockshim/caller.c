/* SPDX-License-Identifier: MIT */
/*
 * Which object called: from= on every call (a table of the loaded
 * objects' executable segments, and a per-thread cache of the last
 * answer), and the caller a report names (object, symbol+offset).
 * Runs inside arbitrary calls of the program, possibly in a signal
 * handler: no interposed function but dladdr's, off the hot path.
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
	char name[48];
};

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

	(void)size;
	for (unsigned i = 0; i < info->dlpi_phnum && t->n < MAX_SEGS; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		struct seg *g = &t->seg[t->n];

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		g->lo = info->dlpi_addr + ph->p_vaddr;
		g->hi = g->lo + ph->p_memsz;
		ms_copy_str(g->name, sizeof(g->name), name);
		t->n++;
	}
	return 0;
}

static const char *seg_lookup(const struct seg_table *t, uintptr_t a)
{
	for (unsigned i = 0; t && i < t->n; i++)
		if (a >= t->seg[i].lo && a < t->seg[i].hi)
			return t->seg[i].name;
	return NULL;
}

/* The basename of the executable object holding addr, or NULL. */
static const char *caller_object(const void *addr)
{
	const struct seg_table *t = __atomic_load_n(&segs, __ATOMIC_ACQUIRE);
	const char *name = seg_lookup(t, (uintptr_t)addr);
	int expect = 0;
	Dl_info info;

	if (name || !addr)
		return name;
	/* a miss: rebuild, unless another thread is at it */
	if (__atomic_compare_exchange_n(&seg_busy, &expect, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
		struct seg_table *next = t == &seg_tables[0] ? &seg_tables[1] : &seg_tables[0];

		next->n = 0;
		dl_iterate_phdr(add_segs, next);
		__atomic_store_n(&segs, next, __ATOMIC_RELEASE);
		__atomic_store_n(&seg_busy, 0, __ATOMIC_RELEASE);
		name = seg_lookup(next, (uintptr_t)addr);
		if (name)
			return name;
	}
	/* Another thread rebuilding, or this one, interrupted by the signal
	 * handler that made this call, or an object past MAX_SEGS: the
	 * loader answers (its lock is recursive, so the interrupted rebuild
	 * does not block it).  Never "no object" for a loaded one: that
	 * would let the call through unmocked. */
	return object_of(addr, &info);
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

void ms_hook_caller(const void *caller, struct ms_event *e)
{
	Dl_info info;
	const char *obj = object_of(caller, &info);

	if (obj) {
		e->caller_off = (uint64_t)((uintptr_t)caller - (uintptr_t)info.dli_fbase);
		ms_copy_str(e->caller, MS_EV_CALLER, obj);
		if (info.dli_sname && info.dli_saddr) {
			char *p, *end = e->sym + MS_EV_SYM;

			ms_copy_str(e->sym, MS_EV_SYM - 20, info.dli_sname);
			p = e->sym + ms_slen(e->sym);
			if (p + 1 < end) {
				*p++ = '+';
				put_hex(p, end, (uintptr_t)caller - (uintptr_t)info.dli_saddr);
			}
		}
	} else {
		e->caller_off = (uint64_t)(uintptr_t)caller;
	}
}
