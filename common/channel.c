/* SPDX-License-Identifier: MIT */
/* Channel layout (writer) and validation (reader).  See channel.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "catalog.h"
#include "spec.h"

static uint64_t align8(uint64_t n)
{
	return (n + 7) & ~(uint64_t)7;
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
};

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
	/* the state: counters on lines of their own (64-aligned), so that a
	 * thread taking turns of one rule never writes a line another reads */
	l->st_fns = sizeof(struct ms_state_hdr);
	l->st_rules = l->st_fns + nfns * sizeof(struct ms_fn_state);
	l->st_expects = l->st_rules + l->nrules * sizeof(struct ms_rule_state);
	l->st_orders = align8(l->st_expects + (uint64_t)spec->nexpects * sizeof(struct ms_count_state));
	l->st_events = (l->st_orders + (uint64_t)spec->norders * sizeof(struct ms_count_state) + 63) &
		       ~(uint64_t)63;
	l->st_pids = l->st_events + (uint64_t)events_cap * sizeof(struct ms_event);
	l->st_rec = align8(l->st_pids + (uint64_t)MS_CHAN_PIDS * sizeof(int32_t));
	l->st_times = align8(l->st_rec + spec->record_cap);
	l->st_size = l->st_times + (uint64_t)spec->nftimes * sizeof(struct ms_time_state);
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

void ms_time_anchor(const struct ms_chan_hdr *h, void *state)
{
	struct ms_time_state *ts = ms_state_at(state, h->st_times_off);
	const struct ms_ftime *ft = ms_chan_at(h, h->ftimes_off);

	for (uint32_t i = 0; i < h->nftimes; i++) {
		int64_t wall;

		for (unsigned k = 0; k < MS_TC_N; k++)
			ts[i].r0[k] = real_ns(k);
		wall = ft[i].flags & MS_FT_OFFSET ? ft[i].when_ns
						  : ft[i].when_ns - ts[i].r0[MS_TC_REALTIME];
		for (unsigned k = 0; k < MS_TC_N; k++)
			ts[i].off[k] = (MS_TC_WALL >> k & 1) ? wall : 0;
		memcpy(&ts[i].rate_bits, &ft[i].rate, sizeof(double));
		/* even and never 0, which is a thread's "no anchor read yet" */
		ts[i].seq = 2;
	}
}

