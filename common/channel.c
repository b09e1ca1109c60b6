/* SPDX-License-Identifier: MIT */
/* Channel layout (writer) and validation (reader).  See channel.h. */
#include <string.h>
#include <sys/socket.h>

#include "catalog.h"
#include "spec.h"

static uint64_t align8(uint64_t n)
{
	return (n + 7) & ~(uint64_t)7;
}

struct layout {
	uint64_t fns, rules, outs, expects, orders, dyn, pool, events, pids, rec, size;
};

static void compute(const struct ms_spec *spec, uint32_t events_cap, struct layout *l)
{
	l->fns = (sizeof(struct ms_chan_hdr) + 63) & ~(uint64_t)63;
	/* 128-aligned: a rule's two lines are one pair for the adjacent-line
	 * prefetcher, which would otherwise pull a neighbour's shared line */
	l->rules = (l->fns + (uint64_t)(MS_FN_COUNT + spec->ndyn) * sizeof(struct ms_chan_fn) + 127) &
		   ~(uint64_t)127;
	l->outs = align8(l->rules + (uint64_t)spec->nrules * sizeof(struct ms_rule));
	l->expects = align8(l->outs + (uint64_t)spec->nouts * sizeof(struct ms_out));
	l->orders = align8(l->expects + (uint64_t)spec->nexpects * sizeof(struct ms_expect));
	l->dyn = align8(l->orders + (uint64_t)spec->norders * sizeof(struct ms_order));
	l->pool = align8(l->dyn + (uint64_t)spec->ndyn * sizeof(struct ms_chan_dyn));
	l->events = align8(l->pool + spec->pool_len + 1);
	l->pids = l->events + (uint64_t)events_cap * sizeof(struct ms_event);
	l->rec = align8(l->pids + (uint64_t)MS_CHAN_PIDS * sizeof(int32_t));
	l->size = l->rec + spec->record_cap;
}

uint64_t ms_channel_size(const struct ms_spec *spec, uint32_t events_cap)
{
	struct layout l;

	compute(spec, events_cap, &l);
	return l.size;
}

