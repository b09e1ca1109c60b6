/* SPDX-License-Identifier: MIT */
/*
 * The channel: two memfds (made by mockrun, or by the shim in standalone
 * mode) that carry the compiled rules to every process of a session and
 * carry what happened back.
 *
 * +--------------------------------------------------------------------+
 * | The spec and the state (the program under test can write to what   |
 * | it maps, and truncate what it can open):                           |
 * | - the spec (struct ms_chan_hdr and every table it names) is sealed |
 * |   F_SEAL_WRITE|SHRINK|GROW|SEAL before the program runs, and the   |
 * |   shim maps it PROT_READ: nobody can change or truncate it;        |
 * | - the state (struct ms_state_hdr: counters, per-statement counts,  |
 * |   events, pids, the record log) is sealed SHRINK|GROW|SEAL: it     |
 * |   keeps its size (no SIGBUS in mockrun or in another process), but |
 * |   every process of the tree writes it, so its contents are data:   |
 * |   the shim bounds every index it reads from it, and the driver     |
 * |   audits a private copy (ms_state_audit) before it reports.        |
 * | Layout rules (the shim trusts nothing it has not validated):       |
 * | - fixed-width fields only, no pointers: offsets from the mapping's |
 * |   start, or indices; pool offset 0 means "none".                   |
 * | - the spec's offsets and counts (and the state's layout, which the |
 * |   spec names) are checked before they are read: the header, the    |
 * |   sections and the function table at attach, a function's          |
 * |   statements at its first call (ms_channel_validate_attach,        |
 * |   ms_channel_fn_ok; the whole at once: ms_channel_validate()); the |
 * |   state's header by ms_state_validate().                           |
 * | Bump MS_CHAN_ABI whenever a struct below changes.                  |
 * +--------------------------------------------------------------------+
 */
#ifndef MS_CHANNEL_H
#define MS_CHANNEL_H

#include <stddef.h>
#include <stdint.h>

#define MS_CHAN_MAGIC 0x4e48434du /* "MCHN" */
#define MS_CHAN_ABI 27u
#define MS_STATE_MAGIC 0x5453434du /* "MCST" */
/* "SPEC,STATE": the paths of the two memfds (/proc/PID/fd/N) */
#define MS_CHAN_ENV "MOCKSHIM_CHANNEL"
/* "FD:INODE,FD:INODE": the same memfds as inherited descriptors, for
 * processes that cannot see the paths (a new /proc, no /proc);
 * MS_CHAN_FD_FLOOR is where they go, out of the program's way */
#define MS_CHAN_FD_ENV "MOCKSHIM_CHANNEL_FD"
#define MS_CHAN_FD_FLOOR 500
#define MS_CHAN_PIDS 4096	/* processes a session tells apart */

enum ms_chan_flags {
	MS_CHAN_ABORT_ON_FAIL = 1u << 0,	/* --on-fail=abort: SIGABRT at a failed check */
	MS_CHAN_STANDALONE = 1u << 1,	/* made by a shim from MOCKSHIM=: owner_pid reports */
	MS_CHAN_TRACE = 1u << 2,	/* --trace: trace_path (pool, 0: stderr) */
	MS_CHAN_LOG_CALLS = 1u << 3,	/* -v: a consume event for every call, not */
					/* only each process's first of each rule */
	MS_CHAN_TRACE_TIMED = 1u << 4,	/* --trace-format chrome: times, tid, ppid */
};

/* The spec's header: written once by the driver, then sealed. */
struct ms_chan_hdr {
	uint32_t magic;
	uint32_t abi;
	uint64_t size;		/* bytes of the whole spec */
	uint32_t hdr_size;	/* sizeof(struct ms_chan_hdr) */
	uint32_t nfns;		/* MS_FN_COUNT of the writer */
	uint32_t catalog_hash;	/* ms_catalog_hash() of the writer */
	uint32_t flags;		/* enum ms_chan_flags */
	uint32_t fns_off;	/* struct ms_chan_fn[nfns] */
	uint32_t rules_off, nrules;	/* struct ms_rule[nrules] */
	uint32_t outs_off, nouts;	/* struct ms_out[nouts] */
	uint32_t expects_off, nexpects;	/* struct ms_expect[nexpects] */
	uint32_t orders_off, norders;	/* struct ms_order[norders], declaration order */
	uint32_t dyn_off, ndyn;	/* struct ms_chan_dyn[ndyn]: ids nfns - ndyn .. nfns */
	uint32_t pool_off, pool_size;	/* bytes; strings are NUL-terminated */
	uint32_t trace_path;	/* pool: --trace-file, 0: the program's stderr */
	uint32_t events_cap;	/* struct ms_event slots in the state */
	uint32_t pids_cap;	/* int32_t slots in the state */
	uint32_t lanes_cap;	/* MS_LANES-lane blocks at ms_lanes_off() (0: no
				 * rule has a lane) */
	uint32_t conds_off, nconds;	/* struct ms_cond[nconds]: when() */
	uint64_t seed;		/* probability=: draws are a hash of (seed, rule, k) */
	uint64_t rec_cap;	/* --record: bytes of the record log (0: none) */
	/* the state's layout: offsets in the state memfd */
	uint64_t state_size;
	uint64_t st_fns_off;	/* struct ms_fn_state[nfns] */
	uint64_t st_rules_off;	/* struct ms_rule_state[nrules] */
	uint64_t st_expects_off;	/* struct ms_count_state[nexpects] */
	uint64_t st_orders_off;	/* struct ms_count_state[norders] */
	uint64_t st_events_off;	/* struct ms_event[events_cap] */
	uint64_t st_pids_off;	/* int32_t[pids_cap]: processes announced */
	uint64_t st_rec_off;	/* the record log, rec_cap bytes */
	uint32_t ftimes_off, nftimes;	/* struct ms_ftime[nftimes]: fake_time() */
	uint64_t st_times_off;	/* struct ms_time_state[nftimes] */
	/*
	 * --control: room for the statements mockrun ctl adds.  The spec is
	 * then sealed with F_SEAL_FUTURE_WRITE: mockrun keeps the one
	 * writable mapping, nobody can make another.  Rules live_first ..
	 * + live_n are the added ones, in the order they came; their
	 * outputs, conditions and strings follow the others' verbatim, as far
	 * as live_nouts, live_nconds, live_pool_size.  mockrun writes those
	 * first, then live_n (release); a shim loads live_n (acquire).
	 */
	uint32_t live_first, live_cap, live_n;
	uint32_t live_nouts, live_nconds, live_pool_size;
	uint32_t outs_cap, conds_cap, pool_cap;	/* each section's room */
	/* --site-skip: pool, globs of objects whose frames a call site
	 * skips besides the system libraries, '\n'-separated; 0: none */
	uint32_t site_skip;
	/* --sites: slots of the sites table (struct ms_site_slot) at
	 * ms_sites_off(); 0: not recorded */
	uint32_t sites_cap;
	uint32_t power_dir;	/* pool: power_loss()'s journal directory, 0: none */
};

