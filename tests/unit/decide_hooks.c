/* SPDX-License-Identifier: MIT */
/* The decision's hooks for the unit tests (decide_hooks.h). */
#include <stdint.h>

#include "channel/channel.h"
#include "decide/decide.h"
#include "decide_hooks.h"

struct hook_calls hook_calls;

int ms_hook_from(uint32_t from_glob, const void *caller)
{
	(void)from_glob, (void)caller;
	hook_calls.from++;
	return 0;
}

void ms_hook_caller(const void *caller, struct ms_event *e)
{
	hook_calls.caller++;
	e->caller_off = (uint64_t)(uintptr_t)caller;
	ms_copy_str(e->caller, MS_EV_CALLER, ms_d.exe_name);
}

/* A site for at=: "unit" and the caller's value as the offset (0: none). */
int ms_hook_site(const void *caller, char *obj, size_t cap, uint64_t *off)
{
	if (!caller)
		return -1;
	ms_copy_str(obj, cap, "unit");
	*off = (uint64_t)(uintptr_t)caller;
	return 0;
}

int ms_hook_hold_gone(void)
{
	return 0;
}

int ms_hook_hold_defer(uint32_t ri, uint32_t t, uint32_t call)
{
	(void)ri, (void)t, (void)call;
	return 0;
}

void ms_hook_power_cut(const void *caller)
{
	(void)caller;
}

void ms_hook_abort(void)
{
	hook_calls.abort++;
}

int ms_hook_out(unsigned id, uint32_t ri, const struct ms_rule *r, const struct ms_out *o,
		const uint64_t *a, uint32_t call, const void *caller)
{
	(void)id, (void)ri, (void)r, (void)o, (void)a, (void)call, (void)caller;
	hook_calls.out++;
	return 0;
}

int64_t ms_hook_value(const struct ms_rule *r, const uint64_t *a, int64_t v)
{
	(void)r, (void)a;
	hook_calls.value++;
	return v;
}

void ms_hook_trace_call(unsigned id, const uint64_t *a, int64_t ret, int err, const char *by,
		   const char *passed_by, const void *caller)
{
	(void)id, (void)a, (void)ret, (void)err, (void)by, (void)passed_by, (void)caller;
	hook_calls.trace++;
}

void ms_hook_trace_decl(const struct ms_chan_dyn *d, const char *pool, const uint64_t *a, uint64_t ret,
		   const char *by, const void *caller)
{
	(void)d, (void)pool, (void)a, (void)ret, (void)by, (void)caller;
	hook_calls.trace++;
}

void ms_hook_trace_exec(unsigned id, const uint64_t *a, const void *caller)
{
	(void)id, (void)a, (void)caller;
	hook_calls.trace++;
}

void ms_hook_record_call(const struct ms_chan_hdr *h, struct ms_state_hdr *st, unsigned id,
		    const uint64_t *a, int64_t ret, int err)
{
	(void)h, (void)st, (void)id, (void)a, (void)ret, (void)err;
	hook_calls.record++;
}

int ms_hook_check_fn(const struct ms_expect *x, uint64_t value)
{
	(void)x;
	return value != 0;
}

void ms_hook_exec_check(unsigned id, const uint64_t *a)
{
	(void)id, (void)a;
	hook_calls.exec++;
}
