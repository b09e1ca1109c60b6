/* SPDX-License-Identifier: MIT */
/* The unit tests' channel from statements' text: spec initialised here
 * (the caller's to fini), the channel's bytes in a calloc'd block (the
 * caller's to free), its size in *size.  After cmocka.h. */
#ifndef MS_CHAN_TEXT_H
#define MS_CHAN_TEXT_H

#include <stdlib.h>
#include <string.h>

#include "channel/channel.h"
#include "lang/lang.h"

static inline struct ms_chan_hdr *chan_from_text(struct ms_spec *spec, const char *text,
						 uint32_t events_cap, uint64_t *size)
{
	struct ms_diag d;
	struct ms_chan_hdr *h;

	ms_spec_init(spec, realloc, free);
	assert_int_equal(ms_parse(spec, "spec", text, strlen(text), &d), 0);
	*size = ms_channel_size(spec, events_cap);
	h = calloc(1, *size);
	assert_non_null(h);
	ms_channel_write(spec, h, *size, events_cap, 0);
	return h;
}

#endif
