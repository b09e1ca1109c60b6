/* SPDX-License-Identifier: MIT */
/*
 * The decision, shared by the shim and mockrun's syscall supervisor: see
 * decide.h.  Async-signal-safe on the shim's side: no malloc, no stdio, no
 * catalog function (tests/preload/symbols.sh checks the shim's objects);
 * raw system calls only.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "catalog/catalog.h"
#include "channel/channel.h"
#include "decide.h"
#include "hold.h"

/* Every block handed out, lane k: a turn taken from the first that holds
 * one, answered from it (channel.h, "Lanes").  Only once the rule's count
 * is all taken, so at most a batch per thread of compare-and-swaps, and
 * then a scan per call that finds none. */
int ms_lane_steal(uint32_t k)
{
	uint32_t n = __atomic_load_n(&ms_d.st->lanes_next, __ATOMIC_ACQUIRE);

	if (!ms_d.lanes || k >= MS_LANES)
		return 0;
	if (n > ms_d.chan->lanes_cap)
		n = ms_d.chan->lanes_cap;
	for (uint32_t b = 0; b < n; b++) {
		uint64_t *p = ms_d.lanes + (size_t)b * MS_LANES + k;
		uint64_t v = __atomic_load_n(p, __ATOMIC_RELAXED);

		/* one held less, one answered more */
		while (MS_LANE_LEFT(v) > 0)
			if (__atomic_compare_exchange_n(p, &v, v + 1 - ((uint64_t)1 << 32), 1,
							__ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
				return 1;
	}
	return 0;
}


/* The length + 1 of the string at p, read fault-safely, at most max. */
static uint64_t own_capacity(const char *p, uint64_t max)
{
	char chunk[256];
	uint64_t n = 0;

	while (n < max) {
		size_t got = ms_read_user(chunk, p + n, sizeof(chunk)), k;

		for (k = 0; k < got; k++)
			if (!chunk[k])
				return n + k + 1;
		if (got < sizeof(chunk))
			return 0; /* unreadable: nothing is written */
		n += got;
	}
	return max;
}

static uint64_t capacity(const struct ms_out *o, const uint64_t *a)
{
	uint64_t cap = o->cap1 == MS_NONE8 ? UINT64_MAX
		       : o->cap1 == MS_CAP_OWN ? own_capacity((const char *)(uintptr_t)a[o->param], 4096)
					      : a[o->cap1];

	if (o->cap2 != MS_NONE8) {
		uint64_t m = a[o->cap2];

		cap = m && cap > UINT64_MAX / m ? UINT64_MAX : cap * m;
	}
	return cap;
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };

	while (syscall(SYS_nanosleep, &ts, &ts) != 0 && errno == EINTR)
		;
}


static int64_t reply(unsigned id, uint32_t ri, const struct ms_rule *r, const uint64_t *a,
		     uint32_t call, const void *caller)
{
	uint64_t copied = 0;
	int64_t v = r->value;
	int rc = 0;

	for (uint32_t k = 0; k < r->nouts; k++) {
		const struct ms_out *o = &ms_d.outs[r->outs_first + k];
		void *p = (void *)(uintptr_t)a[o->param];
		uint64_t cap, n;

		switch (o->kind) {
		case MS_O_BYTES:
		case MS_O_STR:
			cap = capacity(o, a);
			if (o->kind == MS_O_STR) {
				if (cap == 0)
					break;
				cap--;
			}
			n = o->len < cap ? o->len : cap;
			if (!p) {
				if (n)
					ms_output_null(id, ri, call, caller, o->param);
				break;
			}
			ms_write_user(p, ms_d.pool + o->data, n);
			if (o->kind == MS_O_STR)
				ms_write_user((char *)p + n, "", 1);
			copied += n;
			break;
		case MS_O_STORE:
			if (!p) {
				ms_output_null(id, ri, call, caller, o->param);
				break;
			}
			ms_write_user(p, ms_d.pool + o->data, o->len);
			break;
		case MS_O_REVENTS: {
			/* the row's layout (validated): nfds follows */
			struct pollfd *fds = p;
			uint64_t given = o->len / 2;

			if (!fds) {
				if (a[o->cap1])
					ms_output_null(id, ri, call, caller, o->param);
				break;
			}
			for (uint64_t i = 0; i < a[o->cap1]; i++) {
				int16_t ev = 0;

				if (i < given)
					memcpy(&ev, ms_d.pool + o->data + 2 * i, 2);
				ms_write_user(&fds[i].revents, &ev, sizeof(ev));
				copied += ev != 0; /* ret=#: the entries with events */
			}
			break;
		}
		case MS_O_SOCKADDR: {
			/* the row's layout (validated): the socklen_t * follows */
			socklen_t *lenp = (socklen_t *)(uintptr_t)a[o->cap1], have;

			if (!p || !lenp || ms_read_user(&have, lenp, sizeof(have)) != sizeof(have)) {
				ms_output_null(id, ri, call, caller, p ? o->cap1 : o->param);
				break;
			}
			ms_write_user(p, ms_d.pool + o->data, have < o->len ? have : o->len);
			have = o->len;
			ms_write_user(lenp, &have, sizeof(have));
			break;
		}
		case MS_O_PASSWD_R:
		case MS_O_STRDUP:
		case MS_O_POOLPTR:
		case MS_O_ADDRINFO:
			rc = ms_hook_out(id, ri, r, o, a, call, caller);
			break;
		default:
			break;
		}
	}
	if (r->flags & (MS_RF_STRVAL | MS_RF_OWNED | MS_RF_PASSWD | MS_RF_GROUP | MS_RF_HOSTENT))
		v = ms_hook_value(r, a, v);
	if (rc && v == 0)
		v = rc; /* the list could not be built as asked: an EAI_* code */
	if (r->flags & MS_RF_DEFAULT) {
		switch (r->rd_kind) {
		case MS_RD_BYTES:
			v = (int64_t)copied;
			if (r->rd_div != MS_NONE8 && a[r->rd_div])
				v = (int64_t)(copied / a[r->rd_div]);
			break;
		case MS_RD_PARAM:
			v = (int64_t)a[r->rd_param];
			break;
		default:
			break;
		}
	}
	for (uint32_t k = 0; k < r->nouts; k++) {
		const struct ms_out *o = &ms_d.outs[r->outs_first + k];
		void *p = (void *)(uintptr_t)a[o->param];

		if (!p)
			continue;
		if (o->kind == MS_O_RETSTORE) {
			if (o->len == 8) {
				ms_write_user(p, &v, 8);
			} else {
				int32_t w = (int32_t)v;

				ms_write_user(p, &w, 4);
			}
		} else if (o->kind == MS_O_FERROR) {
			ms_hook_out(id, ri, r, o, a, call, caller);
		}
	}
	return v;
}

/* "SRC:LINE" of the rule that replied, for the trace line. */
/* "SRC:LINE" of rule r into by (160 bytes). */
static void rule_where(const struct ms_rule *r, char *by)
{
	size_t n = 0;
	const char *src = ms_d.pool + r->stmt.src;
	uint32_t line = r->stmt.line;
	char digits[12];
	int k = 0;

	while (*src && n < 160 - 16)
		by[n++] = *src++;
	by[n++] = ':';
	do
		digits[k++] = (char)('0' + line % 10);
	while ((line /= 10) && k < 11);
	while (k)
		by[n++] = digits[--k];
	by[n] = '\0';
}

static void trace_mocked(unsigned id, const uint64_t *a, int64_t v, int err, const struct ms_rule *r,
			 const void *caller)
{
	char by[160];

	rule_where(r, by);
	ms_t_passby = 0;
	/* a declared function's line is typed as declared; a system call's
	 * (the supervisor's) is a row's, as a catalog function's */
	if (id >= MS_FN_COUNT && ms_d.dyn[id - MS_FN_COUNT].kind != MS_DYN_SYSCALL) {
		ms_hook_trace_decl(&ms_d.dyn[id - MS_FN_COUNT], ms_d.pool, a, (uint64_t)v, by, caller);
		return;
	}
	ms_hook_trace_call(id, a, v, err, by, NULL, caller);
}

/* The line of a real call that an aimed statement passed by (ms_t_passby):
 * it says which. */
static __attribute__((noinline)) void trace_passed(unsigned id, const uint64_t *a, int64_t ret,
						   int err, uint64_t p, const void *caller)
{
	char by[160];

	ms_t_passby = 0;
	if (p >> 32 == id && (uint32_t)p)
		rule_where(&ms_d.rules[(uint32_t)p - 1], by);
	ms_hook_trace_call(id, a, ret, err, NULL, p >> 32 == id && (uint32_t)p ? by : NULL, caller);
}

int64_t ms_trace_after(unsigned id, const uint64_t *a, int64_t ret, const void *caller)
{
	int err = errno;
	uint32_t flags = ms_d.fns[id].flags;

	if (flags & MS_FF_RECORD)
		ms_hook_record_call(ms_d.chan, ms_d.st, id, a, ret, err);
	if (flags & MS_FF_TRACED) {
		if (ms_unlikely(ms_t_passby))
			trace_passed(id, a, ret, err, ms_t_passby, caller);
		else
			ms_hook_trace_call(id, a, ret, err, NULL, NULL, caller);
	}
	errno = err;
	return ret;
}

/*
 * The rule loop has a lean path for the common case, a function with no
 * expectation, call order or trace, answered by a rule with nothing but a
 * value (and errno) to give: it saves no errno (nothing on it sets errno),
 * writes no event after each process's first turn of the rule, and
 * reaches everything else by tail calls (it keeps a small frame: two
 * registers).  Anything else goes to the functions below, which save
 * errno around the work that may change it.
 */

/* errno = e (unless e < 0); returns 1, the end of a mocked call. */
__attribute__((noinline)) int ms_mocked_errno(int e)
{
	if (e >= 0)
		errno = e;
	return 1;
}

/* A process's first turn of rule ri (or any turn under -v): its event. */
__attribute__((noinline)) int ms_log_turn(unsigned id, uint32_t ri, uint32_t call,
					      const void *caller, int64_t value, int err)
{
	ms_log_consume(id, ri, call, value, caller);
	return ms_mocked_errno(err);
}

/*
 * will_call_real(FN, PARAM=VALUE): the arguments the real call gets,
 * written into the trampoline's array (it calls the real function from
 * it); the strings and addresses are the spec's, which lives as long as
 * the process.  An alias's trampoline, whose own arguments are another
 * array, then calls its canonical function (ms_rewrote).
 */
__thread int ms_rewrote;

static void rewrite(const struct ms_rule *r, uint64_t *a)
{
	for (uint32_t k = 0; k < r->nouts; k++) {
		const struct ms_out *o = &ms_d.outs[r->outs_first + k];

		switch (o->kind) {
		case MS_O_ARG_INT:
			memcpy(&a[o->param], ms_d.pool + o->data, 8);
			break;
		case MS_O_ARG_STR:
			a[o->param] = o->data ? (uint64_t)(uintptr_t)(ms_d.pool + o->data) : 0;
			break;
		case MS_O_ARG_ADDR:
			a[o->param] = (uint64_t)(uintptr_t)(ms_d.pool + o->data);
			a[o->cap1] = o->len;
			break;
		default:
			break;
		}
	}
	ms_rewrote = (int)r->stmt.fn + 1;
}

static int decide_live(unsigned id, const uint64_t *a, int64_t *ret, const void *caller,
		       uint32_t call, int k, uint32_t from, uint32_t *took);

/* After a will_hold or will_signal's turn of rule ri: the statements of
 * the function after it (a live one's: the live ones after it). */
int ms_decide_after(unsigned id, uint32_t ri, const uint64_t *a, int64_t *ret, const void *caller,
		    uint32_t call)
{
	const struct ms_chan_fn *f = &ms_d.fns[id];
	int k = f->flags & MS_FF_AFTER ? 2 : 0;
	uint32_t took = 0;

	if (ri >= f->first_rule && ri < f->first_rule + f->nrules) {
		k = ms_decide_from(id, ri + 1, a, ret, caller, call);
		ri = ms_d.chan->live_first - 1; /* every live statement after */
	}
	if (k != 1 && k != 3 && (f->flags & MS_FF_COUNTED) && ms_d.chan->live_cap &&
	    ri + 1 >= ms_d.chan->live_first)
		k = decide_live(id, a, ret, caller, call, k, ri + 1 - ms_d.chan->live_first, &took);
	return k;
}

/* A turn of rule ri (of function rules[ri].fn), claimed. */
__attribute__((noinline)) int ms_answer(uint32_t ri, const uint64_t *a, int64_t *ret,
					    const void *caller, uint32_t call)
{
	const struct ms_rule *r = &ms_d.rules[ri];
	unsigned id = r->stmt.fn;
	int traced = ms_d.fns[id].flags & MS_FF_TRACED, after = ms_d.fns[id].flags & MS_FF_AFTER,
	    saved = errno;
	int64_t v = r->value;

	if (r->delay_ns)
		sleep_ns(r->delay_ns);
	if (r->kind == MS_R_HOLD || r->kind == MS_R_SIGNAL) {
		/* numbered: the report and ctl --wait-held name the call */
		if (!call)
			call = ms_number_call(id);
		if (r->kind == MS_R_HOLD) {
			if (ms_hold(id, ri, a, caller, call))
				return 3; /* the supervisor answers it later */
		} else {
			ms_raise(id, ri, a, caller, call);
		}
		errno = saved;
		/* released (or the signal returned): the call goes on */
		return ms_decide_after(id, ri, a, ret, caller, call);
	}
	if (r->kind == MS_R_REAL) {
		if (r->nouts)
			rewrite(r, (uint64_t *)(uintptr_t)a);
		ms_log_consume(id, ri, call, 0, caller);
		/* power_loss(FN, COUNT): its COUNT-th call, the turn that
		 * uses it up; the ones before go to the real function */
		if ((r->flags & MS_RF_POWER) &&
		    __atomic_load_n(&ms_d.rst[ri].consumed, __ATOMIC_ACQUIRE) >= (uint32_t)r->stmt.count)
			ms_hook_power_cut(caller);
		errno = saved;
		return after ? 2 : 0;
	}
	if (r->nouts || (r->flags & ~MS_RF_ERRNO))
		v = reply(id, ri, r, a, call, caller);
	ms_log_consume(id, ri, call, v, caller);
	*ret = v;
	if (traced)
		trace_mocked(id, a, v, r->flags & MS_RF_ERRNO ? r->err : 0, r, caller);
	if (r->flags & MS_RF_ERRNO)
		errno = r->err;
	else if ((r->flags & MS_RF_OWNED) && !v)
		errno = ENOMEM; /* the copy could not be made: strdup's own failure */
	else
		errno = saved;
	return 1;
}

/*
 * A call site that none of a function's statements is for (from= names
 * other objects, in= other programs) stays so: the executable and the
 * objects do not change, and a rule that ran out of turns never gets
 * more.  Each thread keeps the last such site of a lean function, as one
 * word, (caller << 16) | id, so that signal handlers cannot tear it.
 */
__thread uint64_t ms_t_skip;

/* The rules of function id from ri on, with in= and from= checked; call
 * is the call's number, or 0 to number it when a turn is taken. */
static int decide_from(unsigned id, uint32_t ri, const uint64_t *a, int64_t *ret,
		       const void *caller, uint32_t call, uint32_t *took)
{
	const struct ms_chan_fn *f = &ms_d.fns[id];
	int scoped = 0;

	for (uint32_t end = f->first_rule + f->nrules; ri < end; ri++) {
		const struct ms_rule *r = &ms_d.rules[ri];
		enum sel k = select_rule(ri, id, a, caller);

		if (k == SEL_OUT)
			continue;
		/* an aimed rule may be for a later call of this site */
		scoped = 1;
		if (k != SEL_FOR)
			continue;
		if (ms_claim_rule(&ms_d.rst[ri].consumed, r)) {
			/* numbered where something shows the number */
			if (!call && ((f->flags & ~(MS_FF_LEAN | MS_FF_LEAN_AIMED | MS_FF_SITES)) || f->nexpects ||
				      (ms_d.chan->flags & MS_CHAN_LOG_CALLS)))
				call = ms_number_call(id);
			*took = ri + 1;
			return (f->flags & MS_FF_TRACED) || !ms_rule_plain(r)
				       ? ms_answer(ri, a, ret, caller, call)
				       : ms_take(id, r, ret, caller, call);
		}
	}
	if (!scoped && !(f->flags | f->nexpects))
		__atomic_store_n(&ms_t_skip, ms_skip_key(id, caller), __ATOMIC_RELAXED);
	return f->flags & MS_FF_AFTER ? 2 : 0;
}

__attribute__((noinline)) int ms_decide_from(unsigned id, uint32_t ri, const uint64_t *a,
						 int64_t *ret, const void *caller, uint32_t call)
{
	uint32_t took = 0;

	return decide_from(id, ri, a, ret, caller, call, &took);
}

__thread int ms_t_site_direct;

/*
 * Each thread keeps the slot of its last note whose site was the return
 * address's own frame (a loop calls from one place): (caller, function,
 * rule) -> slot, guarded by a sequence number against a signal handler
 * that notes a call while this thread writes or reads it (odd: being
 * written; changed under a reader: the reader looks again), as from=.
 */
static __thread struct {
	unsigned seq;
	uint64_t key;
	const void *caller;
	struct ms_site_slot *slot;
} t_site __attribute__((tls_model("initial-exec")));

static void site_cache(const void *caller, uint64_t key, struct ms_site_slot *slot, unsigned seq)
{
	if ((seq & 1) || t_site.seq != seq)
		return;
	t_site.seq = seq + 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t_site.caller = caller;
	t_site.key = key;
	t_site.slot = slot;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t_site.seq = seq + 2;
}

/* --sites: the slot of key (fn, obj, off, rule) found or claimed, and
 * one call more in it; a full table counts the call as lost.  Atomics
 * only (channel.h, "struct ms_site_slot"). */
static void sites_note(unsigned id, uint32_t rule, const void *caller)
{
	struct ms_site_slot *t = ms_d.sites, *hit;
	uint32_t cap = ms_d.chan->sites_cap, i;
	char obj[MS_SITE_OBJ];
	uint64_t off = 0, h = 1469598103934665603ull, key = (uint64_t)id << 32 | rule;
	unsigned seq = t_site.seq;
	int direct;
	size_t n;

	if (!t || !cap)
		return;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (!(seq & 1) && t_site.caller == caller && t_site.key == key && (hit = t_site.slot)) {
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		if (t_site.seq == seq) {
			__atomic_fetch_add(&hit->calls, 1, __ATOMIC_RELAXED);
			return;
		}
	}
	memset(obj, 0, sizeof(obj));
	ms_t_site_direct = 0;
	if (ms_hook_site(caller, obj, sizeof(obj), &off)) {
		memset(obj, 0, sizeof(obj));
		off = (uint64_t)(uintptr_t)caller;
	}
	direct = ms_t_site_direct;
	for (n = 0; n < sizeof(obj) && obj[n]; n++)
		h = (h ^ (unsigned char)obj[n]) * 1099511628211ull;
	h = (h ^ off) * 1099511628211ull;
	h = (h ^ ((uint64_t)id << 32 | rule)) * 1099511628211ull;
	h |= 1; /* never 0 */
	i = (uint32_t)(h >> 17) % cap;
	for (uint32_t probes = 0; probes < cap; probes++, i = i + 1 == cap ? 0 : i + 1) {
		struct ms_site_slot *s = &t[i];
		uint32_t st = __atomic_load_n(&s->state, __ATOMIC_ACQUIRE), free_ = 0;

		if (st == 0 && __atomic_compare_exchange_n(&s->state, &free_, 1, 0, __ATOMIC_ACQ_REL,
							    __ATOMIC_RELAXED)) {
			s->fn = id;
			s->rule = rule;
			s->off = off;
			s->hash = h;
			memcpy(s->obj, obj, sizeof(obj));
			s->obj[MS_SITE_OBJ - 1] = '\0';
			__atomic_fetch_add(&s->calls, 1, __ATOMIC_RELAXED);
			__atomic_store_n(&s->state, 2, __ATOMIC_RELEASE);
			if (direct)
				site_cache(caller, key, s, seq);
			return;
		}
		if (st == 0)
			st = __atomic_load_n(&s->state, __ATOMIC_ACQUIRE);
		if (st == 2 && s->hash == h && s->fn == id && s->rule == rule && s->off == off &&
		    memcmp(s->obj, obj, sizeof(obj)) == 0) {
			__atomic_fetch_add(&s->calls, 1, __ATOMIC_RELAXED);
			if (direct)
				site_cache(caller, key, s, seq);
			return;
		}
	}
	__atomic_fetch_add(&ms_d.st->sites_lost, 1, __ATOMIC_RELAXED);
}

/* A function with nothing but --sites (no expectation, order, trace): its
 * rules, then the call's site. */
__attribute__((noinline)) int ms_decide_sites(unsigned id, const uint64_t *a, int64_t *ret,
					      const void *caller)
{
	const struct ms_chan_fn *f = &ms_d.fns[id];
	uint32_t took = 0, ri = f->first_rule, end = ri + f->nrules;
	int k = 0, saved;

	/* plain rules as ms_decide's own loop takes them; the first other
	 * one is decide_from's */
	for (; ri < end; ri++) {
		const struct ms_rule *r = &ms_d.rules[ri];

		if (!r->lean) {
			k = decide_from(id, ri, a, ret, caller, 0, &took);
			break;
		}
		if (ms_claim_rule(&ms_d.rst[ri].consumed, r)) {
			took = ri + 1;
			k = ms_take(id, r, ret, caller, 0);
			break;
		}
	}
	saved = errno;
	sites_note(id, took, caller);
	errno = saved;
	return k;
}

/*
 * The statements mockrun ctl added (--control), after the spec's own:
 * loaded with acquire, so that everything mockrun wrote before it shows.
 * Only counted functions get here, and only their calls numbered.
 */
static __attribute__((noinline)) int decide_live(unsigned id, const uint64_t *a, int64_t *ret,
						 const void *caller, uint32_t call, int k, uint32_t from,
						 uint32_t *took)
{
	uint32_t n = __atomic_load_n(&ms_d.chan->live_n, __ATOMIC_ACQUIRE);

	if (n > ms_d.chan->live_cap)
		n = ms_d.chan->live_cap;
	for (uint32_t j = from; j < n; j++) {
		uint32_t ri = ms_d.chan->live_first + j;
		const struct ms_rule *r = &ms_d.rules[ri];

		if (r->stmt.fn != id || select_rule(ri, id, a, caller) != SEL_FOR)
			continue;
		if (ms_claim_rule(&ms_d.rst[ri].consumed, r)) {
			*took = ri + 1;
			return (ms_d.fns[id].flags & MS_FF_TRACED) || !ms_rule_plain(r)
				       ? ms_answer(ri, a, ret, caller, call)
				       : ms_take(id, r, ret, caller, call);
		}
	}
	return k;
}

/* The exec family's (MS_FF_EXEC) but the spawners: a call that, if it
 * succeeds, never returns. */
static int is_exec(unsigned id)
{
	const struct ms_exec_row *x;

	return (ms_d.fns[id].flags & MS_FF_EXEC) && (x = ms_exec_row(id)) && !x->spawn;
}

/* A function with call order, expectations or a trace. */
__attribute__((noinline)) int ms_decide_checked(unsigned id, const uint64_t *a, int64_t *ret,
						    const void *caller, uint32_t call)
{
	const struct ms_chan_fn *f = &ms_d.fns[id];
	const struct ms_expect *y;
	uint32_t took = 0;
	int k, saved;

	/* the checks keep errno: ms_record_failure() and ms_read_user() do.
	 * Most common: one expect_value for any caller, and nothing else */
	if (!f->flags && f->nexpects == 1 &&
	    (y = &ms_d.expects[f->first_expect], !(y->stmt.in_glob | y->stmt.from_glob | y->stmt.ncond)) &&
	    y->kind == MS_X_VALUE && !y->delay_us) {
		if (!ms_claim_turn(&ms_d.xst[f->first_expect].consumed, y->stmt.count))
			ms_check_param(id, y->param, a[y->param], a, call, caller);
		else if (norm(a[y->param], y) != norm((uint64_t)y->lo, y))
			ms_check_taken(id, f->first_expect, y->param, a[y->param], call, caller);
		else
			__atomic_fetch_add(&ms_d.xst[f->first_expect].ok, 1, __ATOMIC_RELAXED);
	} else {
		ms_check_all(id, a, call, caller);
	}
	k = f->nrules ? decide_from(id, f->first_rule, a, ret, caller, call, &took)
		      : f->flags & MS_FF_AFTER ? 2 : 0;
	if (ms_unlikely(k == 3))
		return k; /* held: the supervisor answers it later */
	if (ms_unlikely(f->flags & MS_FF_COUNTED) && k != 1 && ms_d.chan->live_cap)
		k = decide_live(id, a, ret, caller, call, k, 0, &took);
	if (ms_unlikely(f->flags & MS_FF_SITES)) {
		saved = errno;
		sites_note(id, took, caller);
		errno = saved;
	}
	/* the program it starts, if the call goes to the real function */
	if (ms_unlikely(f->flags & MS_FF_EXEC) && k != 1)
		ms_hook_exec_check(id, a);
	/* an exec that succeeds never comes back to be traced */
	if (k == 2 && (f->flags & MS_FF_TRACED) && is_exec(id))
		ms_hook_trace_exec(id, a, caller);
	return k;
}

