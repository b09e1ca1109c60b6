/* SPDX-License-Identifier: MIT */
/*
 * Hold points and kill points (hold.h).  Async-signal-safe on the shim's
 * side: raw system calls only, no malloc, no stdio, no catalog function.
 */
#include <errno.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "catalog/catalog.h"
#include "channel/channel.h"
#include "events.h"
#include "hold.h"
#include "tracefmt.h"

/* "NAME(ARGS)" of the call, as --trace shows it, cut to the event's text. */
static void call_text(unsigned id, const uint64_t *a, char *text)
{
	struct ms_tline o;
	const struct ms_fn_meta *m = NULL;

	o.n = 0;
	if (id < MS_FN_COUNT)
		m = ms_catalog_get(id);
	else if (ms_d.dyn[id - MS_FN_COUNT].kind == MS_DYN_SYSCALL)
		m = ms_syscall_by_nr(ms_d.dyn[id - MS_FN_COUNT].sysnr);
	if (m) {
		ms_tl_call(&o, m, a, 0);
	} else {
		ms_tl_put(&o, ms_d.pool + ms_d.dyn[id - MS_FN_COUNT].name);
		ms_tl_put(&o, "(...)");
	}
	if (o.n >= MS_EV_TEXT) {
		o.n = MS_EV_TEXT - 1;
		memcpy(o.buf + o.n - 3, "...", 3);
	}
	memcpy(text, o.buf, o.n);
	text[o.n] = '\0';
}

static void wake_all(uint32_t *w)
{
	syscall(SYS_futex, w, FUTEX_WAKE, INT32_MAX, NULL, NULL, 0);
}

/* A thread came to a hold or left it: mockrun's watcher looks again. */
static void bump(void)
{
	__atomic_fetch_add(&ms_d.st->hold_seq, 1, __ATOMIC_RELEASE);
	wake_all(&ms_d.st->hold_seq);
}

static int64_t mono_ns(void)
{
	struct timespec ts;

	syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void ms_hold_leave(unsigned id, uint32_t ri, uint32_t t, const uint64_t *a, const void *caller,
		   uint32_t call, int timed_out)
{
	struct ms_event *e = ms_ev_begin(MS_EV_UNHOLD, id, ri, call);
	int saved = errno;

	if (e) {
		e->value = t;
		e->kind = (uint16_t)timed_out;
		ms_ev_commit(e);
	}
	if (timed_out) {
		char text[MS_EV_TEXT];
		struct ms_failure fl = { .kind = MS_FAIL_HELD, .value = 1, .bytes = text };

		call_text(id, a, text);
		fl.nbytes = (uint32_t)strlen(text) + 1;
		ms_record_failure(id, ri, call, caller, &fl);
	}
	bump();
	errno = saved;
}

int ms_hold(unsigned id, uint32_t ri, const uint64_t *a, const void *caller, uint32_t call)
{
	const struct ms_rule *r = &ms_d.rules[ri];
	struct ms_rule_state *rs = &ms_d.rst[ri];
	uint32_t t = __atomic_fetch_add(&rs->hold_arrived, 1, __ATOMIC_ACQ_REL);
	int64_t end = r->value > 0 ? mono_ns() + r->value : 0;
	struct ms_event *e = ms_ev_begin(MS_EV_HOLD, id, ri, call);
	int saved = errno, timed_out = 0;

	if (e) {
		e->value = t;
		call_text(id, a, e->text);
		ms_hook_caller(caller, e);
		ms_ev_commit(e);
	}
	bump();
	/* the supervisor answers the call later, and serves the others */
	if (ms_d.remote && ms_hook_hold_defer(ri, t, call)) {
		errno = saved;
		return 1;
	}
	for (;;) {
		uint32_t rel = __atomic_load_n(&rs->hold_released, __ATOMIC_ACQUIRE);
		struct timespec left;
		int64_t ns = 0;

		if ((int32_t)(rel - t) > 0)
			break;
		if (end) {
			ns = end - mono_ns();
			if (ns <= 0) {
				timed_out = 1;
				break;
			}
			left.tv_sec = (time_t)(ns / 1000000000);
			left.tv_nsec = (long)(ns % 1000000000);
		}
		/* EINTR: a signal's handler ran in this thread; the hold
		 * goes on.  EAGAIN: released between the load and the wait */
		syscall(SYS_futex, &rs->hold_released, FUTEX_WAIT, rel, end ? &left : NULL, NULL, 0);
		if (ms_d.remote && ms_hook_hold_gone()) {
			/* the caller died held (ctl --kill, the run's end): as a
			 * thread killed there, no UNHOLD */
			errno = saved;
			return 0;
		}
	}
	ms_hold_leave(id, ri, t, a, caller, call, timed_out);
	errno = saved;
	return 0;
}

void ms_raise(unsigned id, uint32_t ri, const uint64_t *a, const void *caller, uint32_t call)
{
	const struct ms_rule *r = &ms_d.rules[ri];
	struct ms_event *e = ms_ev_begin(MS_EV_CONSUME, id, ri, call);
	int saved = errno, sig = (int)r->value;
	int32_t pid = caller_pid(), tid;

	(void)a;
	/* every turn logged: the report's "kill point reached" names the
	 * process it killed */
	if (e) {
		e->value = sig;
		e->caller_off = (uint64_t)(uintptr_t)caller;
		ms_ev_commit(e);
	}
	if (ms_d.remote) {
		tid = ms_d.remote_tid;
	} else {
		uint64_t set = (uint64_t)1 << (sig - 1);

		/* as a crash: a blocked signal is raised all the same */
		syscall(SYS_rt_sigprocmask, SIG_UNBLOCK, &set, NULL, sizeof(set));
		tid = (int32_t)syscall(SYS_gettid);
	}
	syscall(SYS_tgkill, pid, tid, sig);
	errno = saved;
}
