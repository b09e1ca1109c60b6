/* SPDX-License-Identifier: MIT */
/*
 * Internals of libmockshim.so shared by the trampolines and the runtime.
 *
 * +--------------------------------------------------------------------+
 * | Shim discipline (every file of libmockshim/ follows it):           |
 * | - never call a catalog function: use syscall() or the real table;  |
 * |   syscall() is variadic: a 64-bit argument (an offset, flags, a    |
 * |   count) must be passed as a long, not a bare int such as 0;       |
 * | - no stdio, no malloc, no getenv on the call path;                 |
 * | - save errno on entry, restore it unless the reply sets it;        |
 * | - the guard (ms_guard_enter) sends the shim's own libc calls to    |
 * |   the real functions; the mocked path needs none and takes none.   |
 * +--------------------------------------------------------------------+
 */
#ifndef MS_SHIM_H
#define MS_SHIM_H

/* Every type the catalog's prototypes use. */
#include "sysdecl.h"

#include "arch/arch.h"
#include "catalog/catalog.h"
#include "decide/decide.h"

/* ftime's, only ever pointed to (<sys/timeb.h> is deprecated) */
struct timeb;

/* The structs the rows point to, declared at file scope: a tag first
 * seen in a prototype would be a new type in each (some are declared by
 * <sys/stat.h> and others only under _GNU_SOURCE, which trampolines.c
 * leaves out; the rows need the tag alone). */
struct statx;
struct utimbuf;
struct statfs;
struct statfs64;
struct statvfs;
struct statvfs64;
struct rlimit64;
struct file_handle;
struct sysinfo;
struct shmid_ds;
struct msqid_ds;
struct sembuf;
struct tms;
struct ntptimeval;
struct ether_addr;
struct ifaddrs;
struct mmsghdr;
struct termios;
struct winsize;
struct spwd;
struct mntent;
struct utmp;
struct ttyent;
struct aliasent;
struct rpcent;
struct if_nameindex;
struct mq_attr;
struct sched_param;
struct itimerspec;
struct itimerval;
struct sigevent;
struct rusage;
struct rlimit;

struct ms_chan_hdr;
struct ms_state_hdr;

#define MS_EXPORT __attribute__((visibility("default")))
#define MS_HIDDEN __attribute__((visibility("hidden")))
#define ms_unlikely(x) __builtin_expect(!!(x), 0)
#define ms_likely(x) __builtin_expect(!!(x), 1)
#define MS_CALLER __builtin_return_address(0)
/*
 * The trampoline reaches its cold paths (ms_armed_NAME and the rest) by
 * tail calls, so that MS_CALLER there is the program's call site.  A
 * compiler may decline one (clang does for a row with arguments on the
 * stack once the trampoline keeps a frame: getnameinfo's seventh), so
 * where musttail is known it is required.  Not where va_list is a
 * struct: those rows cannot be tail calls (ms_va_caller, below).
 */
#if defined(__clang__) && defined(__has_attribute) && !defined(MS_ARCH_VA_LIST_STRUCT)
#if __has_attribute(musttail)
#define MS_TAIL __attribute__((musttail))
#endif
#endif
#ifndef MS_TAIL
#define MS_TAIL
#endif

/* Arguments are passed to ms_consult as 64-bit words.  A va_list is a
 * pointer on x86-64 and a struct on aarch64 (MS_ARCH_VA_LIST_STRUCT):
 * there its word is the address of a copy (a compound literal, which
 * lives as long as the trampoline's body: what va_copy does there), and
 * MS_G takes it back by value. */
#ifdef MS_ARCH_VA_LIST_STRUCT
#define MS_U(x) \
	((uint64_t)(uintptr_t)_Generic((x), va_list: (__typeof__(x)[1]){ x }, default: (x)))
#else
#define MS_U(x) ((uint64_t)(uintptr_t)(x))
#endif
#define MS_ARR0() 0
#define MS_ARR1(a) MS_U(a)
#define MS_ARR2(a, b) MS_U(a), MS_U(b)
#define MS_ARR3(a, b, c) MS_U(a), MS_U(b), MS_U(c)
#define MS_ARR4(a, b, c, d) MS_U(a), MS_U(b), MS_U(c), MS_U(d)
#define MS_ARR5(a, b, c, d, e) MS_U(a), MS_U(b), MS_U(c), MS_U(d), MS_U(e)
#define MS_ARR6(a, b, c, d, e, f) MS_U(a), MS_U(b), MS_U(c), MS_U(d), MS_U(e), MS_U(f)
#define MS_ARR7(a, b, c, d, e, f, g) MS_ARR6(a, b, c, d, e, f), MS_U(g)
#define MS_ARR8(a, b, c, d, e, f, g, h) MS_ARR7(a, b, c, d, e, f, g), MS_U(h)
#define MS_ARR(n, args) MS_CAT(MS_ARR, n) args
#define MS_CARR(args) MS_ARR(MS_NARGS_OF(args), args)
/* The arguments back from an MS_ARR array v, each to its parameter's type:
 * what an armed trampoline passes to the real function, so that nothing
 * but the array stays live across the consult. */
