/* SPDX-License-Identifier: MIT */
/*
 * What the decision writes into the state: the pid table, the events
 * (an attach, a turn taken, a pass-by, a failure) and the failure counts
 * beside them.  Events are taken, filled and committed; a full log costs
 * no system call.
 */
#ifndef MS_DECIDE_EVENTS_H
#define MS_DECIDE_EVENTS_H

#include <stddef.h>
#include <stdint.h>

#include "tier.h"

/* A failed check, before it is an event. */
struct ms_failure {
	uint16_t kind;
	uint8_t param, flags;
	int64_t value;
	const void *bytes;	/* actual bytes for text, nbytes of them */
	uint32_t nbytes, len, at, seq;
};

/* Records pid in the channel's table (see events.c): 1 when to announce it. */
MS_DEC_HIDDEN int ms_register_pid(int32_t pid, int announce);
/* An event slot with the common fields filled, or NULL; then ms_ev_commit. */
MS_DEC_HIDDEN struct ms_event *ms_ev_begin(uint16_t type, unsigned fn, uint32_t rule, uint32_t call);
MS_DEC_HIDDEN void ms_ev_commit(struct ms_event *e);
MS_DEC_HIDDEN void ms_log_consume(unsigned id, uint32_t ri, uint32_t call, int64_t value,
				  const void *caller);
MS_DEC_HIDDEN void ms_copy_str(char *dst, size_t cap, const char *src);
MS_DEC_HIDDEN void ms_record_failure(unsigned id, uint32_t idx, uint32_t call, const void *caller,
				     const struct ms_failure *f);
MS_DEC_HIDDEN void ms_output_null(unsigned id, uint32_t ri, uint32_t call, const void *caller,
				  uint8_t param);

#endif
