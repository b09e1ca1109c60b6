/* SPDX-License-Identifier: MIT */
/*
 * Private to the decision's files (decide.c, checks.c): the
 * one selection of a statement, which the replies and the checks share.
 */
#ifndef MS_DECIDE_IMPL_H
#define MS_DECIDE_IMPL_H

#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "decide.h"

/* when(): whether statement i of a table (0 rules, 1 expectations,
 * 2 call order) is for this call; one it passes by is counted and
 * logged (decide.c). */
MS_DEC_HIDDEN __attribute__((noinline)) int ms_dec_passes(unsigned table, uint32_t i, unsigned id,
							    const struct ms_stmt *s, const uint64_t *a);
/* probability=: whether this call of rule ri takes it (decide.c). */
MS_DEC_HIDDEN __attribute__((noinline)) int ms_dec_draw(uint32_t ri);
/* The call order and every expectation of function id against this call
 * (checks.c). */
MS_DEC_HIDDEN __attribute__((noinline)) void ms_check_all(unsigned id, const uint64_t *a, uint32_t call,
							    const void *caller);

/* An expectation's check of a call that had no turn left: it fails
 * unless the value is the expected one (checks.c). */
MS_DEC_HIDDEN __attribute__((noinline)) void ms_check_taken(unsigned id, uint32_t xi, uint8_t param,
							      uint64_t value, uint32_t call,
							      const void *caller);

/* The parameter's value as an expectation compares it. */
static inline int64_t norm(uint64_t v, const struct ms_expect *x)
{
	unsigned sh;

	/* the parameter's psize bytes (1, 2, 4 or 8: validated), sign- or
	 * zero-extended; the common sizes first */
	if (x->psize == 4)
		return x->psigned ? (int64_t)(int32_t)(uint32_t)v : (int64_t)(uint32_t)v;
	if (x->psize == 8)
		return (int64_t)v;
	sh = 64 - 8u * x->psize;
	v <<= sh;
	return x->psigned ? (int64_t)v >> sh : (int64_t)(v >> sh);
}

/* The pid whose memory and events these are: the caller's. */
static inline int32_t caller_pid(void)
{
	return ms_d.remote ? ms_d.remote : (int32_t)syscall(SYS_getpid);
}

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
	if (table == SEL_QUIET ? ms_conds_hold(ms_d.chan, s, a, NULL) : ms_dec_passes(table, i, id, s, a))
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
