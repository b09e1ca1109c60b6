/* SPDX-License-Identifier: MIT */
/*
 * The decision: which statement answers a call, what it replies, which
 * expectations and call order it checks, and the events it leaves in the
 * channel.  One implementation (decide.c, and the hot path inline below)
 * compiled into both tiers that answer calls:
 *  - the shim (libmockshim/caller.c, reply.c): a call of this process, whose
 *    memory it reads and writes directly;
 *  - mockrun's syscall supervisor (runner/supervise.c): a system call of
 *    another process, stopped in the kernel (seccomp user notification),
 *    whose memory it reads and writes with process_vm_readv/writev.
 *
 * +--------------------------------------------------------------------+
 * | What differs between the two is in struct ms_dec (whose call it   |
 * | is: ms_d.remote) and in the hooks that tier.h declares, which     |
 * | each side defines: the object a return address is in (from=, the   |
 * | report's caller), the outputs only libc functions have (struct     |
 * | passwd, addrinfo, a heap copy), the trace and record lines, and    |
 * | what --on-fail=abort stops.  The rules, queues, checks and events  |
 * | are the same code: a statement means the same in either tier.      |
 * +--------------------------------------------------------------------+
 *
 * The folder's files, bottom up (each includes only those below it):
 * tier.h (ms_d, the hooks), usermem.h (the caller's memory), events.h
 * (the state's events and failures), when.h (in=, from=, when(),
 * probability=), checks.h (expectations, call order), hold.h (will_hold
 * and will_signal), this header
 * (decide.c: the rules and replies), tracefmt.h (the trace line).
 */
#ifndef MS_DECIDE_H
#define MS_DECIDE_H

#include <stddef.h>
#include <stdint.h>

#include "channel/channel.h"
#include "tier.h"
#include "usermem.h"
#include "events.h"
#include "when.h"
#include "checks.h"
#include "hold.h"

/* The last lean site no statement was for, per thread: see decide_from. */
extern __thread uint64_t ms_t_skip MS_DEC_HIDDEN;
/* Set by the tier's ms_hook_site(): 1 when the site it gave is the
 * caller's own frame (a call straight from the program), so that the
 * same return address always has the same site (--sites caches it). */
extern __thread int ms_t_site_direct MS_DEC_HIDDEN;

MS_DEC_HIDDEN int ms_decide_from(unsigned id, uint32_t ri, const uint64_t *a, int64_t *ret,
				 const void *caller, uint32_t call);
MS_DEC_HIDDEN int ms_decide_checked(unsigned id, const uint64_t *a, int64_t *ret,
				    const void *caller, uint32_t call);
/* After will_hold or will_signal rule ri let the call go on: the
 * function's statements after it, as ms_decide() (3: held again, the
 * supervisor answers later). */
MS_DEC_HIDDEN int ms_decide_after(unsigned id, uint32_t ri, const uint64_t *a, int64_t *ret,
				  const void *caller, uint32_t call);
MS_DEC_HIDDEN int ms_answer(uint32_t ri, const uint64_t *a, int64_t *ret, const void *caller,
			    uint32_t call);
MS_DEC_HIDDEN int ms_log_turn(unsigned id, uint32_t ri, uint32_t call, const void *caller,
			      int64_t value, int err);
MS_DEC_HIDDEN int ms_mocked_errno(int e);
/* After a real call that the decision returned 2 for: records and traces
 * it, and returns ret. */
MS_DEC_HIDDEN int64_t ms_trace_after(unsigned id, const uint64_t *a, int64_t ret,
				     const void *caller);

/* A function with MS_FF_SITES and nothing else: its rules, then its
 * call's site in the sites table. */
MS_DEC_HIDDEN int ms_decide_sites(unsigned id, const uint64_t *a, int64_t *ret,
				  const void *caller);

/* ---- the hot path, inline in the shim's ms_consult ---- */

/* A turn that lane k of some thread holds (channel.h, "Lanes"): 1 when
 * one was taken from it. */
MS_DEC_HIDDEN int ms_lane_steal(uint32_t k);

/* A turn of a rule with a lane, whose state's consumed is at c: one
 * more consumed, batched as it is, in one compare-and-swap of their word
 * (every change of it is one: channel.h, "Lanes"). */
