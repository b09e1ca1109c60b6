/* SPDX-License-Identifier: MIT */
/*
 * The decision's checks (checks.h): a call's parameters against the
 * expectations of its function (values, ranges, sets, strings and
 * memory read fault-safely from the caller), and the call order.  A
 * failed check is recorded as it happens (ms_record_failure).
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "catalog/catalog.h"
#include "channel/channel.h"
#include "checks.h"
#include "events.h"
#include "usermem.h"
#include "when.h"

/*
 * The program's bytes at ptr, read once: the first 256 bytes serve the
 * report's excerpt, the comparison and the string's length, which are
 * all a short string needs; the rest is read when asked for.
 */
struct user_bytes {
	const char *ptr;
	size_t got;		/* bytes of first[] read (short: a fault there) */
	unsigned char first[256];
};

static size_t user_read(struct user_bytes *u, void *dst, size_t off, size_t n)
{
	size_t have;

	if (off + n > sizeof(u->first) && u->got == sizeof(u->first))
		return ms_read_user(dst, u->ptr + off, n);
	have = off < u->got ? u->got - off : 0;
	if (have > n)
		have = n;
	memcpy(dst, u->first + off, have);
	return have;
}

/* String and memory expectations, compared in bounded chunks. */
static int check_bytes(const struct ms_expect *x, const char *ptr, struct ms_failure *f, char *shown)
{
	const unsigned char *want = (const unsigned char *)ms_d.pool + x->data;
	int string = x->kind == MS_X_STRING || x->kind == MS_X_NOT_STRING;
	size_t need = string ? x->len + 1 : x->len, off = 0, diff = (size_t)-1;
	unsigned char chunk[256];
	struct user_bytes u;

	if (!ptr) {
		f->flags |= MS_EVF_NULL;
		return 0;
	}
	u.ptr = ptr;
	u.got = ms_read_user(u.first, ptr, sizeof(u.first));
	/* what the report shows: the start of a string, around a difference */
	f->nbytes = (uint32_t)user_read(&u, shown, 0, MS_EV_TEXT);
	while (off < need) {
		size_t n = need - off < sizeof(chunk) ? need - off : sizeof(chunk);
		size_t got = user_read(&u, chunk, off, n);

		for (size_t i = 0; i < got && diff == (size_t)-1; i++)
			if (chunk[i] != (off + i < x->len ? want[off + i] : 0))
				diff = off + i;
		if (got < n && diff == (size_t)-1) {
			f->flags |= MS_EVF_FAULT;
			diff = off + got;
		}
		if (diff != (size_t)-1 || got < n)
			break;
		off += n;
	}
	if (string) {
		/* the actual length, up to the bound */
		size_t len = 0;

		for (;;) {
			size_t got = user_read(&u, chunk, len, sizeof(chunk));
			const unsigned char *z = memchr(chunk, 0, got);

			if (z) {
				len += (size_t)(z - chunk);
				break;
			}
			len += got;
			if (got < sizeof(chunk)) {
				f->flags |= MS_EVF_FAULT;
				break;
			}
			if (len >= MS_STRING_BOUND) {
				f->flags |= MS_EVF_UNTERMINATED;
				break;
			}
		}
		f->len = (uint32_t)len;
		if (f->nbytes > len)
			f->nbytes = (uint32_t)len;
	} else {
		f->len = x->len;
		if (diff != (size_t)-1 && diff > 16) {
			f->at = (uint32_t)(diff - 16);
			f->nbytes = (uint32_t)user_read(&u, shown, f->at,
							x->len - f->at < MS_EV_TEXT ? x->len - f->at : MS_EV_TEXT);
		} else if (f->nbytes > x->len) {
			f->nbytes = x->len;
		}
	}
	if (f->len > f->nbytes || (f->at + f->nbytes < f->len))
		f->flags |= MS_EVF_TRUNCATED;
	return diff == (size_t)-1;
}