#ifdef MS_ARCH_VA_LIST_STRUCT
#define MS_G(v, i, x)                                                         \
	_Generic((x), va_list: *(va_list *)(uintptr_t)(v)[i],                  \
		 default: (__typeof__(_Generic((x), va_list: (uintptr_t)0, default: (x))))(v)[i])
#else
#define MS_G(v, i, x) ((__typeof__(x))(v)[i])
#endif
/*
 * The armed path finds the caller as its own return address: the
 * trampoline reaches it by a tail call.  A va_list that is a struct
 * (MS_ARCH_VA_LIST_STRUCT: passed by reference to the caller's copy)
 * keeps the trampoline from tail-calling, so there the trampoline hands
 * the caller over in ms_va_caller, stored just before the call (for the
 * rows with a va_list only: MS_HAS_VA is a constant).  Those are the
 * printf and scanf families and vsyslog, none async-signal-safe: no
 * signal handler may call one between the store and the read.
 */
#ifdef MS_ARCH_VA_LIST_STRUCT
#define MS_IS_VA(x) _Generic((x), va_list: 1, default: 0)
#define MS_VA0() 0
#define MS_VA1(a) MS_IS_VA(a)
#define MS_VA2(a, b) (MS_IS_VA(a) | MS_IS_VA(b))
#define MS_VA3(a, b, c) (MS_VA2(a, b) | MS_IS_VA(c))
#define MS_VA4(a, b, c, d) (MS_VA3(a, b, c) | MS_IS_VA(d))
#define MS_VA5(a, b, c, d, e) (MS_VA4(a, b, c, d) | MS_IS_VA(e))
#define MS_VA6(a, b, c, d, e, f) (MS_VA5(a, b, c, d, e) | MS_IS_VA(f))
#define MS_VA7(a, b, c, d, e, f, g) (MS_VA6(a, b, c, d, e, f) | MS_IS_VA(g))
#define MS_VA8(a, b, c, d, e, f, g, h) (MS_VA7(a, b, c, d, e, f, g) | MS_IS_VA(h))
#define MS_HAS_VA(args) MS_CAT(MS_VA, MS_NARGS_OF(args)) args
extern __thread const void *ms_va_caller MS_HIDDEN __attribute__((tls_model("initial-exec")));
#define MS_NOTE_CALLER(args)                            \
	do {                                            \
		if (MS_HAS_VA(args))                    \
			ms_va_caller = MS_CALLER;       \
	} while (0)
#define MS_ARMED_CALLER(args) (MS_HAS_VA(args) ? ms_va_caller : MS_CALLER)
#else
#define MS_NOTE_CALLER(args) \
	do {                 \
	} while (0)
#define MS_ARMED_CALLER(args) MS_CALLER
#endif
#define MS_GET0(v, ...) ()
#define MS_GET1(v, a) (MS_G(v, 0, a))
#define MS_GET2(v, a, b) (MS_G(v, 0, a), MS_G(v, 1, b))
#define MS_GET3(v, a, b, c) (MS_G(v, 0, a), MS_G(v, 1, b), MS_G(v, 2, c))
#define MS_GET4(v, a, b, c, d) (MS_G(v, 0, a), MS_G(v, 1, b), MS_G(v, 2, c), MS_G(v, 3, d))
#define MS_GET5(v, a, b, c, d, e) \
	(MS_G(v, 0, a), MS_G(v, 1, b), MS_G(v, 2, c), MS_G(v, 3, d), MS_G(v, 4, e))
#define MS_GET6(v, a, b, c, d, e, f) \
	(MS_G(v, 0, a), MS_G(v, 1, b), MS_G(v, 2, c), MS_G(v, 3, d), MS_G(v, 4, e), MS_G(v, 5, f))
#define MS_GET7(v, a, b, c, d, e, f, g)                                                        \
	(MS_G(v, 0, a), MS_G(v, 1, b), MS_G(v, 2, c), MS_G(v, 3, d), MS_G(v, 4, e), MS_G(v, 5, f), \
	 MS_G(v, 6, g))
#define MS_GET8(v, a, b, c, d, e, f, g, h)                                                     \
	(MS_G(v, 0, a), MS_G(v, 1, b), MS_G(v, 2, c), MS_G(v, 3, d), MS_G(v, 4, e), MS_G(v, 5, f), \
	 MS_G(v, 6, g), MS_G(v, 7, h))
#define MS_STRIP(...) __VA_ARGS__
#define MS_APPLY(f, a) f a
#define MS_GET(n, v, args) MS_APPLY(MS_CAT(MS_GET, n), (v, MS_STRIP args))

/*
 * Per-function armed flag: 0 = no rule, go straight to the real function.
 * Starts at 1 for every function so that calls made before the channel is
 * attached take the slow path, which attaches first.  8-aligned:
 * ms_rearm() clears it eight flags at a time.
 */
extern uint8_t ms_armed[MS_FN_COUNT] MS_HIDDEN __attribute__((aligned(8)));

