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
 * or past its timeout= (a failure then).  errno preserved. */
MS_DEC_HIDDEN void ms_hold(unsigned id, uint32_t ri, const uint64_t *a, const void *caller,
			   uint32_t call);
/* will_signal rule ri (claimed): its turn logged, then the calling thread
 * raises the rule's signal (unblocked first).  Returns if the signal was
 * handled or ignored.  errno preserved. */
MS_DEC_HIDDEN void ms_raise(unsigned id, uint32_t ri, const uint64_t *a, const void *caller,
			    uint32_t call);

#endif
