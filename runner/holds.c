/* SPDX-License-Identifier: MIT */
/*
 * The live side of will_hold (holds.h): the threads held, read from the
 * state's events and the rules' hold words; releasing (a futex wake on
 * the rule's hold_released), killing, and the failures of holds never
 * let go, written into the state after the run as the shim writes its
 * own (the failure counted by its statement first, then its event).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "holds.h"
#include "session.h"
#include "supervise.h"

static const struct ms_rule *rules_of(const struct mockshim_session *s)
{
	return ms_chan_at(s->own, s->own->rules_off);
}

static struct ms_rule_state *rstate_of(const struct mockshim_session *s)
{
	return ms_state_at(s->chan.state, s->own->st_rules_off);
}

/* The rules to look at: the spec's and the live ones. */
static uint32_t nrules_of(const struct mockshim_session *s)
{
	const struct ms_chan_hdr *h = s->own;
	uint32_t n = h->nrules;

	if (h->live_cap) {
		uint32_t live = __atomic_load_n(&h->live_n, __ATOMIC_ACQUIRE);

		if (live > h->live_cap)
			live = h->live_cap;
		if (h->live_first + live > n)
			n = h->live_first + live;
	}
	return n;
}

/* Whether rule i is a will_hold named name (NULL: any). */
static int is_hold(const struct mockshim_session *s, uint32_t i, const char *name)
{
	const struct ms_rule *r = &rules_of(s)[i];

	return r->kind == MS_R_HOLD &&
	       (!name || strcmp(ms_chan_str(s->own, r->value_str), name) == 0);
}

static const struct ms_event *events_of(const struct mockshim_session *s, uint32_t *n)
{
	const struct ms_state_hdr *st = s->chan.state;

	*n = __atomic_load_n(&st->events_next, __ATOMIC_ACQUIRE);
	if (*n > s->own->events_cap)
		*n = s->own->events_cap;
	return ms_state_at(st, s->own->st_events_off);
}

/* Whether the thread of hold event i left its hold (an UNHOLD event). */
static int left(const struct ms_event *ev, uint32_t n, uint32_t i)
{
	for (uint32_t k = i + 1; k < n; k++)
		if (__atomic_load_n(&ev[k].state, __ATOMIC_ACQUIRE) == 1 && ev[k].type == MS_EV_UNHOLD &&
		    ev[k].rule == ev[i].rule && ev[k].value == ev[i].value)
			return 1;
	return 0;
}

/* Hold event i's thread, not released nor left: 1. */
static int pending(const struct mockshim_session *s, const struct ms_event *ev, uint32_t n, uint32_t i,
		   const char *name)
{
	const struct ms_event *e = &ev[i];

	if (__atomic_load_n(&e->state, __ATOMIC_ACQUIRE) != 1 || e->type != MS_EV_HOLD ||
	    e->rule >= nrules_of(s) || !is_hold(s, e->rule, name))
		return 0;
	if ((int32_t)(__atomic_load_n(&rstate_of(s)[e->rule].hold_released, __ATOMIC_ACQUIRE) -
		      (uint32_t)e->value) > 0)
		return 0;
	return !left(ev, n, i);
}

int ms_holds_named(struct mockshim_session *s, const char *name)
{
	int found = 0;

	pthread_mutex_lock(&s->live_lock);
	for (uint32_t i = 0, n = s->own ? nrules_of(s) : 0; i < n && !found; i++)
		found = is_hold(s, i, name);
	pthread_mutex_unlock(&s->live_lock);
	return found;
}

static size_t list_locked(struct mockshim_session *s, const char *name, struct ms_held *out, size_t cap)
{
	uint32_t n;
	const struct ms_event *ev = events_of(s, &n);
	size_t k = 0;

	for (uint32_t i = 0; i < n; i++) {
		const struct ms_event *e = &ev[i];

		/* a thread of a process gone (killed there) is held no more */
		if (!pending(s, ev, n, i, name) || syscall(SYS_tgkill, e->pid, e->tid, 0) != 0)
			continue;
		if (out && k < cap) {
			struct ms_held *h = &out[k];

			memset(h, 0, sizeof(*h));
			h->pid = e->pid;
			h->tid = e->tid;
			h->rule = e->rule;
			h->ticket = (uint32_t)e->value;
			h->call = e->call;
			h->fn = e->fn;
			snprintf(h->name, sizeof(h->name), "%s",
				 ms_chan_str(s->own, rules_of(s)[e->rule].value_str));
			memcpy(h->text, e->text, sizeof(h->text));
			h->text[sizeof(h->text) - 1] = '\0';
			memcpy(h->caller, e->caller, sizeof(h->caller));
			h->caller[sizeof(h->caller) - 1] = '\0';
			memcpy(h->sym, e->sym, sizeof(h->sym));
			h->sym[sizeof(h->sym) - 1] = '\0';
			h->caller_off = e->caller_off;
		}
		k++;
	}
	return k;
}