/* The real functions, bound lazily: each slot starts at a stub that looks
 * the symbol up with dlsym(RTLD_NEXT) and then calls it. */
struct ms_real_table {
#define MOCKSHIM_FN(ret, name, proto, ...) union { ret (*fn) proto; void *ptr; } name;
#define MOCKSHIM_FN_H MOCKSHIM_FN
#define MOCKSHIM_FN_V MOCKSHIM_FN
#define MOCKSHIM_ALIAS(canon, ret, name, proto, ...) union { ret (*fn) proto; void *ptr; } name;
#define MOCKSHIM_ALIAS_H MOCKSHIM_ALIAS
#define MOCKSHIM_ALIAS_V MOCKSHIM_ALIAS
#include "mockshim/catalog.def"
#include "mockshim/catalog_end.h"
};
extern struct ms_real_table ms_real MS_HIDDEN;

/* Bind stubs (generated, or written by hand for _H rows). */
#define MOCKSHIM_FN(ret, name, proto, ...) MS_HIDDEN ret ms_bind_##name proto;
#define MOCKSHIM_FN_H MOCKSHIM_FN
#define MOCKSHIM_FN_V(...)
#define MOCKSHIM_ALIAS(canon, ret, name, proto, ...) MS_HIDDEN ret ms_bind_##name proto;
#define MOCKSHIM_ALIAS_H MOCKSHIM_ALIAS
#define MOCKSHIM_ALIAS_V(...)
#include "mockshim/catalog.def"
#include "mockshim/catalog_end.h"

/* The real definition of name, after the shim (dlsym(RTLD_NEXT)'s), or a
 * stub that says there is none. */
MS_HIDDEN void *ms_lookup(const char *name);
/* The first definition of name (default version) in the objects after
 * the shim that were loaded at start (next), or in any object but the
 * shim: what dlsym(RTLD_NEXT) or dlsym(RTLD_DEFAULT) would find, without
 * touching dlerror()'s state, which is the program's (symbols.c). */
MS_HIDDEN void *ms_find_symbol(const char *name, int next);
/* The version ("GLIBC_2.2.5") the object holding address caller bound
 * its import of name to, or NULL: unversioned, or not an import of it
 * (a dlsym'd pointer).  Walks the loaded objects: not for hot paths. */
MS_HIDDEN const char *ms_bound_version(const void *caller, const char *name);
/* Attaches the channel now unless that is done (attach.c): a handler
 * module registering before the shim's constructor ran. */
MS_HIDDEN void ms_attach_now(void);
/* strlen(s), 0 for NULL, without libc's (interposable) strlen. */
static inline size_t ms_slen(const char *s)
{
	size_t n = 0;

	while (s && s[n])
		n++;
	return n;
}
/* Counts the objects loaded at start, for ms_find_symbol (the constructor). */
MS_HIDDEN void ms_symbols_init(void);
/* What a symbol with no real definition is bound to: a diagnostic, exit 127. */
MS_HIDDEN void ms_missing_real(void);
extern __thread int ms_binding MS_HIDDEN __attribute__((tls_model("initial-exec")));
/* will_call_real(FN, PARAM=VALUE) replaced arguments in the array the
 * trampoline passed (attach.c): the canonical id + 1 of that function,
 * whose alias then calls its canonical function; another function's
 * (left by a trampoline that reads its array anyway) is stale. */
extern __thread int ms_rewrote MS_HIDDEN __attribute__((tls_model("initial-exec")));
/* The re-entry guard (attach.c): while non-zero, the slow path sends
 * every call to the real function, and so do the fast slots of the
 * functions the shim may enter (MS_REENTRANT_FNS).  Entered in steps of
 * MS_GUARD, above every fast slot's kind: those trampolines test
 * live | ms_guard against a kind, one compare for both. */
extern __thread unsigned ms_guard MS_HIDDEN __attribute__((tls_model("initial-exec")));
#define MS_GUARD 0x100u

/*
 * The slow path of every armed trampoline.  Returns 1 with *ret set when
 * the call is mocked (outputs written, errno set or preserved), 0 when the
 * real function must run (errno preserved), 2 when it must run and then
 * be traced with ms_trace_after().  Async-signal-safe.
 */
MS_HIDDEN int ms_consult(unsigned id, const uint64_t *args, int64_t *ret, const void *caller);

/*
 * fake_time (faketime.c).  ms_armed[id] holds bits: MS_ARM_RULES, the
 * statements (ms_consult decides), and MS_ARM_TIME, a fake clock this
 * process reads through the function.  The functions of MS_TIMED_FNS
 * only may have MS_ARM_TIME: their trampolines (generated) test it after
 * the statements, and call ms_time_call() for the real call: the real
 * function with its time shifted, or its timeout converted.
 */
#define MS_ARM_RULES 1u

