/* SPDX-License-Identifier: MIT */
/* The audit of a run's state (report/audit.c): what no shim writes is
 * tampering at the end of a run; a copy taken while the tree runs (ctl
 * --report) may be torn between a count and what it counts, and is not. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include "channel/channel.h"
#include "chan_text.h"
#include "report/report.h"
#include "lang/lang.h"

#define TOKEN 0x1234abcdull

struct fixture {
	struct ms_spec spec;
	struct ms_chan_hdr *h;
	uint64_t size;
	struct ms_state_hdr *st;
};

static int setup(void **state)
{
	static const char text[] = "will_return(getuid, 7)\n";
	struct fixture *f = calloc(1, sizeof(*f));
	struct ms_diag d;

	if (!f)
		return -1;
	ms_spec_init(&f->spec, realloc, free);
	if (ms_parse(&f->spec, "spec", text, strlen(text), &d) != 0)
		return -1;
	f->size = ms_channel_size(&f->spec, 16);
	f->h = calloc(1, f->size);
	if (!f->h)
		return -1;
	ms_channel_write(&f->spec, f->h, f->size, 16, 0);
	f->st = calloc(1, f->h->state_size);
	if (!f->st)
		return -1;
	ms_state_init(f->h, f->st, TOKEN);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	ms_spec_fini(&f->spec);
	free(f->h);
	free(f->st);
	free(f);
	return 0;
}

/* Event 0 in the log; event 1 complete but past the count: a shim wrote it
 * after the copy read events_next. */
static void torn(struct fixture *f)
{
	struct ms_event *e = ms_state_at(f->st, f->h->st_events_off);

	for (int i = 0; i < 2; i++) {
		e[i].type = MS_EV_ATTACH;
		e[i].pid = 100 + i;
		strcpy(e[i].text, "prog");
		e[i].state = 1;
	}
	f->st->events_next = 1;
	f->st->attached = 2;
}

static const char *audit(struct fixture *f, int running)
{
	struct ms_report_in in;
	const char *why;

	memset(&in, 0, sizeof(in));
	in.spec = f->h;
	in.running = running;
	assert_int_equal(ms_report_take_state(&in, f->st, f->h->state_size, TOKEN), 0);
	why = in.tampered ? strdup(in.why) : NULL;
	ms_report_release(&in);
	return why;
}

static void test_clean_state(void **state)
{
	struct fixture *f = *state;

	assert_null(audit(f, 0));
	assert_null(audit(f, 1));
}

static void test_torn_copy_of_a_running_tree(void **state)
{
	struct fixture *f = *state;
	const char *why;

	torn(f);
	assert_null(audit(f, 1));
	why = audit(f, 0);
	assert_non_null(why);
	assert_non_null(strstr(why, "lies past the end of the log"));
	free((void *)why);
}

static void test_running_still_catches_the_impossible(void **state)
{
	struct fixture *f = *state;
	const char *why;

	/* a wrong token, or more turns than a count, are no tear */
	f->st->token = 1;
	why = audit(f, 1);
	assert_non_null(why);
	assert_non_null(strstr(why, "header"));
	free((void *)why);
}

/* The state as mockrun reads it, from a memfd whose holes are the pages
 * no process wrote: the header and its counters, and one forged event in
 * slot of a log of cap events, past its end (events_next 0). */
static const char *audit_sparse(uint32_t cap, uint32_t slot)
{
	struct ms_spec spec;
	struct ms_report_in in;
	struct ms_chan_hdr *h;
	struct ms_state_hdr *st;
	struct ms_event *e;
	const char *why;
	uint64_t size;
	int fd;

	h = chan_from_text(&spec, "will_return(getuid, 7)\n", cap, &size);
	st = calloc(1, h->state_size);
	assert_non_null(st);
	ms_state_init(h, st, TOKEN);
	e = (struct ms_event *)ms_state_at(st, h->st_events_off) + slot;
	e->type = MS_EV_ATTACH;
	e->pid = 4242;
	e->state = 1;
	fd = memfd_create("test-audit", 0);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)h->state_size), 0);
	assert_int_equal(pwrite(fd, st, h->st_events_off, 0), (ssize_t)h->st_events_off);
	assert_int_equal(pwrite(fd, e, sizeof(*e), (off_t)((char *)e - (char *)st)),
			 (ssize_t)sizeof(*e));
	memset(&in, 0, sizeof(in));
	in.spec = h;
	assert_int_equal(ms_report_take_state_fd(&in, fd, h->state_size, TOKEN), 0);
	why = in.tampered ? strdup(in.why) : NULL;
	ms_report_release(&in);
	close(fd);
	free(st);
	free(h);
	ms_spec_fini(&spec);
	return why;
}

