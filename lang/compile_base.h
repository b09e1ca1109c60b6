/* SPDX-License-Identifier: MIT */
/*
 * The compiler's base (compile_base.c): the statement being compiled and
 * the helpers every file of the compiler shares.  The compiler's files
 * stand on it one way: compile.c calls compile_check.c and compile_out.c,
 * and all of them (and compile_time.c) call this base, which calls none
 * of them.  Private to the compiler's files.
 */
#ifndef MS_COMPILE_BASE_H
#define MS_COMPILE_BASE_H

#include <errno.h>
#include <stdint.h>

#include "reader.h"

enum stmt_type { ST_RULE, ST_EXPECT, ST_ORDER };

/* The strings in the entry, not pointers: nothing for the loader to
 * relocate in every process the shim is preloaded in. */
struct ms_stmt_kind {
	char name[32];
	size_t len;
	uint8_t type;		/* enum stmt_type */
	uint16_t kind;		/* rule, expectation or order kind */
	int32_t count;		/* 0: taken from the last positional, COUNT */
	uint8_t npos_min, npos_max;	/* positional values after FN */
	char usage[64];
};

/* A statement being compiled. */
struct ms_compiling {
	const struct ms_stmt_kind *sk;
	const struct ms_fn_meta *m;	/* its function */
	const struct ms_src_stmt *st;
	/* a reply's rule; whatever the kind, r.stmt is the header, filled in
	 * once (compile.c) and copied by the other kinds */
	struct ms_rule r;
	const struct ms_arg *pos[MAX_ARGS];	/* the positional values after FN */
	unsigned npos;
	int have_bytes;			/* an output gives bytes (read's buf=) */
	uint8_t given[MS_MAX_PARAMS];	/* outputs given, by parameter */
	const struct ms_arg *at;	/* at="SITE", NULL: none */
};

/* The statement as written, into the pool: its offset, or 0 (-ENOMEM). */
uint32_t ms_stmt_text(struct ms_parser *ps, const struct ms_src_stmt *st);
int ms_unknown_name(struct ms_parser *ps, const struct ms_val *v);
/* COUNT: a positive integer, or -1 (always) / -2 (maybe) where allowed. */
int ms_parse_count(struct ms_parser *ps, const struct ms_val *c, int specials, int32_t *out);
int ms_check_int_range(struct ms_parser *ps, const struct ms_val *v, const struct ms_type *t,
		       const char *what);
int ms_is_int_class(const struct ms_type *t);
/* A double's VALUE (a number; an integer is taken as its double) as its
 * bits in *bits: 0, or -1 with "NAME() returns double: expected a number"
 * (ret, a return value) or "'NAME' is a double: ..." (a parameter). */
int ms_double_bits(struct ms_parser *ps, const struct ms_val *v, const char *name, int ret,
		   int64_t *bits);
/* "fd, buf, count" (or "none") into buf, for messages. */
void ms_param_list(const struct ms_fn_meta *m, char *buf, size_t cap);
/* The output of m at parameter param (not FERROR), or NULL. */
const struct ms_out_desc *ms_find_out(const struct ms_fn_meta *m, int param);
int ms_add_out(struct ms_parser *ps, const struct ms_out *o);
/* ms_spec_add(), and -ENOMEM in ps when it cannot grow: 0 or -1. */
static inline int ms_append(struct ms_parser *ps, void **p, uint32_t *n, uint32_t *cap,
			    const void *e, size_t elem)
{
	if (ms_spec_add(ps->spec, p, n, cap, e, elem) == 0)
		return 0;
	ps->lx.err = -ENOMEM;
	return -1;
}

#endif
