/* SPDX-License-Identifier: MIT */
/*
 * fake_time's WHEN: "2030-01-01 00:00:00[+02:00]", "@1700000000" or an
 * offset "+1d" (datetime.c).
 */
#ifndef MS_DATETIME_H
#define MS_DATETIME_H

#include <stdint.h>

/* fake_time's WHEN in [s, e) into *ns: since the epoch, or an offset when
 * *offset; NULL, or why not with *at the offending byte. */
const char *ms_parse_when(const char *s, const char *e, int64_t *ns, int *offset, const char **at);

#endif
