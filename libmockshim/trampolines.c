/* SPDX-License-Identifier: MIT */
/*
 * The generated trampolines: one per catalog row and alias, each
 *	if (armed) { consult; if mocked return reply; }
 *	return real(args);
 * and the stubs that bind the real function on first use.
 *
 * This file is compiled in the trampolines' context of sysdecl.h: without
 * _GNU_SOURCE, so that glibc's transparent unions (__SOCKADDR_ARG) do not
 * clash with the catalog's plain pointer types, and without
 * _FILE_OFFSET_BITS, so that open is open, not open64.
 */
#define MS_SYSDECL_TRAMPOLINES
#include "sysdecl.h"

#include "decide/decide.h"
#include "shim.h"

/* <stdio.h> makes these macros when optimising: the rows define them */
#undef fread_unlocked
#undef fwrite_unlocked

/* Declarations first: for the symbols glibc declares too, a prototype that
 * disagrees with glibc's is a compile error here. */
#define MOCKSHIM_FN(ret, name, proto, ...) MS_EXPORT ret name proto;
#define MOCKSHIM_FN_H(...)
#define MOCKSHIM_FN_V(...)
#define MOCKSHIM_ALIAS(canon, ret, name, proto, ...) MS_EXPORT ret name proto;
#define MOCKSHIM_ALIAS_H(...)
#define MOCKSHIM_ALIAS_V(...)
#include "mockshim/catalog.def"
#include "mockshim/catalog_end.h"

/*
 * The armed path is a cold function of its own, reached by a tail call:
 * the trampoline itself is then three instructions (cmpb, jne, jmp *),
 * with no register saved, and the caller's return address is still on
 * the stack for MS_CALLER (from= and reports) in the cold function.
 * There the arguments go into an array for ms_consult; a reply returns at
 * once, and the real function gets its arguments back from the array
 * (MS_GET), so that nothing but the array lives across the consult and
 * the reply path saves one register, not one per argument.
 */
#ifdef MS_ARCH_VA_LIST_STRUCT
__thread const void *ms_va_caller __attribute__((tls_model("initial-exec")));
#endif

/* The functions fake_time may arm (MS_ARM_TIME): a constant table, so
 * that every other trampoline compiles to what it was. */
static const uint8_t ms_timed[MS_FN_COUNT] = {
#define X(name) [MS_ID_##name] = 1,
	MS_TIMED_FNS(X)
#undef X
};

/* The functions the shim itself may enter under the guard (shim.h), and
 * the guard as a trampoline tests it: 0, a constant, in every other. */
static const uint8_t ms_reentrant[MS_FN_COUNT] = {
#define X(name) [MS_ID_##name] = 1,
	MS_REENTRANT_FNS(X)
#undef X
};
#define MS_GUARD_OF(id) (ms_reentrant[id] ? ms_guard : 0u)

/* clock_gettime armed by fake_time alone goes straight to the fake clock
 * (a constant: the other rows compile to what they were). */