void ms_time_move(const struct ms_chan_hdr *h, void *state, enum ms_time_op op, int64_t value,
		  double rate)
{
	struct ms_time_state *ts = ms_state_at(state, h->st_times_off);

	for (uint32_t i = 0; i < h->nftimes; i++) {
		struct ms_time_now n;
		int64_t shift = 0;
		uint32_t q;

		ms_time_read(&ts[i], &n);
		if (op != MS_TIME_RATE)
			memcpy(&rate, &n.rate, sizeof(double));
		/* odd while it is written: readers retry, and each thread's
		 * cached anchor goes stale with the seq */
		q = __atomic_load_n(&ts[i].seq, __ATOMIC_RELAXED) | 1;
		__atomic_store_n(&ts[i].seq, q, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_RELEASE);
		for (unsigned k = 0; k < MS_TC_N; k++) {
			int64_t now = real_ns(k), shows = ms_time_fake(&n, k, now);

			if (k == MS_TC_REALTIME && op == MS_TIME_SET)
				shift = value - shows;
			else if (k == MS_TC_REALTIME && op == MS_TIME_ADVANCE)
				shift = value;
			/* each clock goes on from what it shows; the wall
			 * clocks (REALTIME first) jump by the shift */
			__atomic_store_n(&ts[i].r0[k], now, __ATOMIC_RELAXED);
			__atomic_store_n(&ts[i].off[k], shows - now + ((MS_TC_WALL >> k & 1) ? shift : 0),
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
}

/* Whether function f gets MS_FF_LEAN, or MS_FF_LEAN_AIMED when a rule
 * has when() (with any flag but those clear): the flag, or 0. */
static uint32_t fn_is_lean(const struct ms_chan_hdr *h, const struct ms_chan_fn *f,
			   const struct ms_rule *rules)
{
	uint32_t lean = MS_FF_LEAN;

	if ((f->flags & ~(MS_FF_LEAN | MS_FF_LEAN_AIMED)) || f->nexpects || !f->nrules ||
	    (h->flags & MS_CHAN_LOG_CALLS))
		return 0;
	/* a plain rule aimed by when() is lean too: the fast path tests
	 * integer conditions itself, and leaves any other to decide_from */
	for (uint32_t k = 0; k < f->nrules; k++) {
		const struct ms_rule *r = &rules[f->first_rule + k];

		if (!ms_rule_plain(r) || r->in_glob || r->from_glob)
			return 0;
		if (r->ncond)
			lean = MS_FF_LEAN_AIMED;
	}
	return lean;
}

void ms_channel_write(const struct ms_spec *spec, void *map, uint64_t size, uint32_t events_cap,
		      uint32_t flags)
{
	struct ms_chan_hdr *h = map;
	struct ms_chan_fn *fns;
	struct ms_rule *rules;
	struct ms_expect *expects;
	struct layout l;
	uint32_t n = 0, x = 0;

	compute(spec, events_cap, &l);
	h->magic = MS_CHAN_MAGIC;
	h->abi = MS_CHAN_ABI;
	h->size = size;
	h->hdr_size = sizeof(*h);
	h->nfns = MS_FN_COUNT + spec->ndyn;
	h->catalog_hash = ms_catalog_hash();
	h->flags = flags | (spec->trace ? MS_CHAN_TRACE : 0);
	h->trace_path = spec->trace_path;
	h->fns_off = (uint32_t)l.fns;
	h->rules_off = (uint32_t)l.rules;
	h->nrules = spec->nrules;
	h->outs_off = (uint32_t)l.outs;
	h->nouts = spec->nouts;
	h->expects_off = (uint32_t)l.expects;
	h->nexpects = spec->nexpects;
	h->orders_off = (uint32_t)l.orders;
	h->norders = spec->norders;
	h->conds_off = (uint32_t)l.conds;
	h->nconds = spec->nconds;
	h->ftimes_off = (uint32_t)l.ftimes;
	h->nftimes = spec->nftimes;
	h->seed = spec->seed;
	h->dyn_off = (uint32_t)l.dyn;
	h->ndyn = spec->ndyn;
	h->pool_off = (uint32_t)l.pool;
	/* one NUL more: then every offset inside the pool starts a terminated
	 * string, and the reader checks strings by their offset alone */
	h->pool_size = spec->pool_len + 1;
	h->live_first = spec->nrules;
	h->live_cap = spec->live_cap;
	h->live_nouts = spec->nouts;
	h->live_nconds = spec->nconds;
	h->live_pool_size = h->pool_size;
	h->outs_cap = (uint32_t)l.nouts;
	h->conds_cap = (uint32_t)l.nconds;
	h->pool_cap = (uint32_t)l.pool_cap;
	h->events_cap = events_cap;
	h->pids_cap = MS_CHAN_PIDS;
	h->rec_cap = spec->record_cap;
	h->state_size = l.st_size;
	h->st_fns_off = l.st_fns;
	h->st_rules_off = l.st_rules;
	h->st_expects_off = l.st_expects;
	h->st_orders_off = l.st_orders;
	h->st_events_off = l.st_events;
	h->st_pids_off = l.st_pids;
	h->st_rec_off = l.st_rec;
	h->st_times_off = l.st_times;
	fns = ms_chan_at(h, h->fns_off);
	rules = ms_chan_at(h, h->rules_off);
	expects = ms_chan_at(h, h->expects_off);
	for (uint32_t i = 0; i < spec->ndyn; i++) {
		struct ms_chan_dyn *d = (struct ms_chan_dyn *)ms_chan_at(h, h->dyn_off) + i;
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
	/* Grouped by function, declaration order kept within one: counted,
	 * then placed (one pass over the statements, not one per function) */
	memset(fns, 0, h->nfns * sizeof(*fns));
	for (uint32_t i = 0; i < spec->nrules; i++)
		fns[spec->rules[i].fn].nrules++;
	for (uint32_t i = 0; i < spec->nexpects; i++)
		fns[spec->expects[i].fn].nexpects++;
	for (uint32_t fn = 0; fn < h->nfns; fn++) {
		fns[fn].first_rule = n;
		fns[fn].first_expect = x;
		n += fns[fn].nrules;
		x += fns[fn].nexpects;
		fns[fn].nrules = fns[fn].nexpects = 0;
	}
	for (uint32_t i = 0; i < spec->nrules; i++) {
		struct ms_chan_fn *c = &fns[spec->rules[i].fn];
		struct ms_rule *r = &rules[c->first_rule + c->nrules++];

		*r = spec->rules[i];
		r->lean = ms_rule_lean(r);
	}
	for (uint32_t i = 0; i < spec->nexpects; i++) {
		struct ms_chan_fn *c = &fns[spec->expects[i].fn];

		expects[c->first_expect + c->nexpects++] = spec->expects[i];
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

		fns[o->fn].flags |= o->kind == MS_ORD_CALL     ? MS_FF_ORDERED
				    : o->kind == MS_ORD_IGNORE ? MS_FF_IGNORED
							       : MS_FF_NO_CALL;
	}
	for (uint32_t fn = 0; fn < MS_FN_COUNT; fn++)
		if (ms_exec_row(fn))
			fns[fn].flags |= MS_FF_EXEC;
	for (uint32_t fn = 0; fn < MS_FN_COUNT; fn++)
		if (fn_is_lean(h, &fns[fn], rules))
			fns[fn].flags = fn_is_lean(h, &fns[fn], rules);
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

static int pool_ok(const struct ms_chan_hdr *h, uint32_t off)
{
	/* the pool ends with a NUL (checked once): any offset inside it is a
	 * terminated string */
	return off < h->pool_size;
}

/*
 * An output must be one the function's catalog row describes, with the
 * same parameter and capacity: the shim writes through the program's
 * pointers, and only the catalog knows which are buffers of which size.
 */
/* A struct ms_passwd_rec at pool offset off, whose strings are in the pool. */
static int passwd_rec_ok(const struct ms_chan_hdr *h, uint32_t off)
{
	struct ms_passwd_rec rec;

	if (!off || h->pool_size < sizeof(rec) || off > h->pool_size - sizeof(rec))
		return 0;
	memcpy(&rec, (const char *)h + h->pool_off + off, sizeof(rec));
	return pool_ok(h, rec.name) && pool_ok(h, rec.passwd) && pool_ok(h, rec.gecos) &&
	       pool_ok(h, rec.dir) && pool_ok(h, rec.shell);
}

static int output_ok(const struct ms_fn_meta *m, const struct ms_rule *r, const struct ms_out *o,
		     uint32_t pool_size)
{
	/* a POOLPTR's len is the field's offset, not a length */
	if (!m || o->data > pool_size ||
	    (o->kind != MS_O_POOLPTR && o->len > pool_size - o->data))
		return 0;
	/* an argument will_call_real replaces: of its class, not an output */
	if ((o->kind >= MS_O_ARG_INT) != (r->kind == MS_R_REAL))
		return 0;
	/* the kernel runs a call it continues with the caller's own
	 * registers: no argument of a system call can be replaced */
	if (o->kind >= MS_O_ARG_INT && m->syscall)
		return 0;
	if (o->kind >= MS_O_ARG_INT) {
		const struct ms_type *t = o->param < m->nparams ? &m->params[o->param].type : NULL;

		for (unsigned i = 0; t && i < m->nouts; i++)
			if (m->outs[i].param == o->param)
				return 0;
		if (!t)
			return 0;
		switch (o->kind) {
		case MS_O_ARG_INT:
			return (t->tclass == MS_T_INT || t->tclass == MS_T_UINT) && o->len == 8 &&
			       o->cap1 == MS_NONE8;
		case MS_O_ARG_STR:
			return t->tclass == MS_T_STR && strncmp(t->text, "const ", 6) == 0 &&
			       o->cap1 == MS_NONE8 &&
			       (!o->data || o->len < pool_size - o->data);
		default:
			return t->tclass == MS_T_PTR && strstr(t->text, "sockaddr") &&
			       o->len >= sizeof(sa_family_t) && o->len <= sizeof(struct sockaddr_storage) &&
			       o->cap1 == o->param + 1 && o->cap1 < m->nparams;
		}
	}
	for (unsigned i = 0; i < m->nouts; i++) {
		const struct ms_out_desc *d = &m->outs[i];
		const struct ms_struct_desc *sd;

		if (d->param != o->param)
			continue;
		switch (o->kind) {
		case MS_O_BYTES:
		case MS_O_STR:
			if (d->kind == (o->kind == MS_O_BYTES ? MS_OK_BYTES : MS_OK_STR) &&
			    d->cap1 == o->cap1 && d->cap2 == o->cap2)
				return 1;
			break;
		case MS_O_STORE:
			if (d->kind == MS_OK_SCALAR && o->len == d->size)
				return 1;
			sd = d->kind == MS_OK_STRUCT ? ms_struct_find(d->strct) : NULL;
			if (sd && o->len == sd->size)
				return 1;
			break;
		case MS_O_RETSTORE:
			if (d->kind == MS_OK_SCALAR && d->mirror_ret && o->len == d->size)
				return 1;
			break;
		case MS_O_FERROR:
			if (d->kind == MS_OK_FERROR)
				return 1;
			break;
		case MS_O_REVENTS:
			if (d->kind == MS_OK_STRUCT && strcmp(d->strct, "revents") == 0 && o->len &&
			    o->len % 2 == 0 && o->cap1 == o->param + 1 && o->cap1 < m->nparams)
				return 1;
			break;
		case MS_O_SOCKADDR:
			if (d->kind == MS_OK_STRUCT && strcmp(d->strct, "sockaddr") == 0 &&
			    o->len >= sizeof(sa_family_t) && o->len <= sizeof(struct sockaddr_storage) &&
			    o->cap1 == o->param + 1 && o->cap1 < m->nparams)
				return 1;
			break;
		case MS_O_PASSWD_R:
			/* data 0, len 0: no entry */
			if (d->kind == MS_OK_STRUCT && strcmp(d->strct, "passwd_r") == 0 &&
			    o->len == (o->data ? sizeof(struct ms_passwd_rec) : 0) &&
			    m->nparams >= o->param + 4u)
				return 1;
			break;
		case MS_O_POOLPTR:
			/* a string field of a catalog struct (struct tm's tm_zone) */
			sd = d->kind == MS_OK_STRUCT ? ms_struct_find(d->strct) : NULL;
			for (unsigned f = 0; sd && f < sd->nfields; f++)
				if (sd->fields[f].kind == MS_FD_STR && sd->fields[f].off == o->len)
					return 1;
			break;
		case MS_O_ADDRINFO:
			if (d->kind == MS_OK_STRUCT && strcmp(d->strct, "addrinfo") == 0 && o->len &&
			    o->len % sizeof(struct ms_addr) == 0)
				return 1;
			break;
		default:
			break;
		}
	}
	return 0;
}

/* Parameters of function fn: the catalog's, or a module function's (its
 * table checked before any rule is). */
static unsigned nparams_of(const struct ms_chan_hdr *h, uint32_t fn)
{
	if (fn < MS_FN_COUNT)
		return ms_catalog_nparams(fn);
	fn -= MS_FN_COUNT;
	return fn < h->ndyn ? ((const struct ms_chan_dyn *)((const char *)h + h->dyn_off))[fn].nparams
			    : 0;
}

static const struct ms_chan_dyn *dyn_of(const struct ms_chan_hdr *h, uint32_t fn)
{
	return (const struct ms_chan_dyn *)((const char *)h + h->dyn_off) + (fn - MS_FN_COUNT);
}

/*
 * A rule of a declared function: a value of its return class and
 * outputs through its pointer parameters, of the kinds declare.c makes.
 * (The channel's writer is trusted no more than for a catalog rule.)
 */
static const char *declared_rule_ok(const struct ms_chan_hdr *h, const struct ms_chan_dyn *d,
				    const struct ms_rule *r, const struct ms_out *outs)
{
	if (r->kind == MS_R_FAIL)
		return "bad rule for a declared function";
	if (r->flags & ~(MS_RF_ERRNO | MS_RF_DEFAULT | MS_RF_STRVAL | MS_RF_DOUBLE | MS_RF_OWNED))
		return "bad rule for a declared function";
	if (!!(r->flags & MS_RF_DOUBLE) != (d->ret == MS_DYN_RET_DOUBLE && r->kind == MS_R_RETURN &&
					    !(r->flags & MS_RF_DEFAULT)))
		return "bad rule for a declared function (its double mark)";
	if ((r->flags & MS_RF_OWNED) && !(r->flags & MS_RF_STRVAL))
		return "bad owned-string mark";
	if ((r->flags & MS_RF_DEFAULT) && r->rd_kind != MS_RD_CONST)
		return "bad rule default";
	for (uint32_t k = 0; k < r->nouts; k++) {
		const struct ms_out *o = &outs[r->outs_first + k];

		if (o->param >= d->nparams || !(d->ptrmask & (1u << o->param)) ||
		    o->cap1 != MS_NONE8 || o->cap2 != MS_NONE8)
			return "bad output for a declared function";
		switch (o->kind) {
		case MS_O_STORE:
			if (!o->len || o->len > 1024)
				return "bad output for a declared function";
			break;
		case MS_O_STRDUP:
		case MS_O_POOLPTR:
			if (!o->data || !pool_ok(h, o->data) || o->len > 1024 - 8)
				return "bad output for a declared function";
			break;
		default:
			return "bad output for a declared function";
		}
	}
	return NULL;
}

/* when(): the conditions [first, +n) of a statement of function fn. */
static const char *conds_ok(const struct ms_chan_hdr *h, uint32_t fn, uint32_t first, uint32_t n)
{
	const struct ms_cond *c = (const void *)((const char *)h + h->conds_off);
	unsigned np = nparams_of(h, fn);

	if (first > h->nconds || n > h->nconds - first)
		return "conditions out of bounds";
	/* a handler module's functions: the shim never sees their arguments */
	if (n && fn >= MS_FN_COUNT && dyn_of(h, fn)->kind == MS_DYN_MODULE)
		return "conditions on a module function";
	for (uint32_t i = first; i < first + n; i++) {
		const struct ms_cond *k = &c[i];
		int str_op = k->op == MS_C_GLOB || k->op == MS_C_NOGLOB || k->op == MS_C_STREQ ||
			     k->op == MS_C_STRNE;

		if (!k->op || k->op > MS_C_NOTNULL || k->arg > MS_CA_ADDR || k->param >= np ||
		    !pool_ok(h, k->str))
			return "bad condition";
		if (str_op != (k->arg != MS_CA_INT) &&
		    !((k->arg == MS_CA_STR || k->arg == MS_CA_ADDR) &&
		      (k->op == MS_C_ISNULL || k->op == MS_C_NOTNULL)))
			return "bad condition (operator and argument)";
		if (str_op && !k->str)
			return "bad condition (no string)";
		if (k->op == MS_C_GLOB || k->op == MS_C_NOGLOB) {
			uint16_t len;

			/* the fast matcher trusts the shape: it must be the glob's */
			if (k->gform != ms_glob_form((const char *)h + h->pool_off + k->str, &len) ||
			    k->glen != len)
				return "bad condition (glob shape)";
		}
		if (k->arg == MS_CA_INT && k->psize != 1 && k->psize != 2 && k->psize != 4 &&
		    k->psize != 8)
			return "bad condition (size)";
		if (k->op == MS_C_IN && (!k->nset || k->set > h->pool_size ||
					 (uint64_t)k->nset * 8 > h->pool_size - k->set))
			return "bad condition (set)";
	}
	return NULL;
}

static int range_ok(uint64_t size, uint64_t off, uint64_t count, uint64_t elem)
{
	return off <= size && count <= (size - off) / (elem ? elem : 1) && off % 8 == 0;
}

const char *ms_channel_validate(const void *map, uint64_t size)
{
	const struct ms_chan_hdr *h = map;
	const struct ms_chan_fn *fns;
	const struct ms_rule *rules;
	const struct ms_out *outs;
	const struct ms_expect *expects;
	const struct ms_order *orders;

	if (size < sizeof(*h))
		return "too small";
	if (h->magic != MS_CHAN_MAGIC)
		return "bad magic";
	if (h->abi != MS_CHAN_ABI)
		return "ABI version mismatch (mockrun and libmockshim.so differ)";
	if (h->hdr_size != sizeof(*h) || h->size != size)
		return "size mismatch";
	if (h->nfns < MS_FN_COUNT || h->catalog_hash != ms_catalog_hash() ||
	    h->ndyn != h->nfns - MS_FN_COUNT)
		return "catalog mismatch (mockrun and libmockshim.so differ)";
	if (!range_ok(size, h->fns_off, h->nfns, sizeof(*fns)) ||
	    !range_ok(size, h->rules_off, h->nrules, sizeof(*rules)) ||
	    !range_ok(size, h->outs_off, h->nouts, sizeof(*outs)) ||
	    !range_ok(size, h->expects_off, h->nexpects, sizeof(*expects)) ||
	    !range_ok(size, h->orders_off, h->norders, sizeof(*orders)) ||
	    !range_ok(size, h->conds_off, h->nconds, sizeof(struct ms_cond)) ||
	    !range_ok(size, h->ftimes_off, h->nftimes, sizeof(struct ms_ftime)) ||
	    !range_ok(size, h->dyn_off, h->ndyn, sizeof(struct ms_chan_dyn)) ||
	    h->pool_off > size || h->pool_size == 0 || h->pool_size > size - h->pool_off)
		return "section out of bounds";
	if (((const char *)h + h->pool_off)[h->pool_size - 1] != '\0')
		return "string pool not terminated";
	/* Sections in layout order, none overlapping another. */
	{
		const uint64_t ends[] = {
			sizeof(*h),
			(uint64_t)h->fns_off + (uint64_t)h->nfns * sizeof(*fns),
			(uint64_t)h->rules_off + (uint64_t)h->nrules * sizeof(*rules),
			(uint64_t)h->outs_off + (uint64_t)h->nouts * sizeof(*outs),
			(uint64_t)h->expects_off + (uint64_t)h->nexpects * sizeof(*expects),
			(uint64_t)h->orders_off + (uint64_t)h->norders * sizeof(*orders),
			(uint64_t)h->conds_off + (uint64_t)h->nconds * sizeof(struct ms_cond),
			(uint64_t)h->ftimes_off + (uint64_t)h->nftimes * sizeof(struct ms_ftime),
			(uint64_t)h->dyn_off + (uint64_t)h->ndyn * sizeof(struct ms_chan_dyn),
		};
		const uint64_t starts[] = { h->fns_off, h->rules_off, h->outs_off, h->expects_off,
					    h->orders_off, h->conds_off, h->ftimes_off, h->dyn_off,
					    h->pool_off };

		for (size_t i = 0; i < sizeof(starts) / sizeof(starts[0]); i++)
			if (starts[i] < ends[i])
				return i == 0 ? "section overlaps the header" : "sections overlap";
	}
	/* The state's layout, in order, each section 8-aligned (the counters
	 * are atomics) and the per-rule and per-function ones on lines of
	 * their own. */
	{
		const uint64_t starts[] = { h->st_fns_off, h->st_rules_off, h->st_expects_off,
					    h->st_orders_off, h->st_events_off, h->st_pids_off,
					    h->st_rec_off, h->st_times_off };
		const uint64_t counts[] = { h->nfns, h->nrules, h->nexpects, h->norders,
					    h->events_cap, h->pids_cap, h->rec_cap, h->nftimes };
		const uint64_t elems[] = { sizeof(struct ms_fn_state), sizeof(struct ms_rule_state),
					   sizeof(struct ms_count_state), sizeof(struct ms_count_state),
					   sizeof(struct ms_event), sizeof(int32_t), 1,
					   sizeof(struct ms_time_state) };
		uint64_t end = sizeof(struct ms_state_hdr);

		if (h->state_size > (uint64_t)1 << 40 || h->events_cap > 1u << 24 ||
		    h->pids_cap > 1u << 20 || h->st_fns_off % 64 || h->st_rules_off % 64)
			return "state out of bounds";
		for (size_t i = 0; i < sizeof(starts) / sizeof(starts[0]); i++) {
			if (starts[i] < end || !range_ok(h->state_size, starts[i], counts[i], elems[i]))
				return "state out of bounds";
			end = starts[i] + counts[i] * elems[i];
		}
		if (end > h->state_size)
			return "state out of bounds";
	}
	/* the room for statements added live (--control), each inside its
	 * section: a shim reads up to live_cap rules there, whatever live_n */
	if (h->live_first > h->nrules || h->live_n > h->live_cap ||
	    h->nrules - h->live_first > h->live_cap ||
	    (uint64_t)h->rules_off + ((uint64_t)h->live_first + h->live_cap) * sizeof(*rules) > h->outs_off ||
	    h->st_rules_off + ((uint64_t)h->live_first + h->live_cap) * sizeof(struct ms_rule_state) >
		    h->st_expects_off ||
	    h->outs_cap < h->nouts || h->live_nouts > h->outs_cap ||
	    (uint64_t)h->outs_off + (uint64_t)h->outs_cap * sizeof(*outs) > h->expects_off ||
	    h->conds_cap < h->nconds || h->live_nconds > h->conds_cap ||
	    (uint64_t)h->conds_off + (uint64_t)h->conds_cap * sizeof(struct ms_cond) > h->ftimes_off ||
	    h->pool_cap < h->pool_size || h->live_pool_size > h->pool_cap ||
	    (uint64_t)h->pool_off + h->pool_cap > size)
		return "room for live statements out of bounds";
	fns = (const void *)((const char *)h + h->fns_off);
	rules = (const void *)((const char *)h + h->rules_off);
	outs = (const void *)((const char *)h + h->outs_off);
	expects = (const void *)((const char *)h + h->expects_off);
	orders = (const void *)((const char *)h + h->orders_off);
	if (!pool_ok(h, h->trace_path))
		return "trace path out of bounds";
	for (uint32_t i = 0; i < h->ndyn; i++) {
		const struct ms_chan_dyn *d = (const struct ms_chan_dyn *)((const char *)h + h->dyn_off) + i;

		if (!d->name || !pool_ok(h, d->name) || !pool_ok(h, d->params) ||
		    !pool_ok(h, d->proto) || d->nparams > MS_MAX_PARAMS ||
		    d->kind > MS_DYN_SYSCALL || d->ret > MS_DYN_RET_DOUBLE ||
		    (d->kind == MS_DYN_DECLARED && i >= MS_DECL_MAX) ||
		    ((d->ptrmask | d->dblmask) >> d->nparams) || (d->ptrmask & d->dblmask) ||
		    (d->kind == MS_DYN_MODULE && (d->dblmask || d->ret)))
			return "bad module function";
		if (d->kind == MS_DYN_SYSCALL) {
			const struct ms_fn_meta *sm = ms_syscall_by_nr(d->sysnr);

			/* the table's row, as the writer had it */
			if (!sm || d->nparams != sm->nparams || d->dblmask ||
			    strcmp((const char *)h + h->pool_off + d->name, sm->name) != 0)
				return "bad system call";
		}
		if (d->kind == MS_DYN_DECLARED) {
			/* what the stubs read: 6 integer and 8 SSE registers */
			unsigned ndbl = (unsigned)__builtin_popcount(d->dblmask);

			if (ndbl > 8 || d->nparams - ndbl > 6)
				return "bad declared function";
		}
	}
	for (uint32_t i = 0; i < h->nfns; i++) {
		if (fns[i].first_rule > h->nrules || fns[i].nrules > h->nrules - fns[i].first_rule)
			return "function table out of bounds";
		if (fns[i].first_expect > h->nexpects ||
		    fns[i].nexpects > h->nexpects - fns[i].first_expect)
			return "function table out of bounds";
		for (uint32_t k = 0; k < fns[i].nexpects; k++)
			if (expects[fns[i].first_expect + k].fn != i)
				return "function table inconsistent";
		if ((fns[i].flags & (MS_FF_LEAN | MS_FF_LEAN_AIMED)) &&
		    fns[i].flags != fn_is_lean(h, &fns[i], rules))
			return "function table inconsistent (its lean mark)";
	}
	for (uint32_t i = 0; i < h->nftimes; i++) {
		const struct ms_ftime *t = (const struct ms_ftime *)((const char *)h + h->ftimes_off) + i;

		if (!t->clocks || (t->clocks & ~MS_TC_ALL) || !(t->rate >= 0 && t->rate <= 1e6) ||
		    (t->flags & ~(MS_FT_STAT | MS_FT_OFFSET)))
			return "bad fake_time";
		if (!pool_ok(h, t->in_glob) || !pool_ok(h, t->src) || !pool_ok(h, t->text) ||
		    !pool_ok(h, t->when))
			return "fake_time string out of bounds";
	}
	for (uint32_t i = 0; i < h->nexpects; i++) {
		const struct ms_expect *x = &expects[i];

		if (x->fn >= h->nfns || x->kind < MS_X_VALUE || x->kind > MS_X_ANY ||
		    x->param >= nparams_of(h, x->fn) ||
		    (x->psize != 1 && x->psize != 2 && x->psize != 4 && x->psize != 8))
			return "bad expectation";
		if (x->count == 0 || x->count < MS_COUNT_MAYBE)
			return "bad expectation count";
		if (x->data > h->pool_size || x->len > h->pool_size - x->data ||
		    ((x->kind == MS_X_SET || x->kind == MS_X_NOT_SET) &&
		     ((uint64_t)x->len * 8 > h->pool_size - x->data || x->len == 0)))
			return "expectation data out of bounds";
		if ((x->kind == MS_X_STRING || x->kind == MS_X_NOT_STRING) &&
		    x->len >= MS_STRING_BOUND)
			return "expected string too long";
		if (!pool_ok(h, x->in_glob) || !pool_ok(h, x->from_glob) || !pool_ok(h, x->src) ||
		    !pool_ok(h, x->text))
			return "expectation string out of bounds";
		if (conds_ok(h, x->fn, x->cond_first, x->ncond))
			return conds_ok(h, x->fn, x->cond_first, x->ncond);
	}
	for (uint32_t i = 0; i < h->norders; i++) {
		const struct ms_order *o = &orders[i];

		if (o->fn >= h->nfns || o->kind < MS_ORD_CALL || o->kind > MS_ORD_NO_CALL ||
		    (o->kind == MS_ORD_CALL && o->count <= 0))
			return "bad call-order entry";
		if (!pool_ok(h, o->in_glob) || !pool_ok(h, o->from_glob) || !pool_ok(h, o->src) ||
		    !pool_ok(h, o->text))
			return "call-order string out of bounds";
		if (conds_ok(h, o->fn, o->cond_first, o->ncond))
			return conds_ok(h, o->fn, o->cond_first, o->ncond);
	}
	for (uint32_t i = 0; i < h->nrules; i++) {
		const struct ms_rule *r = &rules[i];
		const struct ms_fn_meta *m;
		unsigned np;

		if (r->fn >= h->nfns || r->kind < MS_R_RETURN || r->kind > MS_R_REAL)
			return "bad rule";
		if (r->count == 0 || r->count < MS_COUNT_MAYBE)
			return "bad rule count";
		if (r->lean != ms_rule_lean(r))
			return "bad rule (its lean mark)";
		if (r->outs_first > h->nouts || r->nouts > h->nouts - r->outs_first)
			return "rule outputs out of bounds";
		if (!pool_ok(h, r->value_str) || !pool_ok(h, r->in_glob) ||
		    !pool_ok(h, r->from_glob) || !pool_ok(h, r->src) || !pool_ok(h, r->text))
			return "rule string out of bounds";
		if (conds_ok(h, r->fn, r->cond_first, r->ncond))
			return conds_ok(h, r->fn, r->cond_first, r->ncond);
		/* argument indices must exist: the shim's argument arrays hold
		 * exactly the function's parameters */
		np = nparams_of(h, r->fn);
		m = r->fn < MS_FN_COUNT		       ? ms_catalog_get(r->fn)
		    : dyn_of(h, r->fn)->kind == MS_DYN_SYSCALL ? ms_syscall_by_nr(dyn_of(h, r->fn)->sysnr)
							       : NULL;
		if (!m) {
			const struct ms_chan_dyn *d = dyn_of(h, r->fn);

			if (d->kind == MS_DYN_DECLARED) {
				const char *why = declared_rule_ok(h, d, r, outs);

				if (why)
					return why;
				continue;
			}
			/* a handler module's: values for mock(), nothing else */
			if (r->nouts || (r->flags & MS_RF_DEFAULT) || r->kind != MS_R_RETURN)
				return "bad rule for a module function";
			continue;
		}
		if (r->rd_kind == MS_RD_PARAM && r->rd_param >= np)
			return "bad rule default";
		if (r->rd_kind == MS_RD_BYTES && r->rd_div != MS_NONE8 && r->rd_div >= np)
			return "bad rule default";
		for (uint32_t k = 0; k < r->nouts; k++) {
			const struct ms_out *o = &outs[r->outs_first + k];

			if (!output_ok(m, r, o, h->pool_size))
				return "output not of the catalog's layout";
			/* data 0: no entry */
			if (o->kind == MS_O_PASSWD_R && o->data && !passwd_rec_ok(h, o->data))
				return "bad struct passwd value";
		}
		if ((r->flags & MS_RF_STRVAL) && m->ret.tclass != MS_T_STR)
			return "string value for a function that returns no string";
		if (!!(r->flags & MS_RF_OWNED) != ((r->flags & MS_RF_STRVAL) && m->ret_owned))
			return "bad owned-string mark";
		if ((r->flags & MS_RF_PASSWD) && (!m->ret_passwd || !passwd_rec_ok(h, r->value_str)))
			return "bad struct passwd value";
		if (r->flags & MS_RF_GROUP) {
			struct ms_group_rec g;

			if (!m->ret_group || !r->value_str || h->pool_size < sizeof(g) ||
			    r->value_str > h->pool_size - sizeof(g))
				return "bad struct group value";
			memcpy(&g, (const char *)h + h->pool_off + r->value_str, sizeof(g));
			if (!pool_ok(h, g.name) || !pool_ok(h, g.passwd) || !pool_ok(h, g.mem))
				return "bad struct group value";
		}
		if ((r->flags & MS_RF_HOSTENT) &&
		    (!m->ret_hostent || r->value < 1 || r->value > 64 || !r->value_str ||
		     r->value_str > h->pool_size ||
		     (uint64_t)r->value * sizeof(struct ms_addr) > h->pool_size - r->value_str))
			return "bad struct hostent value";
		if ((r->flags & MS_RF_DEFAULT) && r->rd_kind != m->rd_kind &&
		    !(m->ret.tclass == MS_T_VOID && r->rd_kind == MS_RD_CONST))
			return "bad rule default";
	}
	for (uint32_t i = 0; i < h->nfns; i++)
		for (uint32_t k = 0; k < fns[i].nrules; k++)
			if (rules[fns[i].first_rule + k].fn != i)
				return "function table inconsistent";
	for (uint32_t i = 0; i < h->nouts; i++) {
		const struct ms_out *o = &outs[i];

		if (o->kind < MS_O_BYTES || o->kind > MS_O_ARG_ADDR || o->param >= MS_MAX_PARAMS)
			return "bad output";
		if ((o->cap1 != MS_NONE8 && o->cap1 != MS_CAP_OWN && o->cap1 >= MS_MAX_PARAMS) ||
		    (o->cap2 != MS_NONE8 && o->cap2 >= MS_MAX_PARAMS))
			return "bad output";
		if (o->data > h->pool_size || o->len > h->pool_size - o->data)
			return "output data out of bounds";
		if ((o->kind == MS_O_STORE || o->kind == MS_O_RETSTORE) && o->len > 1024)
			return "output too large";
		if (o->kind == MS_O_RETSTORE && o->len != 4 && o->len != 8)
			return "bad output";
	}
	return NULL;
}

const char *ms_state_validate(const struct ms_chan_hdr *h, const void *state, uint64_t size)
{
	const struct ms_state_hdr *st = state;

	if (size != h->state_size || size < sizeof(*st))
		return "state size mismatch";
	if (st->magic != MS_STATE_MAGIC || st->abi != MS_CHAN_ABI || st->size != size)
		return "bad state header";
	return NULL;
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

/* All of buf (n bytes) into fd from offset 0: 0, or -1 with errno set. */
static int write_all(long fd, const char *buf, uint64_t n)
{
	uint64_t done = 0;

	while (done < n) {
		long k = syscall(SYS_pwrite64, fd, buf + done, (long)(n - done), (long)done);

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

static int create(const struct ms_spec *spec, uint32_t events_cap, uint32_t flags,
		  uint64_t token, void *own, struct ms_chan_pair *out)
{
	uint64_t size = ms_channel_size(spec, events_cap),
		 state_size = ms_channel_state_size(spec, events_cap);
	void *map = MAP_FAILED, *state = MAP_FAILED;
	long sfd, tfd = -1, r;

	memset(out, 0, sizeof(*out));
	out->spec_fd = out->state_fd = -1;
	sfd = memfd_sized("mockshim-spec", size);
	if (sfd < 0)
		return (int)sfd;
	if (own && !spec->live_cap) {
		/* The driver's copy is the one it reads: the memfd is written
		 * from it and never mapped here, so that a large spec is in
		 * this process's memory once, not twice. */
		ms_channel_write(spec, own, size, events_cap, flags);
		if (write_all(sfd, own, size) != 0 ||
		    syscall(SYS_fcntl, sfd, (long)F_ADD_SEALS,
			    (long)(F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)) != 0)
			goto fail;
		goto state;
	}
	map = (void *)syscall(SYS_mmap, NULL, (long)size, (long)(PROT_READ | PROT_WRITE),
			      (long)MAP_SHARED, sfd, 0L);
	if (map == MAP_FAILED)
		goto fail;
	ms_channel_write(spec, map, size, events_cap, flags);
	if (own)
		memcpy(own, map, size);
	if (spec->live_cap) {
		/* live statements: this mapping stays the only writable one */
		out->spec_rw = map;
		map = MAP_FAILED;
		if (syscall(SYS_fcntl, sfd, (long)F_ADD_SEALS,
			    (long)(F_SEAL_FUTURE_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)) != 0)
			goto fail;
	} else {
		/* no writable mapping may exist when the write seal goes on */
		syscall(SYS_munmap, map, (long)size);
		map = MAP_FAILED;
		if (syscall(SYS_fcntl, sfd, (long)F_ADD_SEALS,
			    (long)(F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)) != 0)
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
	ms_state_init(map != MAP_FAILED ? map : own, state, token);
	out->spec_fd = (int)sfd;
	out->state_fd = (int)tfd;
	out->spec = map != MAP_FAILED ? map : NULL;
	out->state = state;
	out->spec_size = size;
	out->state_size = state_size;
	return 0;
fail:
	r = -errno;
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
	return create(spec, events_cap, flags, token, NULL, out);
}

int ms_channel_create_own(const struct ms_spec *spec, uint32_t events_cap, uint32_t flags,
			  uint64_t token, void *own, struct ms_chan_pair *out)
{
	return create(spec, events_cap, flags, token, own, out);
}

int ms_channel_same(long fd, const void *own, uint64_t size)
{
	char buf[65536];
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