/*
 * +--------------------------------------------------------------------+
 * | What a program that writes the state gets (audit.c checks it; the  |
 * | "write:" notes below say, for each field the driver trusts, what   |
 * | setting it to 0 or to another plausible value earns).  The limit:  |
 * | a failed check turns into a pass only if the program rewrites its  |
 * | event (into another valid event, or past a shortened log), its     |
 * | statement's failed and ok consistently; a failed reply or call     |
 * | order, its event and failed; a statement of count always or maybe, |
 * | its turns too.  Anything less is 125 ("tampered") or a failure     |
 * | (123): a count without its event, or a counted check's turn with   |
 * | no outcome, is a failure recorded in part, as a process or thread  |
 * | ended inside the shim's recording leaves it (mockrun cannot see    |
 * | every such end: a thread ended by another's exit()).               |
 * +--------------------------------------------------------------------+
 *
 * The state's header: what every process of the tree updates, with
 * atomic operations.  token is the driver's, random per run: a state
 * wiped or replaced shows as another token.
 */
struct ms_state_hdr {
	uint64_t token;		/* write: any change is 125 (as magic, abi, size) */
	uint32_t magic;		/* MS_STATE_MAGIC */
	uint32_t abi;
	uint64_t size;
	uint32_t events_next;	/* next event slot; > events_cap: dropped.
				 * write: lower, a complete event past it is
				 * 125; higher, slots never written are read
				 * as torn (a failure there is one in part) */
	uint32_t attached;	/* processes whose shim attached.  write: below
				 * the attach events, 125; above, a count only */
	uint32_t failures;	/* failed checks the full event log had no room
				 * for.  write: 0 changes nothing (the events
				 * count); more while the log has room, 125 */
	uint32_t order_cursor;	/* first call-order entry not yet done;
				 * MS_ORDER_BROKEN after a call out of order.
				 * write: past its end, 125; BROKEN with no
				 * order failure counted, a failure (123);
				 * back to 0, the failure's event and count
				 * still say */
	uint32_t order_seq;	/* calls that took part in call ordering (the
				 * failures' positions only) */
	uint32_t consume_dropped;	/* consume events not logged, to keep room (-v's
					 * note only) */
	uint32_t npids;		/* pids[] used; > pids_cap: full (bounded by
				 * the shim; names in the report only) */
	int32_t owner_pid;	/* MS_CHAN_STANDALONE: the process that reports */
	uint64_t rec_next;	/* next free byte of the record log; > rec_cap: full */
	uint32_t rec_seq;	/* calls recorded, for their order */
	uint32_t rec_dropped;	/* calls not recorded: the log was full */
	uint32_t trace_lost;	/* --trace lines that could not be written */
	uint32_t lanes_next;	/* lane blocks handed out; > lanes_cap: all.
				 * write: bounded; lanes, see settle_lanes() */
	uint32_t failed_unowned;	/* failures that name no statement (mock()
					 * with nothing queued, no rule).  write:
					 * 0 with its event kept, 125; above the
					 * events, a failure in part (123) */
	int32_t trace_errno;	/* why: the first errno of a lost line, or
				 * MS_TRACE_SHORT when every one was a line
				 * written in part (0: none lost).  write: 0 here
				 * and in trace_lost hides a lost line, whose
				 * file the programs write anyway: no pass */
	uint32_t trace_badf;	/* --trace lines lost to EBADF: the program
				 * closed the trace's descriptor (closefrom, a
				 * daemon's loop): a warning, not in trace_lost.
				 * write: the warning's text only */
	int32_t trace_badf_fd;	/* the first such descriptor + 1 (0: none) */
	int32_t trace_open_errno;	/* a process could not open the trace file
					 * (its own /proc, another uid): the first
					 * errno; counted in trace_lost too.  write:
					 * the message's reason only */
	uint32_t sites_lost;	/* --sites: calls the full sites table had no
				 * slot for (mockrun says so, never silent).
				 * write: a count only */
	uint32_t hold_seq;	/* bumped (and futex-woken) each time a thread
				 * comes to a will_hold or leaves one: what
				 * mockrun's watcher waits on (hold.c).  write:
				 * a wake-up, no verdict */
	uint32_t reserved[5];
};

#define MS_TRACE_SHORT (-1)

/*
 * A --trace line write(2) did not take whole: r is what it returned
 * (-errno, or the bytes it took).  Counted, and the first errno kept
 * for mockrun's message (it wins over a line written in part, which
 * is what a full disk or a file size limit gives first).  Async-signal-
 * safe: atomics only.
 */
static inline void ms_trace_lost(struct ms_state_hdr *st, long r)
{
	int32_t want = r < 0 && r > -4096 ? (int32_t)-r : MS_TRACE_SHORT, had = 0;

	if (!__atomic_compare_exchange_n(&st->trace_errno, &had, want, 0, __ATOMIC_RELAXED,
					 __ATOMIC_RELAXED) &&
	    had == MS_TRACE_SHORT && want != MS_TRACE_SHORT)
		__atomic_compare_exchange_n(&st->trace_errno, &had, want, 0, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED);
	__atomic_fetch_add(&st->trace_lost, 1, __ATOMIC_RELAXED);
}

/*
 * A line lost because the program closed the trace's descriptor fd (an
 * honest program: closefrom(3), close_range): counted apart, for a
 * warning, never for mockrun's 125.
 */
static inline void ms_trace_badf(struct ms_state_hdr *st, int fd)
{
	int32_t had = 0;

	__atomic_compare_exchange_n(&st->trace_badf_fd, &had, (int32_t)fd + 1, 0, __ATOMIC_RELAXED,
				    __ATOMIC_RELAXED);
	__atomic_fetch_add(&st->trace_badf, 1, __ATOMIC_RELAXED);
}

/* A process could not open the trace file (errno err): its lines are
 * all lost, which mockrun says (125), never silently. */
static inline void ms_trace_unopened(struct ms_state_hdr *st, int err)
{
	int32_t had = 0;

	__atomic_compare_exchange_n(&st->trace_open_errno, &had, (int32_t)err, 0, __ATOMIC_RELAXED,
				    __ATOMIC_RELAXED);
	ms_trace_lost(st, -(long)err);
}

/* Per function (a cache line each, so that threads calling different
 * functions do not share the calls counter's line). */
struct ms_fn_state {
	uint32_t calls;		/* armed calls seen; module functions: mock() calls; */
				/* MS_FF_COUNTED: every call of the tree */
	uint32_t bound;		/* declared functions: processes that found a */
				/* definition to stand in for */
	/* write: calls numbers the failures and ctl --wait-call; bound
	 * only hides or shows a warning: no verdict depends on either */
	uint32_t reserved[14];
};

/* Per rule, a cache line each: threads taking turns of different rules
 * (unrelated queues) never write a line another one reads. */
struct ms_rule_state {
	/* write: consumed past the count, or lanes that answered more than
	 * was batched, 125; lower, a leftover (a queue not used up) or,
	 * for always and maybe, fewer turns in the report */
	uint32_t consumed;	/* turns taken (a rule with a lane: and claimed) */
	uint32_t batched;	/* a rule with a lane: of consumed, the turns
				 * claimed in batches for lanes; the two are one
				 * 8-byte word, changed together (ms_claim_laned) */
	int32_t logged_pid;	/* the last process that logged a turn of it */
	uint32_t passed;	/* calls its when() passed by */
	uint32_t tries;		/* probability=: calls that drew, for the k of the draw */
	uint32_t declined;	/* probability=: draws that passed it by */
	uint32_t failed;	/* failures naming it, counted before their event.
				 * write: 0 with the event kept, 125; more than
				 * the events, a failure recorded in part (123) */
	/* will_hold (decide/hold.c): a thread that comes takes ticket
	 * hold_arrived++ and waits (futex) until hold_released is past it;
	 * mockrun ctl --release moves hold_released.  write: a thread
	 * released early or held on; the report's verdict on holds comes
	 * from the events */
	uint32_t hold_arrived;
	uint32_t hold_released;
	uint32_t reserved[7];
};

