/* SPDX-License-Identifier: MIT */
/*
 * What the decision writes into the state (events.h): the pid table,
 * the event log, the failures.  Async-signal-safe on the shim's side:
 * raw system calls only.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "events.h"

static __thread int32_t t_pid, t_tid;

static size_t slen(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

/*
 * Records pid in the channel's table.  A forked child is entered at the
 * fork as -pid (it carries the shim, so mockrun does not call it
 * unmocked), and announced (pid, an attach event) by its first event;
 * announce 0 enters it only.  Returns 1 when pid is to be announced now.
 */
int ms_register_pid(int32_t pid, int announce)
{
	uint32_t n = __atomic_load_n(&ms_d.st->npids, __ATOMIC_ACQUIRE), slot;

	for (uint32_t i = 0; i < n && i < ms_d.chan->pids_cap; i++) {
		int32_t v = __atomic_load_n(&ms_d.pids[i], __ATOMIC_RELAXED);

		if (v == pid)
			return 0;
		if (v == -pid)
			return announce && __atomic_compare_exchange_n(&ms_d.pids[i], &v, pid, 0,
								       __ATOMIC_ACQ_REL,
								       __ATOMIC_RELAXED);
	}
	slot = __atomic_fetch_add(&ms_d.st->npids, 1, __ATOMIC_ACQ_REL);
	if (slot < ms_d.chan->pids_cap)
		__atomic_store_n(&ms_d.pids[slot], announce ? pid : -pid, __ATOMIC_RELEASE);
	return announce;
}

/*
 * Takes an event slot and fills the common fields; NULL when the log is
 * full.  Consume events leave the last quarter of the log to failures.
 * The caller fills the rest and calls ev_commit().
 */
static struct ms_event *ev_begin(uint16_t type, unsigned fn, uint32_t rule, uint32_t call);

struct ms_event *ms_ev_begin(uint16_t type, unsigned fn, uint32_t rule, uint32_t call)
{
	return ms_d.chan ? ev_begin(type, fn, rule, call) : NULL;
}

void ms_ev_commit(struct ms_event *e)
{
	__atomic_store_n(&e->state, 1, __ATOMIC_RELEASE);
}

static struct ms_event *ev_begin(uint16_t type, unsigned fn, uint32_t rule, uint32_t call)
{
	int32_t pid, last;
	struct ms_event *e;
	uint32_t i;

	/* a full log costs no syscall */
	if (type == MS_EV_CONSUME &&
	    __atomic_load_n(&ms_d.st->events_next, __ATOMIC_RELAXED) >= ms_d.chan->events_cap / 4 * 3) {
		__atomic_fetch_add(&ms_d.st->consume_dropped, 1, __ATOMIC_RELAXED);
		return NULL;
	}
	if (__atomic_load_n(&ms_d.st->events_next, __ATOMIC_RELAXED) >= ms_d.chan->events_cap) {
		__atomic_fetch_add(&ms_d.st->events_next, 1, __ATOMIC_RELAXED);
		return NULL;
	}
	pid = caller_pid();
	last = __atomic_load_n(&ms_d.my_pid, __ATOMIC_RELAXED);
	/* A child forked without exec shares our mapping and our memory: the
	 * first event it writes announces it, so reports can name it.  A
	 * vfork child even shares my_pid; the pid table tells the parent
	 * that it was announced already. */
	if (type != MS_EV_ATTACH && pid != last && !ms_d.remote &&
	    __atomic_compare_exchange_n(&ms_d.my_pid, &last, pid, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED) &&
	    ms_register_pid(pid, 1)) {
		__atomic_fetch_add(&ms_d.st->attached, 1, __ATOMIC_RELAXED);
		e = ev_begin(MS_EV_ATTACH, 0, UINT32_MAX, 0);
		if (e) {
			e->value = 1;
			memcpy(e->text, ms_d.exe_name, sizeof(ms_d.exe_name) < MS_EV_TEXT ? sizeof(ms_d.exe_name) : MS_EV_TEXT);
			__atomic_store_n(&e->state, 1, __ATOMIC_RELEASE);
		}
	}
	i = __atomic_fetch_add(&ms_d.st->events_next, 1, __ATOMIC_RELAXED);
	if (i >= ms_d.chan->events_cap)
		return NULL;
	e = &ms_d.events[i];
	e->type = type;
	e->fn = (uint16_t)fn;
	e->rule = rule;
	e->call = call;
	e->pid = pid;
	/* the tid is this thread's while the pid is the one it was read
	 * under: a forked (or vforked) child reads its own */
	if (ms_d.remote) {
		e->tid = ms_d.remote_tid;
		return e;
	}
	if (t_pid != pid) {
		t_tid = (int32_t)syscall(SYS_gettid);
		t_pid = pid;
	}
	e->tid = t_tid;
	return e;
}

