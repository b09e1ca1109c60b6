/* SPDX-License-Identifier: MIT */
/*
 * The live side of will_hold (DESIGN.md 7.4): which threads are held,
 * releasing and killing them (mockrun ctl, the driver API, test files),
 * and, after the run, a failure for every thread that was never let go.
 * The holding side is decide/hold.c; the words they share are the
 * rule's state (hold_arrived, hold_released) and the events.
 */
#ifndef MS_HOLDS_H
#define MS_HOLDS_H

#include <stddef.h>
#include <stdint.h>

#include "channel/channel.h"

struct mockshim_session;

/* A thread held now. */
struct ms_held {
	int32_t pid, tid;
	uint32_t rule, ticket, call;
	unsigned fn;
	char name[65];			/* the hold's name= */
	char text[MS_EV_TEXT];		/* the call with its arguments */
	char caller[MS_EV_CALLER];	/* its site: object+offset (symbol) */
	uint64_t caller_off;
	char sym[MS_EV_SYM];
};

/* Whether some will_hold of the session (live ones too) is named name. */
int ms_holds_named(struct mockshim_session *s, const char *name);
/* The threads held now at the holds named name (NULL: any), up to cap
 * of them into out (which may be NULL); how many there are. */
size_t ms_holds_list(struct mockshim_session *s, const char *name, struct ms_held *out, size_t cap);
/* Lets every thread held now at name go on: how many. */
size_t ms_holds_release(struct mockshim_session *s, const char *name);
/* Sends sig to the process of every thread held now at name: how many. */
size_t ms_holds_kill(struct mockshim_session *s, const char *name, int sig);
/* "pid P tid T (COMM): CALL at SITE [hold NAME]\n" of h into buf. */
void ms_held_line(const struct ms_held *h, char *buf, size_t cap);
/* After the run (the tree is gone): a failure (MS_FAIL_HELD) for each
 * thread that came to a hold and never left it, unless ctl --kill
 * killed its process there. */
void ms_holds_settle(struct mockshim_session *s);
/* The futex word a thread that comes to or leaves a hold bumps. */
uint32_t *ms_holds_seq(struct mockshim_session *s);

#endif
