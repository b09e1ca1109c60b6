/* SPDX-License-Identifier: MIT */
/*
 * The bottom of the decision: the view of the channel that each tier
 * sets up (struct ms_dec, ms_d) and the hooks that each tier defines.
 * Every other file of decide/ stands on it; it stands on nothing of
 * decide/ (tier.c defines ms_d and sets its tables up).
 */
#ifndef MS_DECIDE_TIER_H
#define MS_DECIDE_TIER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

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
	struct ms_site_slot *sites;	/* --sites: the sites table, NULL: none */
	const char *pool;
	/* the declared functions' and the system calls' table: function
	 * MS_FN_COUNT + i is dyn[i] (chan->ndyn of them) */
	const struct ms_chan_dyn *dyn;
	/* the fake_time()s (chan->nftimes), and their anchors in the state */
	const struct ms_ftime *ftimes;
	struct ms_time_state *times;
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
	/* probability=: the shim's own stream, a hash of its program's
	 * executable and arguments (the fork's position in a child), with a
	 * count of draws per rule (ndraw of them); the supervisor: none */
	uint64_t draw_key;
	uint32_t *draw_tries, ndraw;
	char exe_name[64];	/* the calling executable's basename (in=) */
	/* the basename of the caller's argv[0], "" when it is exe_name
	 * (in= matches either: users write what they typed, "python3" for
	 * /usr/bin/python3.11); set with exe_name, once per process */
	char arg0_name[64];
};
extern struct ms_dec ms_d MS_DEC_HIDDEN;
/* Points ms_d's tables into a validated spec h and its state (chan and
 * st are the caller's to set, last). */
MS_DEC_HIDDEN void ms_dec_tables(const struct ms_chan_hdr *h, struct ms_state_hdr *state);

/* The pid whose memory and events these are: the caller's. */
static inline int32_t caller_pid(void)
{
	return ms_d.remote ? ms_d.remote : (int32_t)syscall(SYS_getpid);
}

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

/* Takes one turn of an entry with count turns (< 0: unlimited). */
static inline int ms_claim_turn(uint32_t *consumed, int32_t count)
{
	if (count < 0) {
		__atomic_fetch_add(consumed, 1, __ATOMIC_RELAXED);
		return 1;
	}
	return ms_claim_counted(consumed, count);
}

/*
 * +--------------------------------------------------------------------+
 * | The hooks: decide/ declares them, each tier defines every one.     |
 * | The shim (libmockshim/): a call of its own process; mockrun's      |
 * | supervisor (runner/supervise.c): a system call of another process, |
 * | where most are empty (no libc output, no from=, no declared        |
 * | function) and say so.  A unit test that links decide/ alone        |
 * | defines them too.                                                  |
 * +--------------------------------------------------------------------+
 */

/* from=: whether the object holding return address caller matches glob
 * from_glob (pool).  Shim: caller.c; the supervisor: 0 (the parser
 * refuses from= on SYS_ statements). */
MS_DEC_HIDDEN int ms_hook_from(uint32_t from_glob, const void *caller);
/* The report's caller of a failure: e->caller, caller_off and sym.
 * Shim: caller.c (the object and symbol); the supervisor: the program. */
MS_DEC_HIDDEN void ms_hook_caller(const void *caller, struct ms_event *e);
/* A call's site (DESIGN.md 7.1) from its immediate return address
 * caller: the basename of the object of the innermost frame outside the
 * system libraries (obj, cap bytes) and its return address's offset from
 * the object's load bias.  0, or -1 when none is known.  Shim: caller.c
 * (an unwind when caller is in a system library); the supervisor: -1
 * (the parser refuses at= on SYS_ statements). */
MS_DEC_HIDDEN int ms_hook_site(const void *caller, char *obj, size_t cap, uint64_t *off);
/* --on-fail=abort: a check failed; stop the program.  Shim: reply.c;
 * the supervisor: SIGABRT to the calling process. */
