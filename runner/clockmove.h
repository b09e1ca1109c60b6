/* SPDX-License-Identifier: MIT */
/*
 * A move of fake_time's clocks (clockmove.c): the values mockrun ctl's
 * --advance-time, --set-time and --rate and mockshim_session_move_time()
 * take, and why a move was refused.
 */
#ifndef MS_CLOCKMOVE_H
#define MS_CLOCKMOVE_H

#include <stddef.h>
#include <stdint.h>

struct ms_chan_hdr;
struct ms_state_hdr;

/* The time of --advance-time (an offset) or --set-time (set: WHEN, or
 * an offset from the real time) into *ns, ns since the epoch for set;
 * opt names it in the message.  0, or -1 with the message in msg. */
int ms_move_time(const char *opt, const char *arg, int set, int64_t *ns, char *msg, size_t cap);
/* A rate in 0..1000000 into *r: 0, or -1 with the message in msg. */
int ms_move_rate(const char *arg, double *r, char *msg, size_t cap);
/* Why ms_time_move() refused an advance by v ns of the clocks of spec
 * own in state (-ERANGE): where the first clock would have gone, and
 * where it stays. */
void ms_move_refused(const struct ms_chan_hdr *own, const struct ms_state_hdr *state, int64_t v, char *msg,
		     size_t cap);

#endif