/* The pages of the log no process wrote are passed by, not the ones
 * between or after them: an event anywhere past the end is seen. */
static void test_sparse_log_past_the_end(void **state)
{
	static const uint32_t slots[] = { 0, 1, 15, 16, 17, 37, 511, 1000, 1023 };
	char want[64];

	(void)state;
	for (size_t i = 0; i < sizeof(slots) / sizeof(slots[0]); i++) {
		const char *why = audit_sparse(1024, slots[i]);

		snprintf(want, sizeof(want), "event %u lies past the end", slots[i]);
		assert_non_null(why);
		assert_non_null(strstr(why, want));
		free((void *)why);
	}
}

/*
 * A rule with a lane (channel.h, "Lanes"): its turns taken are consumed
 * - batched + what the lanes answered, less a turn in flight for each a
 * lane's negative count shows.  Three batches of 32 and one turn of the
 * slow path: block 0 answered 10 and holds 22; block 1 answered its 32
 * and has one more take in flight; block 2's thread was killed after its
 * batch's claim, before the batch reached its lane, in its take.
 */
static uint32_t settled(struct ms_chan_hdr *h, struct ms_state_hdr *st, int running,
			const char **why)
{
	struct ms_report_in in;
	uint32_t c;

	memset(&in, 0, sizeof(in));
	in.spec = h;
	in.running = running;
	assert_int_equal(ms_report_take_state(&in, st, h->state_size, TOKEN), 0);
	*why = in.tampered ? strdup(in.why) : NULL;
	c = ((struct ms_rule_state *)ms_state_at(in.state, h->st_rules_off))[0].consumed;
	ms_report_release(&in);
	return c;
}

static void test_lane_settlement(void **state)
{
	struct ms_spec spec;
	struct ms_chan_hdr *h;
	struct ms_state_hdr *st;
	struct ms_rule_state *rs;
	uint64_t *lanes, size;
	const char *why;

	(void)state;
	h = chan_from_text(&spec, "will_return_count(getuid, 7, 5000)\n", 16, &size);
	assert_int_equal(((struct ms_rule *)ms_chan_at(h, h->rules_off))[0].lane, 1);
	st = calloc(1, h->state_size);
	assert_non_null(st);
	ms_state_init(h, st, TOKEN);
	rs = ms_state_at(st, h->st_rules_off);
	lanes = ms_state_at(st, ms_lanes_off(h));
	rs->consumed = 1 + 3 * 32;
	rs->batched = 3 * 32;
	st->lanes_next = 3;
	lanes[0 * MS_LANES] = (uint64_t)22 << 32 | 10;
	lanes[1 * MS_LANES] = (uint64_t)(uint32_t)-1 << 32 | 33;
	lanes[2 * MS_LANES] = (uint64_t)(uint32_t)-1 << 32 | 1;
	assert_int_equal(settled(h, st, 0, &why), 1 + 10 + 32);
	assert_null(why);
	assert_int_equal(settled(h, st, 1, &why), 1 + 10 + 32);
	assert_null(why);
	/* a block past lanes_next is not read */
	lanes[3 * MS_LANES] = (uint64_t)5 << 32 | 5;
	assert_int_equal(settled(h, st, 0, &why), 1 + 10 + 32);
	assert_null(why);
	/* more answered than claimed for lanes: tampered at the end; a copy
	 * of a running tree may be torn so (the lanes copied after the
	 * rules), and counts no more than was claimed */
	lanes[0 * MS_LANES] = (uint64_t)22 << 32 | 100;
	assert_int_equal(settled(h, st, 1, &why), 1 + 96);
	assert_null(why);
	settled(h, st, 0, &why);
	assert_non_null(why);
	assert_non_null(strstr(why, "lane 0: 132 turns answered of 96 claimed for lanes (97 in all)"));
	free((void *)why);
	lanes[0 * MS_LANES] = (uint64_t)22 << 32 | 10;
	/* a lane no rule has, used */
	lanes[1 * MS_LANES + 5] = 1;
	settled(h, st, 0, &why);
	assert_non_null(why);
	assert_non_null(strstr(why, "lane 5 of block 1 was used, by no rule"));
	free((void *)why);
	free(st);
	free(h);
	ms_spec_fini(&spec);
}