static int check_one(const struct ms_expect *x, uint64_t arg, struct ms_failure *f, char *shown)
{
	int64_t v = norm(arg, x), lo = norm((uint64_t)x->lo, x), hi = norm((uint64_t)x->hi, x);
	int in;

	f->value = v;
	switch (x->kind) {
	case MS_X_VALUE:
		return v == lo;
	case MS_X_NOT_VALUE:
		return v != lo;
	case MS_X_RANGE:
	case MS_X_NOT_RANGE:
		in = x->psigned ? v >= lo && v <= hi
				: (uint64_t)v >= (uint64_t)lo && (uint64_t)v <= (uint64_t)hi;
		return x->kind == MS_X_RANGE ? in : !in;
	case MS_X_SET:
	case MS_X_NOT_SET:
		in = 0;
		for (uint32_t i = 0; i < x->len && !in; i++) {
			int64_t m;

			memcpy(&m, ms_d.pool + x->data + 8 * i, 8);
			in = norm((uint64_t)m, x) == v;
		}
		return x->kind == MS_X_SET ? in : !in;
	case MS_X_STRING:
	case MS_X_MEMORY:
		return check_bytes(x, (const char *)(uintptr_t)arg, f, shown);
	case MS_X_NOT_STRING:
	case MS_X_NOT_MEMORY:
		/* NULL or unreadable is not "different": it fails too */
		in = check_bytes(x, (const char *)(uintptr_t)arg, f, shown);
		return !in && !(f->flags & (MS_EVF_NULL | MS_EVF_FAULT));
	case MS_X_CHECK:
		in = ms_hook_check_fn(x, arg);
		if (in < 0)
			f->flags |= MS_EVF_FAULT;
		return in > 0;
	default:
		return 1;
	}
}

/* delay=: the call an expectation took waits before it goes on */
static void expect_delay(const struct ms_expect *x)
{
	struct timespec ts = { (time_t)(x->delay_us / 1000000u), (long)(x->delay_us % 1000000u) * 1000 };

	while (syscall(SYS_nanosleep, &ts, &ts) != 0 && errno == EINTR)
		;
}

/*
 * CMocka's rule: once a parameter has expectations, every call (in their
 * scope) takes the next one, in declaration order; none left is a failure.
 */
/* Expectation xi, taken by parameter param of this call: checked. */
void ms_check_taken(unsigned id, uint32_t xi, uint8_t param, uint64_t value, uint32_t call,
		    const void *caller)
{
	struct ms_failure fl = { .kind = MS_FAIL_CHECK, .param = param };
	char shown[MS_EV_TEXT];

	fl.bytes = shown;
	if (!check_one(&ms_d.expects[xi], value, &fl, shown))
		ms_record_failure(id, xi, call, caller, &fl);
	else
		__atomic_fetch_add(&ms_d.xst[xi].ok, 1, __ATOMIC_RELAXED);
}

/* Parameter param of this call takes its next expectation, if it has any. */
void ms_check_param(unsigned id, uint8_t param, uint64_t value, const uint64_t *args,
			uint32_t call, const void *caller)
{
	const struct ms_chan_fn *f = &ms_d.fns[id];
	uint32_t last = UINT32_MAX, taken = UINT32_MAX;
	int scoped = 0;

	for (uint32_t j = 0; j < f->nexpects; j++) {
		const struct ms_expect *y = &ms_d.expects[f->first_expect + j];

		if (y->param != param)
			continue;
		last = f->first_expect + j;
		/* (check_params counted this call's pass-bys already) */
		if (select_stmt(&y->stmt, SEL_QUIET, 0, id, args, caller) != SEL_FOR)
			continue;
		scoped = 1;
		if (ms_claim_turn(&ms_d.xst[f->first_expect + j].consumed, y->stmt.count)) {
			taken = f->first_expect + j;
			break;
		}
	}
	if (taken != UINT32_MAX) {
		const struct ms_expect *x = &ms_d.expects[taken];

		if (x->delay_us)
			expect_delay(x);
		if (x->kind == MS_X_VALUE && norm(value, x) == norm((uint64_t)x->lo, x)) {
			/* the common case, with no failure to set up */
			__atomic_fetch_add(&ms_d.xst[taken].ok, 1, __ATOMIC_RELAXED);
			return;
		}
		ms_check_taken(id, taken, param, value, call, caller);
	} else if (scoped) {
		struct ms_failure fl = { .kind = MS_FAIL_NO_EXPECT, .param = param,
				      .value = norm(value, &ms_d.expects[last]) };
		const struct ms_expect *lx = &ms_d.expects[last];
		char shown[MS_EV_TEXT];

		/* a string or memory parameter: the report shows its bytes,
		 * not the pointer */
		if (lx->kind == MS_X_STRING || lx->kind == MS_X_NOT_STRING || lx->kind == MS_X_MEMORY ||
		    lx->kind == MS_X_NOT_MEMORY) {
			fl.bytes = shown;
			check_bytes(lx, (const char *)(uintptr_t)value, &fl, shown);
		}
		ms_record_failure(id, last, call, caller, &fl);
	}
}