/*
 * Per expectation and call-order entry.  Every outcome is counted twice
 * (audit.c checks that the counts agree): a check of a parameter takes a
 * turn (consumed), then adds to ok or to failed; a failure adds to
 * failed before its event is written.  To turn a failed check into a
 * pass a program must rewrite its event, failed and ok consistently.
 */
struct ms_count_state {
	uint32_t consumed;	/* turns taken (a call-order entry: calls).
				 * write: past the count, 125; above ok +
				 * failed, a failure in part (123) for a
				 * counted check (always and maybe: a call
				 * that never returned); lower, a leftover or
				 * below ok (125), but for always and maybe */
	uint32_t passed;	/* calls its when() passed by (the report's
				 * hint only) */
	uint32_t ok;		/* expectations: checks that held.  write:
				 * above consumed, 125 */
	uint32_t failed;	/* failures naming it, counted before their
				 * event.  write: below the events, 125; 0 with
				 * consumed above ok, or above the events: a
				 * failure in part (123) */
};
/* ok's place after consumed, in uint32_t: a fast slot has consumed's */
#define MS_COUNT_OK_AT 2

enum ms_fn_flags {
	MS_FF_ORDERED = 1u << 0,	/* has expect_function_call entries */
	MS_FF_IGNORED = 1u << 1,	/* ignore_function_calls */
	MS_FF_NO_CALL = 1u << 2,	/* expect_no_call */
	MS_FF_TRACED = 1u << 3,		/* --trace: a line per call */
	MS_FF_LEAN = 1u << 4,		/* alone: every rule ms_rule_lean(), no */
					/* expectation, order or trace, no -v: */
					/* the shim answers without numbering calls */
	MS_FF_RECORD = 1u << 5,		/* --record-fns: each real call's result */
					/* goes to the record log */
	MS_FF_EXEC = 1u << 6,		/* the exec family: armed in every attached */
					/* process, to name escapes (ms_hook_exec_check) */
	MS_FF_LEAN_AIMED = 1u << 7,	/* MS_FF_LEAN, and some rule has when(): */
					/* alone, in place of MS_FF_LEAN */
	MS_FF_COUNTED = 1u << 8,	/* --control: armed in every process, every */
					/* call numbered (calls), for ctl --wait-call */
	MS_FF_SITES = 1u << 9,		/* --sites: each call's site and the */
					/* statement that took it are counted in */
					/* the sites table (never with MS_FF_LEAN) */
};

/* MS_EV_WARN kinds: a program started unmocked (text: its path; param:
 * 1 spawned, 0 exec'd in place). */
enum ms_escape {
	MS_ESC_STATIC = 1,	/* statically linked: LD_PRELOAD cannot reach it */
	MS_ESC_SETUID,		/* setuid or setgid: secure execution, the shim is inert */
	MS_ESC_CAPS,		/* file capabilities: the same */
	MS_ESC_32BIT,		/* a 32-bit program: a 64-bit shim cannot load */
	MS_ESC_NO_PRELOAD,	/* its environment drops the shim from LD_PRELOAD */
	MS_ESC_NO_CHANNEL,	/* its environment drops the channel */
};

/* Flags whose real calls the shim follows up (ms_consult returns 2). */
#define MS_FF_AFTER (MS_FF_TRACED | MS_FF_RECORD)

/*
 * Lanes (issue 22: threads that share one queue).  A queue of many turns
 * (ms_rule_laned) gets lane k of up to MS_LANES: a thread of the shim
 * that answers it from its fast slot claims MS_LANE_BATCH turns at once
 * from the rule's state, adding the batch to consumed and to batched in
 * one compare-and-swap of their 8-byte word, and puts them in lane k of
 * its own block in the state (a line no other thread writes).  A lane is
 * one 8-byte word: its low half counts the turns answered from it, its
 * high half (signed) the turns it still holds; a turn adds 1 to the one
 * and takes 1 from the other in one atomic add, undone if the lane held
 * none.  A call that finds consumed at the count takes a turn from any
 * lane first (ms_lane_steal), so the count's last turns go to whichever
 * thread calls, as without lanes.  After the run the driver settles
 * (the audit): turns taken = consumed - batched + every lane's answered
 * (less the turns in flight that a lane's negative count shows).  A turn
 * claimed in a batch counts once it is answered, whoever answers it, and
 * a batch claimed by a process killed before it reached its lane counts
 * not at all.
 */
#define MS_LANES 32
#define MS_LANE_BATCH 32
#define MS_LANE_BLOCKS 256	/* blocks a session hands out; then a turn at a time */
#define MS_LANE_MIN 4096	/* the least count with a lane */

/* Declared prototypes a session may have: the shim has a stub for each. */
#define MS_DECL_MAX 64

enum ms_dyn_kind {
	MS_DYN_MODULE = 0,	/* a handler module's: its handler consults */
	MS_DYN_DECLARED,	/* `mock RET NAME(PARAMS)`: stub i (i < MS_DECL_MAX) */
	MS_DYN_SYSCALL,		/* SYS_NAME: a system call (catalog/syscall.def, number
				 * sysnr), answered by mockrun's supervisor; the shim
				 * never arms it */
};

enum ms_dyn_ret {
	MS_DYN_RET_INT = 0,	/* integers, pointers, void: in rax */
	MS_DYN_RET_DOUBLE,	/* in xmm0 */
};

/* A function outside the catalog (id MS_FN_COUNT + i). */
struct ms_chan_dyn {
	uint32_t name;		/* pool */
	uint32_t params;	/* pool: the parameter names, comma separated */
	uint32_t proto;		/* pool: the declaration, for reports ("int f(int x)") */
	uint8_t nparams;
	uint8_t kind;		/* enum ms_dyn_kind */
	uint8_t ret;		/* enum ms_dyn_ret */
	uint8_t reserved0;
	uint16_t ptrmask;	/* bit i: parameter i is a pointer */
	uint16_t dblmask;	/* bit i: parameter i is a double (an SSE register) */
	uint16_t sysnr;		/* MS_DYN_SYSCALL: the system call's number */
	uint16_t reserved1;
};

/* Per catalog function: its rules are rules[first_rule .. +nrules), its
 * expectations expects[first_expect .. +nexpects). */
struct ms_chan_fn {
	uint32_t first_rule;
	uint32_t nrules;
	uint32_t first_expect;
	uint32_t nexpects;
	uint32_t flags;		/* enum ms_fn_flags */
	uint32_t reserved[3];
};

enum ms_rule_kind {
	MS_R_RETURN = 1,	/* will_return*: reply with value and outputs */
	MS_R_FAIL,		/* will_fail*: the row's failure value */
	MS_R_REAL,		/* will_call_real: pass through, taking a turn */
	MS_R_HOLD,		/* will_hold: the thread waits until released, then
				 * the call goes on to the next statement; value:
				 * timeout= in ns (0: none), value_str: name= */
	MS_R_SIGNAL,		/* will_signal: the thread raises signal value */
};

