/* SPDX-License-Identifier: MIT */
/*
 * Whether a statement is for a call: in= (the executable), from= (the
 * object of the return address, the tier's hook), when() (the call's
 * arguments) and probability=.  The one selection that the rules, the
 * expectations and the call order share (select_stmt).
 */
#ifndef MS_DECIDE_WHEN_H
#define MS_DECIDE_WHEN_H

#include <stdint.h>

#include "tier.h"

/* when(): whether the conditions of statement s of spec h hold for a
 * call with arguments a; when one does not and why is given, what it saw. */
struct ms_passby {
	uint8_t param;
	uint8_t is_text;	/* text (a string, path or address), else value */
	int64_t value;
	char text[96];		/* MS_EV_TEXT */
};
MS_DEC_HIDDEN int ms_conds_hold(const struct ms_chan_hdr *h, const struct ms_stmt *s,
				const uint64_t *a, const void *caller, struct ms_passby *why);

/* The common case inline: integer conditions that hold.  1 when they
 * all do; 0 when one does not or needs more than the value (passes()
 * decides then, and logs). */
static inline int ms_ints_hold(const struct ms_stmt *s, const uint64_t *a)
{
	const struct ms_cond *c = ms_d.conds + s->cond_first;

	for (const struct ms_cond *end = c + s->ncond; c < end; c++) {
		int64_t v;

		if (c->arg != MS_CA_INT || (c->psize != 4 && c->psize != 8))
			return 0;
		v = c->psize == 8 ? (int64_t)a[c->param]
		    : c->psigned  ? (int64_t)(int32_t)(uint32_t)a[c->param]
				  : (int64_t)(uint32_t)a[c->param];
		if (c->op == MS_C_EQ ? v != c->value
		    : c->op == MS_C_NE ? v == c->value
		    : c->op == MS_C_ANYBITS ? !(v & c->value)
		    : c->op == MS_C_NOBITS ? (v & c->value) != 0
					  : 1)
			return 0;
	}
	return 1;
}

/* in=: whether glob matches the calling executable's basename or its
 * argv[0]'s (ms_d.exe_name, ms_d.arg0_name). */
MS_DEC_HIDDEN int ms_in_names(const char *glob);
/* in=: whether glob in_glob (pool) matches the calling executable (or
 * argv[0]), answered once per process. */
MS_DEC_HIDDEN int ms_in_here(uint32_t in_glob);
/* Forgets the in= answers: the supervisor's next call is another process's. */
MS_DEC_HIDDEN void ms_in_here_reset(void);

/* in= and from= of statement s: whether the call from caller is in its scope. */
static inline int ms_in_scope(const struct ms_stmt *s, const void *caller)
{
	if (s->in_glob && !ms_in_here(s->in_glob))
		return 0;
	return !s->from_glob || ms_hook_from(s->from_glob, caller);
}

/* The last rule this thread's call passed by, for --trace: (id << 32) |
 * (rule + 1), 0: none.  Another function's is stale. */
extern __thread uint64_t ms_t_passby MS_DEC_HIDDEN;

/* when(): whether statement i of a table (0 rules, 1 expectations,
 * 2 call order) is for this call; one it passes by is counted and
 * logged. */
MS_DEC_HIDDEN __attribute__((noinline)) int ms_dec_passes(unsigned table, uint32_t i, unsigned id,
							    const struct ms_stmt *s, const uint64_t *a,
							    const void *caller);
/* probability=: whether this call of rule ri takes it. */
MS_DEC_HIDDEN __attribute__((noinline)) int ms_dec_draw(uint32_t ri);

/* What a statement's selectors say of a call. */
enum sel {
	SEL_OUT = 0,	/* in= or from= names other programs or objects */
	SEL_PASSED,	/* in scope, but when() (or probability=) passed it by */
	SEL_FOR,	/* the call is for it */
};

/* A table of statements for select_stmt() whose pass-bys were counted
 * already (the same call, looked at again): none counted or logged. */
#define SEL_QUIET 3u

/*
 * The one selection of every statement (a rule, an expectation, a
 * call-order entry, index i of table): in= and from=, then when().
 * The integer conditions that hold are tested inline; anything else is
 * passes()' (which counts and logs a pass-by), or, for SEL_QUIET, the
 * plain test.
 */
static inline __attribute__((always_inline)) enum sel select_stmt(const struct ms_stmt *s, unsigned table, uint32_t i,
				   unsigned id, const uint64_t *a, const void *caller)
{
	if (!ms_in_scope(s, caller))
		return SEL_OUT;
	if (!s->ncond || ms_ints_hold(s, a))
		return SEL_FOR;
	if (table == SEL_QUIET ? ms_conds_hold(ms_d.chan, s, a, caller, NULL)
			       : ms_dec_passes(table, i, id, s, a, caller))
		return SEL_FOR;
	return SEL_PASSED;
}

/* ... and of rule ri, probability= after when(). */
static inline __attribute__((always_inline)) enum sel select_rule(uint32_t ri, unsigned id, const uint64_t *a, const void *caller)
{
	const struct ms_rule *r = &ms_d.rules[ri];
	enum sel k = select_stmt(&r->stmt, 0, ri, id, a, caller);

	return k == SEL_FOR && r->prob && !ms_dec_draw(ri) ? SEL_PASSED : k;
}

#endif
