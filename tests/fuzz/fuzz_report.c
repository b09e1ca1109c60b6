/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the driver's reader of the state, which every process
 * of the run could have written anything into.  A valid spec and a state
 * with one event of each kind and a record log are made once; the input
 * is XORed over the state, which is then audited, reported and turned
 * into a --record spec.  Nothing may read out of bounds.
 *
 * The input: its first byte picks the report (one of the six formats at
 * one of the three verbosities: one report a run, not all eighteen, so a
 * run costs a report's time); the rest is XORed over the parts of the
 * state a reader takes in, laid end to end (view[]): the header first,
 * then the counters of the statements, the first events, the record log
 * and the other sections.  The pids' table (16 KiB, which no reader
 * takes in) but its first pids and the catalog's per-function counters
 * (read only for declared functions) are left out.  XORed over the
 * state as it is laid out, as before, 16 KiB of an input went to the
 * pids, and the statements' counters and the record log (past 58 KiB)
 * were never reached.
 *
 * The seeds (corpus/report): zero-FORMAT-VERBOSITY, the state as made;
 * counters-FORMAT, more events than the log holds and a failure count
 * that disagrees (the audit's case); rules-tap, a rule used three times;
 * random1*, random bytes.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/catalog.h"
#include "report/report.h"
#include "session.h"
#include "channel/channel.h"
#include "lang/lang.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char spec_text[] =
	"will_return(read, _, buf=\"hello\")\n"
	"will_fail(open, ENOENT, in=\"cat\")\n"
	"will_return_count(getuid, 7, 2)\n"
	"will_return(stat, 0, *statbuf={.st_size = 4096})\n"
	"expect_string(open, pathname, \"/etc/hostname\")\n"
	"expect_memory(write, buf, \"abc\", 3)\n"
	"expect_in_set(read, count, {1, 2, 3})\n"
	"expect_value(close, fd, 3)\n"
	"expect_function_call(read); expect_function_calls(close, 2); expect_no_call(unlink)\n"
	"will_fail(malloc, ENOMEM, at=\"prog+0x1234\")\n";

#define NFORMATS (MOCKSHIM_REPORT_HTML - MOCKSHIM_REPORT_TEXT + 1)
#define VIEW_EVENTS 14	/* the events made below and two free slots */

static struct ms_spec spec;
static void *chan;		/* the spec */
static unsigned char *base;	/* the state as the shims would leave it */
static unsigned char *work;	/* a run's state, before the audit's copy */
static uint64_t state_size;
static FILE *sink;

/* The parts of the state the input is XORed over, in its order. */
static struct {
	uint64_t off, len;
} view[8];
static unsigned nview;

static void view_add(uint64_t off, uint64_t len)
{
	if (off > state_size)
		abort();
	if (len > state_size - off)
		len = state_size - off;
	if (!len)
		return;
	view[nview].off = off;
	view[nview++].len = len;
}

/* data XORed over the view from its start, wrapping at its end: a part
 * at a time, a word at a time (a byte's loop was 8% of a run) */
static void view_xor(unsigned char *st, const uint8_t *data, size_t size)
{
	while (size) {
		for (unsigned i = 0; i < nview && size; i++) {
			unsigned char *p = st + view[i].off;
			size_t n = view[i].len < size ? view[i].len : size, k = 0;

			for (; k + 8 <= n; k += 8) {
				uint64_t a, b;

				memcpy(&a, p + k, 8);
				memcpy(&b, data + k, 8);
				a ^= b;
				memcpy(p + k, &a, 8);
			}
			for (; k < n; k++)
				p[k] ^= data[k];
			data += n;
			size -= n;
		}
	}
}

static struct ms_event *event(unsigned char *st, uint32_t i)
{
	const struct ms_chan_hdr *h = chan;

	return (struct ms_event *)(st + h->st_events_off) + i;
}

/* A failure is counted by its statement before its event is written
 * (decide.c's failed_of()); a failed check took its expectation's turn. */
static void count_failure(struct ms_state_hdr *st, uint16_t kind, uint32_t rule)
{
	const struct ms_chan_hdr *h = chan;
	unsigned char *b = (unsigned char *)st;
	struct ms_count_state *x = (struct ms_count_state *)(b + h->st_expects_off) + rule;
	struct ms_count_state *o = (struct ms_count_state *)(b + h->st_orders_off) + rule;

	switch (kind) {
	case MS_FAIL_CHECK:
		x->consumed++;
		x->failed++;
		break;
	case MS_FAIL_NO_EXPECT:
		x->failed++;
		break;
	case MS_FAIL_ORDER:
	case MS_FAIL_ORDER_EXTRA:
	case MS_FAIL_NO_CALL:
		o->failed++;
		break;
	default:
		((struct ms_rule_state *)(b + h->st_rules_off) + rule)->failed++;
		break;
	}
}

static void add(struct ms_state_hdr *st, uint16_t type, uint16_t kind, uint32_t rule, unsigned fn,
		const char *text)
{
	struct ms_event *e = event((unsigned char *)st, st->events_next++);

	e->state = 1;
	e->type = type;
	e->kind = kind;
	e->rule = rule;
	e->fn = (uint16_t)fn;
	e->pid = 100;
	e->tid = 100;
	e->call = 1;
	e->len = (uint32_t)strlen(text);
	memcpy(e->text, text, strlen(text));
	memcpy(e->caller, "prog", 5);
	/* failures counts only those the log had no room for: a logged
	 * failure counted there too is a state no shim leaves (tampered) */
	if (type == MS_EV_ATTACH)
		st->attached++;
	if (type == MS_EV_FAIL)
		count_failure(st, kind, rule);
}

/* a crash: its site and one frame (crash.c) */
static void add_crash(struct ms_state_hdr *st, uint16_t kind)
{
	struct ms_event *e = event((unsigned char *)st, st->events_next);

	add(st, MS_EV_CRASH, kind, UINT32_MAX, 0, "");
	e->value = 11;
	e->seq = 1;
	e->caller_off = 0x1380;
}

static void make(void)
{
	struct ms_diag d;
	struct ms_chan_hdr *h;
	struct ms_state_hdr *st;
	struct ms_rec *r;
	struct ms_rec_out *o;
	uint64_t n;

	ms_spec_init(&spec, realloc, free);
	if (ms_parse(&spec, "seed", spec_text, strlen(spec_text), &d) != 0)
		abort();
	spec.recorded[MS_ID_read] = 1;
	spec.record_cap = 1024;
	n = ms_channel_size(&spec, 32);
	chan = calloc(1, n);
	ms_channel_write(&spec, chan, n, 32, 0);
	h = chan;
	if (ms_channel_validate(chan, n))
		abort();
	state_size = h->state_size;
	base = calloc(1, state_size);
	st = (struct ms_state_hdr *)base;
	ms_state_init(h, base, 42);
	add(st, MS_EV_ATTACH, 0, UINT32_MAX, 0, "prog");
	add(st, MS_EV_CONSUME, 0, 0, ((const struct ms_rule *)ms_chan_at(h, h->rules_off))[0].stmt.fn, "");
	add(st, MS_EV_FAIL, MS_FAIL_CHECK, 0, MS_ID_open, "/etc/passwd");
	add(st, MS_EV_FAIL, MS_FAIL_CHECK, 1, MS_ID_write, "abd");
	add(st, MS_EV_FAIL, MS_FAIL_NO_EXPECT, 2, MS_ID_read, "");
	add(st, MS_EV_FAIL, MS_FAIL_ORDER, 0, MS_ID_close, "");
	add(st, MS_EV_FAIL, MS_FAIL_ORDER_EXTRA, 1, MS_ID_close, "");
	add(st, MS_EV_FAIL, MS_FAIL_NO_CALL, 2, MS_ID_unlink, "");
	add(st, MS_EV_FAIL, MS_FAIL_OUTPUT_NULL, 0, MS_ID_read, "");
	add(st, MS_EV_WARN, MS_ESC_STATIC, UINT32_MAX, MS_ID_execve, "/bin/busybox");
	add_crash(st, MS_CRASH_SITE);
	add_crash(st, MS_CRASH_FRAME);
	/* one recorded read of "hello" */
	r = (struct ms_rec *)(base + h->st_rec_off);
	r->state = 1;
	r->size = sizeof(*r) + sizeof(*o) + 8;
	r->fn = MS_ID_read;
	r->nouts = 1;
	r->pid = 100;
	r->ret = 5;
	memcpy(r->exe, "prog", 5);
	o = (struct ms_rec_out *)(r + 1);
	o->kind = MS_REC_BYTES;
	o->param = 1;
	o->len = 5;
	memcpy(o + 1, "hello", 5);
	st->rec_next = r->size;
	st->rec_seq = 1;
	/* the state as made is one a shim leaves: the input's bytes
	 * reach every reader, not the tampered run's few lines only */
	{
		struct ms_report_in in = { .spec = chan, .program = "prog" };

		in.result.exited = 1;
		if (ms_report_take_state(&in, base, state_size, 42) != 0 || in.tampered) {
			fprintf(stderr, "fuzz_report: the seed state is tampered: %s\n",
				in.tampered ? in.tampered : "no memory");
			abort();
		}
		ms_report_release(&in);
	}
	work = malloc(state_size);
	/* the reports' bytes go nowhere, a system call per 64 KiB, with
	 * no locking (one thread) */
	sink = fopen("/dev/null", "w");
	if (!work || !sink || setvbuf(sink, NULL, _IOFBF, 64 << 10) != 0)
		abort();
	__fsetlocking(sink, FSETLOCKING_BYCALLER);
	/* the header; the statements' counters (rules, expectations,
	 * call order: one stretch); the events; the first pids; the record
	 * log (and the lanes after it); declared functions' counters; the
	 * clocks.  libFuzzer's default -max_len (4096, the largest seed)
	 * reaches into the record log, past its one record; a longer
	 * input wraps over the view again. */
	view_add(0, sizeof(struct ms_state_hdr));
	view_add(h->st_rules_off, h->st_rec_off - h->st_rules_off);
	view_add(h->st_events_off, VIEW_EVENTS * sizeof(struct ms_event));
	view_add(h->st_pids_off, 16 * sizeof(int32_t));
	view_add(h->st_rec_off, state_size - h->st_rec_off);
	view_add(h->st_fns_off + (uint64_t)MS_FN_COUNT * sizeof(struct ms_fn_state),
		 (uint64_t)h->ndyn * sizeof(struct ms_fn_state));
	view_add(h->st_times_off, h->st_events_off - h->st_times_off);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ms_report_in in;

	if (!base)
		make();
	if (size < 1)
		return 0;
	/* the copy the shims would have left: the view's bytes XORed, the
	 * rest as made */
	memcpy(work, base, state_size);
	view_xor(work, data + 1, size - 1);
	memset(&in, 0, sizeof(in));
	in.spec = chan;
	in.program = "prog";
	in.result.exited = 1;
	in.verbosity = MOCKSHIM_QUIET + data[0] / NFORMATS % 3;
	if (ms_report_take_state(&in, work, state_size, 42) == 0) {
		ms_report_write(&in, sink, MOCKSHIM_REPORT_TEXT + data[0] % NFORMATS);
		(void)ms_report_failures(&in);
		(void)ms_report_consumed(&in);
		ms_record_write(chan, in.state, "prog", sink);
		ms_report_release(&in);
	}
	return 0;
}