enum ms_rule_flags {
	MS_RF_ERRNO = 1u << 0,		/* set errno to err */
	MS_RF_DEFAULT = 1u << 1,	/* value is `_`: derived, see rd_kind */
	MS_RF_STRVAL = 1u << 2,		/* value is a string: pool offset value_str */
	MS_RF_DOUBLE = 1u << 3,		/* value holds a double's bits (module and declared */
					/* functions) */
	MS_RF_PASSWD = 1u << 4,		/* value_str: a struct ms_passwd_rec (getpwuid, getpwnam) */
	MS_RF_GROUP = 1u << 6,		/* value_str: a struct ms_group_rec (getgrnam, getgrgid) */
	MS_RF_HOSTENT = 1u << 7,	/* value_str: value struct ms_addr (gethostbyname*):
					 * a struct hostent of those of the first's family */
	MS_RF_POWER = 1u << 8,		/* MS_R_REAL: power_loss(); value: enum ms_pw_mode,
					 * value_str: the paths= glob, absolute */
	MS_RF_OWNED = 1u << 5,		/* MS_RF_STRVAL, returned as a copy from the */
					/* program's malloc (strdup: the caller frees it) */
};

#define MS_COUNT_ALWAYS (-1)
#define MS_COUNT_MAYBE (-2)
#define MS_NONE8 0xffu

/*
 * +--------------------------------------------------------------------+
 * | Every statement (a rule, an expectation, a call-order entry) opens |
 * | with the same header: the function, the count, the selectors       |
 * | (in=, from=, when()) and where it was written.  Each side handles  |
 * | it once: the compiler fills it in (compile.c:ms_compile), the      |
 * | validator checks it (channel.c:stmt_ok), the decision selects by   |
 * | it (decide.c:select_stmt), the report reads it (report.c:          |
 * | rp_item_at).                                                       |
 * +--------------------------------------------------------------------+
 */
struct ms_stmt {
	uint32_t fn;		/* catalog id */
	int32_t count;		/* > 0, MS_COUNT_ALWAYS, MS_COUNT_MAYBE */
	uint32_t in_glob;	/* pool: basename glob of the executable, 0 = any */
	uint32_t from_glob;	/* pool: basename glob of the calling object */
	uint32_t src;		/* pool: source name ("-e#1", "spec.mock") */
	uint32_t line, col;
	uint32_t text;		/* pool: the statement as written */
	uint32_t cond_first;	/* when(): conds[cond_first .. +ncond) all hold */
	uint32_t ncond;
};

/* What every call of the function reads; its counters are the state's
 * struct ms_rule_state of the same index. */
struct ms_rule {
	struct ms_stmt stmt;
	uint16_t kind;		/* enum ms_rule_kind */
	uint16_t flags;		/* enum ms_rule_flags */
	int32_t err;
	int64_t value;
	uint32_t value_str;
	uint32_t outs_first, nouts;	/* outs[outs_first .. +nouts) */
	uint8_t rd_kind, rd_param, rd_div;	/* `_`: enum ms_ret_default */
	uint8_t lean;		/* ms_rule_lean(): the shim's fast path may answer */
	uint64_t delay_ns;
	uint32_t prob;		/* probability=P: P * 2^32 (P < 1), 0: every call */
	uint32_t lane;		/* k + 1: the rule's turns are reserved in lane k
				 * of a thread's block (MS_LANES); 0: none */
};

enum ms_out_kind_chan {
	MS_O_BYTES = 1,		/* copy len bytes, at most the capacity */
	MS_O_STR,		/* copy, NUL-terminate within the capacity */
	MS_O_STORE,		/* store len bytes through the pointer */
	MS_O_RETSTORE,		/* store the return value (len bytes) if not NULL */
	MS_O_FERROR,		/* on failure, set the FILE's error indicator */
	MS_O_REVENTS,		/* len / 2 int16 revents at data into the struct
				 * pollfd array at param, at most param + 1 of them */
	MS_O_SOCKADDR,		/* a struct sockaddr of len bytes at data: at most
				 * *(socklen_t *)param + 1 of them, and len there */
	MS_O_PASSWD_R,		/* getpw*_r: fill the struct passwd at param with
				 * the ms_passwd_rec at data, its strings in the
				 * caller's buffer (param + 1, size param + 2),
				 * and store it in *result (param + 3) */
	MS_O_ADDRINFO,		/* build an addrinfo list of len / sizeof(struct
				 * ms_addr) addresses, store it through the pointer */
	MS_O_STRDUP,		/* store a pointer to a copy of the string at data,
				 * made with the program's malloc (declared char **) */
	MS_O_POOLPTR,		/* store a pointer to the string at data at byte len
				 * of the pointee (a string field of a declared
				 * struct, or a const char ** output) */
	/* will_call_real(FN, PARAM=VALUE): the real call gets another argument */
	MS_O_ARG_INT,		/* the int64 at data (len 8) */
	MS_O_ARG_STR,		/* a pointer to the string at data (0: NULL) */
	MS_O_ARG_ADDR,		/* a pointer to the struct sockaddr of len bytes at
				 * data; argument cap1 (its length) gets len */
};

/* A struct passwd to return: its strings are pool offsets (0: ""). */
/* A struct group to return: strings are pool offsets; mem lists the
 * members, comma separated ("" : none). */
struct ms_group_rec {
	uint32_t name, passwd, gid, mem;
};

struct ms_passwd_rec {
	uint32_t name, passwd, gecos, dir, shell;
	uint32_t uid, gid;
};

/* One address of an MS_O_ADDRINFO output. */
struct ms_addr {
	uint16_t family;	/* AF_INET or AF_INET6 */
	uint16_t port;		/* host order; 0: from the service argument */
	uint8_t addr[16];	/* network order */
};

struct ms_out {
	uint16_t kind;
	uint8_t param;		/* argument index */
	uint8_t cap1, cap2;	/* capacity = arg[cap1] (* arg[cap2]); MS_NONE8 */
	uint8_t reserved[3];
	uint32_t data, len;	/* pool */
};

enum ms_expect_kind {
	MS_X_VALUE = 1,
	MS_X_NOT_VALUE,
	MS_X_STRING,
	MS_X_NOT_STRING,
	MS_X_MEMORY,
	MS_X_NOT_MEMORY,
	MS_X_RANGE,
	MS_X_NOT_RANGE,
	MS_X_SET,
	MS_X_NOT_SET,
	MS_X_ANY,
	MS_X_CHECK,	/* expect_check: data = the check function's name (pool,
			 * len bytes with its NUL), lo = its data (hi = 1: lo is
			 * the pool offset of a string, passed as a pointer) */
};

/* expect_*(FN, PARAM, ...): checked against every call of FN. */
struct ms_expect {
	struct ms_stmt stmt;
	uint8_t kind;		/* enum ms_expect_kind */
	uint8_t param;		/* argument index */
	uint8_t psize;		/* bytes of an integer parameter (4 or 8) */
	uint8_t psigned;
	uint32_t delay_us;	/* delay=: a call this expectation checks waits
				 * this long before it goes on (0: none) */
	int64_t lo, hi;		/* VALUE: lo; RANGE: lo..hi */
	uint32_t data, len;	/* STRING/MEMORY: pool bytes; SET: len int64s */
};