MS_DEC_HIDDEN void ms_hook_abort(void);
/* will_hold: whether the held call can no longer go on, after each
 * wake-up of its wait.  Shim: 0 (the thread itself waits); the
 * supervisor, which waits in the caller's place: mockrun stops, or the
 * caller died (its notification is no longer valid). */
MS_DEC_HIDDEN int ms_hook_hold_gone(void);
/* will_hold, in the supervisor: takes the call being answered (ticket t
 * of hold rule ri, its call number) to answer once released, and
 * returns 1; 0 when it cannot (then it waits in the caller's place).
 * Shim: 0. */
MS_DEC_HIDDEN int ms_hook_hold_defer(uint32_t ri, uint32_t t, uint32_t call);
/* power_loss(): the power goes out before this call; never returns
 * before the tree is killed.  Shim: power.c (the process stops itself);
 * the supervisor: withholds its answer until mockrun killed the tree. */
MS_DEC_HIDDEN void ms_hook_power_cut(const void *caller);
/* An output only a libc function has (MS_O_PASSWD_R, MS_O_STRDUP,
 * MS_O_POOLPTR, MS_O_ADDRINFO, MS_O_FERROR): written; 0, or an error
 * code for the return value (ERANGE, EAI_*).  Shim: reply.c. */
MS_DEC_HIDDEN int ms_hook_out(unsigned id, uint32_t ri, const struct ms_rule *r,
			      const struct ms_out *o, const uint64_t *a, uint32_t call,
			      const void *caller);
/* A value only a libc function returns (MS_RF_STRVAL, MS_RF_OWNED,
 * MS_RF_PASSWD, MS_RF_GROUP, MS_RF_HOSTENT): the value v becomes.
 * Shim: reply.c. */
MS_DEC_HIDDEN int64_t ms_hook_value(const struct ms_rule *r, const uint64_t *a, int64_t v);
/* --trace: the line of a call (caller: its immediate return address,
 * for the line's site), mocked (mocked_by: "SRC:LINE" of the
 * statement that replied) or real (passed_by: the aimed statement it
 * passed by, or NULL).  err is the errno the call left.  Shim: trace.c;
 * the supervisor: the line of a system call. */
MS_DEC_HIDDEN void ms_hook_trace_call(unsigned id, const uint64_t *a, int64_t ret, int err,
				      const char *mocked_by, const char *passed_by,
				      const void *caller);
/* --trace: the line of a call of a declared function (id MS_FN_COUNT +
 * i, d its entry of ms_d.dyn, pool the channel's strings), typed as
 * declared.  Shim: trace.c. */
MS_DEC_HIDDEN void ms_hook_trace_decl(const struct ms_chan_dyn *d, const char *pool,
				      const uint64_t *a, uint64_t ret, const char *mocked_by,
				      const void *caller);
/* --trace: the line of an exec, written before it (a successful one
 * never returns).  Shim: trace.c. */
MS_DEC_HIDDEN void ms_hook_trace_exec(unsigned id, const uint64_t *a, const void *caller);
/* --record: a real call of recorded function id, its result and what it
 * wrote.  err is the errno it left.  Shim: record.c. */
MS_DEC_HIDDEN void ms_hook_record_call(const struct ms_chan_hdr *h, struct ms_state_hdr *st,
				       unsigned id, const uint64_t *a, int64_t ret, int err);
/* expect_check: what check function x names (in its process) says of
 * value: 1 passes, 0 fails, -1 no such function.  Shim: handler.c; the
 * supervisor: -1 (the parser refuses expect_check on SYS_ functions). */
MS_DEC_HIDDEN int ms_hook_check_fn(const struct ms_expect *x, uint64_t value);
/* Before an exec or spawn that goes to the real function: warns of a
 * program that will run unmocked, and why.  Shim: escape.c. */
MS_DEC_HIDDEN void ms_hook_exec_check(unsigned id, const uint64_t *a);

#endif
