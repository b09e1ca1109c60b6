/* SPDX-License-Identifier: MIT */
/*
 * Trampolines written by hand: the variadic ones (the open family,
 * fcntl and ioctl, the printf and scanf families, syslog, execl, prctl),
 * dlopen, vfork, and the functions glibc exports in two versions.  The
 * allocator's are alloc.c's.
 */
#undef _FILE_OFFSET_BITS
#define _GNU_SOURCE
/* <stdio.h> renames the scanf functions to their __isoc99_ forms (in
 * C99 and later, which this file is); the rows define both names: the
 * declarations it redirects get other names here. */
#define fscanf ms_redirected_fscanf
#define scanf ms_redirected_scanf
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

#undef fscanf
#undef scanf

#include "arch/arch.h"
#include "shim.h"

#define MS_COMMA ,

/* ---- binding the real functions ---- */

/* Here, not in attach.c: a sanitizer build reaches it before its
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
	 * program's (symbols.c).  No guard: a signal handler that interrupts
	 * the lookup (each function's first call) is the program's, and its
	 * calls are mocked as any other; an IFUNC resolver that calls back
	 * is the program's too (the lookup takes no lock of the shim's, the
	 * loader's is recursive).  ms_binding: an allocation meanwhile comes
	 * from the bootstrap arena (alloc.c). */
	ms_binding++;
	p = ms_find_symbol(name, 1);
	ms_binding--;
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
		ms_trace_after(MS_ID_dlopen, a, (int64_t)(uintptr_t)h, caller);
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
			ms_trace_after(id, a, r, caller);                                \
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
		ms_trace_after(id, a, r, caller);
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
		ms_trace_after(id, a, r, caller);
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

/* ---- the scanf family, dprintf, syslog: the real v* function ---- */

/*
 * As printf's: the row's arguments before the "..." are consulted, and an
 * unmocked call goes to the v* form with the va_list (the alias's own:
 * __isoc99_fscanf to __isoc99_vfscanf, __syslog_chk to __vsyslog_chk),
 * looked up into the row's slot.
 */
typedef int (*vscan_fn)(const char *, va_list);
typedef int (*vfscan_fn)(FILE *, const char *, va_list);
typedef int (*vdpf_fn)(int, const char *, va_list);
typedef int (*vdpf_chk_fn)(int, int, const char *, va_list);
typedef void (*vsyslog_fn)(int, const char *, va_list);
typedef void (*vsyslog_chk_fn)(int, int, const char *, va_list);

/* One armed path for them all: a holds the row's words; 1 with *v set
 * when mocked, else 0 (2: traced after the real call by the caller). */
static __attribute__((noinline, cold)) int va_consult(unsigned id, const uint64_t *a, int64_t *v,
						       const void *caller)
{
	return ms_consult(id, a, v, caller);
}

#define VA_REAL(fn_t, name, vname, call)                                                \
	do {                                                                            \
		void *p_ = slot(&ms_real.name.ptr, vname);                              \
		fn_t f_;                                                                \
		memcpy(&f_, &p_, sizeof(f_));                                           \
		r = call;                                                               \
	} while (0)

/* BODY(words, real call): consults when armed, else calls the real one */
#define VA_BODY(id, last, words, fn_t, name, vname, args)                               \
	int r, k = 0;                                                                   \
	int64_t v;                                                                      \
	uint64_t a[] = { words };                                                       \
	va_list ap;                                                                     \
	if (ms_unlikely(ms_armed[id])) {                                                \
		k = va_consult(id, a, &v, MS_CALLER);                                   \
		if (k == 1)                                                             \
			return (int)v;                                                  \
	}                                                                               \
	va_start(ap, last);                                                             \
	VA_REAL(fn_t, name, vname, f_ args);                                            \
	va_end(ap);                                                                     \
	if (k == 2)                                                                     \
		ms_trace_after(id, a, r, MS_CALLER);                                    \
	return r;

