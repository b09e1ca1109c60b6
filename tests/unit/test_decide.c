/* SPDX-License-Identifier: MIT */
/* The decision (decide/decide.h's ms_decide, as the tiers call it) on a
 * channel built from statements' text, with the unit tests' hooks
 * (decide_hooks.c): when() aims a statement at some calls; a call that
 * it passes by goes on to the next statement or the real function, is
 * counted in the statement's state (rules, expectations) and leaves
 * the first MS_PASSBY_LOGGED of them as events with what it saw; on
 * every path of the decision (the lean one, the checked one, -v's). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "catalog/catalog.h"
#include "channel/channel.h"
#include "chan_text.h"
#include "decide/decide.h"
#include "decide_hooks.h"
#include "lang/lang.h"

#define EVENTS 64

/* A channel and its state, as a tier attaches them (ms_d). */
struct run {
	struct ms_spec spec;
	struct ms_chan_hdr *h;
	struct ms_state_hdr *st;
	struct ms_dec saved;
};

static void run_start(struct run *r, const char *text, uint32_t flags)
{
	uint64_t size;

	r->h = chan_from_text(&r->spec, text, EVENTS, &size);
	if (flags) {
		/* -v: written again with the flag */
		memset(r->h, 0, size);
		ms_channel_write(&r->spec, r->h, size, EVENTS, flags);
	}
	assert_null(ms_channel_validate(r->h, size));
	r->st = calloc(1, r->h->state_size);
	assert_non_null(r->st);
	ms_state_init(r->h, r->st, 0x1234abcdull);
	r->saved = ms_d;
	ms_dec_tables(r->h, r->st);
	ms_d.self_pid = ms_d.my_pid = (int32_t)getpid();
	ms_d.log_key = (r->h->flags & MS_CHAN_LOG_CALLS) ? -1 : ms_d.self_pid;
	ms_copy_str(ms_d.exe_name, sizeof(ms_d.exe_name), "test_decide");
	ms_d.chan = r->h;
	ms_d.st = r->st;
	memset(&hook_calls, 0, sizeof(hook_calls));
}

static void run_end(struct run *r)
{
	ms_d = r->saved;
	free(r->st);
	free(r->h);
	ms_spec_fini(&r->spec);
}

/* A call of function id: ms_decide's answer (1 replied, 0 or 2 the real
 * call), the reply in *ret and errno in *err (0: not set). */
static int call(unsigned id, uint64_t a0, uint64_t a1, uint64_t a2, int64_t *ret, int *err)
{
	uint64_t a[3] = { a0, a1, a2 };
	int k;

	*ret = 0x7777;
	errno = 0;
	k = ms_decide(id, a, ret, (const void *)(uintptr_t)0x401234);
	*err = errno;
	return k;
}

static const struct ms_rule_state *rule_state(unsigned id, unsigned k)
{
	return &ms_d.rst[ms_d.fns[id].first_rule + k];
}

/* The events of type type so far, the first in *first. */
static unsigned events(uint16_t type, const struct ms_event **first)
{
	uint32_t n = ms_d.st->events_next;
	unsigned count = 0;

	if (first)
		*first = NULL;
	for (uint32_t i = 0; i < n && i < EVENTS; i++) {
		if (ms_d.events[i].type != type)
			continue;
		assert_int_equal(ms_d.events[i].state, 1);
		if (first && !count)
			*first = &ms_d.events[i];
		count++;
	}
	return count;
}

/* ---- an fd's path (a text condition: decide_from's, never inline) ---- */

