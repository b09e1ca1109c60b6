/* SPDX-License-Identifier: MIT */
/*
 * The audit of a run's state: after every process has exited the driver
 * copies the state once and checks the copy against the sealed spec, so
 * that the report reads nothing out of bounds and says when the state
 * holds what no shim writes (DESIGN.md 5, "A verdict the program cannot
 * forge or lose").
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "catalog/catalog.h"
#include "report_impl.h"
#include "view.h"

static void tamper(struct ms_report_in *s, int32_t pid, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void tamper(struct ms_report_in *s, int32_t pid, const char *fmt, ...)
{
	va_list ap;

	if (s->tampered)
		return;
	va_start(ap, fmt);
	vsnprintf(s->why, sizeof(s->why), fmt, ap);
	va_end(ap);
	s->tampered = s->why;
	s->tamper_pid = pid > 0 ? pid : 0;
}

/* Whether event e's statement index fits what its type and kind name. */
static int event_rule_ok(const struct ms_chan_hdr *h, const struct ms_event *e)
{
	switch (e->type) {
	case MS_EV_ATTACH:
	case MS_EV_WARN:
		return 1;
	case MS_EV_PASSBY:
		return e->kind == 0 ? e->rule < h->nrules
		       : e->kind == 1 ? e->rule < h->nexpects
				      : e->kind == 2 && e->rule < h->norders;
	case MS_EV_TIME:
		return e->rule < h->nftimes;
	case MS_EV_CRASH:
		return e->rule == UINT32_MAX && e->fn == 0 && e->value > 0 && e->value < 65 &&
		       (e->kind == MS_CRASH_SITE ? e->param == 0
			: e->kind == MS_CRASH_FRAME && e->param < MS_CRASH_FRAMES) &&
		       e->seq <= MS_CRASH_FRAMES;
	case MS_EV_HOLD:
	case MS_EV_UNHOLD:
		return e->rule < h->nrules &&
		       ((const struct ms_rule *)ms_chan_at(h, h->rules_off))[e->rule].kind == MS_R_HOLD;
	case MS_EV_CONSUME:
		return e->rule < h->nrules &&
		       ((const struct ms_rule *)ms_chan_at(h, h->rules_off))[e->rule].stmt.fn == e->fn;
	case MS_EV_FAIL:
		switch (e->kind) {
		case MS_FAIL_OUTPUT_NULL:
		case MS_FAIL_HELD:
			return e->rule < h->nrules;
		case MS_FAIL_MOCK_EMPTY:
			return e->rule < h->nrules || e->rule == UINT32_MAX;
		case MS_FAIL_CHECK:
		case MS_FAIL_NO_EXPECT:
			return e->rule < h->nexpects;
		case MS_FAIL_ORDER:
		case MS_FAIL_ORDER_EXTRA:
		case MS_FAIL_NO_CALL:
			return e->rule < h->norders;
		default:
			return 0;
		}
	default:
		return 0;
	}
}

/* The bytes a failed string or memory check carries, as check_bytes()
 * writes them: a string from its start, up to the bound; memory of the
 * expectation's length, shown from an offset within it. */
static int check_event_ok(const struct ms_report_in *s, const struct ms_event *e)
{
	const struct ms_expect *x = expect_at(s, e->rule);

	switch (x->kind) {
	case MS_X_STRING:
	case MS_X_NOT_STRING:
		return e->at == 0 && e->len <= MS_STRING_BOUND + 256;
	case MS_X_MEMORY:
	case MS_X_NOT_MEMORY:
		return e->len == x->len && e->at <= x->len;
	default:
		return 1;
	}
}

/*
 * A rule with a lane (channel.h, "Lanes"): consumed counts the turns
 * claimed, batched those of them claimed for lanes; the lanes say which
 * of those were answered.  Turns taken: consumed - batched + every
 * lane's answered, less a turn in flight for each a lane's negative count
 * shows.  A lane of no rule that was used, or lanes that answered more
 * than was claimed for them, is not what a shim writes.
 */
