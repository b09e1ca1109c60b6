/* SPDX-License-Identifier: MIT */
/*
 * Statements added live (mockrun ctl -e, channel.h): the rules a spec
 * has beyond those of a running channel, written into the room the
 * channel keeps for them and published to every process at once.
 * Linked into the shim too, which never calls it: its memory comes from
 * the store's allocator, not malloc (tests/preload/symbols.sh).
 */
#include <errno.h>
#include <string.h>

#include "spec.h"

/* Copies the added rules from..to (and what they name) into the spec at
 * dst, at the places h (mockrun's own copy, which the program cannot
 * reach) names. */
static void live_fill(void *dst, const struct ms_chan_hdr *h, const struct ms_spec *spec,
		      uint32_t from, uint32_t to)
{
	struct ms_rule *rules = (struct ms_rule *)((char *)dst + h->rules_off);
	char *pool = (char *)dst + h->pool_off;

	for (uint32_t j = from; j < to; j++) {
		struct ms_rule *r = &rules[h->live_first + j];

		*r = spec->rules[h->live_first + j];
		r->lean = ms_rule_lean(r);
	}
	/* outputs, conditions and strings keep their indices: the spec's
	 * sections are copied verbatim */
	if (spec->nouts > h->live_nouts)
		memcpy((struct ms_out *)((char *)dst + h->outs_off) + h->live_nouts,
		       spec->outs + h->live_nouts, (spec->nouts - h->live_nouts) * sizeof(struct ms_out));
	if (spec->nconds > h->live_nconds)
		memcpy((struct ms_cond *)((char *)dst + h->conds_off) + h->live_nconds,
		       spec->conds + h->live_nconds,
		       (spec->nconds - h->live_nconds) * sizeof(struct ms_cond));
	if (spec->pool_len + 1 > h->live_pool_size)
		memcpy(pool + h->live_pool_size - 1, spec->pool + h->live_pool_size - 1,
		       spec->pool_len + 1 - h->live_pool_size);
	pool[spec->pool_len] = '\0';
}

int ms_channel_add_live(struct ms_chan_pair *p, struct ms_chan_hdr *own, const struct ms_spec *spec,
			const char **why)
{
	struct ms_chan_hdr *copy, *rw = p->spec_rw;
	uint32_t n;

	if (!rw || !own->live_cap) {
		*why = "this run keeps no room for statements added live";
		return -EINVAL;
	}
	n = spec->nrules - own->live_first;
	if (spec->nrules < own->live_first + own->live_n || spec->nouts < own->live_nouts ||
	    spec->nconds < own->live_nconds || spec->pool_len + 1 < own->live_pool_size) {
		*why = "the statements do not follow the running ones";
		return -EINVAL;
	}
	if (n > own->live_cap || spec->nouts > own->outs_cap || spec->nconds > own->conds_cap ||
	    (uint64_t)spec->pool_len + 1 > own->pool_cap) {
		*why = "no room left for statements added live (64 rules in a run, their "
		       "outputs, conditions and 64 KiB of strings)";
		return -ENOSPC;
	}
	/* checked as a whole, as a shim checks a spec, on a copy that
	 * counts them; then written, and published */
	copy = spec->realloc_fn(NULL, p->spec_size);
	if (!copy) {
		*why = "out of memory";
		return -ENOMEM;
	}
	memcpy(copy, own, p->spec_size);
	live_fill(copy, own, spec, own->live_n, n);
	copy->nrules = own->live_first + n;
	copy->nouts = spec->nouts;
	copy->nconds = spec->nconds;
	copy->pool_size = spec->pool_len + 1;
	*why = ms_channel_validate(copy, p->spec_size);
	spec->free_fn(copy);
	if (*why)
		return -EINVAL;
	live_fill(rw, own, spec, own->live_n, n);
	live_fill(own, own, spec, own->live_n, n);
	own->live_nouts = rw->live_nouts = spec->nouts;
	own->live_nconds = rw->live_nconds = spec->nconds;
	own->live_pool_size = rw->live_pool_size = spec->pool_len + 1;
	own->live_n = n;
	__atomic_store_n(&rw->live_n, n, __ATOMIC_RELEASE);
	return 0;
}

void ms_channel_commit_live(struct ms_chan_hdr *h)
{
	h->nrules = h->live_first + h->live_n;
	h->nouts = h->live_nouts;
	h->nconds = h->live_nconds;
	h->pool_size = h->live_pool_size;
}
