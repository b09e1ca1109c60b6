/* SPDX-License-Identifier: MIT */
/*
 * Trampolines written by hand: the variadic open family, and the
 * allocator, which needs a bootstrap arena because dlsym itself may
 * allocate while the real malloc is being looked up.
 */
#undef _FILE_OFFSET_BITS
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include "shim.h"

/* ---- binding the real functions ---- */

/* Here, not in runtime.c: a sanitizer build reaches it before its
 * runtime is initialised (meson.build), and this file is not instrumented. */

void ms_missing_real(void)
{
	ms_diag("fatal: a function called through the shim has no real definition", NULL);
	syscall(SYS_exit_group, 127);
}

void *ms_lookup(const char *name)
{
	void (*missing)(void) = ms_missing_real;
	int saved = errno;
	void *p;

	/* what dlsym(RTLD_NEXT) gives, but dlerror()'s state stays the
	 * program's (symbols.c); an IFUNC resolver may call back into the
	 * shim, which then goes to the real functions */
	ms_guard++;
	ms_binding++;
	p = ms_find_symbol(name, 1);
	ms_binding--;
	ms_guard--;
	if (!p) {
		ms_diag("no real definition of ", name, " after libmockshim.so", NULL);
		memcpy(&p, &missing, sizeof(p));
	}
	errno = saved;
	return p;
}

/* ---- dlopen ---- */

/* By hand for what follows a load: the objects it brought may call
 * declared functions (declared.c). */
static __attribute__((noinline, cold)) void *dlopen_armed(const char *filename, int flags,
							  const void *caller)
{
	uint64_t a[] = { MS_U(filename), MS_U(flags) };
	int64_t v;
	int k = ms_consult(MS_ID_dlopen, a, &v, caller);
	void *h;

	if (k == 1)
		return (void *)(uintptr_t)v;
	/* not a tail call: the caller's search path is looked up for it */
	h = ms_dlopen_for(filename, flags, caller);
	if (k == 2)
		ms_trace_after(MS_ID_dlopen, a, (int64_t)(uintptr_t)h);
	if (h)
		ms_decl_loaded();
	return h;
}

MS_EXPORT void *dlopen(const char *filename, int flags)
{
	if (ms_unlikely(ms_armed[MS_ID_dlopen]))
		return dlopen_armed(filename, flags, MS_CALLER);
	return ms_real.dlopen.fn(filename, flags);
}

void *ms_bind_dlopen(const char *filename, int flags)
{
	ms_real.dlopen.ptr = ms_lookup("dlopen");
	return ms_real.dlopen.fn(filename, flags);
}

/* ---- open, open64, openat, openat64 ---- */

typedef int (*open_fn)(const char *, int, ...);
typedef int (*openat_fn)(int, const char *, int, ...);

/* Variadic slots start NULL: look up on first use. */
static void *slot(void **p, const char *name)
{
	void *v = __atomic_load_n(p, __ATOMIC_RELAXED);

	if (ms_unlikely(!v)) {
		v = ms_lookup(name);
		__atomic_store_n(p, v, __ATOMIC_RELAXED);
	}
	return v;
}

static int needs_mode(int flags)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE;
}

#define OPEN_MODE(last, flags)                    \
	mode_t mode = 0;                          \
	if (needs_mode(flags)) {                  \
		va_list ap;                       \
		va_start(ap, last);               \
		mode = (mode_t)va_arg(ap, int);   \
		va_end(ap);                       \
	}

/* The armed paths, cold and reached by tail calls (see trampolines.c). */
/* open and openat read their va_list first, so these are not tail calls:
 * the program's return address comes as caller. */
/* The armed path of a variadic function called with three words. */
#define ARMED3(fname, fn_t, T1, T2, T3)                                                  \
	static __attribute__((noinline, cold)) int fname(unsigned id, void **real,       \
							 const char *sym, T1 a1, T2 a2,  \
							 T3 a3, const void *caller)      \
	{                                                                                \
		uint64_t a[] = { MS_U(a1), MS_U(a2), MS_U(a3) };                         \
		int64_t v;                                                               \
		int k = ms_consult(id, a, &v, caller), r;                                \
		void *p;                                                                 \
		fn_t f;                                                                  \
		if (k == 1)                                                              \
			return (int)v;                                                   \
		p = slot(real, sym);                                                     \
		memcpy(&f, &p, sizeof(f));                                               \
		/* from the array: will_call_real may have replaced them */              \
		ms_rewrote = 0;                                                          \
		r = f((T1)(uintptr_t)a[0], (T2)(uintptr_t)a[1], (T3)(uintptr_t)a[2]);   \
		if (k == 2)                                                              \
			ms_trace_after(id, a, r);                                        \
		return r;                                                                \
	}