#define MS_IS_CLOCK(name) (__builtin_strcmp(#name, "clock_gettime") == 0)
/* ms_time_clock where the row has its type (the branch is dead elsewhere) */
#define MS_CLOCK_FAST(ret, name, proto)                                                   \
	_Generic((ret(*) proto)0, int (*)(clockid_t, struct timespec *): ms_time_clock,    \
		 default: ms_armed_##name)

/* A slot goes live in this process once the rule's state says that it
 * logged a turn here: the slow path's, just taken. */
__attribute__((noinline, cold)) void ms_fast_open(struct ms_fast *s)
{
	int32_t key = __atomic_load_n(&ms_fast_key, __ATOMIC_RELAXED);
	uint32_t kind = __atomic_load_n(&s->kind, __ATOMIC_RELAXED);

	/* a count near its end stays the slow path's (ms_fast_claim), and
	 * the last batch's worth before it too for a lane (ms_lane_take) */
	if (s->far > 0 && __atomic_load_n(s->consumed, __ATOMIC_RELAXED) +
				  (s->lane_off >= 0 ? MS_LANE_BATCH : 0) >= (uint32_t)s->far)
		return;
	if (kind && kind < MS_FAST_EXPECT && !ms_guard && key != -1 &&
	    __atomic_load_n(s->logged_pid, __ATOMIC_RELAXED) == key) {
		/* this thread's lane block, the first time it takes a lane's
		 * turn from a live slot */
		if (s->lane_off >= 0 && __atomic_load_n(&ms_t_lanes, __ATOMIC_RELAXED) == ms_lanes_none)
			ms_lanes_give();
		__atomic_store_n(&ms_fast_any, 1, __ATOMIC_RELAXED);
		__atomic_store_n(&s->live, kind, __ATOMIC_RELEASE);
	}
}

__attribute__((noinline)) int ms_fast_claim_call(struct ms_fast *s)
{
	return ms_fast_claim(s);
}

/*
 * The fast slot (struct ms_fast, shim.h), in the trampoline itself: a
 * constant or a queue's turn answered with a few loads and one atomic
 * add (a lane's on the thread's own line), and no frame (the only calls
 * are tail calls).  The live word is compared against
 * MS_FAST_ALWAYS, MS_FAST_LANE, then MS_FAST_QUEUE, in memory
 * (ms_live_is); the guard only where the shim may enter the function
 * (MS_GUARD_OF), or'ed into the kind (MS_GUARD is above every kind).
 * The _ERRNO kinds go on to ms_fasterr_NAME (errno is a call away), a
 * reply with an output to ms_fastout_NAME (the arguments as an array); a
 * call site this thread found no statement is for (MS_FAST_SKIP) to the
 * real function; a traced call (MS_FAST_TRACE) to ms_armed_NAME at once,
 * past the fake clock's tests; a slot not live, re-entry from the shim
 * and a queue run out go on to ms_armed_NAME, which decides and then
 * opens the slot (ms_consult_slot), or checks first (MS_FAST_EXPECT:
 * ms_fast_check).
 */
#define MS_FAST(ret, id, name, args)                                                      \
	do {                                                                              \
		struct ms_fast *s_ = &ms_fast[id];                                        \
		uint32_t k_;                                                              \
		if (ms_likely(ms_live_is(&s_->live, MS_FAST_ALWAYS)) && !MS_GUARD_OF(id)) { \
			__atomic_fetch_add(s_->consumed, 1, __ATOMIC_RELAXED);            \
			return (ret)(uintptr_t)s_->value;                                 \
		}                                                                         \
		if (ms_live_is(&s_->live, MS_FAST_LANE) && !MS_GUARD_OF(id)) {            \
			if (ms_lane_take(s_))                                             \
				return (ret)(uintptr_t)s_->value;                         \
			break;                                                            \
		}                                                                         \
		if (ms_live_is(&s_->live, MS_FAST_QUEUE) && !MS_GUARD_OF(id)) {           \
			if (ms_queue_take(s_))                                            \
				return (ret)(uintptr_t)s_->value;                         \
			break;                                                            \
		}                                                                         \
		k_ = __atomic_load_n(&s_->live, __ATOMIC_ACQUIRE) | MS_GUARD_OF(id);      \
		if (k_) {                                                                 \
			/* traced: straight on (never live where time is fake) */         \
			if (k_ == MS_FAST_TRACE) {                                        \
				MS_NOTE_CALLER(args);                                     \
				MS_TAIL return ms_armed_##name args;                      \
			}                                                                 \
			if (k_ == MS_FAST_ALWAYS_ERRNO || k_ == MS_FAST_QUEUE_ERRNO)      \
				MS_TAIL return ms_fasterr_##name args;                    \
			if (k_ == MS_FAST_OUT) {                                          \
				MS_NOTE_CALLER(args);                                     \
				MS_TAIL return ms_fastout_##name args;                    \
			}                                                                 \
			if (k_ == MS_FAST_EXPECT) {                                       \
				MS_NOTE_CALLER(args);                                     \
				MS_TAIL return ms_fastx_##name args;                      \
			}                                                                 \
			if (k_ == MS_FAST_SKIP && __atomic_load_n(&ms_t_skip, __ATOMIC_RELAXED) == \
							  ms_skip_key(id, MS_CALLER))     \
				return ms_real.name.fn args;                              \
		}                                                                         \
	} while (0)

/* The _ERRNO kinds of a live slot: the turn, errno, the value; a queue
 * run out goes on to the slow path, which says so.  MS_FAST_EXPECT's
 * check: a parameter that holds the value goes to the real function,
 * any other to the slow path, which reports it. */
#define MS_FASTERR(id, ret, name, proto, args, ...)                                       \
	static __attribute__((noinline, cold)) ret ms_fasterr_##name proto               \
	{                                                                                 \
		struct ms_fast *s_ = &ms_fast[id];                                        \
		if (__atomic_load_n(&s_->live, __ATOMIC_ACQUIRE) == MS_FAST_ALWAYS_ERRNO) \
			__atomic_fetch_add(s_->consumed, 1, __ATOMIC_RELAXED);            \
		else if (!ms_fast_claim_call(s_))                                         \
			MS_TAIL return ms_armed_##name args;                              \
		errno = s_->err;                                                          \
		return (ret)(uintptr_t)s_->value;                                         \
	}                                                                                 \
	static __attribute__((noinline, cold)) ret ms_fastx_##name proto                 \
	{                                                                                 \
		uint64_t c_[] = { __VA_ARGS__ };                                          \
		if (ms_fast_check(&ms_fast[id], c_, MS_GUARD_OF(id)))                     \
			return ms_real.name.fn args;                                      \
		MS_TAIL return ms_armed_##name args;                                      \
	}                                                                                 \
	static __attribute__((noinline, cold)) ret ms_fastout_##name proto               \
	{                                                                                 \
		uint64_t c_[] = { __VA_ARGS__ };                                          \
		int64_t v_;                                                               \
		if (ms_fast_out(&ms_fast[id], c_, &v_))                                   \
			return (ret)(uintptr_t)v_;                                        \
		MS_TAIL return ms_armed_##name args;                                      \
	}

/*
 * A timed function fake_time armed (MS_ARM_TIME) takes ms_timed_NAME,
 * reached from the trampoline the same way: the statements first, if any
 * are armed here, then the call through the fake clock.  Every other path
 * compiles to what it was without fake_time.
 */
#define MS_TRAMPOLINE(id, ret, name, n, proto, args, cargs, vals, decl, rewritten)        \
	static __attribute__((noinline, cold, unused)) ret ms_timed_##name proto          \
	{                                                                                 \
		uint64_t c_[] = { cargs };                                                \
		decl                                                                      \
		int64_t v_;                                                               \
		int k_ = __atomic_load_n(&ms_armed[id], __ATOMIC_RELAXED) & MS_ARM_RULES  \
				 ? ms_consult(id, c_, &v_, MS_CALLER) : 0;                \
		if (ms_likely(k_ == 1))                                                   \
			return (ret)(uintptr_t)v_;                                        \
		/* c_ holds what will_call_real rewrote, if it did */                     \
		ms_rewrote = 0;                                                           \
		v_ = ms_time_call(id, c_);                                                \
		if (k_ == 2)                                                              \
			v_ = ms_trace_after(id, c_, v_, MS_CALLER);                       \
		return (ret)(uintptr_t)v_;                                                \
	}                                                                                 \
	static __attribute__((noinline, cold)) ret ms_armed_##name proto                  \
	{                                                                                 \
		uint64_t c_[] = { cargs };                                                \
		decl                                                                      \
		int64_t v_;                                                               \
		int k_;                                                                   \
		if (ms_fast_traced(&ms_fast[id], MS_GUARD_OF(id)))                        \
			return (ret)(uintptr_t)ms_trace_plain(                            \
				id, c_, (int64_t)(uintptr_t)ms_real.name.fn MS_GET(n, vals, args), \
				MS_ARMED_CALLER(args));                                   \
		k_ = ms_consult_slot(id, c_, &v_, MS_ARMED_CALLER(args));                 \
		if (ms_likely(k_ == 1))                                                   \
			return (ret)(uintptr_t)v_;                                        \
		if (ms_unlikely(ms_rewrote == (int)(id) + 1)) {                          \
			ms_rewrote = 0;                                                   \
			if (k_ == 2)                                                      \
				return (ret)(uintptr_t)ms_trace_after(                    \
					id, c_, (int64_t)(uintptr_t)rewritten,            \
					MS_ARMED_CALLER(args));                           \
			return rewritten;                                                 \
		}                                                                         \
		if (k_ == 2)                                                              \
			return (ret)(uintptr_t)ms_trace_after(                            \
				id, c_, (int64_t)(uintptr_t)ms_real.name.fn MS_GET(n, vals, args), \
				MS_ARMED_CALLER(args));                                   \
		return ms_real.name.fn MS_GET(n, vals, args);                             \
	}                                                                                 \
	MS_FASTERR(id, ret, name, proto, args, cargs)                                        \
	MS_EXPORT ret name proto                                                          \
	{                                                                                 \
		if (ms_unlikely(ms_armed[id])) {                                          \
			/* a live slot first: never live where the clock is fake */       \
			MS_FAST(ret, id, name, args);                                     \
			/* loaded again: the unarmed test stays one compare */            \
			if (ms_timed[id]) {                                               \
				/* volatile: one compare against memory */                \
				uint8_t a_ = *(volatile uint8_t *)&ms_armed[id];          \
				if (MS_IS_CLOCK(name) && a_ == MS_ARM_TIME)               \
					return MS_CLOCK_FAST(ret, name, proto) args;      \
				if (a_ & MS_ARM_TIME)                                     \
					MS_TAIL return ms_timed_##name args;              \
			}                                                                 \
			MS_NOTE_CALLER(args);                                             \
			MS_TAIL return ms_armed_##name args;                              \
		}                                                                         \
		return ms_real.name.fn args;                                              \
	}                                                                                 \
	MS_HIDDEN ret ms_bind_##name proto                                                \
	{                                                                                 \
		ms_real.name.ptr = ms_lookup(#name);                                      \
		return ms_real.name.fn args;                                              \
	}

/* The same for a function that returns nothing: a reply returns, the
 * real function's (absent) result is traced as 0. */
#define MS_TRAMPOLINE_VOID(id, name, n, proto, args, cargs, vals, decl)                    \
	static __attribute__((noinline, cold)) void ms_armed_##name proto                  \
	{                                                                                 \
		uint64_t c_[] = { cargs };                                                \
		decl                                                                      \
		int64_t v_;                                                               \
		int k_ = ms_consult(id, c_, &v_, MS_ARMED_CALLER(args));                  \
		if (ms_likely(k_ == 1))                                                   \
			return;                                                           \
		ms_real.name.fn MS_GET(n, vals, args);                                    \
		if (k_ == 2)                                                              \
			ms_trace_after(id, c_, 0, MS_ARMED_CALLER(args));                 \
	}                                                                                 \
	MS_EXPORT void name proto                                                         \
	{                                                                                 \
		if (ms_unlikely(ms_armed[id])) {                                          \
			MS_NOTE_CALLER(args);                                             \
			ms_armed_##name args;                                             \
			return;                                                           \
		}                                                                         \
		ms_real.name.fn args;                                                     \
	}                                                                                 \
	MS_HIDDEN void ms_bind_##name proto                                               \
	{                                                                                 \
		ms_real.name.ptr = ms_lookup(#name);                                      \
		ms_real.name.fn args;                                                     \
	}

#define MOCKSHIM_FN_VOID(name, proto, args, ...)                                             \
	MS_TRAMPOLINE_VOID(MS_ID_##name, name, MS_NARGS_OF(args), proto, args,          \
			   MS_ARR(MS_NARGS_OF(args), args), c_, )
#define MOCKSHIM_ALIAS_VOID(canon, name, proto, args, cargs)                                 \
	MS_TRAMPOLINE_VOID(MS_ID_##canon, name, MS_NARGS_OF(args), proto, args,         \
			   MS_CARR(cargs), a_, uint64_t a_[] = { MS_ARR(MS_NARGS_OF(args), args) }; \
			   __asm__ volatile("" : : "r"(a_) : "memory");)
#define MOCKSHIM_FN(ret, name, proto, args, ...)                                          \
	MS_TRAMPOLINE(MS_ID_##name, ret, name, MS_NARGS_OF(args), proto, args,          \
		      MS_ARR(MS_NARGS_OF(args), args), c_, ,                            \
		      ms_real.name.fn MS_GET(MS_NARGS_OF(args), c_, args))
#define MOCKSHIM_FN_H(...)
#define MOCKSHIM_FN_V(...)
/* an alias's own arguments (c_ holds the canonical row's), in an array
 * that escapes, so that they too are read back after the consult */
/* An alias whose arguments will_call_real replaced calls its canonical
 * function with the canonical array: stat64's struct stat64 * goes where
 * stat's struct stat * does (the same struct on LP64 glibc), hence the
 * pragma. */
#pragma GCC diagnostic ignored "-Wincompatible-pointer-types"
#define MOCKSHIM_ALIAS(canon, ret, name, proto, args, cargs)                                 \
	MS_TRAMPOLINE(MS_ID_##canon, ret, name, MS_NARGS_OF(args), proto, args,        \
		      MS_CARR(cargs), a_, uint64_t a_[] = { MS_ARR(MS_NARGS_OF(args), args) }; \
		      __asm__ volatile("" : : "r"(a_) : "memory");,                    \
		      (ret)ms_real.canon.fn MS_GET(MS_NARGS_OF(cargs), c_, cargs))
#define MOCKSHIM_ALIAS_H(...)
#define MOCKSHIM_ALIAS_V(...)
#include "mockshim/catalog.def"
#include "mockshim/catalog_end.h"

struct ms_real_table ms_real = {
#define MOCKSHIM_FN(ret, name, ...) .name = { .fn = ms_bind_##name },
#define MOCKSHIM_FN_H MOCKSHIM_FN
#define MOCKSHIM_FN_V(ret, name, ...) .name = { .ptr = NULL },
#define MOCKSHIM_ALIAS(canon, ret, name, ...) .name = { .fn = ms_bind_##name },
#define MOCKSHIM_ALIAS_H MOCKSHIM_ALIAS
#define MOCKSHIM_ALIAS_V(canon, ret, name, ...) .name = { .ptr = NULL },
#include "mockshim/catalog.def"
#include "mockshim/catalog_end.h"
};

/* A sanitizer build (meson.build) starts disarmed: the sanitizer runtime
 * calls getrlimit and others while it initialises, before any constructor
 * and before instrumented code may run; the shim's constructor arms. */
#ifndef MS_ARMED_AT_START
#define MS_ARMED_AT_START 1
#endif

uint8_t ms_armed[MS_FN_COUNT] __attribute__((aligned(8))) = {
#define MOCKSHIM_FN(ret, name, ...) [MS_ID_##name] = MS_ARMED_AT_START,
#define MOCKSHIM_FN_H MOCKSHIM_FN
#define MOCKSHIM_FN_V MOCKSHIM_FN
#define MOCKSHIM_ALIAS(...)
#define MOCKSHIM_ALIAS_H(...)
#define MOCKSHIM_ALIAS_V(...)
#include "mockshim/catalog.def"
#include "mockshim/catalog_end.h"
};