/* Whether function f gets MS_FF_LEAN (with any flag but that one clear). */
static int fn_is_lean(const struct ms_chan_hdr *h, const struct ms_chan_fn *f,
		      const struct ms_rule *rules)
{
	if ((f->flags & ~MS_FF_LEAN) || f->nexpects || !f->nrules || (h->flags & MS_CHAN_LOG_CALLS))
		return 0;
	for (uint32_t k = 0; k < f->nrules; k++)
		if (!ms_rule_lean(&rules[f->first_rule + k]))
			return 0;
	return 1;
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
	h->dyn_off = (uint32_t)l.dyn;
	h->ndyn = spec->ndyn;
	h->pool_off = (uint32_t)l.pool;
	/* one NUL more: then every offset inside the pool starts a terminated
	 * string, and the reader checks strings by their offset alone */
	h->pool_size = spec->pool_len + 1;
	h->events_off = (uint32_t)l.events;
	h->events_cap = events_cap;
	h->pids_off = (uint32_t)l.pids;
	if (spec->record_cap) {
		h->rec_off = l.rec;
		h->rec_cap = spec->record_cap;
	}
	h->pids_cap = MS_CHAN_PIDS;
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
		d->kind = m->declared ? MS_DYN_DECLARED : MS_DYN_MODULE;
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
	/* Grouped by function, declaration order kept within one. */
	for (uint32_t fn = 0; fn < h->nfns; fn++) {
		fns[fn].first_rule = n;
		for (uint32_t i = 0; i < spec->nrules; i++)
			if (spec->rules[i].fn == fn) {
				rules[n] = spec->rules[i];
				rules[n].lean = ms_rule_lean(&rules[n]);
				n++;
			}
		fns[fn].nrules = n - fns[fn].first_rule;
		fns[fn].first_expect = x;
		for (uint32_t i = 0; i < spec->nexpects; i++)
			if (spec->expects[i].fn == fn)
				expects[x++] = spec->expects[i];
		fns[fn].nexpects = x - fns[fn].first_expect;
	}
	for (uint32_t fn = 0; fn < MS_FN_COUNT; fn++) {
		if (spec->traced[fn])
			fns[fn].flags |= MS_FF_TRACED;
		if (spec->recorded[fn] && spec->record_cap)
			fns[fn].flags |= MS_FF_RECORD;
	}
	for (uint32_t i = 0; i < spec->norders; i++) {
		const struct ms_order *o = &spec->orders[i];

		fns[o->fn].flags |= o->kind == MS_ORD_CALL     ? MS_FF_ORDERED
				    : o->kind == MS_ORD_IGNORE ? MS_FF_IGNORED
							       : MS_FF_NO_CALL;
	}
	for (uint32_t fn = 0; fn < MS_FN_COUNT; fn++)
		if (fn_is_lean(h, &fns[fn], rules))
			fns[fn].flags = MS_FF_LEAN;
	if (spec->norders)
		memcpy(ms_chan_at(h, h->orders_off), spec->orders,
		       spec->norders * sizeof(struct ms_order));
	if (spec->nouts)
		memcpy(ms_chan_at(h, h->outs_off), spec->outs, spec->nouts * sizeof(struct ms_out));
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

static int output_ok(const struct ms_rule *r, const struct ms_out *o, uint32_t pool_size)
{
	const struct ms_fn_meta *m = ms_catalog_get(r->fn);

	/* a POOLPTR's len is the field's offset, not a length */
	if (!m || o->data > pool_size ||
	    (o->kind != MS_O_POOLPTR && o->len > pool_size - o->data))
		return 0;
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
	    !range_ok(size, h->dyn_off, h->ndyn, sizeof(struct ms_chan_dyn)) ||
	    !range_ok(size, h->events_off, h->events_cap, sizeof(struct ms_event)) ||
	    !range_ok(size, h->pids_off, h->pids_cap, sizeof(int32_t)) ||
	    (h->rec_cap && !range_ok(size, h->rec_off, h->rec_cap, 1)) ||
	    h->pool_off > size || h->pool_size == 0 || h->pool_size > size - h->pool_off)
		return "section out of bounds";
	if (((const char *)h + h->pool_off)[h->pool_size - 1] != '\0')
		return "string pool not terminated";
	/* Sections in layout order, none overlapping another: the shim writes
	 * events and counters, which must never land on what it reads. */
	{
		const uint64_t ends[] = {
			sizeof(*h),
			(uint64_t)h->fns_off + (uint64_t)h->nfns * sizeof(*fns),
			(uint64_t)h->rules_off + (uint64_t)h->nrules * sizeof(*rules),
			(uint64_t)h->outs_off + (uint64_t)h->nouts * sizeof(*outs),
			(uint64_t)h->expects_off + (uint64_t)h->nexpects * sizeof(*expects),
			(uint64_t)h->orders_off + (uint64_t)h->norders * sizeof(*orders),
			(uint64_t)h->dyn_off + (uint64_t)h->ndyn * sizeof(struct ms_chan_dyn),
			(uint64_t)h->pool_off + h->pool_size,
			(uint64_t)h->events_off + (uint64_t)h->events_cap * sizeof(struct ms_event),
		};
		const uint64_t starts[] = { h->fns_off, h->rules_off, h->outs_off, h->expects_off,
					    h->orders_off, h->dyn_off, h->pool_off, h->events_off,
					    h->pids_off };

		for (size_t i = 0; i < sizeof(starts) / sizeof(starts[0]); i++)
			if (starts[i] < ends[i])
				return i == 0 ? "section overlaps the header" : "sections overlap";
		if (h->rec_cap && h->rec_off < (uint64_t)h->pids_off + (uint64_t)h->pids_cap * 4)
			return "sections overlap";
	}
	fns = (const void *)((const char *)h + h->fns_off);
	rules = (const void *)((const char *)h + h->rules_off);
	outs = (const void *)((const char *)h + h->outs_off);
	expects = (const void *)((const char *)h + h->expects_off);
	orders = (const void *)((const char *)h + h->orders_off);
	if (h->order_cursor > h->norders)
		return "bad call-order cursor";
	if (!pool_ok(h, h->trace_path))
		return "trace path out of bounds";
	for (uint32_t i = 0; i < h->ndyn; i++) {
		const struct ms_chan_dyn *d = (const struct ms_chan_dyn *)((const char *)h + h->dyn_off) + i;

		if (!d->name || !pool_ok(h, d->name) || !pool_ok(h, d->params) ||
		    !pool_ok(h, d->proto) || d->nparams > MS_MAX_PARAMS ||
		    d->kind > MS_DYN_DECLARED || d->ret > MS_DYN_RET_DOUBLE ||
		    (d->kind == MS_DYN_DECLARED && i >= MS_DECL_MAX) ||
		    ((d->ptrmask | d->dblmask) >> d->nparams) || (d->ptrmask & d->dblmask) ||
		    (d->kind == MS_DYN_MODULE && (d->dblmask || d->ret)))
			return "bad module function";
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
		if ((fns[i].flags & MS_FF_LEAN) && !fn_is_lean(h, &fns[i], rules))
			return "function table inconsistent (its lean mark)";
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
	}
	for (uint32_t i = 0; i < h->norders; i++) {
		const struct ms_order *o = &orders[i];

		if (o->fn >= h->nfns || o->kind < MS_ORD_CALL || o->kind > MS_ORD_NO_CALL ||
		    (o->kind == MS_ORD_CALL && o->count <= 0))
			return "bad call-order entry";
		if (!pool_ok(h, o->in_glob) || !pool_ok(h, o->from_glob) || !pool_ok(h, o->src) ||
		    !pool_ok(h, o->text))
			return "call-order string out of bounds";
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
		/* argument indices must exist: the shim's argument arrays hold
		 * exactly the function's parameters */
		np = nparams_of(h, r->fn);
		m = r->fn < MS_FN_COUNT ? ms_catalog_get(r->fn) : NULL;
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

			if (!output_ok(r, o, h->pool_size))
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

		if (o->kind < MS_O_BYTES || o->kind > MS_O_POOLPTR || o->param >= MS_MAX_PARAMS)
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