static inline int ms_claim_laned(uint32_t *c, int32_t count)
{
	uint64_t *w = (uint64_t *)(void *)c, v = __atomic_load_n(w, __ATOMIC_RELAXED);

	while ((uint32_t)v < (uint32_t)count)
		if (__atomic_compare_exchange_n(w, &v, v + 1, 1, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			return 1;
	return 0;
}

/* A turn of rule r, whose state's consumed is at c (the slow path's):
 * from its count, and once that has none left, from the lanes that hold
 * its turns. */
static inline int ms_claim_rule(uint32_t *c, const struct ms_rule *r)
{
	if (ms_likely(!r->lane))
		return ms_claim_turn(c, r->stmt.count);
	return ms_claim_laned(c, r->stmt.count) || ms_lane_steal(r->lane - 1);
}

/* A turn of a lean rule (ms_rule_lean): its value, and errno. */
static inline int ms_take(unsigned id, const struct ms_rule *r, int64_t *ret, const void *caller,
			  uint32_t call)
{
	*ret = r->value;
	if (ms_unlikely(__atomic_load_n(&ms_d.rst[r - ms_d.rules].logged_pid, __ATOMIC_RELAXED) !=
			__atomic_load_n(&ms_d.log_key, __ATOMIC_RELAXED)))
		return ms_log_turn(id, (uint32_t)(r - ms_d.rules), call, caller, r->value,
				   r->flags & MS_RF_ERRNO ? r->err : -1);
	if (r->flags & MS_RF_ERRNO)
		return ms_mocked_errno(r->err);
	return 1;
}

static inline uint64_t ms_skip_key(unsigned id, const void *caller)
{
	return (uint64_t)(uintptr_t)caller << 16 | id;
}

/*
 * Call numbers (the "call N" of reports and -v).  A function with checks
 * numbers every call it sees, since each is checked; any other numbers
 * the calls a statement answers, when the turn is taken: a call that no
 * statement is for, or that finds every queue empty, goes to the real
 * function unnumbered, as a call in= leaves out never reaches the shim.
 * Lean functions (MS_FF_LEAN) number nothing: nothing would show it.
 */
static inline uint32_t ms_number_call(unsigned id)
{
	return __atomic_add_fetch(&ms_d.fst[id].calls, 1, __ATOMIC_RELAXED);
}

/*
 * The decision for a call of function id with arguments a: 1, replied
 * (*ret, and errno as the rule says); 0, the real call; 2, the real call,
 * then ms_trace_after(); 3 (the supervisor only), held by will_hold: the
 * supervisor answers it once released.
 */
static inline int ms_decide(unsigned id, const uint64_t *a, int64_t *ret, const void *caller)
{
	const struct ms_chan_fn *f = &ms_d.fns[id];
	const struct ms_rule *r, *end;
	struct ms_rule_state *rs;

	/* no call numbers, and no write to the function's shared line */
	if (ms_likely(f->flags == MS_FF_LEAN)) {
		for (r = ms_d.rules + f->first_rule, end = r + f->nrules, rs = ms_d.rst + f->first_rule;
		     r < end; r++, rs++)
			if (ms_claim_rule(&rs->consumed, r))
				return ms_take(id, r, ret, caller, 0);
		return 0;
	}
	if (f->flags == MS_FF_LEAN_AIMED) {
		/* integer conditions tested here; any other, or one that does
		 * not hold, is decide_from's (which counts a pass-by) */
		for (r = ms_d.rules + f->first_rule, end = r + f->nrules, rs = ms_d.rst + f->first_rule;
		     r < end; r++, rs++) {
			if (r->stmt.ncond && !ms_ints_hold(&r->stmt, a))
				return ms_decide_from(id, (uint32_t)(r - ms_d.rules), a, ret, caller, 0);
			if (ms_claim_rule(&rs->consumed, r))
				return ms_take(id, r, ret, caller, 0);
		}
		return 0;
	}
	if (ms_unlikely(f->flags | f->nexpects)) {
		uint32_t call;

		/* --sites alone: no call number, no check */
		if (f->flags == MS_FF_SITES && !f->nexpects)
			return ms_decide_sites(id, a, ret, caller);
		call = ms_number_call(id);

		/* traced, and nothing else: the real call, then its line */
		if (f->flags == MS_FF_TRACED && !(f->nexpects | f->nrules))
			return 2;
		return ms_decide_checked(id, a, ret, caller, call);
	}
	if (__atomic_load_n(&ms_t_skip, __ATOMIC_RELAXED) == ms_skip_key(id, caller))
		return 0;
	for (r = ms_d.rules + f->first_rule, end = r + f->nrules, rs = ms_d.rst + f->first_rule; r < end;
	     r++, rs++) {
		if (ms_likely(r->lean)) {
			if (ms_claim_rule(&rs->consumed, r))
				return ms_take(id, r, ret, caller, ms_number_call(id));
			continue;
		}
		if (r->stmt.in_glob | r->stmt.from_glob | r->prob)
			return ms_decide_from(id, (uint32_t)(r - ms_d.rules), a, ret, caller, 0);
		if (r->stmt.ncond) {
			/* aimed by integers that hold: answered here; anything
			 * else is decide_from's (which counts a pass-by) */
			if (!ms_ints_hold(&r->stmt, a))
				return ms_decide_from(id, (uint32_t)(r - ms_d.rules), a, ret, caller, 0);
			if (ms_rule_plain(r)) {
				if (ms_claim_rule(&rs->consumed, r))
					return ms_take(id, r, ret, caller, 0);
				continue;
			}
		}
		if (ms_claim_rule(&rs->consumed, r))
			return ms_answer((uint32_t)(r - ms_d.rules), a, ret, caller, ms_number_call(id));
	}
	return 0;
}

/* The folder's face: the trace line's pieces too. */
#include "tracefmt.h"

#endif