/*
 * CMocka's rule: once a parameter has expectations, every call (in their
 * scope) takes the next one, in declaration order; none left is a failure.
 */
static void check_params(unsigned id, const uint64_t *a, uint32_t call, const void *caller)
{
	const struct ms_chan_fn *f = &ms_d.fns[id];
	uint32_t done = 0, missing = 0;

	/* one pass: each parameter takes the first expectation in scope with
	 * a turn left; a parameter that found none is reported by check_param */
	for (uint32_t xi = f->first_expect, end = xi + f->nexpects; xi < end; xi++) {
		const struct ms_expect *y = &ms_d.expects[xi];
		uint32_t bit = 1u << y->param;

		if ((done & bit) || select_stmt(&y->stmt, 1, xi, id, a, caller) != SEL_FOR)
			continue;
		if (!ms_claim_turn(&ms_d.xst[xi].consumed, y->stmt.count)) {
			missing |= bit;
			continue;
		}
		done |= bit;
		if (y->delay_us)
			expect_delay(y);
		if (y->kind != MS_X_VALUE || norm(a[y->param], y) != norm((uint64_t)y->lo, y))
			ms_check_taken(id, xi, y->param, a[y->param], call, caller);
		else
			__atomic_fetch_add(&ms_d.xst[xi].ok, 1, __ATOMIC_RELAXED);
	}
	for (missing &= ~done; missing; missing &= missing - 1) {
		uint8_t p = (uint8_t)__builtin_ctz(missing);

		ms_check_param(id, p, a[p], a, call, caller);
	}
}

/* Entry i has had its calls: an "at least once" entry
 * (expect_function_call_any, count MS_COUNT_ALWAYS) after its first. */
static int order_done(uint32_t i)
{
	uint32_t consumed = __atomic_load_n(&ms_d.ost[i].consumed, __ATOMIC_RELAXED);

	if (ms_d.orders[i].kind != MS_ORD_CALL)
		return 1;
	return ms_d.orders[i].stmt.count < 0 ? consumed > 0
					     : consumed >= (uint32_t)ms_d.orders[i].stmt.count;
}

/* The call (of function id) takes a turn of entry c: its function, and
 * the call is not passed by (in=, from=, when()). */
static int order_takes(uint32_t c, unsigned id, const uint64_t *a, const void *caller)
{
	const struct ms_order *o = &ms_d.orders[c];

	return o->stmt.fn == id && select_stmt(&o->stmt, SEL_QUIET, 0, id, a, caller) == SEL_FOR;
}

/* The position in the expected sequence of entry c's next call (an
 * "at least once" entry before c counts the calls it had). */
static uint32_t expected_position(uint32_t c)
{
	uint32_t p = 1;

	for (uint32_t i = 0; i < c; i++)
		if (ms_d.orders[i].kind == MS_ORD_CALL)
			p += ms_d.orders[i].stmt.count < 0
				     ? __atomic_load_n(&ms_d.ost[i].consumed, __ATOMIC_RELAXED)
				     : (uint32_t)ms_d.orders[i].stmt.count;
	return p + __atomic_load_n(&ms_d.ost[c].consumed, __ATOMIC_RELAXED);
}

/*
 * expect_function_call(s): the calls of the functions named there must come
 * in the declared sequence.  The cursor is shared by every process: the
 * sequence is the order in which the calls claim their turn.
 */
