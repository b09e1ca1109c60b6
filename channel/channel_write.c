/* SPDX-License-Identifier: MIT */
/*
 * Making the channel (channel.h): the layout of a compiled spec, its
 * bytes, the state's header and fake_time anchors, and the two sealed
 * memfds.  Its reader's checks are channel.c's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "catalog/catalog.h"
#include "spec.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23	/* Linux 5.14; a C library's headers may lack it */
#endif

static uint64_t align8(uint64_t n)
{
	return (n + 7) & ~(uint64_t)7;
}

static uint64_t align64(uint64_t n)
{
	return (n + 63) & ~(uint64_t)63;
}

/* --control's room for statements added live: per rule slot, outputs
 * and conditions; and pool bytes */
#define LIVE_OUTS_PER_RULE 8
#define LIVE_CONDS_PER_RULE 8
#define LIVE_POOL (64u << 10)

struct layout {
	uint64_t nrules, nouts, nconds, pool_cap;	/* with the live room */
	uint64_t fns, rules, outs, expects, orders, conds, ftimes, dyn, pool, size;
	uint64_t st_fns, st_rules, st_expects, st_orders, st_events, st_pids, st_rec, st_times,
		st_size;
	uint32_t lanes_cap;	/* lane blocks: MS_LANE_BLOCKS, or 0 without a laned rule */
	/* the rules with a lane, in the spec's order: lane k is rule
	 * lane_rule[k]'s (ms_rule_laned), whichever way the writer goes */
	uint32_t nlanes, lane_rule[MS_LANES];
};

/* The lane of the spec's rule i, r: k + 1, or 0. */
static uint32_t lane_of(const struct layout *l, uint32_t i, const struct ms_rule *r)
{
	if (!l->nlanes || !ms_rule_laned(r))
		return 0;
	for (uint32_t k = 0; k < l->nlanes; k++)
		if (l->lane_rule[k] == i)
			return k + 1;
	return 0;
}

static void compute(const struct ms_spec *spec, uint32_t events_cap, struct layout *l)
{
	uint64_t nfns = (uint64_t)MS_FN_COUNT + spec->ndyn, live = spec->live_cap;

	l->nrules = spec->nrules + live;
	l->nouts = spec->nouts + live * LIVE_OUTS_PER_RULE;
	l->nconds = spec->nconds + live * LIVE_CONDS_PER_RULE;
	l->pool_cap = spec->pool_len + 1 + (live ? LIVE_POOL : 0);
	l->fns = align8(sizeof(struct ms_chan_hdr));
	l->rules = (l->fns + nfns * sizeof(struct ms_chan_fn) + 63) & ~(uint64_t)63;
	l->outs = align8(l->rules + l->nrules * sizeof(struct ms_rule));
	l->expects = align8(l->outs + l->nouts * sizeof(struct ms_out));
	l->orders = align8(l->expects + (uint64_t)spec->nexpects * sizeof(struct ms_expect));
	l->conds = align8(l->orders + (uint64_t)spec->norders * sizeof(struct ms_order));
	l->ftimes = align8(l->conds + l->nconds * sizeof(struct ms_cond));
	l->dyn = align8(l->ftimes + (uint64_t)spec->nftimes * sizeof(struct ms_ftime));
	l->pool = align8(l->dyn + (uint64_t)spec->ndyn * sizeof(struct ms_chan_dyn));
	l->size = align8(l->pool + l->pool_cap);
	/* the state: what every process touches as it attaches (its pid's
	 * slot, the clocks' anchors it reads, its attach event) next to the
	 * header, on the same pages whatever the size of the spec; then the
	 * counters, on lines of their own (64-aligned), so that a thread
	 * taking turns of one rule never writes a line another reads */
	l->st_pids = sizeof(struct ms_state_hdr);
	l->st_times = align8(l->st_pids + (uint64_t)MS_CHAN_PIDS * sizeof(int32_t));
	l->st_events = align64(l->st_times + (uint64_t)spec->nftimes * sizeof(struct ms_time_state));
	l->st_fns = align64(l->st_events + (uint64_t)events_cap * sizeof(struct ms_event));
	l->st_rules = l->st_fns + nfns * sizeof(struct ms_fn_state);
	l->st_expects = l->st_rules + l->nrules * sizeof(struct ms_rule_state);
	l->st_orders = align8(l->st_expects + (uint64_t)spec->nexpects * sizeof(struct ms_count_state));
	l->st_rec = align8(l->st_orders + (uint64_t)spec->norders * sizeof(struct ms_count_state));
	l->st_size = l->st_rec + spec->record_cap;
	l->nlanes = 0;
	for (uint32_t i = 0; i < spec->nrules && l->nlanes < MS_LANES; i++)
		if (ms_rule_laned(&spec->rules[i]))
			l->lane_rule[l->nlanes++] = i;
	l->lanes_cap = l->nlanes ? MS_LANE_BLOCKS : 0;
	if (l->lanes_cap)
		l->st_size = align64(l->st_size) + (uint64_t)l->lanes_cap * MS_LANES * sizeof(uint64_t);
	if (spec->sites_cap)
		l->st_size = align64(l->st_size) + (uint64_t)spec->sites_cap * sizeof(struct ms_site_slot);
}

