/* SPDX-License-Identifier: MIT */
/*
 * Checking a channel (channel.h): every offset, count and index of a
 * spec before the shim or mockrun reads it, and the state's header.
 * The writer is channel_write.c.
 */
#include <string.h>
#include <sys/socket.h>

#include "catalog/catalog.h"
#include "channel.h"

/* Whether function f gets MS_FF_LEAN, or MS_FF_LEAN_AIMED when a rule
 * has when() (with any flag but those clear): the flag, or 0. */
uint32_t ms_fn_lean(const struct ms_chan_hdr *h, const struct ms_chan_fn *f,
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

		if (!ms_rule_plain(r) || r->stmt.in_glob || r->stmt.from_glob)
			return 0;
		if (r->stmt.ncond)
			lean = MS_FF_LEAN_AIMED;
	}
	return lean;
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
static const char *conds_ok(const struct ms_chan_hdr *h, const struct ms_stmt *s)
{
	const struct ms_cond *c = (const void *)((const char *)h + h->conds_off);
	uint32_t fn = s->fn, first = s->cond_first, n = s->ncond;
	unsigned np;

	if (first > h->nconds || n > h->nconds - first)
		return "conditions out of bounds";
	if (!n)
		return NULL; /* most statements: no when() */
	np = nparams_of(h, fn);
	/* a handler module's functions: the shim never sees their arguments */
	if (n && fn >= MS_FN_COUNT && dyn_of(h, fn)->kind == MS_DYN_MODULE)
		return "conditions on a module function";
	for (uint32_t i = first; i < first + n; i++) {
		const struct ms_cond *k = &c[i];
		int str_op = k->op == MS_C_GLOB || k->op == MS_C_NOGLOB || k->op == MS_C_STREQ ||
			     k->op == MS_C_STRNE;

		if (k->arg == MS_CA_SITE) {
			if (k->op != MS_C_IN || k->param != MS_SITE_PARAM ||
			    k->set > h->pool_size ||
			    (uint64_t)k->nset * sizeof(struct ms_site_rng) > h->pool_size - k->set)
				return "bad condition (site)";
			for (uint32_t j = 0; j < k->nset; j++) {
				struct ms_site_rng g;

				memcpy(&g, (const char *)h + h->pool_off + k->set + j * sizeof(g),
				       sizeof(g));
				if (!g.object || !pool_ok(h, g.object) || g.lo > g.hi)
					return "bad condition (site range)";
			}
			continue;
		}
		if (!k->op || k->op > MS_C_NOTNULL || k->arg > MS_CA_FILE || k->param >= np ||
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

/* What is wrong with a statement of one table, in that table's words. */
struct stmt_why {
	const char *bad;	/* its function */
	const char *strings;	/* a pool offset */
};

/* The header of every statement (struct ms_stmt): its function, its
 * strings and its when() conditions.  NULL, or why not. */
static const char *stmt_ok(const struct ms_chan_hdr *h, const struct ms_stmt *s,
			   const struct stmt_why *why)
{
	if (s->fn >= h->nfns)
		return why->bad;
	if (!pool_ok(h, s->in_glob) || !pool_ok(h, s->from_glob) || !pool_ok(h, s->src) ||
	    !pool_ok(h, s->text))
		return why->strings;
	return conds_ok(h, s);
}

static int range_ok(uint64_t size, uint64_t off, uint64_t count, uint64_t elem)
{
	return off <= size && count <= (size - off) / (elem ? elem : 1) && off % 8 == 0;
}

/* The header, and the spec's sections: in bounds, in order, the pool
terminated. */
static const char *sections_ok(const struct ms_chan_hdr *h, uint64_t size)
{
	if (h->magic != MS_CHAN_MAGIC)
		return "bad magic";
	if (h->abi != MS_CHAN_ABI)
		return "ABI version mismatch (mockrun and libmockshim.so differ)";
	if (h->hdr_size != sizeof(*h) || h->size != size)
		return "size mismatch";
	if (h->nfns < MS_FN_COUNT || h->catalog_hash != ms_catalog_hash() ||
	    h->ndyn != h->nfns - MS_FN_COUNT)
		return "catalog mismatch (mockrun and libmockshim.so differ)";
	if (!range_ok(size, h->fns_off, h->nfns, sizeof(struct ms_chan_fn)) ||
	    !range_ok(size, h->rules_off, h->nrules, sizeof(struct ms_rule)) ||
	    !range_ok(size, h->outs_off, h->nouts, sizeof(struct ms_out)) ||
	    !range_ok(size, h->expects_off, h->nexpects, sizeof(struct ms_expect)) ||
	    !range_ok(size, h->orders_off, h->norders, sizeof(struct ms_order)) ||
	    !range_ok(size, h->conds_off, h->nconds, sizeof(struct ms_cond)) ||
	    !range_ok(size, h->ftimes_off, h->nftimes, sizeof(struct ms_ftime)) ||
	    !range_ok(size, h->dyn_off, h->ndyn, sizeof(struct ms_chan_dyn)) ||
	    h->pool_off > size || h->pool_size == 0 || h->pool_size > size - h->pool_off)
		return "section out of bounds";
	/* Sections in layout order, none overlapping another (before the
	 * pool's contents are read: a pool moved over another section reads
	 * that section's bytes). */
	{
		const uint64_t ends[] = {
			sizeof(*h),
			(uint64_t)h->fns_off + (uint64_t)h->nfns * sizeof(struct ms_chan_fn),
			(uint64_t)h->rules_off + (uint64_t)h->nrules * sizeof(struct ms_rule),
			(uint64_t)h->outs_off + (uint64_t)h->nouts * sizeof(struct ms_out),
			(uint64_t)h->expects_off + (uint64_t)h->nexpects * sizeof(struct ms_expect),
			(uint64_t)h->orders_off + (uint64_t)h->norders * sizeof(struct ms_order),
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
	if (((const char *)h + h->pool_off)[h->pool_size - 1] != '\0')
		return "string pool not terminated";
	return NULL;
}

/* The state's layout, and the room for statements added live. */
static const char *state_layout_ok(const struct ms_chan_hdr *h, uint64_t size)
{
	/* The state's layout, in order, each section 8-aligned (the counters
	 * are atomics) and the per-rule and per-function ones on lines of
	 * their own. */
	{
		const uint64_t starts[] = { h->st_pids_off, h->st_times_off, h->st_events_off,
					    h->st_fns_off, h->st_rules_off, h->st_expects_off,
					    h->st_orders_off, h->st_rec_off,
					    h->lanes_cap ? ms_lanes_off(h) : h->st_rec_off + h->rec_cap };
		const uint64_t counts[] = { h->pids_cap, h->nftimes, h->events_cap, h->nfns,
					    h->nrules, h->nexpects, h->norders, h->rec_cap,
					    (uint64_t)h->lanes_cap * MS_LANES };
		const uint64_t elems[] = { sizeof(int32_t), sizeof(struct ms_time_state),
					   sizeof(struct ms_event), sizeof(struct ms_fn_state),
					   sizeof(struct ms_rule_state), sizeof(struct ms_count_state),
					   sizeof(struct ms_count_state), 1, sizeof(uint64_t) };
		uint64_t end = sizeof(struct ms_state_hdr);

		if (h->state_size > (uint64_t)1 << 40 || h->events_cap > 1u << 24 ||
		    h->pids_cap > 1u << 20 || h->lanes_cap > MS_LANE_BLOCKS ||
		    h->st_rec_off > h->state_size || h->st_fns_off % 64 || h->st_rules_off % 64)
			return "state out of bounds";
		for (size_t i = 0; i < sizeof(starts) / sizeof(starts[0]); i++) {
			if (starts[i] < end || !range_ok(h->state_size, starts[i], counts[i], elems[i]))
				return "state out of bounds";
			end = starts[i] + counts[i] * elems[i];
		}
		if (end > h->state_size)
			return "state out of bounds";
		if (h->sites_cap && (h->sites_cap > 1u << 20 || ms_sites_off(h) < end ||
				     !range_ok(h->state_size, ms_sites_off(h), h->sites_cap,
					       sizeof(struct ms_site_slot))))
			return "state out of bounds";
	}
	/* the room for statements added live (--control), each inside its
	 * section: a shim reads up to live_cap rules there, whatever live_n */
	if (h->live_first > h->nrules || h->live_n > h->live_cap ||
	    h->nrules - h->live_first > h->live_cap ||
	    (uint64_t)h->rules_off + ((uint64_t)h->live_first + h->live_cap) * sizeof(struct ms_rule) > h->outs_off ||
	    h->st_rules_off + ((uint64_t)h->live_first + h->live_cap) * sizeof(struct ms_rule_state) >
		    h->st_expects_off ||
	    h->outs_cap < h->nouts || h->live_nouts > h->outs_cap ||
	    (uint64_t)h->outs_off + (uint64_t)h->outs_cap * sizeof(struct ms_out) > h->expects_off ||
	    h->conds_cap < h->nconds || h->live_nconds > h->conds_cap ||
	    (uint64_t)h->conds_off + (uint64_t)h->conds_cap * sizeof(struct ms_cond) > h->ftimes_off ||
	    h->pool_cap < h->pool_size || h->live_pool_size > h->pool_cap ||
	    (uint64_t)h->pool_off + h->pool_cap > size)
		return "room for live statements out of bounds";
	return NULL;
}

/* The trace path, and the functions outside the catalog. */
static const char *dyns_ok(const struct ms_chan_hdr *h)
{
	if (!pool_ok(h, h->trace_path))
		return "trace path out of bounds";
	if (!pool_ok(h, h->site_skip))
		return "site-skip globs out of bounds";
	if (!pool_ok(h, h->power_dir))
		return "power directory out of bounds";
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
	return NULL;
}

/* The function table's bounds, and the fake_times: O(1) a function. */
static const char *fns_ok(const struct ms_chan_hdr *h)
{
	const struct ms_chan_fn *fns = ms_chan_at(h, h->fns_off);

	for (uint32_t i = 0; i < h->nfns; i++) {
		if (fns[i].first_rule > h->nrules || fns[i].nrules > h->nrules - fns[i].first_rule)
			return "function table out of bounds";
		if (fns[i].first_expect > h->nexpects ||
		    fns[i].nexpects > h->nexpects - fns[i].first_expect)
			return "function table out of bounds";
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
	return NULL;
}

/* An expectation. */
static const char *expect_ok(const struct ms_chan_hdr *h, const struct ms_expect *x)
{
	static const struct stmt_why why = { "bad expectation", "expectation string out of bounds" };
	const char *bad = stmt_ok(h, &x->stmt, &why);

	if (bad)
		return bad;
	if (x->kind < MS_X_VALUE || x->kind > MS_X_CHECK || x->param >= nparams_of(h, x->stmt.fn) ||
	    (x->psize != 1 && x->psize != 2 && x->psize != 4 && x->psize != 8))
		return "bad expectation";
	if (x->stmt.count == 0 || x->stmt.count < MS_COUNT_MAYBE)
		return "bad expectation count";
	if (x->data > h->pool_size || x->len > h->pool_size - x->data ||
	    ((x->kind == MS_X_SET || x->kind == MS_X_NOT_SET) &&
	     ((uint64_t)x->len * 8 > h->pool_size - x->data || x->len == 0)))
		return "expectation data out of bounds";
	if ((x->kind == MS_X_STRING || x->kind == MS_X_NOT_STRING) && x->len >= MS_STRING_BOUND)
		return "expected string too long";
	if (x->kind == MS_X_CHECK &&
	    (x->len < 2 || ((const char *)h + h->pool_off)[x->data + x->len - 1] != '\0' ||
	     (x->hi == 1 && !pool_ok(h, (uint32_t)x->lo))))
		return "bad expect_check";
	return NULL;
}

const char *ms_channel_orders_ok(const struct ms_chan_hdr *h)
{
	const struct ms_order *orders = ms_chan_at(h, h->orders_off);

	for (uint32_t i = 0; i < h->norders; i++) {
		static const struct stmt_why why = { "bad call-order entry",
						     "call-order string out of bounds" };
		const struct ms_order *o = &orders[i];
		const char *bad = stmt_ok(h, &o->stmt, &why);

		if (bad)
			return bad;
		if (o->kind < MS_ORD_CALL || o->kind > MS_ORD_NO_CALL ||
		    (o->kind == MS_ORD_CALL && o->stmt.count <= 0 && o->stmt.count != MS_COUNT_ALWAYS))
			return "bad call-order entry";
	}
	return NULL;
}

/* An output, whatever its rule. */
static const char *out_ok(const struct ms_chan_hdr *h, const struct ms_out *o)
{
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
	return NULL;
}

/* A rule, its outputs (each an output of the function's catalog row)
 * and its strings. */
static const char *rule_ok(const struct ms_chan_hdr *h, const struct ms_rule *r)
{
	static const struct stmt_why why = { "bad rule", "rule string out of bounds" };
	const struct ms_out *outs = ms_chan_at(h, h->outs_off);
	const char *bad = stmt_ok(h, &r->stmt, &why);
	const struct ms_fn_meta *m;
	uint32_t fn = r->stmt.fn;

	if (bad)
		return bad;
	if (r->kind < MS_R_RETURN || r->kind > MS_R_SIGNAL)
		return "bad rule";
	if ((r->flags & MS_RF_POWER) && (r->kind != MS_R_REAL || r->nouts || r->value < 0 || r->value > 2))
		return "bad power_loss rule";
	if (r->stmt.count == 0 || r->stmt.count < MS_COUNT_MAYBE)
		return "bad rule count";
	if (r->lean != ms_rule_lean(r))
		return "bad rule (its lean mark)";
	if (r->lane > MS_LANES || (r->lane && (!ms_rule_laned(r) || !h->lanes_cap)))
		return "bad rule (its lane)";
	if (r->outs_first > h->nouts || r->nouts > h->nouts - r->outs_first)
		return "rule outputs out of bounds";
	for (uint32_t k = 0; k < r->nouts; k++)
		if ((bad = out_ok(h, &outs[r->outs_first + k])))
			return bad;
	if (!pool_ok(h, r->value_str))
		return "rule string out of bounds";
	/* will_hold and will_signal answer nothing: no outputs, no value */
	if (r->kind == MS_R_HOLD)
		return r->nouts || r->flags || !r->value_str || r->value < 0 ? "bad will_hold" : NULL;
	if (r->kind == MS_R_SIGNAL)
		return r->nouts || r->flags || r->value < 1 || r->value > 64 ? "bad will_signal" : NULL;
	m = fn < MS_FN_COUNT			 ? ms_catalog_get(fn)
	    : dyn_of(h, fn)->kind == MS_DYN_SYSCALL ? ms_syscall_by_nr(dyn_of(h, fn)->sysnr)
						 : NULL;
	if (!m) {
		const struct ms_chan_dyn *d = dyn_of(h, fn);

		if (d->kind == MS_DYN_DECLARED)
			return declared_rule_ok(h, d, r, outs);
		/* a handler module's: values for mock(), nothing else */
		if (r->nouts || (r->flags & MS_RF_DEFAULT) || r->kind != MS_R_RETURN)
			return "bad rule for a module function";
		return NULL;
	}
	/* argument indices must exist: the shim's argument arrays hold
	 * exactly the function's parameters */
	if (r->rd_kind == MS_RD_PARAM && r->rd_param >= m->nparams)
		return "bad rule default";
	if (r->rd_kind == MS_RD_BYTES && r->rd_div != MS_NONE8 && r->rd_div >= m->nparams)
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
	return NULL;
}

const char *ms_channel_validate_attach(const void *map, uint64_t size)
{
	const struct ms_chan_hdr *h = map;
	const struct ms_rule *rules;
	const char *why;
	uint32_t n;

	if (size < sizeof(*h))
		return "too small";
	/* in this order: each check may trust what the ones before it saw */
	if ((why = sections_ok(h, size)) || (why = state_layout_ok(h, size)) || (why = dyns_ok(h)) ||
	    (why = fns_ok(h)))
		return why;
	/* the statements mockrun ctl added before this: no function's range
	 * holds them (decide_live reads them) */
	rules = ms_chan_at(h, h->rules_off);
	n = __atomic_load_n(&h->nrules, __ATOMIC_ACQUIRE);
	for (uint32_t i = h->live_first; i < n && i - h->live_first < h->live_cap; i++)
		if ((why = rule_ok(h, &rules[i])))
			return why;
	return NULL;
}

const char *ms_channel_fn_ok(const struct ms_chan_hdr *h, uint32_t fn)
{
	const struct ms_chan_fn *f = (const struct ms_chan_fn *)ms_chan_at(h, h->fns_off) + fn;
	const struct ms_rule *rules = ms_chan_at(h, h->rules_off);
	const struct ms_expect *expects = ms_chan_at(h, h->expects_off);
	const char *why;

	if (fn >= h->nfns)
		return "bad function";
	for (uint32_t k = 0; k < f->nexpects; k++) {
		const struct ms_expect *x = &expects[f->first_expect + k];

		if (x->stmt.fn != fn)
			return "function table inconsistent";
		if ((why = expect_ok(h, x)))
			return why;
	}
	for (uint32_t k = 0; k < f->nrules; k++) {
		const struct ms_rule *r = &rules[f->first_rule + k];

		if (r->stmt.fn != fn)
			return "function table inconsistent";
		if ((why = rule_ok(h, r)))
			return why;
	}
	/* after its rules: the mark is computed from them */
	if ((f->flags & (MS_FF_LEAN | MS_FF_LEAN_AIMED)) && f->flags != ms_fn_lean(h, f, rules))
		return "function table inconsistent (its lean mark)";
	return NULL;
}

const char *ms_channel_validate(const void *map, uint64_t size)
{
	const struct ms_chan_hdr *h = map;
	const struct ms_chan_fn *fns;
	const struct ms_out *outs;
	const char *why;

	if ((why = ms_channel_validate_attach(map, size)) || (why = ms_channel_orders_ok(h)))
		return why;
	fns = ms_chan_at(h, h->fns_off);
	for (uint32_t fn = 0; fn < h->nfns; fn++)
		/* most functions have no statement, nothing to check */
		if ((fns[fn].nrules | fns[fn].nexpects | (fns[fn].flags & (MS_FF_LEAN | MS_FF_LEAN_AIMED))) &&
		    (why = ms_channel_fn_ok(h, fn)))
			return why;
	/* the outputs no rule names too: the writer's count holds */
	outs = ms_chan_at(h, h->outs_off);
	for (uint32_t i = 0; i < h->nouts; i++)
		if ((why = out_ok(h, &outs[i])))
			return why;
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