void ms_check_order(unsigned id, const uint64_t *a, uint32_t call, const void *caller)
{
	const struct ms_chan_fn *f = &ms_d.fns[id];
	uint32_t n = ms_d.chan->norders, last = UINT32_MAX, seq;
	int scoped = 0;

	/* first, before the frame is set up: --trace comes here too */
	if (!(f->flags & (MS_FF_NO_CALL | MS_FF_ORDERED)))
		return;
	if (f->flags & MS_FF_NO_CALL) {
		for (uint32_t i = 0; i < n; i++) {
			if (ms_d.orders[i].stmt.fn == id && ms_d.orders[i].kind == MS_ORD_NO_CALL &&
			    select_stmt(&ms_d.orders[i].stmt, 2, i, id, a, caller) == SEL_FOR) {
				struct ms_failure fl = { .kind = MS_FAIL_NO_CALL };

				__atomic_fetch_add(&ms_d.ost[i].consumed, 1, __ATOMIC_RELAXED);
				ms_record_failure(id, i, call, caller, &fl);
				break;
			}
		}
	}
	if (!(f->flags & MS_FF_ORDERED))
		return;
	for (uint32_t i = 0; i < n; i++) {
		if (ms_d.orders[i].stmt.fn == id && ms_d.orders[i].kind == MS_ORD_CALL) {
			last = i;
			scoped |= select_stmt(&ms_d.orders[i].stmt, 2, i, id, a, caller) == SEL_FOR;
		}
	}
	if (!scoped)
		return;
	seq = __atomic_add_fetch(&ms_d.st->order_seq, 1, __ATOMIC_RELAXED);
	for (;;) {
		uint32_t c = __atomic_load_n(&ms_d.st->order_cursor, __ATOMIC_ACQUIRE);
		const struct ms_order *o;

		if (c == MS_ORDER_BROKEN)
			return;
		/* an "at least once" entry that had its call keeps the
		 * cursor while its function's calls come: CMocka's
		 * expect_function_call_any, one or more */
		while (c < n && order_done(c) &&
		       !(ms_d.orders[c].stmt.count < 0 && order_takes(c, id, a, caller))) {
			__atomic_compare_exchange_n(&ms_d.st->order_cursor, &c, c + 1, 0, __ATOMIC_ACQ_REL,
						    __ATOMIC_ACQUIRE);
			c = __atomic_load_n(&ms_d.st->order_cursor, __ATOMIC_ACQUIRE);
		}
		if (c == MS_ORDER_BROKEN)
			return;
		if (c >= n) {
			if (!(f->flags & MS_FF_IGNORED)) {
				struct ms_failure fl = { .kind = MS_FAIL_ORDER_EXTRA, .seq = seq };

				ms_record_failure(id, last, call, caller, &fl);
			}
			return;
		}
		o = &ms_d.orders[c];
		if (order_takes(c, id, a, caller)) {
			if (ms_claim_turn(&ms_d.ost[c].consumed, o->stmt.count))
				return;
			continue; /* someone took the last turn: look again */
		}
		if (f->flags & MS_FF_IGNORED)
			return;
		/* The first call out of order breaks the sequence: that one
		 * failure says what was expected and what came, and nothing of
		 * the sequence is checked after it (the report shows no
		 * cascade of "more often" and "not called" that contradict
		 * it).  Only the process that breaks it reports. */
		if (!__atomic_compare_exchange_n(&ms_d.st->order_cursor, &c, MS_ORDER_BROKEN, 0,
						 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			continue; /* the cursor moved meanwhile: look again */
		{
			struct ms_failure fl = { .kind = MS_FAIL_ORDER, .seq = seq,
					      .value = expected_position(c) };

			ms_record_failure(id, c, call, caller, &fl);
		}
		return;
	}
}

/* The checks of ms_decide_checked() but its most common case: here, so
 * that check_params() is inlined into it, as it was in decide.c. */
void ms_check_all(unsigned id, const uint64_t *a, uint32_t call, const void *caller)
{
	if (ms_d.fns[id].flags & ~MS_FF_EXEC)
		ms_check_order(id, a, call, caller);
	if (ms_d.fns[id].nexpects)
		check_params(id, a, call, caller);
}