MS_EXPORT int fscanf(FILE *stream, const char *format, ...);
MS_EXPORT int scanf(const char *format, ...);
MS_EXPORT int __isoc99_fscanf(FILE *stream, const char *format, ...);
MS_EXPORT int __isoc99_scanf(const char *format, ...);
MS_EXPORT int __dprintf_chk(int fd, int flag, const char *format, ...);
MS_EXPORT void __syslog_chk(int priority, int flag, const char *format, ...);
/* declared by <syslog.h>, <sys/prctl.h> and <sys/sem.h>, which this file leaves out */
MS_EXPORT void syslog(int priority, const char *format, ...);
MS_EXPORT int prctl(int option, ...);
MS_EXPORT int semctl(int semid, int semnum, int cmd, ...);

MS_EXPORT int fscanf(FILE *stream, const char *format, ...)
{
	VA_BODY(MS_ID_fscanf, format, MS_U(stream) MS_COMMA MS_U(format), vfscan_fn, fscanf,
		"vfscanf", (stream, format, ap))
}

MS_EXPORT int __isoc99_fscanf(FILE *stream, const char *format, ...)
{
	VA_BODY(MS_ID_fscanf, format, MS_U(stream) MS_COMMA MS_U(format), vfscan_fn,
		__isoc99_fscanf, "__isoc99_vfscanf", (stream, format, ap))
}

MS_EXPORT int scanf(const char *format, ...)
{
	VA_BODY(MS_ID_scanf, format, MS_U(format), vscan_fn, scanf, "vscanf", (format, ap))
}

MS_EXPORT int __isoc99_scanf(const char *format, ...)
{
	VA_BODY(MS_ID_scanf, format, MS_U(format), vscan_fn, __isoc99_scanf, "__isoc99_vscanf",
		(format, ap))
}

MS_EXPORT int dprintf(int fd, const char *format, ...)
{
	VA_BODY(MS_ID_dprintf, format, MS_U(fd) MS_COMMA MS_U(format), vdpf_fn, dprintf,
		"vdprintf", (fd, format, ap))
}

MS_EXPORT int __dprintf_chk(int fd, int flag, const char *format, ...)
{
	VA_BODY(MS_ID_dprintf, format, MS_U(fd) MS_COMMA MS_U(format), vdpf_chk_fn, __dprintf_chk,
		"__vdprintf_chk", (fd, flag, format, ap))
}

/* syslog returns nothing: a reply only skips the real call */
#define SYSLOG_BODY(name, vname, fn_t, args)                                            \
	int64_t v;                                                                      \
	int k = 0;                                                                      \
	uint64_t a[] = { MS_U(priority), MS_U(format) };                                \
	va_list ap;                                                                     \
	void *p;                                                                        \
	fn_t f;                                                                         \
	if (ms_unlikely(ms_armed[MS_ID_syslog])) {                                      \
		k = va_consult(MS_ID_syslog, a, &v, MS_CALLER);                         \
		if (k == 1)                                                             \
			return;                                                         \
	}                                                                               \
	p = slot(&ms_real.name.ptr, vname);                                             \
	memcpy(&f, &p, sizeof(f));                                                      \
	va_start(ap, format);                                                           \
	f args;                                                                         \
	va_end(ap);                                                                     \
	if (k == 2)                                                                     \
		ms_trace_after(MS_ID_syslog, a, 0, MS_CALLER);

MS_EXPORT void syslog(int priority, const char *format, ...)
{
	SYSLOG_BODY(syslog, "vsyslog", vsyslog_fn, (priority, format, ap))
}

MS_EXPORT void __syslog_chk(int priority, int flag, const char *format, ...)
{
	SYSLOG_BODY(__syslog_chk, "__vsyslog_chk", vsyslog_chk_fn, (priority, flag, format, ap))
}

/* ---- execl, execlp, execle ---- */

/*
 * The list becomes an argv, as glibc's own execl builds one, and an
 * unmocked call goes to the real execv, execvp or execve with it.  A
 * list longer than MAX_LIST_ARGS fails with E2BIG (the kernel's limit on
 * the strings is far below what so many pointers would take anyway).
 */
