/* SPDX-License-Identifier: MIT */
/*
 * The statement compiler: a statement as read (reader.h) becomes a
 * rule, an expectation or a call-order entry in the store (spec.h), each
 * opening with the same header (struct ms_stmt).  Its files:
 *   compile.c        the statement kinds, the header, the options, replies
 *   compile_out.c    outputs (PARAM=VALUE), struct literals, addresses,
 *                    will_call_real's replaced arguments
 *   compile_check.c  expectations, call order, when()'s conditions
 *   compile_time.c   fake_time()
 * Private to the parser's files.
 */
#ifndef MS_COMPILE_H
#define MS_COMPILE_H

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
};

/* The kind of statement NAME, or NULL (an error). */
const struct ms_stmt_kind *ms_find_stmt_kind(struct ms_parser *ps, const struct ms_tok *name);
/* A statement read by ms_read_stmt(), into the store: 0, or -1 (ps->lx.err). */
int ms_compile(struct ms_parser *ps, struct ms_src_stmt *st);
/* fake_time(...), at its name: read and compiled. */
int ms_compile_fake_time(struct ms_parser *ps, struct ms_src_stmt *st, char *scratch);

/* ---- shared by the compiler's files ---- */

/* The statement as written, into the pool: its offset, or 0 (-ENOMEM). */
uint32_t ms_stmt_text(struct ms_parser *ps, const struct ms_src_stmt *st);
int ms_unknown_name(struct ms_parser *ps, const struct ms_val *v);
/* COUNT: a positive integer, or -1 (always) / -2 (maybe) where allowed. */
int ms_parse_count(struct ms_parser *ps, const struct ms_val *c, int specials, int32_t *out);
int ms_check_int_range(struct ms_parser *ps, const struct ms_val *v, const struct ms_type *t,
		       const char *what);
int ms_is_int_class(const struct ms_type *t);
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

/* compile_out.c */
int ms_compile_output(struct ms_parser *ps, struct ms_compiling *c, const struct ms_arg *a);
int ms_compile_rewrite(struct ms_parser *ps, const struct ms_fn_meta *m, const struct ms_arg *a);
int ms_encode_passwd(struct ms_parser *ps, const struct ms_val *v, uint32_t *off);
int ms_encode_group(struct ms_parser *ps, const struct ms_val *v, uint32_t *off);
int ms_encode_addrinfo(struct ms_parser *ps, const struct ms_val *v, struct ms_out *o);

/* compile_check.c */
int ms_compile_conds(struct ms_parser *ps, const struct ms_src_stmt *st, const struct ms_fn_meta *m,
		     struct ms_stmt *hdr);
int ms_compile_expect(struct ms_parser *ps, const struct ms_compiling *c);
int ms_compile_order(struct ms_parser *ps, const struct ms_compiling *c);

#endif
