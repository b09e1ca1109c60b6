/* SPDX-License-Identifier: MIT */
/*
 * The API of handler modules (include/mockshim/handler.h): a module
 * registers its functions, and its handlers pop queued values and check
 * parameters and order through the same decision as the trampolines.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <dlfcn.h>

#include "channel/channel.h"
#include "decide/decide.h"
#include "shim.h"
#include "mockshim/handler.h"

/* ---- handler modules (include/mockshim/handler.h) ---- */

#define MAX_MOCKS 512
#define HANDLER_PREFIX "mockshim_handler_"

static struct mockshim_mock *mocks[MAX_MOCKS];
static unsigned nmocks;

MS_EXPORT void *(*const mockshim_dlsym)(void *, const char *) = dlsym;

static int dyn_find(const char *name)
{
	if (!ms_channel())
		return -1;
	for (uint32_t i = 0; i < ms_d.chan->ndyn; i++)
		if (strcmp(ms_d.pool + ms_d.dyn[i].name, name) == 0)
			return (int)(MS_FN_COUNT + i);
	return -1;
}

MS_EXPORT void mockshim_register(struct mockshim_mock *m)
{
	int saved = errno, id;
	void (*missing)(void) = ms_missing_real;
	unsigned slot;

	if (m->abi != MOCKSHIM_MOCK_ABI) {
		ms_diag("warning: a handler module of another ABI: ", m->name, " stays unmocked", NULL);
		return;
	}
	ms_guard += MS_GUARD;
	ms_attach_now();
	if (!m->real.ptr) {
		ms_diag("warning: no real definition of ", m->name, " after its handler module", NULL);
		memcpy(&m->real.ptr, &missing, sizeof(m->real.ptr));
	}
	id = dyn_find(m->name);
	m->id = id < 0 ? UINT32_MAX : (unsigned)id;
	slot = __atomic_fetch_add(&nmocks, 1, __ATOMIC_ACQ_REL);
	if (slot < MAX_MOCKS)
		__atomic_store_n(&mocks[slot], m, __ATOMIC_RELEASE);
	/* armed last: from here on calls enter the handler */
	__atomic_store_n(&m->armed, id >= 0 && ms_fn_ready((unsigned)id),
			 __ATOMIC_RELEASE);
	ms_guard -= MS_GUARD;
	errno = saved;
}

/* The module function a handler (its __func__) stands for: its id, or -1. */
static int handler_id(const char *func)
{
	size_t k = sizeof(HANDLER_PREFIX) - 1;
	unsigned n = __atomic_load_n(&nmocks, __ATOMIC_ACQUIRE);

	if (!func || strncmp(func, HANDLER_PREFIX, k) != 0 || !ms_channel())
		return -1;
	for (unsigned i = 0; i < n && i < MAX_MOCKS; i++) {
		const struct mockshim_mock *m = __atomic_load_n(&mocks[i], __ATOMIC_ACQUIRE);

		if (m && m->id != UINT32_MAX && strcmp(m->name, func + k) == 0)
			return (int)m->id;
	}
	return -1;
}

static uintmax_t mock_pop(const char *func, const void *caller, int want_double);

MS_EXPORT uintmax_t mockshim_mock_value(const char *func)
{
	return mock_pop(func, MS_CALLER, 0);
}

MS_EXPORT double mockshim_mock_double(const char *func)
{
	uintmax_t bits = mock_pop(func, MS_CALLER, 1);
	int64_t b = (int64_t)bits;
	double d;

	memcpy(&d, &b, sizeof(d));
	return d;
}

/* The next queued value; a double's bits when want_double (an integer
 * value is converted), an integer otherwise (a double is truncated). */
