/* SPDX-License-Identifier: MIT */
/*
 * A move of fake_time's clocks as mockrun ctl (--advance-time,
 * --set-time, --rate) and mockshim_session_move_time() ask it: the
 * values, read the same by both, and why a move was refused.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "channel/channel.h"
#include "clockmove.h"
#include "lang/lang.h"

/*
 * The time of --advance-time (an offset) or --set-time (WHEN, or an
 * offset from the real time) into *ns, ns since the epoch for set; a bad
 * one is -1 with the message, and a caret under it, in msg.
 */
int ms_move_time(const char *opt, const char *arg, int set, int64_t *ns, char *msg, size_t cap)
{
	const char *at, *why;
	int offset;

	why = ms_parse_when(arg, arg + strlen(arg), ns, &offset, &at);
	if (!why && !set && !offset)
		why = "expected an offset (\"+1h\", \"-30s\", \"+1d\"); --set-time takes a date", at = arg;
	if (why) {
		snprintf(msg, cap, "%s: %s\n  %s\n  %*s^\n", opt, why, arg, (int)(at - arg), "");
		return -1;
	}
	if (set && offset) {
		struct timespec t;

		clock_gettime(CLOCK_REALTIME, &t);
		if (ms_when_from((int64_t)t.tv_sec * 1000000000 + t.tv_nsec, *ns, ns) < 0) {
			snprintf(msg, cap, "%s: %s, and this offset from now is past it\n  %s\n  ^\n", opt,
				 ms_when_out_of_range, arg);
			return -1;
		}
	}
	return 0;
}

/* A rate in 0..1000000 into *r; a bad one is -1 with the message in msg. */
int ms_move_rate(const char *arg, double *r, char *msg, size_t cap)
{
	char *end;

	*r = arg ? strtod(arg, &end) : -1;
	if (!arg || *end || end == arg || !(*r >= 0 && *r <= 1e6)) {
		snprintf(msg, cap, "--rate: '%s' is not a rate in 0..1000000\n", arg ? arg : "");
		return -1;
	}
	return 0;
}

/* Why an advance by v ns was refused (ms_time_move's -ERANGE): where
 * the first clock would have gone, and where it stays. */
void ms_move_refused(const struct ms_chan_hdr *own, const struct ms_state_hdr *state, int64_t v, char *msg,
		     size_t cap)
{
	const struct ms_time_state *ts = ms_state_at(state, own->st_times_off);
	struct ms_time_now n;
	struct timespec now;
	char would[32], stays[32];
	int64_t f;

	ms_time_read(&ts[0], &n);
	clock_gettime(CLOCK_REALTIME, &now);
	f = ms_time_fake(&n, MS_TC_REALTIME, (int64_t)now.tv_sec * 1000000000 + now.tv_nsec);
	/* in seconds the sum fits */
	ms_when_text_s(f / 1000000000 + v / 1000000000, would, sizeof(would));
	snprintf(msg, cap,
		 "--advance-time: the clock would show %s UTC, past the %s of its range (a fake "
		 "clock shows " MS_TIME_RANGE_TEXT "); the clock is left at %s UTC\n",
		 would, v > 0 ? "end" : "start", ms_when_text(f, stays, sizeof(stays)));
}