#define MAX_LIST_ARGS 4096
typedef int (*execv_fn)(const char *, char *const *);
typedef int (*execve_fn)(const char *, char *const *, char *const *);

#define EXECL_ARGV(arg)                                                                 \
	const char *argv[MAX_LIST_ARGS + 1];                                            \
	size_t n = 0;                                                                   \
	va_list ap;                                                                     \
	argv[n++] = arg;                                                                \
	va_start(ap, arg);                                                              \
	while (argv[n - 1]) {                                                           \
		if (n == MAX_LIST_ARGS) {                                               \
			va_end(ap);                                                     \
			errno = E2BIG;                                                  \
			return -1;                                                      \
		}                                                                       \
		argv[n++] = va_arg(ap, const char *);                                   \
	}

static int execl_real(void **real, const char *vname, const char *path, const char *const *argv,
		      char *const *envp, int with_env)
{
	void *p = slot(real, vname);

	if (with_env) {
		execve_fn f;

		memcpy(&f, &p, sizeof(f));
		return f(path, (char *const *)argv, envp);
	}
	{
		execv_fn f;

		memcpy(&f, &p, sizeof(f));
		return f(path, (char *const *)argv);
	}
}

#define EXECL_DEFINE(name, id, vname, with_env)                                         \
	MS_EXPORT int name(const char *path, const char *arg, ...)                      \
	{                                                                               \
		char *const *envp = NULL;                                               \
		uint64_t a[] = { MS_U(path), MS_U(arg) };                               \
		int64_t v;                                                              \
		int k = 0, r;                                                           \
		EXECL_ARGV(arg)                                                         \
		if (with_env)                                                           \
			envp = va_arg(ap, char *const *);                               \
		va_end(ap);                                                             \
		if (ms_unlikely(ms_armed[id])) {                                        \
			k = va_consult(id, a, &v, MS_CALLER);                           \
			if (k == 1)                                                     \
				return (int)v;                                          \
		}                                                                       \
		r = execl_real(&ms_real.name.ptr, vname, path, argv, envp, with_env);   \
		if (k == 2)                                                             \
			ms_trace_after(id, a, r, MS_CALLER);                            \
		return r;                                                               \
	}

EXECL_DEFINE(execl, MS_ID_execl, "execv", 0)
EXECL_DEFINE(execlp, MS_ID_execlp, "execvp", 0)
EXECL_DEFINE(execle, MS_ID_execle, "execve", 1)

/* ---- prctl, ptrace, semctl: variadic in glibc, words in the kernel ---- */

/* Their optional arguments are read as glibc's own wrappers read them:
 * as many words as the system call takes, whether the call uses them or
 * not. */
typedef int (*prctl_fn)(int, ...);
typedef long (*ptrace_fn)(int, ...);
typedef int (*semctl_fn)(int, int, int, ...);

MS_EXPORT int prctl(int option, ...)
{
	unsigned long x[4];
	uint64_t a[5];
	int64_t v;
	int k = 0, r;
	va_list ap;
	void *p;
	prctl_fn f;

	va_start(ap, option);
	for (int i = 0; i < 4; i++)
		x[i] = va_arg(ap, unsigned long);
	va_end(ap);
	if (ms_unlikely(ms_armed[MS_ID_prctl])) {
		a[0] = MS_U(option);
		for (int i = 0; i < 4; i++)
			a[i + 1] = x[i];
		k = va_consult(MS_ID_prctl, a, &v, MS_CALLER);
		if (k == 1)
			return (int)v;
	}
	p = slot(&ms_real.prctl.ptr, "prctl");
	memcpy(&f, &p, sizeof(f));
	r = f(option, x[0], x[1], x[2], x[3]);
	if (k == 2)
		ms_trace_after(MS_ID_prctl, a, r, MS_CALLER);
	return r;
}