/*
 * A function's fast slot (issue 22): when its only statement is a plain
 * reply taken by any call of this process (a value and maybe errno, or
 * one constant output; no delay, when(), from=, probability=; in=
 * matching this program), the function's first call (ms_fn_ready) fills
 * it (kind) and the trampoline answers from it without ms_consult: the
 * count, errno or the output, the value.  The slot goes live in
 * a process (live = kind) once the rule's state says that this process
 * logged a turn of it (the report names each consumer), so a process's
 * first turn, re-entry from the shim (ms_guard), -v (key -1), a queue run
 * out and everything else take the slow path, which decides as always.
 * live is the shim's own memory: a forked child starts with no reply
 * live (forked(), attach.c).  live is stored last (release) and read
 * first (acquire, ms_live_is), with the guard where the shim may enter
 * the function (MS_REENTRANT_FNS).  Two
 * kinds log nothing, and are live from the fill: MS_FAST_EXPECT and
 * MS_FAST_SKIP below.  No slot is filled for a function a fake clock
 * arms (its calls are ms_timed_NAME's) or under -v.
 */
struct ms_fast {
	uint32_t live;		/* kind, while live in this process; 0: slow path */
	uint32_t kind;		/* enum ms_fast_kind; 0: no slot */
	int32_t count;		/* a queue's count; MS_FAST_EXPECT: its count */
	int32_t err;		/* errno to set (the _ERRNO kinds) */
	int64_t value;		/* MS_FAST_EXPECT: the parameter's value */
	uint32_t *consumed;	/* the rule's (expectation's) state */
	int32_t *logged_pid;
	uint64_t mask;		/* MS_FAST_EXPECT: the parameter's bytes */
	uint32_t *calls;	/* MS_FAST_EXPECT, MS_FAST_OUT: the function's call count */
	uint32_t param;		/* MS_FAST_EXPECT: which argument; MS_FAST_OUT: the
				 * output's pointer */
	int32_t far;		/* count - MS_CLAIM_SLACK: a turn below it is one
				 * atomic add (ms_fast_claim); <= 0: none is */
	/* MS_FAST_OUT: len bytes at data through the pointer, at most
	 * argument cap of them (MS_NONE8: no capacity); bytes: the value is
	 * the number copied (`_` of a buf= reply) */
	const char *data;
	uint32_t len;
	uint8_t cap, bytes;
	/* the rule's lane (channel.h's MS_LANES) as bytes into a thread's
	 * block (lane * 8): MS_FAST_LANE; -1, none */
	int64_t lane_off;
};
enum ms_fast_kind {
	MS_FAST_ALWAYS = 1,	/* count < 0 */
	MS_FAST_QUEUE,		/* count > 0 */
	MS_FAST_LANE,		/* count > 0, the rule has a lane: ms_lane_take */
	MS_FAST_ALWAYS_ERRNO,	/* the _ERRNO kinds */
	MS_FAST_QUEUE_ERRNO,
	/* A plain reply with one output of constant bytes (buf="...", a
	 * *tp={...} store) and no errno: the copy, then the value, in
	 * ms_fastout_NAME (ms_fast_out). */
	MS_FAST_OUT,
	/* The function's only statement is an expect_value for any caller:
	 * a call whose parameter holds the value takes its turn (and a call
	 * number) and goes to the real function (MS_FAST_CHECK, in
	 * ms_armed_NAME); any other call is the slow path's, which reports.
	 * Nothing is logged of a passing check, so it is live from the fill. */
	MS_FAST_EXPECT,
	/* Every statement of the function is for other callers (from=) or
	 * other programs (in=): a call site ms_decide_from() found none is
	 * for (ms_t_skip, this thread's last) goes to the real function
	 * from the trampoline.  Nothing to log either: live from the fill. */
	MS_FAST_SKIP,
	/* --trace and nothing else (what ms_decide answers 2 without a
	 * rule): ms_armed_NAME numbers the call and writes its line after the
	 * real call (ms_fast_traced, ms_trace_plain), without ms_consult.
	 * Live from the fill. */
	MS_FAST_TRACE,
};

/*
 * A turn of slot s's count (> 0) where the rule has no lane
 * (ms_queue_take): 1, or 0 for the slow path.  Far from the end (below
 * s->far) a turn is one atomic add, with nothing read of the counter
 * first: threads that share the queue each move its cache line once a
 * call, where a compare-and-swap loop reads it, then retries (a queue
 * long enough for a lane moves it once a batch: ms_lane_take).  The add
 * that reaches within MS_CLAIM_SLACK of the end closes the slot in this
 * process: the slow path's compare-and-swap takes the last turns
 * exactly, and ms_fast_open leaves the slot closed.  The count is then
 * never passed, even for a moment, unless more than MS_CLAIM_SLACK
 * claims race at once; such an add is undone.  A count of
 * MS_CLAIM_SLACK or less is claimed by compare-and-swap from the first
 * turn.
 */
#define MS_CLAIM_SLACK 1024

/*
 * This thread's lane block (channel.h, "Lanes"): MS_LANES words of turns
 * it holds and answered, in the state.  ms_lanes_none until the slow
 * path gives the thread one (ms_fast_open), ms_lanes_single when the
 * session has none left: then its turns come from consumed one at a
 * time.  Both stay zeros (each call's add is undone: ms_lane_take).  A
 * forked child starts with none (forked(), attach.c): what the block
 * holds stays its parent thread's.
 */