static void test_fd_path_passby(void **state)
{
	char dir[256], log_path[300], txt_path[300];
	const char *base = getenv("TMPDIR");
	const struct ms_event *e;
	struct run r;
	int64_t ret;
	int err, log, txt;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/test_decide.XXXXXX", base && *base ? base : "/tmp");
	assert_non_null(mkdtemp(dir));
	snprintf(log_path, sizeof(log_path), "%s/app.log", dir);
	snprintf(txt_path, sizeof(txt_path), "%s/app.txt", dir);
	log = open(log_path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	txt = open(txt_path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	assert_true(log >= 0 && txt >= 0);

	run_start(&r, "will_fail(write, ENOSPC, when(fd ~ \"*.log\"))\n", 0);
	/* another file: the real call, counted as a pass-by, logged with
	 * the path it had */
	assert_int_equal(call(MS_ID_write, (uint64_t)txt, 0, 1, &ret, &err), 0);
	assert_int_equal(ret, 0x7777);
	assert_int_equal(err, 0);
	assert_int_equal(rule_state(MS_ID_write, 0)->passed, 1);
	assert_int_equal(rule_state(MS_ID_write, 0)->consumed, 0);
	assert_int_equal(events(MS_EV_PASSBY, &e), 1);
	assert_int_equal(e->fn, MS_ID_write);
	assert_int_equal(e->rule, ms_d.fns[MS_ID_write].first_rule);
	assert_int_equal(e->kind, 0);	/* a rule */
	assert_int_equal(e->param, 0);
	assert_int_equal(e->value, txt);
	assert_true(e->flags & MS_EVF_TEXT);
	assert_string_equal(e->text, txt_path);
	assert_int_equal(e->pid, getpid());
	assert_int_equal(e->len, strlen(txt_path));

	/* the log: replied, a turn taken, no pass-by more */
	assert_int_equal(call(MS_ID_write, (uint64_t)log, 0, 1, &ret, &err), 1);
	assert_int_equal(ret, -1);
	assert_int_equal(err, ENOSPC);
	assert_int_equal(rule_state(MS_ID_write, 0)->consumed, 1);
	assert_int_equal(rule_state(MS_ID_write, 0)->passed, 1);
	assert_int_equal(events(MS_EV_CONSUME, &e), 1);
	assert_int_equal(e->value, -1);

	/* its one turn taken: the real call, which is no pass-by */
	assert_int_equal(call(MS_ID_write, (uint64_t)log, 0, 1, &ret, &err), 0);
	assert_int_equal(err, 0);
	assert_int_equal(rule_state(MS_ID_write, 0)->consumed, 1);
	assert_int_equal(rule_state(MS_ID_write, 0)->passed, 1);
	assert_int_equal(events(MS_EV_PASSBY, NULL), 1);
	/* nothing failed, nothing traced */
	assert_int_equal(events(MS_EV_FAIL, NULL), 0);
	assert_int_equal(hook_calls.trace + hook_calls.abort + hook_calls.caller, 0);
	run_end(&r);

	close(log);
	close(txt);
	unlink(log_path);
	unlink(txt_path);
	rmdir(dir);
}

/* ---- integer conditions, on each path of the decision ---- */

/* What else the channel has decides the path: nothing (the lean path,
 * MS_FF_LEAN_AIMED, which tests integers inline), an expectation of the
 * function (ms_decide_checked), -v (the general loop, every call
 * numbered).  The counts are the same on each. */
static const struct {
	int expect;		/* expect_any() of the function too */
	uint32_t flags, fn_flags;
} paths[] = {
	{ 0, 0, MS_FF_LEAN_AIMED },
	{ 1, 0, 0 },
	{ 0, MS_CHAN_LOG_CALLS, 0 },
};

/* The statements stmts on path p, into text; fn_param: expect_any's. */
static void on_path(char *text, size_t cap, const char *stmts, size_t p, const char *fn_param)
{
	snprintf(text, cap, "%s%s%s%s", stmts, paths[p].expect ? "expect_any(" : "",
		 paths[p].expect ? fn_param : "", paths[p].expect ? ")\n" : "");
}

static void test_set_passby_to_next_rule(void **state)
{
	(void)state;
	for (size_t p = 0; p < sizeof(paths) / sizeof(paths[0]); p++) {
		char text[256];
		const struct ms_event *e;
		struct run r;
		int64_t ret;
		int err;

		on_path(text, sizeof(text),
			"will_fail_count(write, EIO, -1, when(fd in {1, 2}))\n"
			"will_return_always(write, 7)\n",
			p, "write, count");
		run_start(&r, text, paths[p].flags);
		assert_int_equal(ms_d.fns[MS_ID_write].flags, paths[p].fn_flags);
		/* fd 3: passed by the first, answered by the second */
		assert_int_equal(call(MS_ID_write, 3, 0, 9, &ret, &err), 1);
		assert_int_equal(ret, 7);
		assert_int_equal(rule_state(MS_ID_write, 0)->passed, 1);
		assert_int_equal(rule_state(MS_ID_write, 0)->consumed, 0);
		assert_int_equal(rule_state(MS_ID_write, 1)->consumed, 1);
		assert_int_equal(events(MS_EV_PASSBY, &e), 1);
		assert_int_equal(e->param, 0);
		assert_int_equal(e->value, 3);
		assert_false(e->flags & MS_EVF_TEXT);
		/* in the set: the first's */
		assert_int_equal(call(MS_ID_write, 2, 0, 9, &ret, &err), 1);
		assert_int_equal(ret, -1);
		assert_int_equal(err, EIO);
		assert_int_equal(call(MS_ID_write, 1, 0, 9, &ret, &err), 1);
		assert_int_equal(err, EIO);
		assert_int_equal(rule_state(MS_ID_write, 0)->consumed, 2);
		assert_int_equal(rule_state(MS_ID_write, 0)->passed, 1);
		/* an int's upper half is no part of the fd */
		assert_int_equal(call(MS_ID_write, 0xffffffff00000000ull, 0, 9, &ret, &err), 1);
		assert_int_equal(ret, 7);
		assert_int_equal(rule_state(MS_ID_write, 0)->passed, 2);
		assert_int_equal(rule_state(MS_ID_write, 1)->consumed, 2);
		/* -v numbers every call */
		if (paths[p].flags & MS_CHAN_LOG_CALLS)
			assert_int_equal(ms_d.fst[MS_ID_write].calls, 4);
		run_end(&r);
	}
}

static void test_bits_passby(void **state)
{
	(void)state;
	for (size_t p = 0; p < sizeof(paths) / sizeof(paths[0]); p++) {
		char text[256];
		struct run r;
		int64_t ret;
		int err;

		on_path(text, sizeof(text), "will_fail(open, EACCES, when(flags & O_CREAT))\n", p,
			"open, pathname");
		run_start(&r, text, paths[p].flags);
		assert_int_equal(ms_d.fns[MS_ID_open].flags, paths[p].fn_flags);
		assert_int_equal(call(MS_ID_open, (uint64_t)(uintptr_t)"f", O_RDONLY, 0, &ret, &err), 0);
		assert_int_equal(call(MS_ID_open, (uint64_t)(uintptr_t)"f", O_WRONLY | O_TRUNC, 0, &ret,
				      &err), 0);
		assert_int_equal(rule_state(MS_ID_open, 0)->passed, 2);
		assert_int_equal(call(MS_ID_open, (uint64_t)(uintptr_t)"f", O_WRONLY | O_CREAT, 0600,
				      &ret, &err), 1);
		assert_int_equal(ret, -1);
		assert_int_equal(err, EACCES);
		assert_int_equal(rule_state(MS_ID_open, 0)->consumed, 1);
		assert_int_equal(rule_state(MS_ID_open, 0)->passed, 2);
		run_end(&r);
	}
}

/* Every pass-by is counted; the first MS_PASSBY_LOGGED are events. */
static void test_passby_counted_past_the_log(void **state)
{
	const struct ms_event *e;
	struct run r;
	int64_t ret;
	int err;

	(void)state;
	run_start(&r, "will_fail(close, EBADF, when(fd == 99))\n", 0);
	for (uint64_t fd = 0; fd < 3 * MS_PASSBY_LOGGED; fd++)
		assert_int_equal(call(MS_ID_close, fd, 0, 0, &ret, &err), 0);
	assert_int_equal(rule_state(MS_ID_close, 0)->passed, 3 * MS_PASSBY_LOGGED);
	assert_int_equal(events(MS_EV_PASSBY, &e), MS_PASSBY_LOGGED);
	assert_int_equal(e->value, 0);
	assert_int_equal(e[MS_PASSBY_LOGGED - 1].value, MS_PASSBY_LOGGED - 1);
	assert_int_equal(call(MS_ID_close, 99, 0, 0, &ret, &err), 1);
	assert_int_equal(err, EBADF);
	assert_int_equal(rule_state(MS_ID_close, 0)->consumed, 1);
	assert_int_equal(rule_state(MS_ID_close, 0)->passed, 3 * MS_PASSBY_LOGGED);
	run_end(&r);
}

/* An expectation aimed by when(): a call it passes by is counted in its
 * state and is not checked; a call it is for is. */
static void test_expectation_passby(void **state)
{
	const struct ms_event *e;
	struct run r;
	int64_t ret;
	int err;

	(void)state;
	run_start(&r, "expect_value(write, count, 5, when(fd == 1))\n", 0);
	assert_int_equal(call(MS_ID_write, 2, 0, 9, &ret, &err), 0);
	assert_int_equal(ms_d.xst[ms_d.fns[MS_ID_write].first_expect].passed, 1);
	assert_int_equal(ms_d.xst[ms_d.fns[MS_ID_write].first_expect].consumed, 0);
	assert_int_equal(events(MS_EV_FAIL, NULL), 0);
	assert_int_equal(events(MS_EV_PASSBY, &e), 1);
	assert_int_equal(e->kind, 1);	/* an expectation */
	assert_int_equal(e->value, 2);
	/* for it, and not the value: a failure, with its caller */
	assert_int_equal(call(MS_ID_write, 1, 0, 6, &ret, &err), 0);
	assert_int_equal(ms_d.xst[ms_d.fns[MS_ID_write].first_expect].passed, 1);
	assert_int_equal(events(MS_EV_FAIL, &e), 1);
	assert_int_equal(e->param, 2);
	assert_int_equal(e->value, 6);
	assert_int_equal(e->caller_off, 0x401234);
	assert_string_equal(e->caller, "test_decide");
	assert_int_equal(hook_calls.caller, 1);
	run_end(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fd_path_passby),
		cmocka_unit_test(test_set_passby_to_next_rule),
		cmocka_unit_test(test_bits_passby),
		cmocka_unit_test(test_passby_counted_past_the_log),
		cmocka_unit_test(test_expectation_passby),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
