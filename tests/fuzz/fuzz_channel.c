/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the channel validator.  The input is XORed over a
 * valid channel (so that mutations reach past the magic), then validated;
 * a channel the validator accepts is walked the way the shim reads it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/catalog.h"
#include "channel/channel.h"
#include "lang/lang.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char spec_text[] =
	"will_return(read, _, buf=\"hello\")\n"
	"will_fail(open, ENOENT, in=\"cat\")\n"
	"will_return(getaddrinfo, 0, *res={\"10.1.2.3\", \"::1\"})\n"
	"will_return(clock_gettime, 0, *tp={1, 2})\n"
	"expect_string(open, pathname, \"/etc/hostname\")\n"
	"expect_in_set(read, count, {1, 2, 3})\n"
	"expect_function_call(read); expect_no_call(unlink)\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static unsigned char *base;
	static uint64_t n;
	unsigned char *map;

	if (!base) {
		struct ms_spec spec;
		struct ms_diag d;

		ms_spec_init(&spec, realloc, free);
		if (ms_parse(&spec, "seed", spec_text, strlen(spec_text), &d) != 0)
			abort();
		n = ms_channel_size(&spec, 4);
		base = calloc(1, n);
		ms_channel_write(&spec, base, n, 4, 0);
		ms_spec_fini(&spec);
	}
	map = malloc(n);
	memcpy(map, base, n);
	for (size_t i = 0; i < size; i++)
		map[i % n] ^= data[i];
	/* what a shim checks, the attach then function by function, reads
	 * nothing out of bounds, and accepts all that the whole validation
	 * accepts (it may accept more: an output no rule names) */
	if (!ms_channel_validate_attach(map, n)) {
		const struct ms_chan_hdr *h = (const void *)map;
		int parts = !ms_channel_orders_ok(h);

		for (uint32_t f = 0; f < h->nfns; f++)
			parts &= !ms_channel_fn_ok(h, f);
		if (!parts && !ms_channel_validate(map, n))
			abort();
	} else if (!ms_channel_validate(map, n)) {
		abort();
	}
	if (!ms_channel_validate(map, n)) {
		/* accepted: every index the shim follows must stay inside */
		const struct ms_chan_hdr *h = (const void *)map;
		const struct ms_chan_fn *fns = ms_chan_at(h, h->fns_off);
		const struct ms_rule *rules = ms_chan_at(h, h->rules_off);
		const struct ms_out *outs = ms_chan_at(h, h->outs_off);
		unsigned sum = 0;

		for (uint32_t f = 0; f < h->nfns; f++)
			for (uint32_t k = 0; k < fns[f].nrules; k++) {
				const struct ms_rule *r = &rules[fns[f].first_rule + k];

				for (uint32_t o = 0; o < r->nouts; o++)
					sum += (unsigned char)((const char *)h + h->pool_off)[outs[r->outs_first + o].data];
				if (r->stmt.text)
					sum += (unsigned)strlen(ms_chan_str(h, r->stmt.text));
			}
		if (sum == 0xdeadbeef)
			abort(); /* keeps the reads */
	}
	free(map);
	return 0;
}