ARMED3(open_armed, open_fn, const char *, int, mode_t)

static __attribute__((noinline, cold)) int openat_armed(unsigned id, void **real, const char *sym,
							int dirfd, const char *pathname, int flags,
							mode_t mode, const void *caller)
{
	uint64_t a[] = { MS_U(dirfd), MS_U(pathname), MS_U(flags), MS_U(mode) };
	int64_t v;
	int k = ms_consult(id, a, &v, caller), r;
	void *p;
	openat_fn f;

	if (k == 1)
		return (int)v;
	p = slot(real, sym);
	memcpy(&f, &p, sizeof(f));
	/* from the array: will_call_real may have replaced them */
	ms_rewrote = 0;
	r = f((int)a[0], (const char *)(uintptr_t)a[1], (int)a[2], (mode_t)a[3]);
	if (k == 2)
		ms_trace_after(id, a, r);
	return r;
}

#define DEFINE_OPEN(name, id)                                                           \
	MS_EXPORT int name(const char *pathname, int flags, ...)                        \
	{                                                                               \
		open_fn f;                                                              \
		void *p;                                                                \
		OPEN_MODE(flags, flags)                                                 \
		if (ms_unlikely(ms_armed[id]))                                          \
			return open_armed(id, &ms_real.name.ptr, #name, pathname, flags, mode, \
					  MS_CALLER);                                   \
		p = slot(&ms_real.name.ptr, #name);                                     \
		memcpy(&f, &p, sizeof(f));                                              \
		return f(pathname, flags, mode);                                        \
	}

#define DEFINE_OPENAT(name, id)                                                         \
	MS_EXPORT int name(int dirfd, const char *pathname, int flags, ...)             \
	{                                                                               \
		openat_fn f;                                                            \
		void *p;                                                                \
		OPEN_MODE(flags, flags)                                                 \
		if (ms_unlikely(ms_armed[id]))                                          \
			return openat_armed(id, &ms_real.name.ptr, #name, dirfd, pathname, \
					    flags, mode, MS_CALLER);                    \
		p = slot(&ms_real.name.ptr, #name);                                     \
		memcpy(&f, &p, sizeof(f));                                              \
		return f(dirfd, pathname, flags, mode);                                 \
	}

DEFINE_OPEN(open, MS_ID_open)
DEFINE_OPEN(open64, MS_ID_open)
DEFINE_OPENAT(openat, MS_ID_openat)
DEFINE_OPENAT(openat64, MS_ID_openat)

/* ---- fcntl, fcntl64, ioctl ---- */

/* The optional argument is read as glibc's own fcntl and ioctl read it:
 * one word, whether or not the command takes one. */
typedef int (*ctl_fn)(int, unsigned long, ...);

ARMED3(ctl_armed, ctl_fn, int, unsigned long, unsigned long)

#define DEFINE_CTL(name, id, cmd_t)                                                     \
	MS_EXPORT int name(int fd, cmd_t cmd, ...)                                      \
	{                                                                               \
		unsigned long arg;                                                      \
		va_list ap;                                                             \
		ctl_fn f;                                                               \
		void *p;                                                                \
		va_start(ap, cmd);                                                      \
		arg = va_arg(ap, unsigned long);                                        \
		va_end(ap);                                                             \
		if (ms_unlikely(ms_armed[id]))                                          \
			return ctl_armed(id, &ms_real.name.ptr, #name, fd,              \
					 (unsigned long)cmd, arg, MS_CALLER);           \
		p = slot(&ms_real.name.ptr, #name);                                     \
		memcpy(&f, &p, sizeof(f));                                              \
		return f(fd, (unsigned long)cmd, arg);                                  \
	}

DEFINE_CTL(fcntl, MS_ID_fcntl, int)
DEFINE_CTL(fcntl64, MS_ID_fcntl, int)
DEFINE_CTL(ioctl, MS_ID_ioctl, unsigned long)

/* ---- printf, fprintf and their _chk forms ---- */

/*
 * The real function is the v* form, which takes the va_list: vprintf for
 * printf, __vprintf_chk for __printf_chk, ...  Its slot in ms_real is the
 * row's own (the row's symbol is only looked up by the tests).  args are
 * the row's arguments, in the row's order; flag is the _chk forms'.
 */
typedef int (*vpf_fn)(const char *, va_list);
typedef int (*vfpf_fn)(FILE *, const char *, va_list);
typedef int (*vpf_chk_fn)(int, const char *, va_list);
typedef int (*vfpf_chk_fn)(FILE *, int, const char *, va_list);

enum pf_kind { PF, PF_CHK, FPF, FPF_CHK };

static int pf_real(enum pf_kind kind, void **real, const char *vname, FILE *stream, int flag,
		   const char *format, va_list ap)
{
	void *p = slot(real, vname);

	switch (kind) {
	case PF: {
		vpf_fn f;

		memcpy(&f, &p, sizeof(f));
		return f(format, ap);
	}
	case PF_CHK: {
		vpf_chk_fn f;

		memcpy(&f, &p, sizeof(f));
		return f(flag, format, ap);
	}
	case FPF: {
		vfpf_fn f;

		memcpy(&f, &p, sizeof(f));
		return f(stream, format, ap);
	}
	default: {
		vfpf_chk_fn f;

		memcpy(&f, &p, sizeof(f));
		return f(stream, flag, format, ap);
	}
	}
}

static __attribute__((noinline, cold)) int pf_armed(enum pf_kind kind, unsigned id, void **real,
						    const char *vname, FILE *stream, int flag,
						    const char *format, va_list ap,
						    const void *caller)
{
	uint64_t a[] = { kind == PF || kind == PF_CHK ? MS_U(format) : MS_U(stream), MS_U(format) };
	int64_t v;
	int k = ms_consult(id, a, &v, caller), r;

	if (k == 1)
		return (int)v;
	r = pf_real(kind, real, vname, stream, flag, format, ap);
	if (k == 2)
		ms_trace_after(id, a, r);
	return r;
}

#define PF_BODY(kind, name, vname, id, stream, flag, format)                            \
	int r;                                                                          \
	va_list ap;                                                                     \
	va_start(ap, format);                                                           \
	if (ms_unlikely(ms_armed[id]))                                                  \
		r = pf_armed(kind, id, &ms_real.name.ptr, vname, stream, flag, format, ap, \
			     MS_CALLER);                                                \
	else                                                                            \
		r = pf_real(kind, &ms_real.name.ptr, vname, stream, flag, format, ap);  \
	va_end(ap);                                                                     \
	return r;

/* glibc declares these only under _FORTIFY_SOURCE, which this file is
 * compiled without */
MS_EXPORT int __printf_chk(int flag, const char *format, ...);
MS_EXPORT int __fprintf_chk(FILE *stream, int flag, const char *format, ...);

MS_EXPORT int printf(const char *format, ...)
{
	PF_BODY(PF, printf, "vprintf", MS_ID_printf, NULL, 0, format)
}

MS_EXPORT int __printf_chk(int flag, const char *format, ...)
{
	PF_BODY(PF_CHK, __printf_chk, "__vprintf_chk", MS_ID_printf, NULL, flag, format)
}

MS_EXPORT int fprintf(FILE *stream, const char *format, ...)
{
	PF_BODY(FPF, fprintf, "vfprintf", MS_ID_fprintf, stream, 0, format)
}

MS_EXPORT int __fprintf_chk(FILE *stream, int flag, const char *format, ...)
{
	PF_BODY(FPF_CHK, __fprintf_chk, "__vfprintf_chk", MS_ID_fprintf, stream, flag, format)
}

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

/* The armed path of an allocator function: mocked, real, or real and
 * traced; cold, reached by a tail call. */
#define ALLOC_ARMED(name, id, call, ...)                                             \
	static __attribute__((noinline, cold)) void *name                            \
	{                                                                            \
		uint64_t a[] = { __VA_ARGS__ };                                      \
		int64_t v;                                                           \
		int k = ms_consult(id, a, &v, MS_CALLER);                            \
		void *r;                                                             \
		if (k == 1)                                                          \
			return (void *)(uintptr_t)v;                                 \
		r = call;                                                            \
		if (k == 2)                                                          \
			ms_trace_after(id, a, (int64_t)(uintptr_t)r);                \
		return r;                                                            \
	}

ALLOC_ARMED(malloc_armed(size_t size), MS_ID_malloc, ms_real.malloc.fn(size), MS_U(size))

MS_EXPORT void *malloc(size_t size)
{
	if (ms_unlikely(ms_armed[MS_ID_malloc]))
		return malloc_armed(size);
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
		return calloc_armed(nmemb, size);
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
		return realloc_armed(ptr, size);
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

	if (boot_owns(ptr))
		return;
	k = ms_consult(MS_ID_free, a, &v, MS_CALLER);
	if (k == 1)
		return;
	ms_real.free.fn(ptr);
	if (k == 2)
		ms_trace_after(MS_ID_free, a, 0);
}

MS_EXPORT void free(void *ptr)
{
	if (ms_unlikely(ms_armed[MS_ID_free])) {
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