enum ms_order_kind {
	MS_ORD_CALL = 1,	/* expect_function_call(s): count calls, in sequence */
	MS_ORD_IGNORE,		/* ignore_function_calls: never out of order */
	MS_ORD_NO_CALL,		/* expect_no_call: any call fails */
};

/* order_cursor once a call came out of order: as in CMocka, the first
 * ordering failure is reported and the rest of the sequence is not
 * checked (no "called more often", no "expected but not called"). */
#define MS_ORDER_BROKEN UINT32_MAX

struct ms_order {
	struct ms_stmt stmt;
	uint16_t kind;		/* enum ms_order_kind */
	uint16_t reserved0;
};

/*
 * when(COND, ...): a call whose arguments do not satisfy every condition
 * passes the statement by.  An integer parameter (psize bytes, psigned)
 * is compared with value or the set; a string's bytes, an fd's path
 * (/proc/self/fd/N) or a socket address ("10.0.0.1:443") with str.
 */
enum ms_cond_op {
	MS_C_EQ = 1, MS_C_NE, MS_C_LT, MS_C_LE, MS_C_GT, MS_C_GE,
	MS_C_ANYBITS,		/* PARAM & FLAGS */
	MS_C_NOBITS,		/* !(PARAM & FLAGS) */
	MS_C_IN,		/* PARAM in {A, B}: set, nset int64s in the pool */
	MS_C_GLOB, MS_C_NOGLOB,	/* ~, !~ (str) */
	MS_C_STREQ, MS_C_STRNE,	/* == "exact", != "exact" */
	MS_C_ISNULL, MS_C_NOTNULL,	/* == NULL, != NULL */
};

enum ms_cond_arg {
	MS_CA_INT = 0,		/* the argument's integer value */
	MS_CA_STR,		/* a string the argument points to */
	MS_CA_FD,		/* the path the fd refers to */
	MS_CA_ADDR,		/* the struct sockaddr the argument points to */
	MS_CA_SITE,		/* at=: the call's site (op MS_C_IN, param
				 * MS_SITE_PARAM): in one of nset struct
				 * ms_site_rng at set in the pool */
	MS_CA_FILE,		/* the path of a FILE *'s fd, read from the FILE */
};

/* at="SITE": a call's site is the calling object's basename and the
 * offset of the return address from its load bias (the ELF vaddr), of
 * the innermost frame outside the system libraries (caller.c).  One
 * range: object (pool), return-address offsets lo..hi inclusive; stored
 * in the pool unaligned (read with memcpy). */
struct ms_site_rng {
	uint32_t object;	/* pool: the object's basename */
	uint32_t reserved;
	uint64_t lo, hi;
};
#define MS_SITE_PARAM 0xffu	/* a site condition's param, and its pass-by event's */

struct ms_cond {
	uint8_t op;		/* enum ms_cond_op */
	uint8_t arg;		/* enum ms_cond_arg */
	uint8_t param;
	uint8_t psize;		/* MS_CA_INT: 1, 2, 4 or 8 */
	uint8_t psigned;
	uint8_t gform;		/* MS_C_GLOB, MS_C_NOGLOB: enum ms_glob_form (names.h) */
	uint16_t glen;		/* its literal's length */
	int64_t value;
	uint32_t str;		/* pool: the glob or string */
	uint32_t set, nset;	/* pool offset of nset int64s */
	uint32_t reserved1;
};
_Static_assert(sizeof(struct ms_cond) == 32, "cond layout");

/*
 * fake_time(WHEN, rate=R, clocks=..., stat=true, in=GLOB): the clocks of
 * the slots in clocks read f(t) = t + off + (t - r0) * (rate - 1), where
 * off is the slot's shift (at the start, WHEN's for the wall clocks and 0
 * for the others) and r0 the real time of the slot when the session
 * started (or when mockrun ctl last moved it); the anchor is in the state
 * (struct ms_time_state), so that every process of the tree, started at
 * any time, agrees, and ctl can move it.
 */
enum ms_tclock {
	MS_TC_REALTIME = 0,	/* CLOCK_REALTIME(_COARSE, _ALARM), time(), gettimeofday() */
	MS_TC_TAI,		/* CLOCK_TAI */
	MS_TC_MONOTONIC,	/* CLOCK_MONOTONIC(_COARSE) */
	MS_TC_MONO_RAW,		/* CLOCK_MONOTONIC_RAW */
	MS_TC_BOOTTIME,		/* CLOCK_BOOTTIME(_ALARM) */
	MS_TC_N,
};

#define MS_TC_WALL ((1u << MS_TC_REALTIME) | (1u << MS_TC_TAI))

/* The slot of a clockid_t (Linux's numbers), or -1: a CPU-time clock or
 * another that fake_time leaves alone. */
static inline int ms_tclock_of(long clockid)
{
	switch (clockid) {
	case 0: /* CLOCK_REALTIME */
	case 5: /* CLOCK_REALTIME_COARSE */
	case 8: /* CLOCK_REALTIME_ALARM */
		return MS_TC_REALTIME;
	case 11: /* CLOCK_TAI */
		return MS_TC_TAI;
	case 1: /* CLOCK_MONOTONIC */
	case 6: /* CLOCK_MONOTONIC_COARSE */
		return MS_TC_MONOTONIC;
	case 4: /* CLOCK_MONOTONIC_RAW */
		return MS_TC_MONO_RAW;
	case 7: /* CLOCK_BOOTTIME */
	case 9: /* CLOCK_BOOTTIME_ALARM */
		return MS_TC_BOOTTIME;
	default:
		return -1;
	}
}
#define MS_TC_ALL ((1u << MS_TC_N) - 1)

enum ms_ftime_flags {
	MS_FT_STAT = 1u << 0,	/* stat=true: file times shifted too */
	MS_FT_OFFSET = 1u << 1,	/* WHEN is an offset ("+1d"): when_ns */
};

struct ms_ftime {
	uint32_t clocks;	/* bit i: enum ms_tclock i is faked */
	uint32_t flags;		/* enum ms_ftime_flags */
	int64_t when_ns;	/* the fake start (ns since the epoch), or the offset */
	double rate;		/* >= 0 */
	uint32_t in_glob;	/* pool: basename glob of the executable, 0 = any */
	uint32_t src, line, col, text;	/* pool, as rules' */
	uint32_t when;		/* pool: WHEN as written */
	uint32_t reserved[3];
};

/* A fake_time's anchor and counters, in the state: mockrun (and ctl)
 * writes the anchor under seq (odd while it is written, from 2 up: never
 * 0, a thread's copy's "none"), the shims read it.  A process may write it too; it then only lies to itself.
 * write: reads, sleeps and moves are the report's figures only; no
 * verdict depends on them. */
struct ms_time_state {
	uint32_t seq;
	uint32_t reserved0;
	int64_t r0[MS_TC_N];	/* each slot's real time at the anchor, ns */
	int64_t off[MS_TC_N];	/* each slot's fake minus real at the anchor,
				 * modulo 2^64: near 1677 it does not fit */
	uint64_t rate_bits;	/* the rate, a double's bits */
	uint64_t reads;		/* clock reads answered */
	uint64_t sleeps;	/* sleeps and timeouts converted */
	uint32_t moves;		/* anchors ctl set after the first */
	uint32_t reserved[3];
};