MS_EXPORT long ptrace(int request, ...);
MS_EXPORT long ptrace(int request, ...)
{
	unsigned long x[3];
	uint64_t a[4];
	int64_t v;
	int k = 0;
	long r;
	va_list ap;
	void *p;
	ptrace_fn f;

	va_start(ap, request);
	for (int i = 0; i < 3; i++)
		x[i] = va_arg(ap, unsigned long);
	va_end(ap);
	if (ms_unlikely(ms_armed[MS_ID_ptrace])) {
		a[0] = MS_U(request);
		for (int i = 0; i < 3; i++)
			a[i + 1] = x[i];
		k = va_consult(MS_ID_ptrace, a, &v, MS_CALLER);
		if (k == 1)
			return (long)v;
	}
	p = slot(&ms_real.ptrace.ptr, "ptrace");
	memcpy(&f, &p, sizeof(f));
	r = f(request, x[0], x[1], x[2]);
	if (k == 2)
		ms_trace_after(MS_ID_ptrace, a, r, MS_CALLER);
	return r;
}

MS_EXPORT int semctl(int semid, int semnum, int cmd, ...)
{
	unsigned long arg;
	uint64_t a[4];
	int64_t v;
	int k = 0, r;
	va_list ap;
	void *p;
	semctl_fn f;

	va_start(ap, cmd);
	arg = va_arg(ap, unsigned long);
	va_end(ap);
	if (ms_unlikely(ms_armed[MS_ID_semctl])) {
		a[0] = MS_U(semid);
		a[1] = MS_U(semnum);
		a[2] = MS_U(cmd);
		a[3] = arg;
		k = va_consult(MS_ID_semctl, a, &v, MS_CALLER);
		if (k == 1)
			return (int)v;
	}
	p = slot(&ms_real.semctl.ptr, "semctl");
	memcpy(&f, &p, sizeof(f));
	r = f(semid, semnum, cmd, arg);
	if (k == 2)
		ms_trace_after(MS_ID_semctl, a, r, MS_CALLER);
	return r;
}

/* ---- vfork ---- */

/*
 * vfork's child runs on its parent's stack until it execs or exits, and
 * returns from vfork into the same frames the parent will return
 * through: a trampoline that kept a frame of its own across the real
 * vfork would have it clobbered by the child (its return address, saved
 * registers) before the parent came back to it.  So vfork keeps none.
 * Its entry (arch.h: MS_ARCH_VFORK_ASM) calls vfork_prepare, which binds the
 * real vfork and consults when armed, and returns; with its frame gone,
 * the entry either returns the reply (the real vfork never runs) or
 * jumps to the real vfork with the stack as the caller left it.  An
 * unmocked vfork is therefore not traced after it returns (its result
 * would have to be seen from a frame).
 */
void *ms_vfork_real MS_HIDDEN;

struct vfork_reply {
	int64_t mocked, value;	/* returned in two registers (rax and rdx, x0 and x1) */
};

MS_HIDDEN struct vfork_reply ms_vfork_prepare(const void *caller);

struct vfork_reply ms_vfork_prepare(const void *caller)
{
	struct vfork_reply r = { 0, 0 };
	uint64_t a[] = { 0 };
	int64_t v;

	if (ms_unlikely(!__atomic_load_n(&ms_vfork_real, __ATOMIC_RELAXED)))
		__atomic_store_n(&ms_vfork_real, ms_lookup("vfork"), __ATOMIC_RELAXED);
	if (ms_unlikely(ms_armed[MS_ID_vfork]) && ms_consult(MS_ID_vfork, a, &v, caller) == 1) {
		r.mocked = 1;
		r.value = v;
		return r;
	}
	ms_trace_vfork();
	return r;
}

__asm__(MS_ARCH_VFORK_ASM);

/* Never called: the table needs a bind stub, and vfork's entry reads
 * ms_vfork_real instead of the table. */
pid_t ms_bind_vfork(void)
{
	errno = ENOSYS;
	return -1;
}

/* ---- functions glibc exports in more than one version ---- */

