/* SPDX-License-Identifier: MIT */
/*
 * The spec store: a compiled spec's rules, expectations, call-order
 * entries, conditions, outputs, fake_times, functions outside the
 * catalog and string pool, as the parser (parser.h) and the declarations
 * (declare.h) add them and the channel (channel.h) carries them.  The
 * parser runs in the driver and, in standalone mode, in the shim, so the
 * store allocates only through the callbacks given here.
 */
#ifndef MS_SPEC_H
#define MS_SPEC_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "catalog/catalog.h"
#include "channel.h"

struct ms_struct_desc;
struct ms_site_range;

struct ms_spec {
	struct ms_rule *rules;
	uint32_t nrules, cap_rules;
	struct ms_out *outs;
	uint32_t nouts, cap_outs;
	struct ms_expect *expects;
	uint32_t nexpects, cap_expects;
	struct ms_order *orders;
	uint32_t norders, cap_orders;
	struct ms_cond *conds;		/* when(): statements' cond_first/ncond */
	uint32_t nconds, cap_conds;
	struct ms_ftime *ftimes;	/* fake_time() */
	uint32_t nftimes, cap_ftimes;
	struct ms_fn_meta **dyn;	/* functions of handler modules and declared */
	uint32_t ndyn, cap_dyn;		/* prototypes: ids MS_FN_COUNT + i */
	uint32_t ndeclared;		/* of them `mock` prototypes (< MS_DECL_MAX each) */
	struct ms_struct_desc **structs;	/* `struct NAME { ... }` declarations */
	uint32_t nstructs, cap_structs;
	char *pool;
	uint32_t pool_len, pool_cap;
	void *(*realloc_fn)(void *, size_t);
	void (*free_fn)(void *);
	/* module "path": loads a handler module named in source src and
	 * declares its functions (ms_spec_declare); 0, or -1 with msg set */
	int (*module_fn)(void *ctx, const char *src, const char *path, char *msg, size_t cap);
	void *module_ctx;
	/* a warning at src:line:col (a declaration the catalog answers), or
	 * NULL: none said */
	void (*warn_fn)(void *ctx, const char *src, uint32_t line, uint32_t col, const char *msg);
	void *warn_ctx;
	uint32_t nsources;
	uint8_t traced[MS_FN_COUNT];	/* --trace */
	uint8_t recorded[MS_FN_COUNT];	/* --record-fns */
	uint8_t counted[MS_FN_COUNT];	/* --control: calls ctl --wait-call counts */
	uint64_t record_cap;		/* --record: bytes of the record log, 0: none */
	uint32_t sites_cap;		/* --sites: slots of the sites table, 0: none */
	uint64_t seed;			/* --seed: probability= draws */
	int has_prob;			/* a statement has probability= */
	uint32_t trace_path;		/* pool, 0: stderr */
	uint32_t site_skip;		/* --site-skip: pool, '\n'-separated globs, 0: none */
	/* at="NAME" (a function, FILE:LINE): the resolver that turns it into
	 * site ranges (lang.h: ms_at_resolver), NULL: only OBJ+0xHEX */
	int (*at_fn)(void *ctx, const char *text, struct ms_site_range *out, unsigned max,
		     unsigned *n, char *msg, size_t msglen);
	void *at_ctx;
	uint32_t power_dir;		/* pool: power_loss()'s journal directory, 0: none */
	int trace;			/* any traced */
	uint32_t live_cap;		/* --control: rules mockrun ctl may add */
	int live;			/* parsing for mockrun ctl: replies only, on */
					/* the counted functions */
};

void ms_spec_init(struct ms_spec *spec, void *(*realloc_fn)(void *, size_t),
		  void (*free_fn)(void *));
void ms_spec_fini(struct ms_spec *spec);
/* Grows the array *p of *cap elems of elem bytes to hold need: 0 or -ENOMEM. */
int ms_spec_grow(struct ms_spec *spec, void **p, uint32_t *cap, uint32_t need, size_t elem);
/* Appends the elem bytes at e to the array *p of *n elems (room for
 * *cap): 0 or -ENOMEM. */
static inline int ms_spec_add(struct ms_spec *spec, void **p, uint32_t *n, uint32_t *cap,
			      const void *e, size_t elem)
{
	if (ms_spec_grow(spec, p, cap, *n + 1, elem))
		return -ENOMEM;
	memcpy((char *)*p + (size_t)*n * elem, e, elem);
	++*n;
	return 0;
}
/* Copies n bytes plus a NUL into the pool: offset, or 0 when out of memory. */
uint32_t ms_spec_str(struct ms_spec *spec, const char *s, size_t n);

/* What a spec held at a time, to go back to (a parse that fails leaves
 * nothing behind). */
struct ms_spec_mark {
	uint32_t nrules, nouts, nexpects, norders, nconds, nftimes;
	uint32_t ndyn, ndeclared, nstructs, pool_len;
};
void ms_spec_mark(const struct ms_spec *spec, struct ms_spec_mark *m);
/* Drops what was added since mark m (declarations included). */
void ms_spec_rollback(struct ms_spec *spec, const struct ms_spec_mark *m);

/* A function's id by name, alias or declared: -1 when unknown. */
int ms_spec_find(const struct ms_spec *spec, const char *name, size_t len);
/* Metadata of a catalog or declared function, or NULL. */
const struct ms_fn_meta *ms_spec_meta(const struct ms_spec *spec, unsigned id);
/* Statement i in one numbering of them all: the rules, then the
 * expectations, then the call-order entries (i < ms_spec_nstmts(spec)). */
uint32_t ms_spec_nstmts(const struct ms_spec *spec);
const struct ms_stmt *ms_spec_stmt(const struct ms_spec *spec, uint32_t i);

#endif
