/* SPDX-License-Identifier: MIT */
/*
 * Hold points and kill points (DESIGN.md 7.4): what a turn of will_hold
 * and of will_signal does to the calling thread.  Stands on events.h and
 * tracefmt.h; decide.c calls it from ms_answer, then goes on to the
 * function's next statement.
 *
 * +--------------------------------------------------------------------+
 * | A hold is a futex on the rule's state (struct ms_rule_state,       |
 * | hold_arrived and hold_released, in the shared state memfd): the    |
 * | thread takes ticket t = hold_arrived++, logs MS_EV_HOLD (its call,  |
 * | caller, pid and tid), bumps st->hold_seq and wakes it (mockrun's    |
 * | watcher waits there: ctl --wait-held returns at once), then waits   |
 * | on hold_released until it is past t.  mockrun ctl --release moves   |
 * | hold_released and wakes the rule's waiters.  A signal interrupts   |
 * | the wait (its handler runs in the thread) and the wait goes on; a   |
 * | fork copies only the forking thread; a holder killed never logs    |
 * | MS_EV_UNHOLD, which is how mockrun tells it after the run.         |
 * +--------------------------------------------------------------------+
 */
#ifndef MS_DECIDE_HOLD_H
#define MS_DECIDE_HOLD_H

#include <stdint.h>

#include "events.h"

/* will_hold rule ri (claimed) holds the calling thread until released
 * or past its timeout= (a failure then): 0, then the call goes on.  The
 * supervisor's tier may take the held call to answer later
 * (ms_hook_hold_defer): 1, nothing is answered now.  errno preserved. */
MS_DEC_HIDDEN int ms_hold(unsigned id, uint32_t ri, const uint64_t *a, const void *caller,
			  uint32_t call);
/* The thread of ticket t of hold ri leaves it (the supervisor's deferred
 * call, released or timed_out): its UNHOLD event, the failure of a
 * timeout, the wake-up of mockrun's watcher.  errno preserved. */
MS_DEC_HIDDEN void ms_hold_leave(unsigned id, uint32_t ri, uint32_t t, const uint64_t *a,
				 const void *caller, uint32_t call, int timed_out);
/* will_signal rule ri (claimed): its turn logged, then the calling thread
 * raises the rule's signal (unblocked first).  Returns if the signal was
 * handled or ignored.  errno preserved. */
MS_DEC_HIDDEN void ms_raise(unsigned id, uint32_t ri, const uint64_t *a, const void *caller,
			    uint32_t call);

#endif