static void settle_lanes(struct ms_report_in *s)
{
	const struct ms_chan_hdr *h = hdr(s);
	const struct ms_rule *rules = ms_chan_at(h, h->rules_off);
	struct ms_rule_state *rst = ms_state_at(s->state, h->st_rules_off);
	const uint64_t *lanes = ms_state_at(s->state, ms_lanes_off(h));
	uint64_t answered[MS_LANES] = { 0 };
	uint32_t of[MS_LANES] = { 0 }, n = ((struct ms_state_hdr *)s->state)->lanes_next;

	if (!h->lanes_cap)
		return;
	for (uint32_t i = 0; i < h->nrules; i++)
		if (rules[i].lane && rules[i].lane <= MS_LANES)
			of[rules[i].lane - 1] = i + 1;
	if (n > h->lanes_cap)
		n = h->lanes_cap;
	for (uint32_t b = 0; b < n; b++)
		for (uint32_t k = 0; k < MS_LANES; k++) {
			uint64_t w = lanes[(size_t)b * MS_LANES + k];
			int32_t left = MS_LANE_LEFT(w);
			uint32_t ans = MS_LANE_ANSWERED(w), flight = left < 0 ? -(uint32_t)left : 0;

			if (!w)
				continue;
			if (!of[k]) {
				tamper(s, 0, "lane %u of block %u was used, by no rule", k, b);
				continue;
			}
			answered[k] += ans > flight ? ans - flight : 0;
		}
	for (uint32_t k = 0; k < MS_LANES; k++) {
		struct ms_rule_state *rs = of[k] ? &rst[of[k] - 1] : NULL;

		if (!rs)
			continue;
		/* a copy taken while the tree runs may hold a lane's turns
		 * and not yet their batch, copied before them */
		if (rs->batched > rs->consumed || answered[k] > rs->batched) {
			if (!s->running)
				tamper(s, 0, "lane %u: %llu turns answered of %u claimed for lanes (%u in all)",
				       k, (unsigned long long)answered[k], rs->batched, rs->consumed);
			if (rs->batched > rs->consumed)
				rs->batched = rs->consumed;
			if (answered[k] > rs->batched)
				answered[k] = rs->batched;
		}
		rs->consumed = rs->consumed - rs->batched + (uint32_t)answered[k];
		rs->batched = 0;
	}
}

/*
 * Every outcome is counted twice (channel.h, struct ms_count_state): a
 * failure by its statement's failed (or the header's failed_unowned)
 * and by its event; a check of a parameter by its turn and by ok or
 * failed.  A process or thread killed between the two leaves a count
 * without its event (a failure lost with it) or a counted check's turn
 * without an outcome: a failure too (123), never a pass, and never
 * tampering: mockrun cannot see every such death (a thread ended by
 * another's exit() or exec, a grandchild killed and reaped by its own
 * parent), so an honest run leaves these states too.  A turn of an
 * always or maybe expectation without an outcome is a call that never
 * returned: not counted.  torn_failures: slots below the log's end
 * left incomplete, typed as failures; failure_events: complete ones.
 */
static void outcomes(struct ms_report_in *s, uint32_t torn_failures,
		     uint32_t failure_events)
{
	const struct ms_chan_hdr *h = hdr(s);
	const struct ms_state_hdr *st = s->state;
	uint64_t counted = st->failed_unowned, logged = (uint64_t)failure_events + st->failures;
	uint64_t missing, unresolved = 0, order_failed = 0;

	if (s->running) {
		/* a copy of a running tree is torn anywhere: only the failures
		 * half-written in it are counted, as lost */
		s->lost_failures = torn_failures;
		return;
	}
	for (uint32_t i = 0; i < h->nrules; i++)
		counted += rule_state_at(s, i)->failed;
	for (uint32_t i = 0; i < h->nexpects; i++) {
		const struct ms_count_state *c = count_state_at(s, h->st_expects_off, i);

		counted += c->failed;
		/* a check passed that never took its turn */
		if (c->ok > c->consumed)
			tamper(s, 0, "%s:%u: %u checks passed of %u taken", str(s, expect_at(s, i)->stmt.src),
			       expect_at(s, i)->stmt.line, c->ok, c->consumed);
		else if (c->consumed - c->ok > c->failed && expect_at(s, i)->stmt.count > 0)
			unresolved += c->consumed - c->ok - c->failed;
	}
	for (uint32_t i = 0; i < h->norders; i++) {
		const struct ms_count_state *c = count_state_at(s, h->st_orders_off, i);

		counted += c->failed;
		order_failed += c->failed;
		/* every call expect_no_call's entry counts is a failure */
		if (order_at(s, i)->kind == MS_ORD_NO_CALL && c->consumed > c->failed)
			unresolved += c->consumed - c->failed;
	}
	/* the call order broken: by a call whose failure was counted */
	if (st->order_cursor == MS_ORDER_BROKEN && !order_failed)
		unresolved++;
	if (counted < logged)
		tamper(s, 0, "%llu failures logged, but the statements count %llu",
		       (unsigned long long)logged, (unsigned long long)counted);
	missing = counted > logged ? counted - logged : 0;
	/* a standalone shim reports at its own exit, while its children may
	 * be between a turn and its outcome */
	if (h->flags & MS_CHAN_STANDALONE)
		unresolved = 0;
	/* (a half-written failure was counted before its event: it is one
	 * of the missing, where a shim wrote the state) */
	missing += unresolved;
	missing = missing > torn_failures ? missing : torn_failures;
	s->lost_failures = missing > UINT32_MAX ? UINT32_MAX : (uint32_t)missing;
}