extern __thread uint64_t *ms_t_lanes MS_HIDDEN __attribute__((tls_model("initial-exec")));
extern uint64_t ms_lanes_none[MS_LANES] MS_HIDDEN, ms_lanes_single[MS_LANES] MS_HIDDEN;
MS_HIDDEN void ms_lanes_give(void);

/* A turn's add to a lane's word: one answered, one held less. */
#define MS_LANE_TAKE ((uint64_t)1 - ((uint64_t)1 << 32))
/* Its undo: one answered less (the low half, which holds this call's
 * 1, carries into the high half), one held more. */
#define MS_LANE_UNDO ((uint64_t)0xffffffffu)

/*
 * A turn of slot s's count from this thread's lane: 1, or 0 for the slow
 * path.  One atomic add on a line no other thread writes, its result's
 * sign the answer (the lane held one).  A lane that held none then
 * counts -1 held, which no one takes from (ms_lane_steal), and 1
 * answered that is not: the audit reads a negative count as turns in
 * flight.  So a lane run dry claims MS_LANE_BATCH turns from the rule's
 * consumed and batched in one compare-and-swap, while the batch ends at
 * or below s->far, and adds them to what the lane holds: the 1 answered
 * is this call's.  Past s->far the add is undone and the slot closes in
 * this process: the slow path takes the last turns one at a time, and
 * after consumed reaches the count, the turns lanes hold
 * (ms_lane_steal).  consumed never passes s->far here, even for a
 * moment, and a process killed anywhere in this counts as taken only
 * the turns it answered.  The block is read once: a signal handler that
 * gives this thread its block (ms_fast_open) between two reads would
 * have this call fill a block that is not one.
 */