enum ms_event_type {
	MS_EV_ATTACH = 1,	/* a process attached: text = executable basename;
				 * value 0: at start (exec), 1: a forked child */
	MS_EV_CONSUME,		/* a rule took a turn: rule, value */
	MS_EV_FAIL,		/* a failed check: kind says which, see below */
	MS_EV_WARN,		/* something the user should know: kind (enum ms_escape), text */
	MS_EV_PASSBY,		/* one of the first calls an aimed statement passed by:
				 * kind 0 rules, 1 expects, 2 orders; rule: its index;
				 * param: the first condition that did not hold, its
				 * argument in value or text */
	MS_EV_TIME,		/* a process's first read of a fake_time clock:
				 * rule: the fake_time's index, text: the executable */
	MS_EV_CRASH,		/* a process dying of a fatal signal (crash.c):
				 * rule UINT32_MAX, value the signal; kind
				 * MS_CRASH_SITE: its site (caller, caller_off),
				 * seq the frames recorded; MS_CRASH_FRAME: frame
				 * param of its stack (0: the faulting
				 * instruction, then return addresses) */
	MS_EV_HOLD,		/* a thread came to will_hold rule: value its ticket,
				 * text the call with its arguments, the caller */
	MS_EV_UNHOLD,		/* it left: value its ticket; kind 0 released,
				 * 1 past the hold's timeout= */
};

enum ms_crash_kind { MS_CRASH_SITE = 0, MS_CRASH_FRAME = 1 };
#define MS_CRASH_FRAMES 8	/* frames of a crash's stack recorded */

/*
 * Failure kinds.  "rule" indexes the table the kind names; the actual
 * value is in value (integers) or text[at..] (len bytes of a string or
 * memory, MS_EVF_TRUNCATED when longer).
 */
enum ms_failure_kind {
	MS_FAIL_OUTPUT_NULL = 1,	/* rules: an output pointer was NULL */
	MS_FAIL_CHECK,		/* expects: the parameter did not pass */
	MS_FAIL_NO_EXPECT,	/* expects (the last for the parameter): none left */
	MS_FAIL_ORDER,		/* orders: expected this entry; seq = actual position,
				 * value = expected position */
	MS_FAIL_ORDER_EXTRA,	/* orders (the function's last): more calls than expected */
	MS_FAIL_NO_CALL,	/* orders: a call expect_no_call forbids */
	MS_FAIL_MOCK_EMPTY,	/* rules (the function's last, or ~0u): mock() with
				 * nothing queued */
	MS_FAIL_HELD,		/* rules: a thread held at a will_hold was never
				 * released: value 1, past its timeout= (the shim);
				 * 0, still held when its process or the run ended
				 * (mockrun, after the run); text: the call */
};

enum ms_event_flags {
	MS_EVF_NULL = 1u << 0,		/* the pointer was NULL */
	MS_EVF_FAULT = 1u << 1,		/* the pointer could not be read */
	MS_EVF_TRUNCATED = 1u << 2,	/* the actual bytes go on beyond text */
	MS_EVF_UNTERMINATED = 1u << 3,	/* no NUL within the bound */
	MS_EVF_TEXT = 1u << 4,		/* MS_EV_PASSBY: the argument seen is text */
};

#define MS_EV_TEXT 96
#define MS_PASSBY_LOGGED 16	/* MS_EV_PASSBY events per statement, at most */
#define MS_EV_CALLER 64
#define MS_EV_SYM 40
#define MS_STRING_BOUND 4096	/* bytes of a string parameter read at most */

/*
 * write: an event is read only when every field is one a shim writes
 * (its statement's table, function, kind, lengths and offsets), else
 * 125; strings are cut at their size.  A slot below events_next left
 * incomplete (state 0: zeroed) is torn: typed as a failure, or its
 * statement's failed count without an event, a failure recorded in
 * part (123); a failure retyped into another valid event leaves its
 * statement's failed count without an event: the same.
 */
struct ms_event {
	uint32_t state;		/* (shared) 0 = being written, 1 = complete */
	uint16_t type;
	uint16_t fn;
	uint32_t rule;
	uint32_t call;		/* the function's armed call number, from 1 */
	int32_t pid;
	int32_t tid;
	int64_t value;
	uint16_t kind;		/* MS_EV_FAIL: enum ms_failure_kind */
	uint8_t param;
	uint8_t flags;		/* enum ms_event_flags */
	uint32_t len;		/* bytes of the actual string/memory */
	uint32_t at;		/* offset in it of text[0] */
	uint32_t seq;		/* call-order position */
	uint64_t caller_off;	/* return address offset in its object */
	char caller[MS_EV_CALLER];	/* the object's basename */
	char sym[MS_EV_SYM];	/* the nearest symbol, "" when unknown */
	char text[MS_EV_TEXT];
};

#define MS_REC_EXE 48
#define MS_REC_MAX_BYTES ((16u << 20) - 1)	/* of one output: what a spec string holds */

/*
 * --record: one real call of a recorded function, in the record log.
 * Entries are claimed with an atomic add on rec_next, so they are in
 * claim order, which seq gives exactly; each is 8-aligned, its outputs
 * follow it.
 */
struct ms_rec {
	uint32_t state;		/* (shared) 0: being written, 1: complete */
	uint32_t size;		/* bytes of the entry, outputs included */
	uint32_t seq;		/* the call's place among the recorded ones */
	uint16_t fn;
	uint16_t nouts;
	int32_t pid;
	int32_t err;		/* errno after the call */
	int64_t ret;
	char exe[MS_REC_EXE];	/* the program that made it (a pid may exec another) */
};

enum ms_rec_kind {
	MS_REC_BYTES = 1,	/* what the call wrote into the buffer param */
	MS_REC_STORE,		/* the struct or scalar at param, as it was left */
	MS_REC_ADDRINFO,	/* the list at *param, as struct ms_addr[] */
	MS_REC_SOCKADDR,	/* the struct sockaddr at param, *param + 1 bytes */
	MS_REC_REVENTS,		/* the revents of the pollfd array at param, int16_t[] */
	MS_REC_RETSTR,		/* the string returned */
};

struct ms_rec_out {
	uint8_t kind;		/* enum ms_rec_kind */
	uint8_t param;
	uint16_t reserved;
	uint32_t len;		/* bytes that follow, then padding to 8 */
};

_Static_assert(sizeof(struct ms_rec) % 8 == 0 && sizeof(struct ms_rec_out) == 8, "record layout");

/* Bytes an output of len takes after its ms_rec_out, and the next one. */
static inline uint32_t ms_rec_pad(uint32_t len)
{
	return (len + 7) & ~7u;
}

static inline const struct ms_rec_out *ms_rec_next(const struct ms_rec_out *o)
{
	return (const struct ms_rec_out *)((const char *)(o + 1) + ms_rec_pad(o->len));
}
_Static_assert(sizeof(struct ms_event) == 256, "event layout");
/* 88 bytes, not a cache line: a spec holds up to millions of rules, which
 * mockrun writes and reads back whole; the call path reads the function's
 * fast slot, not the rule */
