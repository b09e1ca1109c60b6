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
 * | is: ms_d.remote) and in the hooks at the end of this header, which |
 * | each side defines: the object a return address is in (from=, the   |
 * | report's caller), the outputs only libc functions have (struct     |
 * | passwd, addrinfo, a heap copy), the trace and record lines, and    |
 * | what --on-fail=abort stops.  The rules, queues, checks and events  |
 * | are the same code: a statement means the same in either tier.      |
 * +--------------------------------------------------------------------+
 */
#ifndef MS_DECIDE_H
#define MS_DECIDE_H

#include <stddef.h>
#include <stdint.h>

#include "channel/channel.h"

#define MS_DEC_HIDDEN __attribute__((visibility("hidden")))
#ifndef ms_unlikely
#define ms_unlikely(x) __builtin_expect(!!(x), 0)
#define ms_likely(x) __builtin_expect(!!(x), 1)
#endif

/* The spec (read-only, sealed), its tables, and the state, which every
 * process writes, and its sections: indices the state holds are bounded
 * where they are read. */
struct ms_dec {
	const struct ms_chan_hdr *chan;
	struct ms_state_hdr *st;
	const struct ms_chan_fn *fns;
	struct ms_fn_state *fst;
	const struct ms_rule *rules;
	struct ms_rule_state *rst;
	const struct ms_out *outs;
	const struct ms_expect *expects;
	struct ms_count_state *xst;
	const struct ms_order *orders;
	struct ms_count_state *ost;
	const struct ms_cond *conds;
	struct ms_event *events;
	int32_t *pids;
	uint64_t *lanes;	/* the lane blocks (channel.h), NULL: none */
	const char *pool;
	/* the shim: this process's pid without a syscall (read at attach and
	 * in the child of every fork), the pid that last wrote an event;
	 * the supervisor: the calling process's, set for each call */
	int32_t self_pid, my_pid;
	/* what a rule's logged_pid holds when this process need not log its
	 * turn: self_pid, or under -v (MS_CHAN_LOG_CALLS) -1 */
	int32_t log_key;
	/* 0: the calls are this process's (the shim); else the pid of the
	 * process whose call it is (the supervisor), and its thread */
	int32_t remote, remote_tid;
	/* the supervisor: bumped at each read or write of the caller's memory
	 * (process_vm_readv/writev, /proc/PID/fd): the reply then needs
	 * SECCOMP_IOCTL_NOTIF_ID_VALID first */
	uint32_t touched;
	char exe_name[64];	/* the calling executable's basename (in=) */
};
extern struct ms_dec ms_d MS_DEC_HIDDEN;
/* Points ms_d's tables into a validated spec h and its state (chan and
 * st are the caller's to set, last). */
MS_DEC_HIDDEN void ms_dec_tables(const struct ms_chan_hdr *h, struct ms_state_hdr *state);

/* A failed check, before it is an event. */
struct ms_failure {
	uint16_t kind;
	uint8_t param, flags;
	int64_t value;
	const void *bytes;	/* actual bytes for text, nbytes of them */
	uint32_t nbytes, len, at, seq;
};

/* The last lean site no statement was for, per thread: see decide_from. */
extern __thread uint64_t ms_t_skip MS_DEC_HIDDEN;

MS_DEC_HIDDEN int ms_decide_from(unsigned id, uint32_t ri, const uint64_t *a, int64_t *ret,
				 const void *caller, uint32_t call);
MS_DEC_HIDDEN int ms_decide_checked(unsigned id, const uint64_t *a, int64_t *ret,
				    const void *caller, uint32_t call);
MS_DEC_HIDDEN int ms_answer(uint32_t ri, const uint64_t *a, int64_t *ret, const void *caller,
			    uint32_t call);
MS_DEC_HIDDEN int ms_log_turn(unsigned id, uint32_t ri, uint32_t call, const void *caller,
			      int64_t value, int err);
MS_DEC_HIDDEN int ms_mocked_errno(int e);

/* Records pid in the channel's table (see decide.c): 1 when to announce it. */
MS_DEC_HIDDEN int ms_register_pid(int32_t pid, int announce);
/* An event slot with the common fields filled, or NULL; then ms_ev_commit. */
MS_DEC_HIDDEN struct ms_event *ms_ev_begin(uint16_t type, unsigned fn, uint32_t rule, uint32_t call);
MS_DEC_HIDDEN void ms_ev_commit(struct ms_event *e);
MS_DEC_HIDDEN void ms_log_consume(unsigned id, uint32_t ri, uint32_t call, int64_t value,
				  const void *caller);
MS_DEC_HIDDEN void ms_copy_str(char *dst, size_t cap, const char *src);
/* in=: whether glob in_glob (pool) matches the calling executable. */
MS_DEC_HIDDEN int ms_in_here(uint32_t in_glob);
/* Forgets the in= answers: the supervisor's next call is another process's. */
MS_DEC_HIDDEN void ms_in_here_reset(void);
/* in= and from= of statement s: whether the call from caller is in its scope. */
MS_DEC_HIDDEN int ms_in_scope(const struct ms_stmt *s, const void *caller);
MS_DEC_HIDDEN void ms_record_failure(unsigned id, uint32_t idx, uint32_t call, const void *caller,
				     const struct ms_failure *f);
