/* SPDX-License-Identifier: MIT */
/*
 * fake_time's WHEN: "2030-01-01 00:00:00[+02:00]", "@1700000000" or an
 * offset "+1d" (datetime.c).
 */
#ifndef MS_DATETIME_H
#define MS_DATETIME_H

#include <stddef.h>
#include <stdint.h>

/*
 * A fake clock is int64 nanoseconds since 1970: 1677-09-21 00:12:43.15 to
 * 2262-04-11 23:47:16.85 UTC.  A WHEN outside is refused; a clock that a
 * rate or a move carries past an end stops there (channel.h).
 */
#define MS_TIME_RANGE_TEXT "1677-09-21 00:12:44 to 2262-04-11 23:47:16 UTC"
/* ms_parse_when's reason for a date outside the range: the caller may
 * word it around the text ("time \"2300-01-01\" is out of range: ...") */
extern const char ms_when_out_of_range[];

/* fake_time's WHEN in [s, e) into *ns: since the epoch, or an offset when
 * *offset; NULL, or why not with *at the offending byte.  A date or
 * @SECONDS outside the range is ms_when_out_of_range, *at its first byte. */
const char *ms_parse_when(const char *s, const char *e, int64_t *ns, int *offset, const char **at);

/* now + offset into *ns: 0, or -1 when it falls outside the range (*ns
 * then the end it passed). */
int ms_when_from(int64_t now, int64_t offset, int64_t *ns);

/* Nanoseconds since the epoch as "YYYY-MM-DD HH:MM:SS" (UTC, rounded
 * down to the second) into buf (at least 32 bytes); buf.  _s: seconds
 * since the epoch, in or out of the range. */
char *ms_when_text(int64_t ns, char *buf, size_t cap);
char *ms_when_text_s(int64_t secs, char *buf, size_t cap);

#endif