/*
 * A check of an expectation that failed, as a shim leaves it: one turn, one failure counted, one event; then
 * how much of it a program erased.  erase: 1 the event zeroed, 2 the
 * failure count too, 3 the event half-written (its type written, its
 * state not: a process killed while writing it).
 */
static const char *outcome(const char *stmt, int erase, unsigned *failures)
{
	struct ms_spec spec;
	struct ms_report_in in;
	struct ms_chan_hdr *h;
	struct ms_state_hdr *st;
	struct ms_count_state *x;
	struct ms_event *e;
	const char *why;
	uint64_t size;

	h = chan_from_text(&spec, stmt, 16, &size);
	st = calloc(1, h->state_size);
	assert_non_null(st);
	ms_state_init(h, st, TOKEN);
	x = ms_state_at(st, h->st_expects_off);
	e = ms_state_at(st, h->st_events_off);
	x[0].consumed = 1;
	x[0].failed = 1;
	e->type = MS_EV_FAIL;
	e->kind = MS_FAIL_CHECK;
	e->fn = (uint16_t)((const struct ms_expect *)ms_chan_at(h, h->expects_off))[0].stmt.fn;
	e->state = 1;
	st->events_next = 1;
	if (erase >= 1)
		memset(e, 0, sizeof(*e));
	if (erase >= 2)
		x[0].failed = 0;
	if (erase == 3)
		e->type = MS_EV_FAIL;
	memset(&in, 0, sizeof(in));
	in.spec = h;
	assert_int_equal(ms_report_take_state(&in, st, h->state_size, TOKEN), 0);
	why = in.tampered ? strdup(in.why) : NULL;
	*failures = ms_report_failures(&in);
	ms_report_release(&in);
	free(st);
	free(h);
	ms_spec_fini(&spec);
	return why;
}

static void test_outcomes_counted_twice(void **state)
{
	static const char counted[] = "expect_string(open, pathname, \"/nope\")\n";
	static const char always[] = "expect_string_count(open, pathname, \"/nope\", -1)\n";
	const char *why;
	unsigned failures;

	(void)state;
	/* as the shim left it */
	assert_null(outcome(counted, 0, &failures));
	assert_int_equal(failures, 1);
	/* the event zeroed, the count too, or the event half-written: a
	 * failure recorded in part (a process or thread may have ended
	 * inside it, which mockrun cannot always see), never a pass, and
	 * not tampering: an honest run leaves these too */
	for (int erase = 1; erase <= 3; erase++) {
		why = outcome(counted, erase, &failures);
		assert_null(why);
		assert_int_equal(failures, 1);
	}
	/* an always expectation: a turn without an outcome is a call that
	 * never returned; a failure counted is still one */
	for (int erase = 1; erase <= 3; erase += 2) {
		why = outcome(always, erase, &failures);
		assert_null(why);
		assert_int_equal(failures, 1);
	}
	why = outcome(always, 2, &failures);
	assert_null(why);
	assert_int_equal(failures, 0);
}

/* A process that attached, then died of SIGSEGV (crash.c's events):
 * its site and two frames. */