/*
 * Where glibc's versions of a function differ (objdump -T: two
 * addresses), an unmocked call must reach the version the caller's
 * object bound: realpath@GLIBC_2.2.5 refuses a NULL buffer where
 * realpath@@GLIBC_2.3 allocates one; posix_spawn@GLIBC_2.2.5 returns 0
 * when the exec fails where @@GLIBC_2.15 returns the error;
 * pthread_cond_timedwait@GLIBC_2.2.5 works on the old condition
 * variables; sched_getaffinity@GLIBC_2.3.3 takes another size;
 * timer_create@GLIBC_2.2.5 hands out the old timer ids, which only the
 * @GLIBC_2.2.5 timer_settime, timer_gettime and timer_delete know.
 * tests/preload/versions.sh derives the list from libc.so.6 and checks
 * it against these.  The shim's one unversioned definition takes a
 * program's call whatever version the program was linked against (the
 * anonymous version script), so it is mocked either way; the real call
 * goes to dlvsym's function of the version the caller's object bound
 * (its .gnu.version_r: ms_bound_version), or the default.  The answer is
 * kept per call site, in one word: the return address, and in the top
 * bits (above any user address) the slot of the version, 0: the default.
 */
#define VSLOTS 3

struct versioned {
	const char *name;
	const char *ver[VSLOTS];	/* a bound version other than the default */
	void *real[VSLOTS];		/* dlvsym(RTLD_NEXT, name, ver[i]), once */
	uint64_t site[8];		/* caller | slot << VSHIFT */
};

#define VSHIFT 60
#define VMASK ((1ull << VSHIFT) - 1)

/* The slot of version bound (1 + i), 0 for the default or none left. */
static unsigned version_slot(struct versioned *v, const char *bound, void *dflt)
{
	void *p;

	if (!bound)
		return 0;
	for (unsigned i = 0; i < VSLOTS; i++) {
		const char *w = NULL;

		/* a free slot takes bound; a taken one is compared */
		if (!__atomic_compare_exchange_n(&v->ver[i], &w, bound, 0, __ATOMIC_ACQ_REL,
						 __ATOMIC_ACQUIRE) &&
		    strcmp(w, bound) != 0)
			continue;
		p = __atomic_load_n(&v->real[i], __ATOMIC_ACQUIRE);
		if (!p) {
			p = dlvsym(RTLD_NEXT, v->name, bound);
			/* the default version, by its own address (dflt may still
			 * be the binding stub) */
			if (!p || p == dlsym(RTLD_NEXT, v->name))
				p = dflt;
			__atomic_store_n(&v->real[i], p, __ATOMIC_RELEASE);
		}
		return p == dflt ? 0 : i + 1;
	}
	return 0;
}

static void *pick_version(struct versioned *v, void *dflt, const void *caller)
{
	uint64_t c = (uint64_t)(uintptr_t)caller, e;
	unsigned h = (unsigned)(c >> 3) & 7, slot;
	void *p;

	e = __atomic_load_n(&v->site[h], __ATOMIC_RELAXED);
	if ((e & VMASK) != c) {
		int saved = errno;

		/* the loader's lock and maybe its allocations: the shim's own */
		ms_guard += MS_GUARD;
		ms_binding++;
		slot = version_slot(v, ms_bound_version(caller, v->name), dflt);
		ms_binding--;
		ms_guard -= MS_GUARD;
		errno = saved;
		e = c | (uint64_t)slot << VSHIFT;
		__atomic_store_n(&v->site[h], e, __ATOMIC_RELAXED);
	}
	slot = (unsigned)(e >> VSHIFT);
	if (!slot)
		return dflt;
	p = __atomic_load_n(&v->real[slot - 1], __ATOMIC_ACQUIRE);
	return p ? p : dflt;
}

/* A versioned function; timed: fake_time may arm it (MS_TIMED_FNS), and
 * a call of the default version then goes through ms_time_call (a call
 * bound to an old version reaches it unconverted). */
