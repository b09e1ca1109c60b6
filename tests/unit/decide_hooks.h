/* SPDX-License-Identifier: MIT */
/* The unit tests' tier: the decision's hooks (decide.h), which the shim
 * (libmockshim/caller.c, reply.c, trace.c, ...) and mockrun's supervisor
 * (runner/supervise.c) each define, here as the supervisor has them, and
 * counting what they were asked. */
#ifndef MS_DECIDE_HOOKS_H
#define MS_DECIDE_HOOKS_H

struct hook_calls {
	unsigned from, caller, abort, out, value, trace, record, exec;
};
extern struct hook_calls hook_calls;

#endif
