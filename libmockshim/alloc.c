/* SPDX-License-Identifier: MIT */
/*
 * The allocator's trampolines (malloc, calloc, realloc, free), written by
 * hand: dlsym itself may allocate while the real malloc is being looked
 * up, so a bootstrap arena serves those calls.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "shim.h"

/* ---- the allocator ---- */

/*
 * Bootstrap arena: serves malloc/calloc/realloc while dlsym runs on this
 * thread (ms_binding).  Blocks are never reused; free() of one is a no-op.
 * Once used, free and realloc stay on their slow path, where they
 * recognise arena pointers, so the real free never sees one.
 */
#define BOOT_SIZE (256 * 1024)
static _Alignas(16) unsigned char boot_arena[BOOT_SIZE];
static size_t boot_top;
int ms_boot_used;

struct boot_hdr {
	size_t size;
	size_t pad;
};

static void *boot_alloc(size_t n)
{
	size_t need = sizeof(struct boot_hdr) + ((n + 15) & ~(size_t)15);
	size_t top = __atomic_load_n(&boot_top, __ATOMIC_RELAXED);
	struct boot_hdr *h;

	do {
		if (n > BOOT_SIZE || need > BOOT_SIZE - top)
			return NULL;
	} while (!__atomic_compare_exchange_n(&boot_top, &top, top + need, 1, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	h = (struct boot_hdr *)(boot_arena + top);
	h->size = n;
	/* From now on free and realloc must look at every pointer: arm them
	 * after publishing the flag; ms_rearm() reads it after disarming
	 * (both sequentially consistent), so one of the two re-arms them. */
	__atomic_store_n(&ms_boot_used, 1, __ATOMIC_SEQ_CST);
	__atomic_store_n(&ms_armed[MS_ID_free], 1, __ATOMIC_SEQ_CST);
	__atomic_store_n(&ms_armed[MS_ID_realloc], 1, __ATOMIC_SEQ_CST);
	return h + 1; /* zeroed: the arena is never reused */
}

static int boot_owns(const void *p)
{
	return (const unsigned char *)p >= boot_arena &&
	       (const unsigned char *)p < boot_arena + BOOT_SIZE;
}

/*
 * The armed path of an allocator function: mocked, real, or real and
 * traced; cold, reached by a tail call.  The fast slot (ms_fast_take)
 * answers first, in the trampoline, as a generated one's does; the guard
 * is always tested here: glibc and the loader call the allocator, and
 * the shim's own stdio does, while a thread holds it (MS_REENTRANT_FNS).
 */
#define ALLOC_ARMED(name, id, call, ...)                                             \
	static __attribute__((noinline, cold)) void *name                            \
	{                                                                            \
		uint64_t a[] = { __VA_ARGS__ };                                      \
		int64_t v;                                                           \
		int k;                                                               \
		void *r;                                                             \
		if (ms_fast_traced(&ms_fast[id], ms_guard))                          \
			return (void *)(uintptr_t)ms_trace_plain(                    \
				id, a, (int64_t)(uintptr_t)(call), MS_CALLER);       \
		k = ms_consult_slot(id, a, &v, MS_CALLER);                           \
		if (k == 1)                                                          \
			return (void *)(uintptr_t)v;                                 \
		r = call;                                                            \
		if (k == 2)                                                          \
			ms_trace_after(id, a, (int64_t)(uintptr_t)r, MS_CALLER);     \
		return r;                                                            \
	}
/* In the trampoline: a live slot's answer, or on to name (a tail call) */
#define ALLOC_FAST(id, name, call, ...)                                              \
	do {                                                                         \
		uint64_t a_[] = { __VA_ARGS__ };                                     \
		int64_t v_;                                                          \
		int k_ = ms_fast_take(id, ms_guard, a_, MS_CALLER, &v_);             \
		if (k_ == 1)                                                         \
			return (void *)(uintptr_t)v_;                                \
		if (k_ == 2)                                                         \
			return call;                                                 \
		return name;                                                         \
	} while (0)

ALLOC_ARMED(malloc_armed(size_t size), MS_ID_malloc, ms_real.malloc.fn(size), MS_U(size))

MS_EXPORT void *malloc(size_t size)
{
	if (ms_unlikely(ms_armed[MS_ID_malloc]))
		ALLOC_FAST(MS_ID_malloc, malloc_armed(size), ms_real.malloc.fn(size), MS_U(size));
	return ms_real.malloc.fn(size);
}

void *ms_bind_malloc(size_t size)
{
	if (ms_binding)
		return boot_alloc(size);
	ms_real.malloc.ptr = ms_lookup("malloc");
	return ms_real.malloc.fn(size);
}

ALLOC_ARMED(calloc_armed(size_t nmemb, size_t size), MS_ID_calloc, ms_real.calloc.fn(nmemb, size),
	    MS_U(nmemb), MS_U(size))

MS_EXPORT void *calloc(size_t nmemb, size_t size)
{
	if (ms_unlikely(ms_armed[MS_ID_calloc]))
		ALLOC_FAST(MS_ID_calloc, calloc_armed(nmemb, size), ms_real.calloc.fn(nmemb, size),
			   MS_U(nmemb), MS_U(size));
	return ms_real.calloc.fn(nmemb, size);
}

void *ms_bind_calloc(size_t nmemb, size_t size)
{
	if (ms_binding) {
		if (size && nmemb > SIZE_MAX / size)
			return NULL;
		return boot_alloc(nmemb * size);
	}
	ms_real.calloc.ptr = ms_lookup("calloc");
	return ms_real.calloc.fn(nmemb, size);
}

/* glibc's own allocator, for pointers that are not ours while dlsym runs
 * (see NOTES.md: exported by glibc 2.36). */
extern void *__libc_realloc(void *ptr, size_t size);
extern void __libc_free(void *ptr);

static void *boot_realloc(void *ptr, size_t size)
{
	const struct boot_hdr *h = (const struct boot_hdr *)ptr - 1;
	/* never our own malloc: it could take a rule's turn */
	void *q = ms_binding ? boot_alloc(size) : ms_real.malloc.fn(size);

	if (q)
		memcpy(q, ptr, h->size < size ? h->size : size);
	return q;
}

ALLOC_ARMED(realloc_armed(void *ptr, size_t size), MS_ID_realloc, ms_real.realloc.fn(ptr, size),
	    MS_U(ptr), MS_U(size))

MS_EXPORT void *realloc(void *ptr, size_t size)
{
	if (ms_unlikely(ms_armed[MS_ID_realloc])) {
		if (boot_owns(ptr))
			return boot_realloc(ptr, size);
		ALLOC_FAST(MS_ID_realloc, realloc_armed(ptr, size), ms_real.realloc.fn(ptr, size),
			   MS_U(ptr), MS_U(size));
	}
	return ms_real.realloc.fn(ptr, size);
}

void *ms_bind_realloc(void *ptr, size_t size)
{
	if (boot_owns(ptr))
		return boot_realloc(ptr, size);
	if (ms_binding)
		return ptr ? __libc_realloc(ptr, size) : boot_alloc(size);
	ms_real.realloc.ptr = ms_lookup("realloc");
	return ms_real.realloc.fn(ptr, size);
}

static __attribute__((noinline, cold)) void free_armed(void *ptr)
{
	uint64_t a[] = { MS_U(ptr) };
	int64_t v;
	int k;

	if (ms_fast_traced(&ms_fast[MS_ID_free], ms_guard)) {
		ms_real.free.fn(ptr);
		ms_trace_plain(MS_ID_free, a, 0, MS_CALLER);
		return;
	}
	k = ms_consult_slot(MS_ID_free, a, &v, MS_CALLER);
	if (k == 1)
		return;
	ms_real.free.fn(ptr);
	if (k == 2)
		ms_trace_after(MS_ID_free, a, 0, MS_CALLER);
}

MS_EXPORT void free(void *ptr)
{
	if (ms_unlikely(ms_armed[MS_ID_free])) {
		uint64_t a[] = { MS_U(ptr) };
		int64_t v;
		int k;

		/* the arena's blocks are never the real free's, nor a rule's */
		if (boot_owns(ptr))
			return;
		k = ms_fast_take(MS_ID_free, ms_guard, a, MS_CALLER, &v);
		if (k == 1)
			return;
		if (k == 2)
			ms_real.free.fn(ptr);
		else
			free_armed(ptr);
		return;
	}
	ms_real.free.fn(ptr);
}

void ms_bind_free(void *ptr)
{
	if (boot_owns(ptr))
		return;
	if (ms_binding) {
		__libc_free(ptr);
		return;
	}
	ms_real.free.ptr = ms_lookup("free");
	ms_real.free.fn(ptr);
}