static inline __attribute__((always_inline)) int ms_lane_refill(struct ms_fast *s, uint64_t *l,
								 uint64_t *p)
{
	uint64_t *w = (uint64_t *)(void *)s->consumed, v;
	uint32_t b;

	/* no block: the slow path gives one; none left: a turn at a time,
	 * not batched (the lane, private, undone) */
	b = l == ms_lanes_none ? 0 : l == ms_lanes_single ? 1 : MS_LANE_BATCH;
	v = __atomic_load_n(w, __ATOMIC_RELAXED);
	while (b && (uint32_t)v + b <= (uint32_t)s->far)
		if (__atomic_compare_exchange_n(w, &v, v + b + (b > 1 ? (uint64_t)b << 32 : 0), 1,
						__ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
			__atomic_fetch_add(p, b > 1 ? (uint64_t)b << 32 : MS_LANE_UNDO, __ATOMIC_RELEASE);
			return 1;
		}
	__atomic_fetch_add(p, MS_LANE_UNDO, __ATOMIC_RELAXED);
	/* near the count's end: closed here */
	if (b)
		__atomic_store_n(&s->live, 0, __ATOMIC_RELAXED);
	return 0;
}

static inline __attribute__((always_inline)) int ms_lane_take(struct ms_fast *s)
{
	uint64_t *l = __atomic_load_n(&ms_t_lanes, __ATOMIC_RELAXED);
	uint64_t *p = (uint64_t *)((char *)l + s->lane_off);

	if (ms_likely((int64_t)__atomic_add_fetch(p, MS_LANE_TAKE, __ATOMIC_ACQ_REL) >= 0))
		return 1;
	return ms_lane_refill(s, l, p);
}

/* A turn of slot s's count, which has no lane (MS_FAST_QUEUE). */
static inline __attribute__((always_inline)) int ms_queue_take(struct ms_fast *s)
{
	uint32_t old;

	if (s->far <= 0)
		return ms_claim_counted(s->consumed, s->count);
	old = __atomic_fetch_add(s->consumed, 1, __ATOMIC_ACQ_REL);
	if (ms_likely(old < (uint32_t)s->far))
		return 1;
	/* near the end: closed here (no call: a trampoline keeps no frame);
	 * the turn kept if it is one, else the add undone */
	__atomic_store_n(&s->live, 0, __ATOMIC_RELAXED);
	if (old < (uint32_t)s->count)
		return 1;
	__atomic_fetch_sub(s->consumed, 1, __ATOMIC_RELAXED);
	return 0;
}

/* A turn of slot s's count, from its lane if the rule has one. */
static inline __attribute__((always_inline)) int ms_fast_claim(struct ms_fast *s)
{
	return s->lane_off >= 0 ? ms_lane_take(s) : ms_queue_take(s);
}
/* The same with ms_lane_take out of line: for ms_fasterr_NAME, which
 * keeps a frame anyway (errno), where the compare-and-swap loop inline
 * would cost every call registers saved and restored.  Not for a
 * trampoline (the allocator's: ms_fast_take): a call there would have
 * its unarmed path save one too. */
MS_HIDDEN int ms_fast_claim_call(struct ms_fast *s);

/* 1 when slot s, a live MS_FAST_OUT, took a turn for the call with
 * arguments a (canonical): the bytes are written, *v is the value.  0:
 * the slow path's (a NULL pointer it reports, a queue run out). */
static inline __attribute__((always_inline)) int ms_fast_out(struct ms_fast *s, const uint64_t *a,
							      int64_t *v)
{
	char *p = (char *)(uintptr_t)a[s->param];
	uint64_t n = s->len;

	if (!p || __atomic_load_n(&s->live, __ATOMIC_ACQUIRE) != MS_FAST_OUT)
		return 0;
	if (s->cap != MS_NONE8 && a[s->cap] < n)
		n = a[s->cap];
	if (s->count < 0)
		__atomic_fetch_add(s->consumed, 1, __ATOMIC_RELAXED);
	else if (!ms_queue_take(s)) /* an output's rule has no lane (ms_rule_laned) */
		return 0;
	/* numbered, as the slow path numbers every reply with an output:
	 * the report of a later call's NULL pointer names the right call */
	__atomic_fetch_add(s->calls, 1, __ATOMIC_RELAXED);
	__builtin_memcpy(p, s->data, n);
	*v = s->bytes ? (int64_t)n : s->value;
	return 1;
}

/* 1 when slot s is a live MS_FAST_EXPECT whose parameter in a (the
 * canonical arguments) holds its value: the turn and the call number
 * are taken, the real function is next.  guard: MS_GUARD_OF(id). */
static inline __attribute__((always_inline)) int ms_fast_check(struct ms_fast *s, const uint64_t *a,
								unsigned guard)
{
	if (ms_likely((__atomic_load_n(&s->live, __ATOMIC_ACQUIRE) | guard) == MS_FAST_EXPECT) &&
	    ((a[s->param] ^ (uint64_t)s->value) & s->mask) == 0 &&
	    (s->count < 0 ? (__atomic_fetch_add(s->consumed, 1, __ATOMIC_RELAXED), 1)
			  : ms_queue_take(s))) {
		__atomic_fetch_add(s->calls, 1, __ATOMIC_RELAXED);
		/* the check held: its second count (channel.h, ms_count_state) */
		__atomic_fetch_add(s->consumed + MS_COUNT_OK_AT, 1, __ATOMIC_RELAXED);
		return 1;
	}
	return 0;
}
/* one a catalog function, then one a declared prototype (id MS_FN_COUNT + i,
 * i below channel.h's MS_DECL_MAX: attach.c's MS_FAST_SLOTS) */
extern struct ms_fast ms_fast[] MS_HIDDEN;
/* --trace-format chrome: each traced line starts with when the call began
 * (ms_trace_start, from ms_consult or ms_fast_traced) and ended, its
 * thread and parent. */
extern int ms_trace_timed MS_HIDDEN;
MS_HIDDEN void ms_trace_start(void);

/* 1 when slot s is a live MS_FAST_TRACE: the call is numbered, as
 * ms_decide numbers a traced call, and timed under --trace-format
 * chrome; the real call and ms_trace_plain are next.  guard:
 * MS_GUARD_OF(id). */
static inline __attribute__((always_inline)) int ms_fast_traced(struct ms_fast *s, unsigned guard)
{
	if ((__atomic_load_n(&s->live, __ATOMIC_ACQUIRE) | guard) != MS_FAST_TRACE)
		return 0;
	__atomic_fetch_add(s->calls, 1, __ATOMIC_RELAXED);
	if (ms_unlikely(ms_trace_timed))
		ms_trace_start();
	return 1;
}

/* 1 when the live word at p holds kind k, with acquire order: on x86-64
 * one compare against memory, k an immediate where optimised (a load the
 * compiler would not fold into the compare: an atomic one), ordered by
 * x86's own load order and the asm's clobber; elsewhere an acquire load. */
#if defined(__x86_64__)
static inline __attribute__((always_inline)) int ms_live_is(const uint32_t *p, uint32_t k)
{
	int eq;

	__asm__ volatile("cmpl %2, %1" : "=@ccz"(eq) : "m"(*p), "ir"(k) : "memory");
	return eq;
}
#else
#define ms_live_is(p, k) (__atomic_load_n((p), __ATOMIC_ACQUIRE) == (k))
#endif

/*
 * The fast slot of function id for a trampoline written by hand (alloc.c):
 * what MS_FAST and its cold functions do in a generated one (trampolines.c),
 * as one inline function.  1: answered, *v the value (errno set by an
 * _ERRNO kind); 2: the real function is next (a passing expect_value, a
 * call site no statement is for); 0: the slow path's.  a: the canonical
 * arguments; guard: MS_GUARD_OF(id); caller: the program's call site.
 */
static inline __attribute__((always_inline)) int ms_fast_take(unsigned id, unsigned guard,
							       const uint64_t *a, const void *caller,
							       int64_t *v)
{
	struct ms_fast *s = &ms_fast[id];

	if (!guard && ms_likely(ms_live_is(&s->live, MS_FAST_ALWAYS))) {
		__atomic_fetch_add(s->consumed, 1, __ATOMIC_RELAXED);
		*v = s->value;
		return 1;
	}
	switch (__atomic_load_n(&s->live, __ATOMIC_ACQUIRE) | guard) {
	case MS_FAST_LANE:
		if (!ms_lane_take(s))
			return 0;
		*v = s->value;
		return 1;
	case MS_FAST_QUEUE:
	case MS_FAST_QUEUE_ERRNO:
		if (!ms_fast_claim(s))
			return 0;
		if (s->kind == MS_FAST_QUEUE_ERRNO)
			errno = s->err;
		*v = s->value;
		return 1;
	case MS_FAST_ALWAYS_ERRNO:
		__atomic_fetch_add(s->consumed, 1, __ATOMIC_RELAXED);
		errno = s->err;
		*v = s->value;
		return 1;
	case MS_FAST_EXPECT:
		return ms_fast_check(s, a, guard) ? 2 : 0;
	case MS_FAST_SKIP:
		return __atomic_load_n(&ms_t_skip, __ATOMIC_RELAXED) == ms_skip_key(id, caller) ? 2 : 0;
	default:
		return 0;
	}
}
/* A slot goes live in this process once the slow path logged a turn of
 * its rule here (trampolines.c). */
MS_HIDDEN void ms_fast_open(struct ms_fast *s);

/* ms_consult for a function with a fast slot: a reply may be the turn
 * that opens it in this process.  Here, not in ms_consult, which ends in
 * a tail call every slow reply would lose. */
static inline __attribute__((always_inline)) int ms_consult_slot(unsigned id, const uint64_t *a,
								  int64_t *ret, const void *caller)
{
	int k = ms_consult(id, a, ret, caller);

	if (k == 1 && ms_fast[id].kind)
		ms_fast_open(&ms_fast[id]);
	return k;
}

/*
 * The catalog functions the shim itself calls, all under the guard: its
 * report and standalone mode (stdio, setenv, ...), which bind to its own
 * trampolines; glibc's and the loader's calls to the allocator, whose
 * trampolines (alloc.c) test the guard themselves, fast path and slow.  Only
 * these can be entered while this thread holds the guard, so only their
 * trampolines test it before answering from the fast slot
 * (MS_GUARD_OF); every other answers a live slot without reading this
 * thread's guard.  A signal handler that runs while its thread holds the
 * guard is the program's, and its calls are mocked as any other.
 * tests/preload/reentrant.sh checks the list against what
 * libmockshim.so, libc.so.6 and the loader call through their PLT.
 */
#define MS_REENTRANT_FNS(X)                                                               \
	X(malloc) X(calloc) X(realloc) X(free) X(fclose) X(fdopen) X(fflush) X(fopen)     \
	X(fprintf) X(fputc) X(fputs) X(fwrite) X(getcwd) X(gethostname) X(gmtime_r)       \
	X(lseek) X(pread) X(realpath) X(setenv) X(strdup) X(unsetenv)

/* log_key as a slot going live compares it: this pid, or -1 under -v */
extern int32_t ms_fast_key MS_HIDDEN;
/* Some slot went live in this process: forked() has slots to close. */
extern uint8_t ms_fast_any MS_HIDDEN;
#define MS_ARM_TIME 2u
#define MS_TIMED_FNS(X)                                                                   \
	X(clock_gettime) X(time) X(gettimeofday) X(ftime) X(timespec_get) X(nanosleep)    \
	X(clock_nanosleep) X(usleep) X(sleep) X(alarm) X(setitimer) X(poll) X(ppoll)      \
	X(select) X(pselect) X(epoll_wait) X(epoll_pwait) X(timerfd_settime)              \
	X(pthread_cond_timedwait) X(sem_timedwait) X(stat) X(fstat) X(lstat) X(fstatat)   \
	X(statx)
/* The real call of timed function id (canonical arguments a), through
 * the fake clock; errno is the real call's. */
MS_HIDDEN int64_t ms_time_call(unsigned id, const uint64_t *a);
/* clock_gettime through the fake clock: the trampoline calls it directly
 * when nothing but fake_time arms clock_gettime. */
MS_HIDDEN int ms_time_clock(clockid_t c, struct timespec *tp);
/* Picks this process's fake_time (in=), once attached: ms_rearm(). */
MS_HIDDEN void ms_time_setup(void);
/* MS_ARM_TIME when fake_time arms id in this process, else 0 (attached). */
MS_HIDDEN uint8_t ms_time_arms(unsigned id);
MS_HIDDEN int ms_time_any(void);	/* any fake time: ms_time_arms() may be */
/* After fork: the child logs its first read of the clock. */
MS_HIDDEN void ms_time_forked(void);

/* getaddrinfo's *res from an MS_O_ADDRINFO output: 0 or an EAI_* code. */
MS_HIDDEN int ms_build_addrinfo(const void *data, uint32_t len, const char *node,
				const char *service, const struct addrinfo *hints,
				struct addrinfo **res);

/* --trace: opens the output at attach; one line per call (trace.c
 * defines the decision's trace hooks, decide/tier.h). */
MS_HIDDEN void ms_trace_open(const struct ms_chan_hdr *h, const char *pool,
			     struct ms_state_hdr *st);
/* The pid the lines carry: the fork hook gives the child's; a vfork
 * (before the real one) marks its thread, which then asks the kernel. */
MS_HIDDEN void ms_trace_forked(int32_t pid);

/* power_loss() (power.c): the journal opened at attach when the channel
 * has a power directory; each tracked function's call noted before it
 * runs (ms_power_fn), in consult_attached, before its statements. */
extern int ms_power_on MS_HIDDEN;
MS_HIDDEN void ms_power_open(const struct ms_chan_hdr *h, const char *pool,
			     const struct ms_rule *rules);
MS_HIDDEN int ms_power_fn(unsigned id);
MS_HIDDEN void ms_power_note(unsigned id, const uint64_t *a);
MS_HIDDEN void ms_trace_vfork(void);
/* The record log as validated at attach (the header is shared: a
 * program could change it since), or NULL. */
MS_HIDDEN char *ms_record_log(uint64_t *cap);
/* ms_trace_after (decide.h) for a call of a live MS_FAST_TRACE slot: a
 * function traced and nothing else (no record, no rule to name). */
MS_HIDDEN int64_t ms_trace_plain(unsigned id, const uint64_t *a, int64_t ret, const void *caller);
/* A call's site as the trace writes it, "jq+0x2b7c4", into buf (cap
 * bytes, at least 24): its length, 0 when none is known (caller.c). */
MS_HIDDEN size_t ms_site_str(const void *caller, char *buf, size_t cap);
/* One unwind at attach, before any program call needs one (caller.c). */
MS_HIDDEN void ms_site_warm(void);
/* The object (a basename, cap bytes) and offset from its load bias of
 * address ip, and whether it is a system library's (or the shim's):
 * 0, or -1.  Lock-free, for a crash's frames (caller.c). */
MS_HIDDEN int ms_frame_site(uintptr_t ip, char *obj, size_t cap, uint64_t *off, int *sys);
/* The fatal-signal recorder, installed at attach where the program has
 * no handler of its own (crash.c). */
MS_HIDDEN void ms_crash_install(void);
struct ms_event;
/* MOCKSHIM_CHANNEL as this process attached by it (NULL: none), and
 * whether its LD_PRELOAD named the shim then. */
MS_HIDDEN const char *ms_channel_env(void);
MS_HIDDEN int ms_preloaded_by_env(void);
/* The shim's file name (its basename), as the loader loaded it. */
MS_HIDDEN const char *ms_shim_base(void);
/* when(), ms_read_user, events: decide.h */

/* Whether the statements of function id (catalog or not) are good and
 * one is for this program (in=), or it is traced, recorded or counted:
 * checked once (the first call), a warning if they are not good. */
MS_HIDDEN int ms_fn_ready(unsigned id);

/* Declared prototypes (declared.c): at attach, points the GOT entries of
 * the declared functions a statement applies to at their stubs; after a
 * dlopen, those of the objects it loaded.  ms_decl_active(): any are. */
MS_HIDDEN void ms_decl_bind(const struct ms_chan_hdr *h);
MS_HIDDEN void ms_decl_loaded(void);
/* The real dlopen as the loader would do it for caller: a bare name is
 * looked for in caller's DT_RPATH or DT_RUNPATH, not the shim's, and
 * $ORIGIN in a path is caller's directory. */
MS_HIDDEN void *ms_dlopen_for(const char *file, int flags, const void *caller);
MS_HIDDEN int ms_decl_active(void);

/* Recomputes ms_armed from the channel and the bootstrap allocator. */
MS_HIDDEN void ms_rearm(void);
extern int ms_boot_used MS_HIDDEN;

/* The re-entry guard, for the shim's own work outside ms_consult (standalone
 * set-up and report): while held, every trampoline goes to the real function. */
MS_HIDDEN void ms_guard_enter(void);
MS_HIDDEN void ms_guard_leave(void);

/* The attached channel's spec and state (NULL: none), and this program's
 * basename. */
MS_HIDDEN const struct ms_chan_hdr *ms_channel(void);
MS_HIDDEN struct ms_state_hdr *ms_state(void);
MS_HIDDEN const char *ms_exe_name(void);
MS_HIDDEN const char *ms_env(const char *key);

/*
 * Standalone mode (MOCKSHIM= / MOCKSHIM_FILE=, no mockrun): compiles the
 * statements into a new channel and returns the path to attach it by
 * (also put in MOCKSHIM_CHANNEL for programs it execs), or NULL when
 * neither variable is set.  A bad statement exits 125, as mockrun does.
 */
MS_HIDDEN const char *ms_standalone_channel(char *path, unsigned long cap);
/* In the channel's owner: report at exit, and exit 123 instead of 0 when
 * a check failed. */
MS_HIDDEN void ms_standalone_owner(void);

/* One line on fd 2 with a raw write(2), "mockshim: " and the NULL-terminated
 * parts: no stdio, no malloc, errno preserved, async-signal-safe. */
MS_HIDDEN void ms_diag(const char *first, ...) __attribute__((sentinel));

#endif
