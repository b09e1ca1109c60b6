/* SPDX-License-Identifier: MIT */
/*
 * Crash sites (DESIGN.md 7.2): when a process dies of SIGSEGV, SIGBUS,
 * SIGILL, SIGFPE or SIGABRT, where it died, as sites (MS_EV_CRASH
 * events): the faulting instruction and up to MS_CRASH_FRAMES frames of
 * its stack, and the crash's site, the innermost of them outside the
 * system libraries (a double free aborts in libc: its site is the
 * program's free).
 *
 * The recorder is installed at attach for each of those signals whose
 * disposition is SIG_DFL, with SA_RESETHAND: the program's own handlers
 * keep precedence (one installed later simply replaces it), and once it
 * ran the disposition is SIG_DFL again.  A fault the kernel raised
 * (si_code > 0) is then left to happen again when the handler returns,
 * as it was (the core dump shows the real fault); a signal sent (kill,
 * raise, abort) is sent again.  Either way the process dies of the
 * signal it had, with its exit status and core dump setting.  The
 * recorder runs on an alternate stack of the shim's own in the thread
 * that attached (a stack overflow is a SIGSEGV too) when that thread has
 * none, and on the faulting thread's stack elsewhere.  It takes no lock
 * and calls no allocator: the crash may have happened holding either.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>
#include <unwind.h>

#include "arch/arch.h"
#include "channel/channel.h"
#include "decide/decide.h"
#include "shim.h"

static const int fatal_sigs[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT };

/* the attaching thread's alternate stack, when it had none */
static char alt_stack[64 * 1024] __attribute__((aligned(64)));

struct crash_walk {
	uintptr_t pc;
	int seen;		/* the faulting frame was reached */
	unsigned depth, n;
	uintptr_t ip[MS_CRASH_FRAMES];
};

static _Unwind_Reason_Code crash_frame(struct _Unwind_Context *ctx, void *arg)
{
	struct crash_walk *w = arg;
	int before = 0;
	uintptr_t ip = (uintptr_t)_Unwind_GetIPInfo(ctx, &before);

	if (!ip || ++w->depth > 64 || w->n >= MS_CRASH_FRAMES)
		return _URC_END_OF_STACK;
	if (!w->seen) {
		/* the handler's own frames and the signal frame first */
		if (ip != w->pc)
			return _URC_NO_REASON;
		w->seen = 1;
	}
	w->ip[w->n++] = ip;
	return _URC_NO_REASON;
}

static void put_frame(int sig, unsigned kind, unsigned k, unsigned nframes, const char *obj,
		      uint64_t off)
{
	struct ms_event *e = ms_ev_begin(MS_EV_CRASH, 0, UINT32_MAX, 0);

	if (!e)
		return;
	e->value = sig;
	e->kind = (uint16_t)kind;
	e->param = (uint8_t)k;
	e->seq = nframes;
	e->caller_off = off;
	ms_copy_str(e->caller, MS_EV_CALLER, obj);
	ms_ev_commit(e);
}

static void crash_record(int sig, siginfo_t *si, void *ucv)
{
	const ucontext_t *uc = ucv;
	struct crash_walk w;
	char obj[MS_EV_CALLER], site_obj[MS_EV_CALLER] = "";
	uint64_t off, site_off = 0;
	int saved = errno, sys, have_site = 0;

	memset(&w, 0, sizeof(w));
	w.pc = MS_ARCH_UC_PC(uc);
	if (ms_state()) {
		_Unwind_Backtrace(crash_frame, &w);
		if (!w.n) /* no unwind past the signal frame: the instruction alone */
			w.ip[w.n++] = w.pc;
		for (unsigned k = 0; k < w.n; k++) {
			if (ms_frame_site(w.ip[k], obj, sizeof(obj), &off, &sys))
				continue;
			if (!have_site && (!sys || k == w.n - 1)) {
				memcpy(site_obj, obj, sizeof(obj));
				site_off = off;
				have_site = 1;
			}
			put_frame(sig, MS_CRASH_FRAME, k, w.n, obj, off);
		}
		/* every frame a system library's: the faulting instruction */
		if (!have_site && !ms_frame_site(w.ip[0], obj, sizeof(obj), &off, &sys)) {
			memcpy(site_obj, obj, sizeof(obj));
			site_off = off;
			have_site = 1;
		}
		if (have_site)
			put_frame(sig, MS_CRASH_SITE, 0, w.n, site_obj, site_off);
	}
	/* SA_RESETHAND: the disposition is SIG_DFL now */
	if (si->si_code <= 0 || sig == SIGABRT) {
		sigset_t one;

		sigemptyset(&one);
		sigaddset(&one, sig);
		syscall(SYS_tgkill, (long)syscall(SYS_getpid), (long)syscall(SYS_gettid), (long)sig);
		syscall(SYS_rt_sigprocmask, SIG_UNBLOCK, &one, NULL, (long)(_NSIG / 8));
	}
	errno = saved;
}

void ms_crash_install(void)
{
	struct sigaction sa, old;
	stack_t ss;
	int any = 0, saved = errno;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = crash_record;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
	sigfillset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(fatal_sigs) / sizeof(fatal_sigs[0]); i++) {
		if (sigaction(fatal_sigs[i], NULL, &old) || (old.sa_flags & SA_SIGINFO) ||
		    old.sa_handler != SIG_DFL)
			continue; /* the program's own (or ignored): it keeps it */
		any |= sigaction(fatal_sigs[i], &sa, NULL) == 0;
	}
	if (any && sigaltstack(NULL, &ss) == 0 && (ss.ss_flags & SS_DISABLE)) {
		ss.ss_sp = alt_stack;
		ss.ss_size = sizeof(alt_stack);
		ss.ss_flags = 0;
		sigaltstack(&ss, NULL);
	}
	errno = saved;
}
