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

#include "channel.h"
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

static inline uint32_t rule_consumed(const struct ms_report_in *s, uint32_t i)
{
	return ((const struct ms_rule_state *)ms_state_at(live(s), hdr(s)->st_rules_off))[i].consumed;
}

static inline uint32_t expect_consumed(const struct ms_report_in *s, uint32_t i)
{
	return ((const struct ms_count_state *)ms_state_at(live(s), hdr(s)->st_expects_off))[i]
		.consumed;
}

static inline uint32_t order_consumed(const struct ms_report_in *s, uint32_t i)
{
	return ((const struct ms_count_state *)ms_state_at(live(s), hdr(s)->st_orders_off))[i]
		.consumed;
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
