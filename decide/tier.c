/* SPDX-License-Identifier: MIT */
/*
 * The decision's view of the channel (tier.h): defined here, at the
 * bottom of decide/, and set up once by each tier when it attaches.
 */
#include "tier.h"

struct ms_dec ms_d = { .log_key = -1 };

void ms_dec_tables(const struct ms_chan_hdr *h, struct ms_state_hdr *state)
{
	ms_d.fns = ms_chan_at(h, h->fns_off);
	ms_d.rules = ms_chan_at(h, h->rules_off);
	ms_d.outs = ms_chan_at(h, h->outs_off);
	ms_d.expects = ms_chan_at(h, h->expects_off);
	ms_d.orders = ms_chan_at(h, h->orders_off);
	ms_d.conds = ms_chan_at(h, h->conds_off);
	ms_d.pool = ms_chan_at(h, h->pool_off);
	ms_d.dyn = ms_chan_at(h, h->dyn_off);
	ms_d.ftimes = ms_chan_at(h, h->ftimes_off);
	ms_d.fst = ms_state_at(state, h->st_fns_off);
	ms_d.rst = ms_state_at(state, h->st_rules_off);
	ms_d.xst = ms_state_at(state, h->st_expects_off);
	ms_d.ost = ms_state_at(state, h->st_orders_off);
	ms_d.events = ms_state_at(state, h->st_events_off);
	ms_d.pids = ms_state_at(state, h->st_pids_off);
	ms_d.times = ms_state_at(state, h->st_times_off);
	ms_d.lanes = h->lanes_cap ? ms_state_at(state, ms_lanes_off(h)) : NULL;
	ms_d.sites = h->sites_cap ? ms_state_at(state, ms_sites_off(h)) : NULL;
}