#define VERSIONED_T(ret, name, timed, proto, args, n)                                    \
	static struct versioned name##_versions = { #name, { 0 }, { 0 }, { 0 } };        \
	typedef ret(*name##_fn) proto;                                                   \
	static __attribute__((noinline, cold)) ret name##_armed(name##_fn f, int dflt_,  \
								 const void *caller,     \
								 MS_STRIP proto)         \
	{                                                                                \
		uint64_t a_[] = { MS_ARR(n, args) };                                     \
		int64_t v_;                                                              \
		unsigned arm_ = __atomic_load_n(&ms_armed[MS_ID_##name], __ATOMIC_RELAXED); \
		int k_ = !(timed) || (arm_ & MS_ARM_RULES)                               \
				 ? ms_consult(MS_ID_##name, a_, &v_, caller) : 0;        \
		ret r_;                                                                  \
		if (k_ == 1)                                                             \
			return (ret)(uintptr_t)v_;                                       \
		if ((timed) && (arm_ & MS_ARM_TIME) && dflt_)                           \
			r_ = (ret)(uintptr_t)ms_time_call(MS_ID_##name, a_);             \
		else                                                                     \
			r_ = f args;                                                     \
		if (k_ == 2)                                                             \
			ms_trace_after(MS_ID_##name, a_, (int64_t)(uintptr_t)r_, caller); \
		return r_;                                                               \
	}                                                                                \
	MS_EXPORT ret name proto                                                         \
	{                                                                                \
		const void *caller = MS_CALLER;                                          \
		void *p = pick_version(&name##_versions, ms_real.name.ptr, caller);      \
		name##_fn f;                                                             \
		memcpy(&f, &p, sizeof(f));                                               \
		if (ms_unlikely(ms_armed[MS_ID_##name]))                                 \
			return name##_armed(f, p == ms_real.name.ptr, caller, MS_STRIP args); \
		return f args;                                                           \
	}                                                                                \
	ret ms_bind_##name proto                                                         \
	{                                                                                \
		ms_real.name.ptr = ms_lookup(#name);                                     \
		return ms_real.name.fn args;                                             \
	}
#define VERSIONED(ret, name, proto, args, n) VERSIONED_T(ret, name, 0, proto, args, n)

VERSIONED(char *, realpath, (const char *path, char *resolved_path), (path, resolved_path), 2)
VERSIONED(int, posix_spawn,
	  (pid_t *pid, const char *path, const posix_spawn_file_actions_t *file_actions,
	   const posix_spawnattr_t *attrp, char *const *argv, char *const *envp),
	  (pid, path, file_actions, attrp, argv, envp), 6)
VERSIONED(int, posix_spawnp,
	  (pid_t *pid, const char *file, const posix_spawn_file_actions_t *file_actions,
	   const posix_spawnattr_t *attrp, char *const *argv, char *const *envp),
	  (pid, file, file_actions, attrp, argv, envp), 6)
VERSIONED_T(int, pthread_cond_timedwait, 1,
	    (pthread_cond_t *cond, pthread_mutex_t *mutex, const struct timespec *abstime),
	    (cond, mutex, abstime), 3)
VERSIONED(int, sched_getaffinity, (pid_t pid, size_t cpusetsize, cpu_set_t *mask),
	  (pid, cpusetsize, mask), 3)
VERSIONED(int, sched_setaffinity, (pid_t pid, size_t cpusetsize, const cpu_set_t *mask),
	  (pid, cpusetsize, mask), 3)
VERSIONED(int, timer_create, (clockid_t clockid, struct sigevent *sevp, timer_t *timerid),
	  (clockid, sevp, timerid), 3)
VERSIONED(int, timer_settime,
	  (timer_t timerid, int flags, const struct itimerspec *new_value,
	   struct itimerspec *old_value),
	  (timerid, flags, new_value, old_value), 4)
VERSIONED(int, timer_gettime, (timer_t timerid, struct itimerspec *curr_value),
	  (timerid, curr_value), 2)
VERSIONED(int, timer_delete, (timer_t timerid), (timerid), 1)
