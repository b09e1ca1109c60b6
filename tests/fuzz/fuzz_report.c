/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the driver's reader of the state, which every process
 * of the run could have written anything into.  A valid spec and a state
 * with one event of each kind and a record log are made once; the input
 * is XORed over the state (header, counters, events, the log), which is
 * then audited and reported in every format at every verbosity, and
 * turned into a --record spec.  Nothing may read out of bounds.
 */
#include <stdint.h>
#include <stdio.h>
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
	"expect_function_call(read); expect_function_calls(close, 2); expect_no_call(unlink)\n";

static struct ms_spec spec;
static void *chan;		/* the spec */
static unsigned char *base;	/* the state as the shims would leave it */
static uint64_t state_size;
static FILE *sink;

static struct ms_event *event(unsigned char *st, uint32_t i)
{
	const struct ms_chan_hdr *h = chan;

	return (struct ms_event *)(st + h->st_events_off) + i;
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
	if (type == MS_EV_FAIL)
		st->failures++;
	if (type == MS_EV_ATTACH)
		st->attached++;
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
	sink = fopen("/dev/null", "w");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *st;
	struct ms_report_in in;

	if (!base)
		make();
	st = malloc(state_size);
	memcpy(st, base, state_size);
	for (size_t i = 0; i < size; i++)
		st[i % state_size] ^= data[i];
	memset(&in, 0, sizeof(in));
	in.spec = chan;
	in.program = "prog";
	in.result.exited = 1;
	if (ms_report_take_state(&in, st, state_size, 42) == 0) {
		for (int format = MOCKSHIM_REPORT_TEXT; format <= MOCKSHIM_REPORT_HTML; format++)
			for (int v = MOCKSHIM_QUIET; v <= MOCKSHIM_VERBOSE; v++) {
				in.verbosity = v;
				ms_report_write(&in, sink, format);
			}
		(void)ms_report_failures(&in);
		(void)ms_report_consumed(&in);
		ms_record_write(chan, in.state, "prog", sink);
		ms_report_release(&in);
	}
	free(st);
	return 0;
}