static void crashed(struct fixture *f, int64_t sig)
{
	struct ms_event *e = ms_state_at(f->st, f->h->st_events_off);

	e[0].type = MS_EV_ATTACH;
	e[0].pid = 100;
	e[0].rule = UINT32_MAX;
	strcpy(e[0].text, "prog");
	for (int i = 1; i < 4; i++) {
		e[i].type = MS_EV_CRASH;
		e[i].pid = 100;
		e[i].rule = UINT32_MAX;
		e[i].value = sig;
		e[i].kind = i == 3 ? MS_CRASH_SITE : MS_CRASH_FRAME;
		e[i].param = (uint8_t)(i == 3 ? 0 : i - 1);
		e[i].seq = 2;
		e[i].caller_off = i == 2 ? 0x2000 : 0x1380;
		strcpy(e[i].caller, i == 2 ? "libc.so.6" : "prog");
	}
	for (int i = 0; i < 4; i++)
		e[i].state = 1;
	f->st->events_next = 4;
	f->st->attached = 1;
}

/* The report's symbolizer hook: prog's sites only. */
static int symbolize(void *ctx, const char *object, uint64_t offset, char *out, size_t outlen)
{
	(void)ctx;
	if (strcmp(object, "prog") || offset != 0x1380)
		return 0;
	return snprintf(out, outlen, " (crashing, crash.c:7)");
}

static void test_crash_reported(void **state)
{
	struct fixture *f = *state;
	struct ms_report_in in;
	char *buf = NULL;
	size_t len = 0;
	FILE *m;

	crashed(f, 11);
	memset(&in, 0, sizeof(in));
	in.spec = f->h;
	in.program = "prog";
	in.result.signal = 11;
	in.symbolize = symbolize;
	assert_int_equal(ms_report_take_state(&in, f->st, f->h->state_size, TOKEN), 0);
	assert_null(in.tampered);
	m = open_memstream(&buf, &len);
	assert_non_null(m);
	assert_int_equal(ms_report_write(&in, m, MOCKSHIM_REPORT_TEXT), 0);
	fclose(m);
	assert_non_null(strstr(buf, "prog[100] killed by SIGSEGV at prog+0x1380 (crashing, crash.c:7)\n"));
	assert_non_null(strstr(buf, "  stack: prog+0x1380 (crashing, crash.c:7), libc.so.6+0x2000\n"));
	free(buf);
	ms_report_release(&in);
}

static void test_crash_event_checked(void **state)
{
	struct fixture *f = *state;
	const char *why;

	crashed(f, 0); /* no signal 0 */
	why = audit(f, 0);
	assert_non_null(why);
	assert_non_null(strstr(why, "is not one a shim writes"));
	free((void *)why);
}

/* Where a trace line's site is, for a relay that symbolizes it. */
static void test_trace_site_span(void **state)
{
	static const char *const lines[] = {
		"42 cat: read(3, 0x7f, 131072) = 6 at cat+0x5d26",
		"42 cat: read(3, 0x7f, 1) = -1 EIO (mocked: -e#1:1) at cat+0x5d26 (safe_read, safe-read.c:56)",
		"42 cat: open(\"x at y+0x1\", O_RDONLY) = 3",
		"42 cat: open(\"x\", O_RDONLY) = 3 at libc.so.6+0xf82ad",
		"42 cat: getuid() = 0 at nowhere",
	};
	static const char *const want[] = { "cat+0x5d26", "cat+0x5d26", NULL, "libc.so.6+0xf82ad", NULL };
	size_t start, len;

	(void)state;
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		int r = ms_trace_site_span(lines[i], strlen(lines[i]), &start, &len);

		if (!want[i]) {
			assert_int_equal(r, 0);
			continue;
		}
		assert_int_equal(r, 1);
		assert_int_equal(len, strlen(want[i]));
		assert_memory_equal(lines[i] + start, want[i], len);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
		T(test_clean_state),
		T(test_torn_copy_of_a_running_tree),
		T(test_running_still_catches_the_impossible),
		T(test_crash_reported),
		T(test_crash_event_checked),
#undef T
		cmocka_unit_test(test_sparse_log_past_the_end),
		cmocka_unit_test(test_lane_settlement),
		cmocka_unit_test(test_outcomes_counted_twice),
		cmocka_unit_test(test_trace_site_span),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