/* --sites: every complete slot names a function and a statement of it
 * (or none), its object string terminated; a slot a process died
 * writing (state 1) is zeroed and its call counted as lost.  A slot a
 * shim cannot write is 125 and never read again. */
static void audit_sites(struct ms_report_in *s)
{
	const struct ms_chan_hdr *h = hdr(s);
	struct ms_state_hdr *st = s->state;
	struct ms_site_slot *t;
	const struct ms_rule *rules = ms_chan_at(h, h->rules_off);

	if (!h->sites_cap)
		return;
	t = ms_state_at(st, ms_sites_off(h));
	for (uint32_t i = 0; i < h->sites_cap; i++) {
		struct ms_site_slot *e = &t[i];
		uint64_t off = ms_sites_off(h) + (uint64_t)i * sizeof(*e);

		if (!state_held(s, off, sizeof(*e)) && !e->state)
			continue;
		if (e->state == 1 && !s->running) {
			/* a process ended inside the note: its call is lost */
			st->sites_lost += e->calls ? e->calls : 1;
			memset(e, 0, sizeof(*e));
			continue;
		}
		if (e->state == 0 || e->state == 1)
			continue;
		e->obj[MS_SITE_OBJ - 1] = '\0';
		if (e->state != 2 || e->fn >= h->nfns || e->rule > h->live_first + h->live_n ||
		    (e->rule && rules[e->rule - 1].stmt.fn != e->fn)) {
			tamper(s, 0, "sites table slot %u is not one a shim writes", i);
			memset(e, 0, sizeof(*e));
		}
	}
}

static void audit(struct ms_report_in *s, uint64_t token)
{
	const struct ms_chan_hdr *h = hdr(s);
	struct ms_state_hdr *st = s->state;
	struct ms_event *ev = ms_state_at(st, h->st_events_off);
	uint32_t n, attaches = 0, torn_failures = 0, failure_events = 0;

	if (st->token != token || st->magic != MS_STATE_MAGIC || st->abi != MS_CHAN_ABI ||
	    st->size != s->state_size)
		tamper(s, 0, "its header was overwritten");
	n = st->events_next < h->events_cap ? st->events_next : h->events_cap;
	for (uint32_t i = 0; i < n; i++) {
		struct ms_event *e = &ev[i];

		e->caller[MS_EV_CALLER - 1] = '\0';
		e->sym[MS_EV_SYM - 1] = '\0';
		if (e->type != MS_EV_FAIL)
			e->text[MS_EV_TEXT - 1] = '\0';
		if (e->state == 0) {
			/* claimed, never completed: a process died writing it
			 * (a failure's type is its first field written), or
			 * the program zeroed it (see the counts below) */
			torn_failures += e->type == MS_EV_FAIL;
			continue;
		}
		if (e->state != 1 || (e->type != MS_EV_ATTACH && e->fn >= h->nfns) ||
		    !event_rule_ok(h, e) || e->at > e->len ||
		    (e->param >= MS_MAX_PARAMS && !(e->type == MS_EV_PASSBY && e->param == MS_SITE_PARAM)) ||
		    (e->type == MS_EV_FAIL && e->kind == MS_FAIL_CHECK && !check_event_ok(s, e))) {
			tamper(s, e->pid, "event %u is not one a shim writes", i);
			e->state = 0; /* never read again */
			continue;
		}
		attaches += e->type == MS_EV_ATTACH;
		failure_events += e->type == MS_EV_FAIL;
	}
	for (uint32_t i = n; i < h->events_cap; i++) {
		uint64_t off = h->st_events_off + (uint64_t)i * sizeof(*ev);

		/* (a copy taken while the tree runs may catch an event
		 * written after the count it copied: not there yet; one in a
		 * page no process wrote is zeros, not read, and such a page
		 * is passed whole: the log's unused end costs no time) */
		if (!state_held(s, off, 1)) {
			uint64_t next = (off / MS_HELD_PAGE + 1) * MS_HELD_PAGE - h->st_events_off;

			i = (uint32_t)((next + sizeof(*ev) - 1) / sizeof(*ev)) - 1;
			continue;
		}
		/* its first page held: an event across two pages whose
		 * second was never written is read as it is, the copy's
		 * zeros there being the memfd's */
		if ((ev[i].state || ev[i].type) && !s->running)
			tamper(s, ev[i].pid, "event %u lies past the end of the log (%u)", i, n);
		/* nothing past the end is ever read */
	}
	/* failures are counted only when the log had no room for them; a
	 * copy taken while the tree runs may be torn between the counts */
	if (st->failures && st->events_next <= h->events_cap && !s->running)
		tamper(s, 0, "%u failures not logged, but the log has room", st->failures);
	if (st->attached < attaches && !s->running)
		tamper(s, 0, "%u processes announced, but the count says %u", attaches, st->attached);
	if (st->order_cursor > h->norders && st->order_cursor != MS_ORDER_BROKEN)
		tamper(s, 0, "the call-order cursor is past its end");
	settle_lanes(s);
	audit_sites(s);
	outcomes(s, torn_failures, failure_events);
	/* a statement's turns never pass its count (an ignored or forbidden
	 * call-order entry counts calls, not turns) */
	for (uint32_t i = 0, items = rp_nitems(s); i < items; i++) {
		static const char *const taken[] = { "turns", "checks", "calls" };
		struct item it = rp_item_at(s, i);

		if ((it.table != IT_ORDER || it.kind == MS_ORD_CALL) && it.stmt.count > 0 &&
		    it.consumed > (uint32_t)it.stmt.count)
			tamper(s, 0, "%s:%u: %u %s taken of a count of %d", str(s, it.stmt.src),
			       it.stmt.line, it.consumed, taken[it.table], it.stmt.count);
	}
}