MS_DEC_HIDDEN void ms_check_param(unsigned id, uint8_t param, uint64_t value, const uint64_t *args,
				  uint32_t call, const void *caller);
MS_DEC_HIDDEN void ms_check_order(unsigned id, const uint64_t *a, uint32_t call, const void *caller);
MS_DEC_HIDDEN void ms_output_null(unsigned id, uint32_t ri, uint32_t call, const void *caller,
				  uint8_t param);
/* Copies up to n bytes of the calling program's memory, fault-safely: the count. */
MS_DEC_HIDDEN size_t ms_read_user(void *dst, const void *src, size_t n);
/* Writes n bytes into the calling program's memory: 0, or -1 (a fault). */
MS_DEC_HIDDEN int ms_write_user(void *dst, const void *src, size_t n);

/* when(): whether the conditions of statement s of spec h hold for a
 * call with arguments a; when one does not and why is given, what it saw. */
struct ms_passby {
	uint8_t param;
	uint8_t is_text;	/* text (a string, path or address), else value */
	int64_t value;
	char text[96];		/* MS_EV_TEXT */
};
MS_DEC_HIDDEN int ms_conds_hold(const struct ms_chan_hdr *h, const struct ms_stmt *s,
				const uint64_t *a, struct ms_passby *why);

/* ---- the hooks: each side defines these ---- */

/* from=: whether the object holding return address caller matches glob
 * from_glob (pool). */
MS_DEC_HIDDEN int ms_hook_from(uint32_t from_glob, const void *caller);
/* The report's caller of a failure: e->caller, caller_off and sym. */
MS_DEC_HIDDEN void ms_hook_caller(const void *caller, struct ms_event *e);
/* --on-fail=abort: a check failed; stop the program. */
MS_DEC_HIDDEN void ms_hook_abort(void);
/* An output only a libc function has (MS_O_PASSWD_R, MS_O_STRDUP,
 * MS_O_POOLPTR, MS_O_ADDRINFO, MS_O_FERROR): written; 0, or an error
 * code for the return value (ERANGE, EAI_*). */
MS_DEC_HIDDEN int ms_hook_out(unsigned id, uint32_t ri, const struct ms_rule *r,
			      const struct ms_out *o, const uint64_t *a, uint32_t call,
			      const void *caller);
/* A value only a libc function returns (MS_RF_STRVAL, MS_RF_OWNED,
 * MS_RF_PASSWD, MS_RF_GROUP, MS_RF_HOSTENT): the value v becomes. */
MS_DEC_HIDDEN int64_t ms_hook_value(const struct ms_rule *r, const uint64_t *a, int64_t v);
/* --trace: a mocked call (by: "SRC:LINE"), a real call's result. */
MS_DEC_HIDDEN void ms_trace_call(unsigned id, const uint64_t *a, int64_t ret, int err,
				 const char *by, const char *passed_by);
MS_DEC_HIDDEN void ms_trace_decl(const struct ms_chan_dyn *d, const char *pool, const uint64_t *a,
				 uint64_t ret, const char *by);
MS_DEC_HIDDEN void ms_trace_exec(unsigned id, const uint64_t *a);
MS_DEC_HIDDEN void ms_record_call(const struct ms_chan_hdr *h, struct ms_state_hdr *st, unsigned id,
				  const uint64_t *a, int64_t ret, int err);
MS_DEC_HIDDEN void ms_exec_check(unsigned id, const uint64_t *a);
/* After a real call that the decision returned 2 for: records and traces
 * it, and returns ret. */
MS_DEC_HIDDEN int64_t ms_trace_after(unsigned id, const uint64_t *a, int64_t ret);

/* ---- the hot path, inline in the shim's ms_consult ---- */

/* Takes one turn of an entry with count turns (< 0: unlimited). */
/* A turn of a rule of count > 0 turns: 1, or 0 when they are all taken
 * (the shim's fast slot takes its queue's turns with it too). */
static inline __attribute__((always_inline)) int ms_claim_counted(uint32_t *consumed,
								   int32_t count)
{
	uint32_t c = __atomic_load_n(consumed, __ATOMIC_RELAXED);

	while (c < (uint32_t)count)
		if (__atomic_compare_exchange_n(consumed, &c, c + 1, 1, __ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED))
			return 1;
	return 0;
}

static inline int ms_claim_turn(uint32_t *consumed, int32_t count)
{
	if (count < 0) {
		__atomic_fetch_add(consumed, 1, __ATOMIC_RELAXED);
		return 1;
	}
	return ms_claim_counted(consumed, count);
}

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
 * then ms_trace_after().
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
		uint32_t call = ms_number_call(id);

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