static uintmax_t mock_pop(const char *func, const void *caller, int want_double)
{
	int saved = errno, id = handler_id(func);
	uintmax_t v = 0;
	uint32_t last = UINT32_MAX, pop;
	const struct ms_chan_fn *f;

	if (id < 0)
		return 0;
	f = &ms_d.fns[id];
	pop = ms_number_call((unsigned)id);
	for (uint32_t k = 0; k < f->nrules; k++) {
		uint32_t ri = f->first_rule + k;
		const struct ms_rule *r = &ms_d.rules[ri];

		last = ri;
		if (!ms_in_scope(&r->stmt, caller) || !ms_claim_rule(&ms_d.rst[ri].consumed, r))
			continue;
		v = (r->flags & MS_RF_STRVAL) ? (uintmax_t)(uintptr_t)(ms_d.pool + r->value_str)
					      : (uintmax_t)r->value;
		if (!(r->flags & MS_RF_DOUBLE) != !want_double) {
			double d;
			int64_t b = r->value;

			if (want_double) {
				d = (double)r->value;
				memcpy(&b, &d, sizeof(b));
			} else {
				memcpy(&d, &b, sizeof(d));
				b = (int64_t)d;
			}
			v = (uintmax_t)b;
		}
		ms_log_consume((unsigned)id, ri, 0, (int64_t)v, caller);
		goto out;
	}
	{
		/* CMocka: mock() with nothing queued fails the test */
		struct ms_failure fl = { .kind = MS_FAIL_MOCK_EMPTY, .seq = pop };

		ms_record_failure((unsigned)id, last, 0, caller, &fl);
	}
out:
	errno = saved;
	return v;
}

MS_EXPORT void mockshim_check_expected(const char *func, const char *param, uintmax_t value)
{
	int saved = errno, id = handler_id(func);
	const struct ms_chan_dyn *d;
	const char *p;
	uint8_t index = 0;

	if (id < 0)
		return;
	d = &ms_d.dyn[id - MS_FN_COUNT];
	for (p = ms_d.pool + d->params; *p; index++) {
		size_t n = 0;

		while (p[n] && p[n] != ',')
			n++;
		if (ms_slen(param) == n && strncmp(p, param, n) == 0) {
			ms_check_param((unsigned)id, index, (uint64_t)value, NULL, 0, MS_CALLER);
			goto out;
		}
		p += n + (p[n] == ',');
	}
	ms_diag("warning: check_expected(", param, "): no such parameter of ", func + sizeof(HANDLER_PREFIX) - 1, NULL);
out:
	errno = saved;
}

MS_EXPORT void mockshim_function_called(const char *func)
{
	int saved = errno, id = handler_id(func);

	if (id < 0)
		return;
	ms_check_order((unsigned)id, NULL, 0, MS_CALLER);
	errno = saved;
}

/* ---- expect_check: a check function of a handler module ---- */

#define MAX_CHECKS 256
#define CHECK_MISSING ((void *)1)

/* by expectation index: the function, CHECK_MISSING, or NULL (not looked up yet) */
static void *checks[MAX_CHECKS];

/*
 * The first call an expect_check takes looks its function up (any loaded
 * object: a handler module is preloaded after the shim), under the
 * guard: dlsym may allocate.  The check runs under the guard too, so the
 * calls it makes go to the real functions, as CMocka's run in the test.
 */
int ms_hook_check_fn(const struct ms_expect *x, uint64_t value)
{
	size_t xi = (size_t)(x - ms_d.expects);
	void *fn = xi < MAX_CHECKS ? __atomic_load_n(&checks[xi], __ATOMIC_ACQUIRE) : NULL;
	int (*check)(uintmax_t, uintmax_t);
	uintmax_t data = x->hi == 1 ? (uintmax_t)(uintptr_t)(ms_d.pool + x->lo) : (uintmax_t)x->lo;
	int ok;

	if (!fn) {
		ms_guard += MS_GUARD;
		fn = dlsym(RTLD_DEFAULT, ms_d.pool + x->data);
		ms_guard -= MS_GUARD;
		if (!fn)
			fn = CHECK_MISSING;
		if (xi < MAX_CHECKS)
			__atomic_store_n(&checks[xi], fn, __ATOMIC_RELEASE);
	}
	if (fn == CHECK_MISSING)
		return -1;
	memcpy(&check, &fn, sizeof(check));
	ms_guard += MS_GUARD;
	ok = check((uintmax_t)value, data) != 0;
	ms_guard -= MS_GUARD;
	return ok;
}
