/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the statement parser, and the error formatter. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "channel/channel.h"
#include "lang/lang.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ms_spec spec;
	struct ms_diag d;
	char buf[2048];

	ms_spec_init(&spec, realloc, free);
	if (ms_parse(&spec, "fuzz", (const char *)data, size, &d) == -22 /* EINVAL */)
		ms_format_diag(buf, sizeof(buf), "fuzz", (const char *)data, size, &d);
	/* whatever parsed must lay out into a channel that validates */
	if (spec.nrules || spec.nexpects || spec.norders) {
		uint64_t n = ms_channel_size(&spec, 4);
		void *map = calloc(1, n);

		if (map) {
			ms_channel_write(&spec, map, n, 4, 0);
			if (ms_channel_validate(map, n))
				abort();
			free(map);
		}
	}
	ms_spec_fini(&spec);
	return 0;
}
