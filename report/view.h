/* SPDX-License-Identifier: MIT */
/*
 * The driver's view of a run, shared by the report writers and the audit
 * of the state (audit.c): static data (statements, strings) comes from
 * the spec, which is sealed; the counters and the events from a private
 * copy of the state, audited once (ms_report_take_state): the programs
 * could have written anything there, and every field read through these
 * has been bounded by then.
 */
#ifndef MS_VIEW_H
#define MS_VIEW_H

#include <stdint.h>

#include "channel/channel.h"
#include "report.h"

static inline const struct ms_chan_hdr *hdr(const struct ms_report_in *s)
{
	return s->spec;
}

static inline const struct ms_state_hdr *live(const struct ms_report_in *s)
{
	return s->state;
}

static inline const struct ms_rule *rule_at(const struct ms_report_in *s, uint32_t i)
{
	return (const struct ms_rule *)ms_chan_at(hdr(s), hdr(s)->rules_off) + i;
}

static inline const struct ms_event *event_at(const struct ms_report_in *s, uint32_t i)
{
	return (const struct ms_event *)ms_state_at(live(s), hdr(s)->st_events_off) + i;
}

static inline uint32_t nevents(const struct ms_report_in *s)
{
	uint32_t n = live(s)->events_next;

	return n < hdr(s)->events_cap ? n : hdr(s)->events_cap;
}

/* Whether the state copy's n bytes at off were read from the memfd: the
 * rest is zeros never touched, and kept so (a read would make the pages
 * resident: a large spec's counters, of which a run writes few). */
static inline int state_held(const struct ms_report_in *s, uint64_t off, uint64_t n)
{
	uint64_t a = off / MS_HELD_PAGE, b = (off + n - 1) / MS_HELD_PAGE;

	return !s->held || ((s->held[a / 8] >> (a % 8) & 1) && (s->held[b / 8] >> (b % 8) & 1));
}

/* n (<= 64) bytes of the state copy at off, or as many zeros where no
 * process wrote them */
static inline const void *state_read(const struct ms_report_in *s, uint64_t off, uint64_t n)
{
	static const uint64_t zeros[8];

	return state_held(s, off, n) ? ms_state_at(live(s), off) : (const void *)zeros;
}

static inline const struct ms_rule_state *rule_state_at(const struct ms_report_in *s, uint32_t i)
{
	return state_read(s, hdr(s)->st_rules_off + (uint64_t)i * sizeof(struct ms_rule_state),
			  sizeof(struct ms_rule_state));
}

static inline const struct ms_count_state *count_state_at(const struct ms_report_in *s,
							  uint64_t off, uint32_t i)
{
	return state_read(s, off + (uint64_t)i * sizeof(struct ms_count_state),
			  sizeof(struct ms_count_state));
}

static inline uint32_t rule_consumed(const struct ms_report_in *s, uint32_t i)
{
	return rule_state_at(s, i)->consumed;
}

static inline uint32_t expect_consumed(const struct ms_report_in *s, uint32_t i)
{
	return count_state_at(s, hdr(s)->st_expects_off, i)->consumed;
}

static inline uint32_t order_consumed(const struct ms_report_in *s, uint32_t i)
{
	return count_state_at(s, hdr(s)->st_orders_off, i)->consumed;
}

static inline const struct ms_ftime *ftime_at(const struct ms_report_in *s, uint32_t i)
{
	return (const struct ms_ftime *)ms_chan_at(hdr(s), hdr(s)->ftimes_off) + i;
}

static inline const struct ms_time_state *time_state_at(const struct ms_report_in *s, uint32_t i)
{
	return (const struct ms_time_state *)ms_state_at(live(s), hdr(s)->st_times_off) + i;
}

static inline const struct ms_expect *expect_at(const struct ms_report_in *s, uint32_t i)
{
	return (const struct ms_expect *)ms_chan_at(hdr(s), hdr(s)->expects_off) + i;
}

static inline const struct ms_order *order_at(const struct ms_report_in *s, uint32_t i)
{
	return (const struct ms_order *)ms_chan_at(hdr(s), hdr(s)->orders_off) + i;
}

static inline const char *str(const struct ms_report_in *s, uint32_t off)
{
	const char *p = ms_chan_str(hdr(s), off);

	return p ? p : "";
}

#endif
