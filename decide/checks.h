/* SPDX-License-Identifier: MIT */
/*
 * The checks of a call: its parameters against the expectations of its
 * function, and the call order.  A failed check is recorded as it
 * happens (events.h).
 */
#ifndef MS_DECIDE_CHECKS_H
#define MS_DECIDE_CHECKS_H

#include <stdint.h>

#include "tier.h"

/* Parameter param of this call takes its next expectation, if it has any. */
MS_DEC_HIDDEN void ms_check_param(unsigned id, uint8_t param, uint64_t value, const uint64_t *args,
				  uint32_t call, const void *caller);
/* expect_function_call(s): this call against the declared sequence. */
MS_DEC_HIDDEN void ms_check_order(unsigned id, const uint64_t *a, uint32_t call, const void *caller);
/* The call order and every expectation of function id against this call. */
MS_DEC_HIDDEN __attribute__((noinline)) void ms_check_all(unsigned id, const uint64_t *a, uint32_t call,
							    const void *caller);

/* An expectation's check of a call that had no turn left: it fails
 * unless the value is the expected one. */
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

#endif