int ms_report_take_state(struct ms_report_in *s, const void *state, uint64_t size, uint64_t token)
{
	s->held = NULL;
	s->state = malloc(size ? size : 1);
	if (!s->state)
		return -ENOMEM;
	memcpy(s->state, state, size);
	s->state_size = size;
	s->tampered = NULL;
	s->lost_failures = 0;
	audit(s, token);
	return 0;
}

int ms_report_take_state_fd(struct ms_report_in *s, int fd, uint64_t size, uint64_t token)
{
	uint64_t off = 0, end = 0;	/* [off, end): data to read */

	/* Only the parts some process wrote are read: the memfd's holes
	 * (rules never taken, the event log's unused end) stay untouched
	 * zeros of calloc, neither copied nor resident in this process. */
	s->state = calloc(1, size ? size : 1);
	s->held = calloc(1, (size + MS_HELD_PAGE * 8 - 1) / (MS_HELD_PAGE * 8) + 1);
	if (!s->state || !s->held) {
		free(s->state);
		free(s->held);
		s->state = NULL;
		s->held = NULL;
		return -ENOMEM;
	}
	while (off < size) {
		ssize_t k;

		if (off == end) {
			off_t d = lseek(fd, (off_t)off, SEEK_DATA), h;

			if (d < 0 && errno == ENXIO)
				break;	/* a hole to the end */
			if (d < 0 || (h = lseek(fd, d, SEEK_HOLE)) < 0) {
				end = size;	/* no SEEK_DATA: read it all */
				free(s->held);
				s->held = NULL;
			} else {
				off = (uint64_t)d < size ? (uint64_t)d : size;
				end = (uint64_t)h < size ? (uint64_t)h : size;
				continue;
			}
		}
		k = pread(fd, (char *)s->state + off, end - off, (off_t)off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			int e = k < 0 ? errno : EIO;

			free(s->state);
			free(s->held);
			s->state = NULL;
			s->held = NULL;
			return -e;
		}
		for (uint64_t p = off / MS_HELD_PAGE; s->held && p <= (off + (uint64_t)k - 1) / MS_HELD_PAGE; p++)
			s->held[p / 8] |= (uint8_t)(1u << (p % 8));
		off += (uint64_t)k;
	}
	s->state_size = size;
	s->tampered = NULL;
	s->lost_failures = 0;
	audit(s, token);
	return 0;
}

void ms_report_release(struct ms_report_in *s)
{
	free(s->state);
	free(s->held);
	s->state = NULL;
	s->held = NULL;
}