static void ev_commit(struct ms_event *e)
{
	__atomic_store_n(&e->state, 1, __ATOMIC_RELEASE);
}

/*
 * A rule took a turn.  The report names the processes that consumed each
 * rule, so an event is logged for the first turn each process takes of
 * each rule, and for every turn under -v (MS_CHAN_LOG_CALLS): the mocked
 * path of a queue's later calls then writes no event and makes no syscall.
 * A process's first turn still logs when the log is full, so that it is
 * announced (ev_begin) if there is room for that.  errno preserved.
 */
void ms_log_consume(unsigned id, uint32_t ri, uint32_t call, int64_t value, const void *caller)
{
	struct ms_event *e;

	if (__atomic_load_n(&ms_d.rst[ri].logged_pid, __ATOMIC_RELAXED) ==
	    __atomic_load_n(&ms_d.log_key, __ATOMIC_RELAXED))
		return;
	__atomic_store_n(&ms_d.rst[ri].logged_pid, __atomic_load_n(&ms_d.self_pid, __ATOMIC_RELAXED),
			 __ATOMIC_RELAXED);
	e = ev_begin(MS_EV_CONSUME, id, ri, call);
	if (e) {
		e->value = value;
		/* the call's site: the report's "by jq[pid] at jq+0x2b7c4" */
		if (ms_hook_site(caller, e->caller, MS_EV_CALLER, &e->caller_off))
			e->caller_off = (uint64_t)(uintptr_t)caller;
		ev_commit(e);
	}
}

void ms_copy_str(char *dst, size_t cap, const char *src)
{
	size_t n = slen(src);

	if (n >= cap)
		n = cap - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* The count a failure of kind names, in statement idx of its table. */
static uint32_t *failed_of(uint16_t kind, uint32_t idx)
{
	switch (kind) {
	case MS_FAIL_CHECK:
	case MS_FAIL_NO_EXPECT:
		if (idx < ms_d.chan->nexpects)
			return &ms_d.xst[idx].failed;
		break;
	case MS_FAIL_ORDER:
	case MS_FAIL_ORDER_EXTRA:
	case MS_FAIL_NO_CALL:
		if (idx < ms_d.chan->norders)
			return &ms_d.ost[idx].failed;
		break;
	default:
		if (idx < ms_d.chan->nrules)
			return &ms_d.rst[idx].failed;
		break;
	}
	return &ms_d.st->failed_unowned;
}

/*
 * Records a failed check as it happens, so a crash afterwards loses
 * nothing; with --on-fail=abort, stops the program here.
 */
void ms_record_failure(unsigned id, uint32_t idx, uint32_t call, const void *caller,
			   const struct ms_failure *f)
{
	struct ms_event *e;
	int saved = errno;

	/* the failure is counted twice: first by its statement (or as
	 * naming none), then by its event; st->failures counts those the
	 * full log had no room for.  A process killed between the two leaves
	 * a count the audit takes as a lost failure, never as a pass. */
	__atomic_fetch_add(failed_of(f->kind, idx), 1, __ATOMIC_RELAXED);
	e = ev_begin(MS_EV_FAIL, id, idx, call);
	if (!e)
		__atomic_fetch_add(&ms_d.st->failures, 1, __ATOMIC_RELAXED);
	if (e) {
		e->kind = f->kind;
		e->param = f->param;
		e->flags = f->flags;
		e->value = f->value;
		e->len = f->len;
		e->at = f->at;
		e->seq = f->seq;
		if (f->nbytes)
			memcpy(e->text, f->bytes, f->nbytes < MS_EV_TEXT ? f->nbytes : MS_EV_TEXT);
		ms_hook_caller(caller, e);
		ev_commit(e);
	}
	if (ms_d.chan->flags & MS_CHAN_ABORT_ON_FAIL) {
		ms_hook_abort();
	}
	errno = saved;
}

void ms_output_null(unsigned id, uint32_t ri, uint32_t call, const void *caller, uint8_t param)
{
	struct ms_failure fl = { .kind = MS_FAIL_OUTPUT_NULL, .param = param };

	ms_record_failure(id, ri, call, caller, &fl);
}