size_t ms_holds_list(struct mockshim_session *s, const char *name, struct ms_held *out, size_t cap)
{
	size_t k;

	if (!s->chan.state || !s->own)
		return 0;
	pthread_mutex_lock(&s->live_lock);
	k = s->live_open ? list_locked(s, name, out, cap) : 0;
	pthread_mutex_unlock(&s->live_lock);
	return k;
}

size_t ms_holds_release(struct mockshim_session *s, const char *name)
{
	uint32_t n, nr;
	const struct ms_event *ev;
	size_t k = 0;

	if (!s->chan.state || !s->own)
		return 0;
	pthread_mutex_lock(&s->live_lock);
	ev = events_of(s, &n);
	nr = nrules_of(s);
	if (!s->live_open)
		n = nr = 0;
	for (uint32_t i = 0; i < n; i++) {
		struct ms_rule_state *rs;
		uint32_t want, had;

		if (!pending(s, ev, n, i, name))
			continue;
		rs = &rstate_of(s)[ev[i].rule];
		want = (uint32_t)ev[i].value + 1;
		had = __atomic_load_n(&rs->hold_released, __ATOMIC_ACQUIRE);
		/* every ticket up to this thread's: only ever forward */
		while ((int32_t)(want - had) > 0 &&
		       !__atomic_compare_exchange_n(&rs->hold_released, &had, want, 0, __ATOMIC_ACQ_REL,
						    __ATOMIC_ACQUIRE))
			;
		k++;
	}
	for (uint32_t i = 0; i < nr; i++)
		if (is_hold(s, i, name))
			syscall(SYS_futex, &rstate_of(s)[i].hold_released, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
	pthread_mutex_unlock(&s->live_lock);
	if (k)
		ms_sup_poke(); /* a SYS_ call held by the supervisor */
	return k;
}

size_t ms_holds_kill(struct mockshim_session *s, const char *name, int sig)
{
	struct ms_held h[64];
	size_t k;

	if (!s->chan.state || !s->own)
		return 0;
	pthread_mutex_lock(&s->live_lock);
	k = s->live_open ? list_locked(s, name, h, 64) : 0;
	for (size_t i = 0; i < k && i < 64; i++) {
		unsigned j;

		for (j = 0; j < s->nhold_killed && s->hold_killed[j] != h[i].pid; j++)
			;
		if (j == s->nhold_killed && s->nhold_killed < 64)
			s->hold_killed[s->nhold_killed++] = h[i].pid;
		kill(h[i].pid, sig);
	}
	/* a SYS_ hold's waiter (the supervisor) looks whether its caller died */
	for (uint32_t i = 0, nr = nrules_of(s); k && i < nr; i++)
		if (is_hold(s, i, name))
			syscall(SYS_futex, &rstate_of(s)[i].hold_released, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
	pthread_mutex_unlock(&s->live_lock);
	if (k)
		ms_sup_poke();
	return k;
}

void ms_held_line(const struct ms_held *h, char *buf, size_t cap)
{
	char path[64], comm[32] = "?";
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/comm", h->pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		ssize_t r = read(fd, comm, sizeof(comm) - 1);

		comm[r > 0 ? r : 0] = '\0';
		comm[strcspn(comm, "\n")] = '\0';
		close(fd);
	}
	if (h->caller[0])
		snprintf(buf, cap, "pid %d tid %d (%s): %s at %s+%#llx%s%s%s [hold %s]\n", h->pid, h->tid,
			 comm, h->text, h->caller, (unsigned long long)h->caller_off, h->sym[0] ? " (" : "",
			 h->sym, h->sym[0] ? ")" : "", h->name);
	else
		snprintf(buf, cap, "pid %d tid %d (%s): %s [hold %s]\n", h->pid, h->tid, comm, h->text,
			 h->name);
}

void ms_holds_settle(struct mockshim_session *s)
{
	struct ms_state_hdr *st = s->chan.state;
	uint32_t n;
	const struct ms_event *ev;

	if (!st || !s->own)
		return;
	pthread_mutex_lock(&s->live_lock);
	ev = events_of(s, &n);
	for (uint32_t i = 0; i < n; i++) {
		const struct ms_event *e = &ev[i];
		struct ms_event *f;
		uint32_t slot;
		unsigned j;

		if (!pending(s, ev, n, i, NULL))
			continue;
		for (j = 0; j < s->nhold_killed && s->hold_killed[j] != e->pid; j++)
			;
		if (j < s->nhold_killed)
			continue; /* killed there, as asked */
		__atomic_fetch_add(&rstate_of(s)[e->rule].failed, 1, __ATOMIC_RELAXED);
		slot = __atomic_fetch_add(&st->events_next, 1, __ATOMIC_RELAXED);
		if (slot >= s->own->events_cap) {
			__atomic_fetch_add(&st->failures, 1, __ATOMIC_RELAXED);
			continue;
		}
		f = &((struct ms_event *)ms_state_at(st, s->own->st_events_off))[slot];
		*f = *e;
		f->state = 0;
		f->type = MS_EV_FAIL;
		f->kind = MS_FAIL_HELD;
		f->value = 0;
		f->flags = 0;
		f->len = f->at = f->seq = 0;
		__atomic_store_n(&f->state, 1, __ATOMIC_RELEASE);
		/* (the new event is past n: not read again) */
	}
	pthread_mutex_unlock(&s->live_lock);
}

uint32_t *ms_holds_seq(struct mockshim_session *s)
{
	return &s->chan.state->hold_seq;
}

/* ---- the driver API (include/mockshim/driver.h) ---- */

int mockshim_session_wait_held(struct mockshim_session *s, const char *name, double timeout,
			       char *buf, size_t cap)
{
	struct timespec t0;
	int64_t end;

	if (!s || !name || !(timeout >= 0))
		return -EINVAL;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	end = (int64_t)t0.tv_sec * 1000000000 + t0.tv_nsec + (int64_t)(timeout * 1e9);
	if (buf && cap)
		buf[0] = '\0';
	for (;;) {
		struct ms_held h[16];
		struct timespec now, left;
		uint32_t *seq = NULL, v = 0;
		int64_t ns;
		size_t k;

		/* the word first: a thread held after it was read changes it */
		pthread_mutex_lock(&s->live_lock);
		if (s->live_open && s->chan.state) {
			seq = &s->chan.state->hold_seq;
			v = __atomic_load_n(seq, __ATOMIC_ACQUIRE);
		}
		pthread_mutex_unlock(&s->live_lock);
		if (!seq)
			return -ESRCH;
		if (!ms_holds_named(s, name))
			return -ENOENT;
		k = ms_holds_list(s, name, h, 16);
		if (k) {
			for (size_t i = 0, len = 0; buf && i < k && i < 16 && len + 1 < cap; i++) {
				ms_held_line(&h[i], buf + len, cap - len);
				len += strlen(buf + len);
			}
			return k > INT_MAX ? INT_MAX : (int)k;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		ns = end - ((int64_t)now.tv_sec * 1000000000 + now.tv_nsec);
		if (ns <= 0)
			return 0;
		left.tv_sec = (time_t)(ns / 1000000000);
		left.tv_nsec = (long)(ns % 1000000000);
		syscall(SYS_futex, seq, FUTEX_WAIT, v, &left, NULL, 0);
	}
}

int mockshim_session_release(struct mockshim_session *s, const char *name, const char *stmts)
{
	size_t k;
	int r;

	if (!s || !name)
		return -EINVAL;
	s->error[0] = '\0';
	if (!ms_holds_named(s, name))
		return -ENOENT;
	if (!ms_holds_list(s, name, NULL, 0))
		return -ESRCH;
	/* the statements first: the held call takes them */
	if (stmts && (r = mockshim_session_add(s, NULL, stmts, (size_t)-1)) < 0)
		return r;
	k = ms_holds_release(s, name);
	return k > INT_MAX ? INT_MAX : (int)k;
}

int mockshim_session_kill_held(struct mockshim_session *s, const char *name, int sig)
{
	size_t k;

	if (!s || !name || sig < 1 || sig > 64)
		return -EINVAL;
	if (!ms_holds_named(s, name))
		return -ENOENT;
	k = ms_holds_kill(s, name, sig);
	if (!k)
		return -ESRCH;
	return k > INT_MAX ? INT_MAX : (int)k;
}