_Static_assert(sizeof(struct ms_rule) == 88, "rule layout");
_Static_assert(sizeof(struct ms_rule_state) == 64 && sizeof(struct ms_fn_state) == 64,
	       "state layout: a cache line per rule and per function");
_Static_assert(offsetof(struct ms_rule_state, consumed) == 0 &&
		       offsetof(struct ms_rule_state, batched) == 4,
	       "consumed and batched: one 8-byte word, consumed its low half");
_Static_assert(sizeof(struct ms_chan_hdr) % 8 == 0 && sizeof(struct ms_state_hdr) % 64 == 0,
	       "header layout");
_Static_assert(sizeof(struct ms_count_state) == 16 &&
		       offsetof(struct ms_count_state, ok) == MS_COUNT_OK_AT * sizeof(uint32_t),
	       "count layout");
_Static_assert(sizeof(struct ms_stmt) == 40 && sizeof(struct ms_expect) == 72 &&
	       sizeof(struct ms_order) == 44, "statement layout");

/* A rule with nothing but a value (and errno) to give: no outputs or
 * delay, not will_call_real. */
static inline int ms_rule_plain(const struct ms_rule *r)
{
	return r->kind <= MS_R_FAIL && !r->nouts && !r->delay_ns && !r->prob &&
	       !(r->flags & ~(MS_RF_ERRNO | MS_RF_DOUBLE));
}

/* ... for any caller (no in= or from=).  The writer sets ms_rule.lean to
 * this, the validator checks it. */
static inline uint8_t ms_rule_lean(const struct ms_rule *r)
{
	return ms_rule_plain(r) && !r->stmt.in_glob && !r->stmt.from_glob && !r->stmt.ncond;
}

/* Whether rule r gets a lane (the writer gives the first MS_LANES such
 * rules one): a reply a fast slot may answer with a value and errno (not
 * an output: the slot's output path keeps one atomic add a turn, which
 * needs no register its frame would save), of MS_LANE_MIN turns or
 * more. */
static inline int ms_rule_laned(const struct ms_rule *r)
{
	return r->kind <= MS_R_FAIL && r->stmt.count >= MS_LANE_MIN && !r->nouts && !r->delay_ns &&
	       !r->prob && !r->stmt.ncond && !r->stmt.from_glob;
}

static inline void *ms_chan_at(const struct ms_chan_hdr *h, uint32_t off)
{
	return (char *)h + off;
}

static inline const char *ms_chan_str(const struct ms_chan_hdr *h, uint32_t off)
{
	return off ? (const char *)h + h->pool_off + off : NULL;
}

/* Statement i of spec h in one numbering of them all: the rules, then
 * the expectations, then the call-order entries (i < ms_chan_nstmts(h)). */
static inline uint32_t ms_chan_nstmts(const struct ms_chan_hdr *h)
{
	return h->nrules + h->nexpects + h->norders;
}

static inline const struct ms_stmt *ms_chan_stmt(const struct ms_chan_hdr *h, uint32_t i)
{
	if (i < h->nrules)
		return &((const struct ms_rule *)ms_chan_at(h, h->rules_off))[i].stmt;
	if ((i -= h->nrules) < h->nexpects)
		return &((const struct ms_expect *)ms_chan_at(h, h->expects_off))[i].stmt;
	return &((const struct ms_order *)ms_chan_at(h, h->orders_off))[i - h->nexpects].stmt;
}

static inline void *ms_state_at(const struct ms_state_hdr *st, uint64_t off)
{
	return (char *)st + off;
}

/* A lane's word (channel.h, "Lanes"): turns answered, and still held. */
#define MS_LANE_ANSWERED(w) ((uint32_t)(w))
#define MS_LANE_LEFT(w) ((int32_t)(uint32_t)((w) >> 32))

/* The lane blocks: after the record log, each on lines of its own. */
static inline uint64_t ms_lanes_off(const struct ms_chan_hdr *h)
{
	return (h->st_rec_off + h->rec_cap + 63) & ~(uint64_t)63;
}

/*
 * --sites (DESIGN.md 7.5): a fixed table in the state, keyed by (function,
 * site object, site offset, statement), open addressing on the key's
 * hash.  A call of a function with MS_FF_SITES finds its key's slot, or
 * claims a free one (state 0 -> 1 by compare-and-swap), writes the key,
 * publishes it (state 2, release) and adds to calls.  No lock, no malloc:
 * a slot still being written is passed over, so a key may own two slots
 * (mockrun adds them up); a call that finds no slot is counted in the
 * header's sites_lost.  rule is the channel's rule index + 1 of the
 * statement that took the call (its turn), 0: no statement did (the real
 * function ran).
 */
#define MS_SITE_OBJ 48
struct ms_site_slot {
	uint32_t state;		/* (shared) 0 free, 1 being written, 2 complete.
				 * write: 1 left is read as lost; a key that
				 * names no function or rule, 125 */
	uint32_t fn;
	uint32_t rule;
	uint32_t calls;		/* write: the figures only */
	uint64_t off;		/* the site's offset in obj */
	uint64_t hash;
	char obj[MS_SITE_OBJ];	/* the site's object basename, NUL-terminated */
};
_Static_assert(sizeof(struct ms_site_slot) == 80, "sites table layout");
#define MS_SITES_CAP 8192	/* the table's slots (mockrun --sites) */

/* The sites table: after the lane blocks (or the record log). */
static inline uint64_t ms_sites_off(const struct ms_chan_hdr *h)
{
	return h->lanes_cap ? ms_lanes_off(h) + (uint64_t)h->lanes_cap * MS_LANES * sizeof(uint64_t)
			    : ms_lanes_off(h);
}

/* Writing a channel: from a compiled spec (spec.h). */
struct ms_spec;
/* The channel that carries spec, with room for events_cap events: the
 * spec's bytes, and the state's. */
uint64_t ms_channel_size(const struct ms_spec *spec, uint32_t events_cap);
uint64_t ms_channel_state_size(const struct ms_spec *spec, uint32_t events_cap);
/* The session's two memfds, made by ms_channel_create(): the spec sealed
 * and mapped read-only, the state sealed against resizing and mapped
 * writable, its header written with token. */
struct ms_chan_pair {
	int spec_fd, state_fd;	/* close-on-exec */
	const struct ms_chan_hdr *spec;
	struct ms_chan_hdr *spec_rw;	/* with room for live statements: the */
					/* driver's own writable mapping, or NULL */
	struct ms_state_hdr *state;
	uint64_t spec_size, state_size;
};
/* 0 or -errno (nothing left open then); raw system calls only. */
int ms_channel_create(const struct ms_spec *spec, uint32_t events_cap, uint32_t flags,
		      uint64_t token, struct ms_chan_pair *out);
/* The same for a driver that keeps its own copy of the spec: *own gets a
 * copy of the memfd's ms_channel_size() bytes, in memory from
 * own_alloc(arg, size, read): read 1, it is called once the spec's arrays
 * are read no more (the caller may free them then) and the memory is
 * overwritten whole; read 0, the spec is composed in it and it must be
 * zeroed.  *own, when not NULL, is the caller's to free, failure or not.
 * Unless spec has room for live statements (whose writable mapping
 * stays), the memfd is written from the spec's arrays, or from the copy
 * (a small spec), and not mapped (out->spec NULL): a large spec is then
 * never in memory twice. */