uint64_t ms_channel_size(const struct ms_spec *spec, uint32_t events_cap)
{
	struct layout l;

	compute(spec, events_cap, &l);
	return l.size;
}

uint64_t ms_channel_state_size(const struct ms_spec *spec, uint32_t events_cap)
{
	struct layout l;

	compute(spec, events_cap, &l);
	return l.st_size;
}

void ms_state_init(const struct ms_chan_hdr *h, void *state, uint64_t token)
{
	struct ms_state_hdr *st = state;

	st->token = token;
	st->magic = MS_STATE_MAGIC;
	st->abi = MS_CHAN_ABI;
	st->size = h->state_size;
	ms_time_anchor(h, state);
}

/* The real time of a slot's clock, by the system call (no trampoline, no
 * vDSO: this runs once per session, in mockrun or a standalone shim). */
static int64_t real_ns(unsigned slot)
{
	static const clockid_t ids[MS_TC_N] = {
		[MS_TC_REALTIME] = CLOCK_REALTIME, [MS_TC_TAI] = CLOCK_TAI,
		[MS_TC_MONOTONIC] = CLOCK_MONOTONIC, [MS_TC_MONO_RAW] = CLOCK_MONOTONIC_RAW,
		[MS_TC_BOOTTIME] = CLOCK_BOOTTIME,
	};
	struct timespec ts = { 0, 0 };

	syscall(SYS_clock_gettime, (long)ids[slot], &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The off of wall slot k (r0: the slots' real times) whose CLOCK_REALTIME shows wall:
 * the slot keeps its real distance to CLOCK_REALTIME (CLOCK_TAI's 37 s),
 * stopped at the range's ends, and off is modulo 2^64 (channel.h). */
static int64_t wall_off(const int64_t *r0, unsigned k, int64_t wall)
{
	int64_t shows = ms_sat_add(wall, r0[k] - r0[MS_TC_REALTIME]);

	return (int64_t)((uint64_t)shows - (uint64_t)r0[k]);
}

void ms_time_anchor(const struct ms_chan_hdr *h, void *state)
{
	struct ms_time_state *ts = ms_state_at(state, h->st_times_off);
	const struct ms_ftime *ft = ms_chan_at(h, h->ftimes_off);

	for (uint32_t i = 0; i < h->nftimes; i++) {
		int64_t start;

		for (unsigned k = 0; k < MS_TC_N; k++)
			ts[i].r0[k] = real_ns(k);
		/* an offset was checked against the real clock when it was
		 * parsed: since then it can only have reached an end */
		start = ft[i].flags & MS_FT_OFFSET ? ms_sat_add(ts[i].r0[MS_TC_REALTIME], ft[i].when_ns)
						   : ft[i].when_ns;
		for (unsigned k = 0; k < MS_TC_N; k++)
			ts[i].off[k] = (MS_TC_WALL >> k & 1) ? wall_off(ts[i].r0, k, start) : 0;
		memcpy(&ts[i].rate_bits, &ft[i].rate, sizeof(double));
		/* even and never 0, which is a thread's "no anchor read yet" */
		ts[i].seq = 2;
	}
}

int ms_time_move(const struct ms_chan_hdr *h, void *state, enum ms_time_op op, int64_t value,
		 double rate)
{
	struct ms_time_state *ts = ms_state_at(state, h->st_times_off);
	int64_t moved;

	/* a jump off either end is refused before any clock moves */
	for (uint32_t i = 0; op == MS_TIME_ADVANCE && i < h->nftimes; i++) {
		struct ms_time_now n;

		ms_time_read(&ts[i], &n);
		if (__builtin_add_overflow(ms_time_fake(&n, MS_TC_REALTIME, real_ns(MS_TC_REALTIME)),
					   value, &moved))
			return -ERANGE;
	}
	for (uint32_t i = 0; i < h->nftimes; i++) {
		struct ms_time_now n;
		int64_t now[MS_TC_N], shows[MS_TC_N], wall;
		uint32_t q;

		ms_time_read(&ts[i], &n);
		if (op != MS_TIME_RATE)
			memcpy(&rate, &n.rate, sizeof(double));
		for (unsigned k = 0; k < MS_TC_N; k++) {
			now[k] = real_ns(k);
			shows[k] = ms_time_fake(&n, k, now[k]);
		}
		wall = op == MS_TIME_SET ? value
		       : op == MS_TIME_ADVANCE ? ms_sat_add(shows[MS_TC_REALTIME], value)
					       : shows[MS_TC_REALTIME];
		/* odd while it is written: readers retry, and each thread's
		 * cached anchor goes stale with the seq */
		q = __atomic_load_n(&ts[i].seq, __ATOMIC_RELAXED) | 1;
		__atomic_store_n(&ts[i].seq, q, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_RELEASE);
		/* each clock goes on from what it shows; the wall clocks
		 * (REALTIME first) jump to wall */
		for (unsigned k = 0; k < MS_TC_N; k++) {
			__atomic_store_n(&ts[i].r0[k], now[k], __ATOMIC_RELAXED);
			__atomic_store_n(&ts[i].off[k],
					 (MS_TC_WALL >> k & 1) ? wall_off(now, k, wall)
							       : (int64_t)((uint64_t)shows[k] - (uint64_t)now[k]),
					 __ATOMIC_RELAXED);
		}
		{
			uint64_t bits;

			memcpy(&bits, &rate, sizeof(bits));
			__atomic_store_n(&ts[i].rate_bits, bits, __ATOMIC_RELAXED);
		}
		__atomic_fetch_add(&ts[i].moves, 1, __ATOMIC_RELAXED);
		__atomic_store_n(&ts[i].seq, q + 1, __ATOMIC_RELEASE);
	}
	return 0;
}

/* The header: the spec's layout l, and the state's. */
static void write_header(const struct ms_spec *spec, struct ms_chan_hdr *h, const struct layout *l,
			 uint64_t size, uint32_t events_cap, uint32_t flags)
{
	h->magic = MS_CHAN_MAGIC;
	h->abi = MS_CHAN_ABI;
	h->size = size;
	h->hdr_size = sizeof(*h);
	h->nfns = MS_FN_COUNT + spec->ndyn;
	h->catalog_hash = ms_catalog_hash();
	h->flags = flags | (spec->trace ? MS_CHAN_TRACE : 0);
	h->trace_path = spec->trace_path;
	h->site_skip = spec->site_skip;
	h->sites_cap = spec->sites_cap;
	h->power_dir = spec->power_dir;
	h->fns_off = (uint32_t)l->fns;
	h->rules_off = (uint32_t)l->rules;
	h->nrules = spec->nrules;
	h->outs_off = (uint32_t)l->outs;
	h->nouts = spec->nouts;
	h->expects_off = (uint32_t)l->expects;
	h->nexpects = spec->nexpects;
	h->orders_off = (uint32_t)l->orders;
	h->norders = spec->norders;
	h->conds_off = (uint32_t)l->conds;
	h->nconds = spec->nconds;
	h->ftimes_off = (uint32_t)l->ftimes;
	h->nftimes = spec->nftimes;
	h->seed = spec->seed;
	h->dyn_off = (uint32_t)l->dyn;
	h->ndyn = spec->ndyn;
	h->pool_off = (uint32_t)l->pool;
	/* one NUL more: then every offset inside the pool starts a terminated
	 * string, and the reader checks strings by their offset alone */
	h->pool_size = spec->pool_len + 1;
	h->live_first = spec->nrules;
	h->live_cap = spec->live_cap;
	h->live_nouts = spec->nouts;
	h->live_nconds = spec->nconds;
	h->live_pool_size = h->pool_size;
	h->outs_cap = (uint32_t)l->nouts;
	h->conds_cap = (uint32_t)l->nconds;
	h->pool_cap = (uint32_t)l->pool_cap;
	h->events_cap = events_cap;
	h->pids_cap = MS_CHAN_PIDS;
	h->lanes_cap = l->lanes_cap;
	h->rec_cap = spec->record_cap;
	h->state_size = l->st_size;
	h->st_fns_off = l->st_fns;
	h->st_rules_off = l->st_rules;
	h->st_expects_off = l->st_expects;
	h->st_orders_off = l->st_orders;
	h->st_events_off = l->st_events;
	h->st_pids_off = l->st_pids;
	h->st_rec_off = l->st_rec;
	h->st_times_off = l->st_times;
}

/* The functions outside the catalog (module, declared, SYS_): d, spec->ndyn
 * of them, zeroed. */
static void write_dyn(const struct ms_spec *spec, struct ms_chan_dyn *d0)
{
	for (uint32_t i = 0; i < spec->ndyn; i++) {
		struct ms_chan_dyn *d = d0 + i;
		const struct ms_fn_meta *m = spec->dyn[i];

		d->name = m->pool_name;
		d->params = m->pool_params;
		d->proto = m->pool_decl;
		d->nparams = m->nparams;
		d->kind = m->syscall ? MS_DYN_SYSCALL : m->declared ? MS_DYN_DECLARED : MS_DYN_MODULE;
		d->sysnr = m->syscall ? m->sysnr : 0;
		/* a handler module's doubles are its own C code's business: only
		 * the generic stubs of declared functions pass them in SSE */
		d->ret = m->declared && m->ret.tclass == MS_T_DOUBLE ? MS_DYN_RET_DOUBLE
								      : MS_DYN_RET_INT;
		for (unsigned k = 0; k < m->nparams; k++) {
			if (m->params[k].type.tclass >= MS_T_PTR)
				d->ptrmask |= (uint16_t)(1u << k);
			if (m->declared && m->params[k].type.tclass == MS_T_DOUBLE)
				d->dblmask |= (uint16_t)(1u << k);
		}
	}
}

/* The function table's counts, first indexes and flags, all but the
 * lean mark, which depends on the rules (fns: h->nfns, zeroed). */
static void fill_fns(const struct ms_spec *spec, const struct ms_chan_hdr *h,
		     struct ms_chan_fn *fns)
{
	const struct ms_exec_row *execs;
	uint32_t n = 0, x = 0;
	size_t nexec;

	for (uint32_t i = 0; i < spec->nrules; i++)
		fns[spec->rules[i].stmt.fn].nrules++;
	for (uint32_t i = 0; i < spec->nexpects; i++)
		fns[spec->expects[i].stmt.fn].nexpects++;
	for (uint32_t fn = 0; fn < h->nfns; fn++) {
		fns[fn].first_rule = n;
		fns[fn].first_expect = x;
		n += fns[fn].nrules;
		x += fns[fn].nexpects;
	}
	for (uint32_t i = 0; i < spec->ndyn; i++)
		if ((spec->dyn[i]->declared || spec->dyn[i]->syscall) && spec->dyn[i]->traced)
			fns[MS_FN_COUNT + i].flags |= MS_FF_TRACED;
	for (uint32_t fn = 0; fn < MS_FN_COUNT; fn++) {
		if (spec->traced[fn])
			fns[fn].flags |= MS_FF_TRACED;
		if (spec->recorded[fn] && spec->record_cap)
			fns[fn].flags |= MS_FF_RECORD;
		if (spec->counted[fn])
			fns[fn].flags |= MS_FF_COUNTED;
	}
	for (uint32_t i = 0; i < spec->norders; i++) {
		const struct ms_order *o = &spec->orders[i];

		fns[o->stmt.fn].flags |= o->kind == MS_ORD_CALL     ? MS_FF_ORDERED
				    : o->kind == MS_ORD_IGNORE ? MS_FF_IGNORED
							       : MS_FF_NO_CALL;
	}
	execs = ms_exec_rows(&nexec);
	for (size_t k = 0; k < nexec; k++)
		fns[execs[k].id].flags |= MS_FF_EXEC;
}

void ms_channel_write(const struct ms_spec *spec, void *map, uint64_t size, uint32_t events_cap,
		      uint32_t flags)
{
	struct ms_chan_hdr *h = map;
	struct ms_chan_fn *fns;
	struct ms_rule *rules;
	struct ms_expect *expects;
	struct layout l;

	compute(spec, events_cap, &l);
	write_header(spec, h, &l, size, events_cap, flags);
	fns = ms_chan_at(h, h->fns_off);
	rules = ms_chan_at(h, h->rules_off);
	expects = ms_chan_at(h, h->expects_off);
	write_dyn(spec, ms_chan_at(h, h->dyn_off));
	/* Grouped by function, declaration order kept within one: counted,
	 * then placed (one pass over the statements, not one per function) */
	memset(fns, 0, h->nfns * sizeof(*fns));
	fill_fns(spec, h, fns);
	for (uint32_t fn = 0; fn < h->nfns; fn++)
		fns[fn].nrules = fns[fn].nexpects = 0;
	for (uint32_t i = 0; i < spec->nrules; i++) {
		struct ms_chan_fn *c = &fns[spec->rules[i].stmt.fn];
		struct ms_rule *r = &rules[c->first_rule + c->nrules++];

		*r = spec->rules[i];
		r->lean = ms_rule_lean(r);
		r->lane = lane_of(&l, i, r);
	}
	for (uint32_t i = 0; i < spec->nexpects; i++) {
		struct ms_chan_fn *c = &fns[spec->expects[i].stmt.fn];

		expects[c->first_expect + c->nexpects++] = spec->expects[i];
	}
	for (uint32_t fn = 0; fn < MS_FN_COUNT; fn++)
		if (ms_fn_lean(h, &fns[fn], rules))
			fns[fn].flags = ms_fn_lean(h, &fns[fn], rules);
	/* --sites: every function a statement names, off the lean paths */
	for (uint32_t fn = 0; spec->sites_cap && fn < h->nfns; fn++)
		if ((fns[fn].nrules || fns[fn].nexpects ||
		     (fns[fn].flags & (MS_FF_ORDERED | MS_FF_NO_CALL))) &&
		    (fn < MS_FN_COUNT || !spec->dyn[fn - MS_FN_COUNT]->syscall))
			fns[fn].flags = (fns[fn].flags & ~(MS_FF_LEAN | MS_FF_LEAN_AIMED)) | MS_FF_SITES;
	if (spec->norders)
		memcpy(ms_chan_at(h, h->orders_off), spec->orders,
		       spec->norders * sizeof(struct ms_order));
	if (spec->nouts)
		memcpy(ms_chan_at(h, h->outs_off), spec->outs, spec->nouts * sizeof(struct ms_out));
	if (spec->nconds)
		memcpy(ms_chan_at(h, h->conds_off), spec->conds, spec->nconds * sizeof(struct ms_cond));
	if (spec->nftimes)
		memcpy(ms_chan_at(h, h->ftimes_off), spec->ftimes,
		       spec->nftimes * sizeof(struct ms_ftime));
	if (spec->pool_len)
		memcpy(ms_chan_at(h, h->pool_off), spec->pool, spec->pool_len);
	((char *)ms_chan_at(h, h->pool_off))[spec->pool_len] = '\0';
}

/*
 * The two memfds, by raw system calls only: the shim makes them too (in
 * standalone mode), and must not enter its own trampolines.
 */
static long memfd_sized(const char *name, uint64_t size)
{
	long fd = syscall(SYS_memfd_create, name, (long)(MFD_CLOEXEC | MFD_ALLOW_SEALING));

	if (fd < 0)
		return -errno;
	if (syscall(SYS_ftruncate, fd, (long)size) != 0) {
		long e = -errno;

		syscall(SYS_close, fd);
		return e;
	}
	return fd;
}

/* All n bytes of buf to or from fd at offset off, by nr (SYS_pwrite64 or
 * SYS_pread64): 0, or -1 with errno set (EIO: the file ended). */
static int pio_all(long nr, long fd, char *buf, uint64_t n, uint64_t off)
{
	uint64_t done = 0;

	while (done < n) {
		long k = syscall(nr, fd, buf + done, (long)(n - done), (long)(off + done));

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			if (k == 0)
				errno = EIO;
			return -1;
		}
		done += (uint64_t)k;
	}
	return 0;
}

/* All of buf (n bytes) into fd at offset off: 0, or -1 with errno set. */
static int write_at(long fd, const char *buf, uint64_t n, uint64_t off)
{
	return pio_all(SYS_pwrite64, fd, (char *)(uintptr_t)buf, n, off);
}

/* Bytes bound for the memfd at increasing offsets, gathered in pieces of
 * STREAM_BUF: the spec's layout is written without a copy of it whole. */
#define STREAM_BUF (64u << 10)

struct stream {
	long fd;
	int err;		/* errno of the first failed write, else 0 */
	uint64_t off;		/* of buf[0] */
	uint32_t len;
	char buf[STREAM_BUF];
};

static void stream_flush(struct stream *w)
{
	if (w->len && !w->err && write_at(w->fd, w->buf, w->len, w->off) != 0)
		w->err = errno ? errno : EIO;
	w->len = 0;
}

static void stream_put(struct stream *w, uint64_t off, const void *p, uint64_t n)
{
	if (!n)
		return;	/* an empty array: p may be NULL */
	if (w->len && (off != w->off + w->len || w->len + n > STREAM_BUF))
		stream_flush(w);
	if (n >= STREAM_BUF) {
		if (!w->err && write_at(w->fd, p, n, off) != 0)
			w->err = errno ? errno : EIO;
		return;
	}
	if (!w->len)
		w->off = off;
	memcpy(w->buf + w->len, p, n);
	w->len += (uint32_t)n;
}

/*
 * ms_channel_write()'s layout, written into the memfd fd (size bytes, all
 * zeros) straight from the spec's arrays: the rules and expectations are
 * placed by an index (4 bytes a statement), so that a large spec is never
 * held twice.  The memfd holds the same bytes as ms_channel_write's map.
 * 0 or -errno.
 */
static int write_fd(const struct ms_spec *spec, long fd, uint64_t size, uint32_t events_cap,
		    uint32_t flags)
{
	uint32_t nfns = MS_FN_COUNT + spec->ndyn, nidx;
	uint32_t *idx, *at;
	struct ms_chan_hdr *h;
	struct ms_chan_dyn *dyn;
	struct stream *w;
	struct ms_chan_fn *fns;
	struct layout l;
	uint64_t sz[5], mem_size;
	char *mem;
	int r;

	compute(spec, events_cap, &l);
	nidx = spec->nrules > spec->nexpects ? spec->nrules : spec->nexpects;
	/* one anonymous mapping for the pieces (zeroed): this file calls no
	 * catalog function, the shim links it */
	sz[0] = align8(l.rules);
	sz[1] = align8((uint64_t)spec->ndyn * sizeof(*dyn));
	sz[2] = align8(sizeof(*w));
	sz[3] = align8((uint64_t)nidx * sizeof(*idx));
	sz[4] = align8((uint64_t)nfns * sizeof(*at));
	mem_size = sz[0] + sz[1] + sz[2] + sz[3] + sz[4];
	mem = (char *)syscall(SYS_mmap, NULL, (long)mem_size, (long)(PROT_READ | PROT_WRITE),
			      (long)(MAP_PRIVATE | MAP_ANONYMOUS), -1L, 0L);
	if (mem == MAP_FAILED)
		return -ENOMEM;
	h = (struct ms_chan_hdr *)mem;
	dyn = (struct ms_chan_dyn *)(mem + sz[0]);
	w = (struct stream *)(mem + sz[0] + sz[1]);
	idx = (uint32_t *)(mem + sz[0] + sz[1] + sz[2]);
	at = (uint32_t *)(mem + sz[0] + sz[1] + sz[2] + sz[3]);
	w->fd = fd;
	w->err = 0;
	w->len = 0;
	w->off = 0;
	write_header(spec, h, &l, size, events_cap, flags);
	fns = ms_chan_at(h, h->fns_off);
	fill_fns(spec, h, fns);
	/* the rules by function, each function's in declaration order, and
	 * its lean mark (ms_fn_lean) as they pass */
	for (uint32_t fn = 0; fn < nfns; fn++)
		at[fn] = fns[fn].first_rule;
	for (uint32_t i = 0; i < spec->nrules; i++)
		idx[at[spec->rules[i].stmt.fn]++] = i;
	for (uint32_t fn = 0, k = 0; fn < nfns; fn++) {
		struct ms_chan_fn *f = &fns[fn];
		uint32_t lean = MS_FF_LEAN;

		if ((f->flags & ~(MS_FF_LEAN | MS_FF_LEAN_AIMED)) || f->nexpects || !f->nrules ||
		    (h->flags & MS_CHAN_LOG_CALLS))
			lean = 0;
		for (uint32_t e = k + f->nrules; k < e; k++) {
			struct ms_rule rule = spec->rules[idx[k]];

			rule.lean = ms_rule_lean(&rule);
			rule.lane = lane_of(&l, idx[k], &rule);
			if (!ms_rule_plain(&rule) || rule.stmt.in_glob || rule.stmt.from_glob)
				lean = 0;
			else if (rule.stmt.ncond && lean)
				lean = MS_FF_LEAN_AIMED;
			stream_put(w, l.rules + (uint64_t)k * sizeof(rule), &rule, sizeof(rule));
		}
		if (fn < MS_FN_COUNT && lean)
			f->flags = lean;
	}
	for (uint32_t fn = 0; fn < nfns; fn++)
		at[fn] = fns[fn].first_expect;
	for (uint32_t i = 0; i < spec->nexpects; i++)
		idx[at[spec->expects[i].stmt.fn]++] = i;
	for (uint32_t k = 0; k < spec->nexpects; k++)
		stream_put(w, l.expects + (uint64_t)k * sizeof(struct ms_expect),
			   &spec->expects[idx[k]], sizeof(struct ms_expect));
	stream_put(w, l.outs, spec->outs, (uint64_t)spec->nouts * sizeof(struct ms_out));
	stream_put(w, l.orders, spec->orders, (uint64_t)spec->norders * sizeof(struct ms_order));
	stream_put(w, l.conds, spec->conds, (uint64_t)spec->nconds * sizeof(struct ms_cond));
	stream_put(w, l.ftimes, spec->ftimes, (uint64_t)spec->nftimes * sizeof(struct ms_ftime));
	write_dyn(spec, dyn);
	stream_put(w, l.dyn, dyn, (uint64_t)spec->ndyn * sizeof(*dyn));
	/* the pool's closing NUL is the memfd's zero */
	stream_put(w, l.pool, spec->pool, spec->pool_len);
	stream_put(w, 0, h, l.rules);
	stream_flush(w);
	r = -w->err;
	syscall(SYS_munmap, mem, (long)mem_size);
	return r;
}

/* All of the memfd fd (n bytes) into buf: 0, or -1 with errno set. */
static int read_all(long fd, char *buf, uint64_t n)
{
	return pio_all(SYS_pread64, fd, buf, n, 0);
}

/* The n bytes at p, about to be written whole: their pages faulted in by
 * one call, not one fault each (a kernel without MADV_POPULATE_WRITE
 * leaves them to the faults). */
static void populate(void *p, uint64_t n)
{
	uintptr_t a = (uintptr_t)p & ~(uintptr_t)4095, e = (uintptr_t)p + n;

	if (n >= (1u << 20))
		syscall(SYS_madvise, (long)a, (long)(e - a), (long)MADV_POPULATE_WRITE);
}

/* The spec memfd's seals: no write (F_SEAL_WRITE; F_SEAL_FUTURE_WRITE
 * where the driver keeps its writable mapping for live statements), no
 * other size, no other seal.  0, or -1 with errno set. */
static int seal_spec(long fd, long write)
{
	return syscall(SYS_fcntl, fd, (long)F_ADD_SEALS,
		       write | (long)(F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)) != 0 ? -1 : 0;
}

/* The largest spec composed straight in the driver's copy.  A larger one
 * goes to the memfd in pieces from the spec's arrays, which the driver
 * may free before the copy is made: it is never in memory twice. */
#define OWN_DIRECT_MAX (128u << 10)

static int create(const struct ms_spec *spec, uint32_t events_cap, uint32_t flags,
		  uint64_t token, void **own, void *(*own_alloc)(void *, uint64_t, int), void *arg,
		  struct ms_chan_pair *out)
{
	uint64_t size = ms_channel_size(spec, events_cap),
		 state_size = ms_channel_state_size(spec, events_cap);
	void *map = MAP_FAILED, *state = MAP_FAILED, *copy = NULL;
	long sfd, tfd = -1, r;

	memset(out, 0, sizeof(*out));
	out->spec_fd = out->state_fd = -1;
	if (own)
		*own = NULL;
	sfd = memfd_sized("mockshim-spec", size);
	if (sfd < 0)
		return (int)sfd;
	if (own && !spec->live_cap && size <= OWN_DIRECT_MAX) {
		/* A small spec is composed in the driver's copy (zeroed, the
		 * spec still read) and written to the memfd in one call: no
		 * pieces to gather, nothing read back. */
		copy = own_alloc(arg, size, 0);
		if (!copy) {
			errno = ENOMEM;
			goto fail;
		}
		ms_channel_write(spec, copy, size, events_cap, flags);
		if (write_at(sfd, copy, size, 0) != 0 || seal_spec(sfd, F_SEAL_WRITE) != 0)
			goto fail;
		goto state;
	}
	if (own && !spec->live_cap) {
		/* The driver's copy is the one it reads: the memfd is written
		 * from the spec's arrays, which may go then (own_alloc), and
		 * read back into the copy before any other process has it;
		 * it is never mapped here, so that a large spec is in this
		 * process's memory once, not twice. */
		r = write_fd(spec, sfd, size, events_cap, flags);
		if (r < 0) {
			errno = (int)-r;
			goto fail;
		}
		if (seal_spec(sfd, F_SEAL_WRITE) != 0)
			goto fail;
		copy = own_alloc(arg, size, 1);
		if (!copy) {
			errno = ENOMEM;
			goto fail;
		}
		populate(copy, size);
		if (read_all(sfd, copy, size) != 0)
			goto fail;
		goto state;
	}
	map = (void *)syscall(SYS_mmap, NULL, (long)size, (long)(PROT_READ | PROT_WRITE),
			      (long)MAP_SHARED, sfd, 0L);
	if (map == MAP_FAILED)
		goto fail;
	ms_channel_write(spec, map, size, events_cap, flags);
	if (own) {
		copy = own_alloc(arg, size, 1);
		if (!copy) {
			errno = ENOMEM;
			goto fail;
		}
		memcpy(copy, map, size);
	}
	if (spec->live_cap) {
		/* live statements: this mapping stays the only writable one */
		out->spec_rw = map;
		map = MAP_FAILED;
		if (seal_spec(sfd, F_SEAL_FUTURE_WRITE) != 0)
			goto fail;
	} else {
		/* no writable mapping may exist when the write seal goes on */
		syscall(SYS_munmap, map, (long)size);
		map = MAP_FAILED;
		if (seal_spec(sfd, F_SEAL_WRITE) != 0)
			goto fail;
	}
	map = (void *)syscall(SYS_mmap, NULL, (long)size, (long)PROT_READ, (long)MAP_SHARED, sfd, 0L);
	if (map == MAP_FAILED)
		goto fail;
state:
	tfd = memfd_sized("mockshim-state", state_size);
	if (tfd < 0) {
		errno = (int)-tfd;
		tfd = -1;
		goto fail;
	}
	if (syscall(SYS_fcntl, tfd, (long)F_ADD_SEALS,
		    (long)(F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)) != 0)
		goto fail;
	state = (void *)syscall(SYS_mmap, NULL, (long)state_size, (long)(PROT_READ | PROT_WRITE),
				(long)MAP_SHARED, tfd, 0L);
	if (state == MAP_FAILED)
		goto fail;
	ms_state_init(map != MAP_FAILED ? map : copy, state, token);
	out->spec_fd = (int)sfd;
	out->state_fd = (int)tfd;
	out->spec = map != MAP_FAILED ? map : NULL;
	out->state = state;
	out->spec_size = size;
	out->state_size = state_size;
	if (own)
		*own = copy;
	return 0;
fail:
	r = -errno;
	if (own)
		*own = copy;	/* the caller's to free */
	if (map != MAP_FAILED)
		syscall(SYS_munmap, map, (long)size);
	if (out->spec_rw)
		syscall(SYS_munmap, out->spec_rw, (long)size);
	out->spec_rw = NULL;
	syscall(SYS_close, sfd);
	if (tfd >= 0)
		syscall(SYS_close, tfd);
	return (int)(r ? r : -EIO);
}

int ms_channel_create(const struct ms_spec *spec, uint32_t events_cap, uint32_t flags,
		      uint64_t token, struct ms_chan_pair *out)
{
	return create(spec, events_cap, flags, token, NULL, NULL, NULL, out);
}

int ms_channel_create_own(const struct ms_spec *spec, uint32_t events_cap, uint32_t flags,
			  uint64_t token, void **own, void *(*own_alloc)(void *, uint64_t, int),
			  void *arg, struct ms_chan_pair *out)
{
	return create(spec, events_cap, flags, token, own, own_alloc, arg, out);
}

int ms_channel_same(long fd, const void *own, uint64_t size)
{
	/* (a small buffer: the stack pages a larger one would take are
	 * faulted in for this one read) */
	char buf[16384];
	uint64_t off = 0;

	while (off < size) {
		uint64_t want = size - off < sizeof(buf) ? size - off : sizeof(buf);
		long k = syscall(SYS_pread64, fd, buf, (long)want, (long)off);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0 || memcmp(buf, (const char *)own + off, (size_t)k) != 0)
			return 0;
		off += (uint64_t)k;
	}
	return 1;
}

void ms_channel_unmap(struct ms_chan_pair *p)
{
	if (p->spec_rw)
		syscall(SYS_munmap, p->spec_rw, (long)p->spec_size);
	p->spec_rw = NULL;
	if (p->spec)
		syscall(SYS_munmap, p->spec, (long)p->spec_size);
	if (p->state)
		syscall(SYS_munmap, p->state, (long)p->state_size);
	p->spec = NULL;
	p->state = NULL;
}

uint32_t ms_channel_seals_ok(long fd, int state)
{
	long seals = syscall(SYS_fcntl, fd, (long)F_GET_SEALS);
	long want = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL;

	/* the spec: no write at all, or (--control) none but through the
	 * one mapping mockrun made before the seal */
	return seals >= 0 && (seals & want) == want &&
	       (state || (seals & (F_SEAL_WRITE | F_SEAL_FUTURE_WRITE)));
}