int ms_channel_create_own(const struct ms_spec *spec, uint32_t events_cap, uint32_t flags,
			  uint64_t token, void **own, void *(*own_alloc)(void *, uint64_t, int),
			  void *arg, struct ms_chan_pair *out);
/* Whether memfd fd still holds the size bytes at own: read in pieces, so
 * that the check maps and copies nothing of a large spec. */
int ms_channel_same(long fd, const void *own, uint64_t size);
/* Unmaps both (the descriptors are the caller's to close). */
void ms_channel_unmap(struct ms_chan_pair *p);
/* Whether memfd fd carries the seals of the spec (state 0) or the state. */
uint32_t ms_channel_seals_ok(long fd, int state);
/* Lays spec out in map (size bytes, zeroed), rules and expectations grouped
 * by function, call-order entries as declared; flags: enum ms_chan_flags. */
void ms_channel_write(const struct ms_spec *spec, void *map, uint64_t size,
		      uint32_t events_cap, uint32_t flags);

/* Function f's lean mark (MS_FF_LEAN, MS_FF_LEAN_AIMED) for its rules,
 * or 0: the writer sets it, the validator checks it. */
uint32_t ms_fn_lean(const struct ms_chan_hdr *h, const struct ms_chan_fn *f,
		    const struct ms_rule *rules);
/* Checks every offset, count and index of a spec of `size` bytes, and
 * the state layout it names.  Returns NULL when it is valid, else a
 * static reason.  The same as ms_channel_validate_attach(), then
 * ms_channel_orders_ok() and ms_channel_fn_ok() of every function. */
const char *ms_channel_validate(const void *map, uint64_t size);
/*
 * What a process that attaches checks before it reads anything: the
 * header, the sections' bounds, the state's layout, the functions
 * outside the catalog, the function table's bounds, the fake_times and
 * the statements mockrun ctl added; O(1) a function, whatever the number
 * of statements.  A function's statements are checked by
 * ms_channel_fn_ok() before its first call reads them, and the
 * call-order entries by ms_channel_orders_ok() before a call of a
 * function with flags reads them.  NULL, or a static reason.
 */
const char *ms_channel_validate_attach(const void *map, uint64_t size);
const char *ms_channel_fn_ok(const struct ms_chan_hdr *h, uint32_t fn);
const char *ms_channel_orders_ok(const struct ms_chan_hdr *h);
/* Checks a state of `size` bytes against the validated spec h: NULL, or
 * a static reason. */
const char *ms_state_validate(const struct ms_chan_hdr *h, const void *state, uint64_t size);
/* Writes the header of a zeroed state of h->state_size bytes, and the
 * fake_time anchors (ms_time_anchor). */
void ms_state_init(const struct ms_chan_hdr *h, void *state, uint64_t token);
/* Starts every fake_time clock of h at its WHEN, now. */
void ms_time_anchor(const struct ms_chan_hdr *h, void *state);

enum ms_time_op {
	MS_TIME_ADVANCE,	/* the wall clocks move by value ns */
	MS_TIME_SET,		/* CLOCK_REALTIME shows value (ns since the epoch) */
	MS_TIME_RATE,		/* the clocks run on at rate `rate` */
};
/* Moves every fake_time clock of h in a live state (mockrun ctl): each
 * clock goes on from what it shows now, under the anchor's seq; a clock
 * that follows CLOCK_REALTIME past an end stops there.  0, or -ERANGE
 * and nothing moved when an advance would carry a CLOCK_REALTIME past
 * an end of the range. */
int ms_time_move(const struct ms_chan_hdr *h, void *state, enum ms_time_op op, int64_t value,
		  double rate);

/* Live statements (mockrun ctl -e, live.c): the rules spec has beyond
 * those of the running channel (own->live_first + live_n), with their
 * outputs, conditions and strings, copied into the room the channel
 * keeps for them, checked with the whole spec by ms_channel_validate(),
 * written into p's writable mapping and mockrun's own copy own, and
 * published for every process at once.  0, or -errno with *why. */
int ms_channel_add_live(struct ms_chan_pair *p, struct ms_chan_hdr *own, const struct ms_spec *spec,
			const char **why);
/* A spec header that counts the added statements (the report's view). */
void ms_channel_commit_live(struct ms_chan_hdr *h);

/* A fake_time anchor read consistently (seq even and unchanged); after
 * a bounded number of tries, whatever it holds. */
struct ms_time_now {
	int64_t r0[MS_TC_N];
	int64_t off[MS_TC_N];
	double rate;
};

static inline void ms_time_read(const struct ms_time_state *ts, struct ms_time_now *n)
{
	for (int tries = 0;; tries++) {
		uint32_t q = __atomic_load_n(&ts->seq, __ATOMIC_ACQUIRE);
		uint64_t bits;

		for (unsigned k = 0; k < MS_TC_N; k++) {
			n->r0[k] = __atomic_load_n(&ts->r0[k], __ATOMIC_RELAXED);
			n->off[k] = __atomic_load_n(&ts->off[k], __ATOMIC_RELAXED);
		}
		bits = __atomic_load_n(&ts->rate_bits, __ATOMIC_RELAXED);
		__builtin_memcpy(&n->rate, &bits, sizeof(double));
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if ((!(q & 1) && __atomic_load_n(&ts->seq, __ATOMIC_RELAXED) == q) || tries > 100)
			break;
	}
	if (!(n->rate >= 0 && n->rate <= 1e6))
		n->rate = 1; /* a NaN the program wrote: as if no rate */
}

/*
 * ============================================================
 * A fake clock is int64 nanoseconds since 1970 (1677-09-21 to
 * 2262-04-11, datetime.h): past an end it stops there, never wraps.
 * Every sum on it saturates; off is kept modulo 2^64 and only ever
 * read through ms_time_start, whose result always fits.
 * ============================================================
 */
/* a + b, stopped at the ends of int64 */
static inline int64_t ms_sat_add(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_add_overflow(a, b, &r))
		return b > 0 ? INT64_MAX : INT64_MIN;
	return r;
}

/* a - b, stopped at the ends of int64 */
static inline int64_t ms_sat_sub(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_sub_overflow(a, b, &r))
		return b < 0 ? INT64_MAX : INT64_MIN;
	return r;
}

/* What slot k's fake clock showed at its anchor (r0 + off). */
static inline int64_t ms_time_start(const struct ms_time_now *n, unsigned k)
{
	return (int64_t)((uint64_t)n->r0[k] + (uint64_t)n->off[k]);
}

/* Real time t (ns) of slot k as the fake clock shows it: its start plus
 * the real time since, times the rate, saturated. */
static inline int64_t ms_time_fake(const struct ms_time_now *n, unsigned k, int64_t t)
{
	int64_t d = ms_sat_sub(t, n->r0[k]);

	if (n->rate != 1.0) {
		double x = (double)d * n->rate;

		d = x >= 0x1p63 ? INT64_MAX : x <= -0x1p63 ? INT64_MIN : (int64_t)x;
	}
	return ms_sat_add(ms_time_start(n, k), d);
}

/* The folder's face: the store a spec is built in before it is written
 * into a channel, too. */
#include "spec.h"

#endif
