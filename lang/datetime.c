/* SPDX-License-Identifier: MIT */
/*
 * fake_time's WHEN (datetime.h): dates, seconds since the epoch, offsets.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "datetime.h"

#define NS 1000000000ll

const char ms_when_out_of_range[] =
	"out of range: a fake clock shows " MS_TIME_RANGE_TEXT " (64-bit nanoseconds since 1970)";

static int is_digit(int c)
{
	return c >= '0' && c <= '9';
}

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian). */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
	int64_t era;
	unsigned yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = (unsigned)(y - era * 400);
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

/* n digits at s as a number, or -1. */
static int64_t digits(const char *s, const char *e, unsigned n)
{
	int64_t v = 0;

	if ((size_t)(e - s) < n)
		return -1;
	for (unsigned i = 0; i < n; i++) {
		if (!is_digit((unsigned char)s[i]))
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

/* A decimal number at *p ("1", "1.5"): its value in units of 1e-9, -1
 * when there is none, -2 when it is over INT64_MAX units; *p moves past
 * it. */
static int64_t decimal_nano(const char **p, const char *e)
{
	const char *s = *p;
	int64_t whole = 0, frac = 0, scale = NS;
	int big = 0;

	if (s == e || !is_digit((unsigned char)*s))
		return -1;
	while (s < e && is_digit((unsigned char)*s)) {
		if (whole > 1000000000000ll)
			big = 1;
		else
			whole = whole * 10 + (*s - '0');
		s++;
	}
	if (s < e && *s == '.') {
		s++;
		if (s == e || !is_digit((unsigned char)*s))
			return -1;
		while (s < e && is_digit((unsigned char)*s)) {
			if (scale > 1)
				frac += (*s - '0') * (scale /= 10);
			s++;
		}
	}
	*p = s;
	if (big || whole > INT64_MAX / NS || whole * NS > INT64_MAX - frac)
		return -2;
	return whole * NS + frac;
}

/* An offset at p ("+1d", "-2h30m", "+1.5s") into *ns: NULL, or why not
 * with *at the offending byte. */
static const char *parse_offset(const char *p, const char *e, int64_t *ns, const char **at)
{
	static const struct { char u; int64_t ns; } units[] = {
		{ 'd', 86400000000000ll }, { 'h', 3600000000000ll },
		{ 'm', 60000000000ll }, { 's', 1000000000ll },
	};
	int neg = *p++ == '-';
	int64_t total = 0;
	size_t last = (size_t)-1;

	if (p == e) {
		*at = p;
		return "expected a duration after the sign (\"+1d\", \"-2h30m\", \"+1.5s\")";
	}
	while (p < e) {
		const char *num = p;
		int64_t v = decimal_nano(&p, e);
		size_t k;

		if (v < 0) {
			*at = num;
			return v == -2 ? "offset too large"
				       : "expected a number (an offset is \"+1d\", \"-2h30m\", \"+90s\")";
		}
		for (k = 0; k < sizeof(units) / sizeof(units[0]); k++)
			if (p < e && *p == units[k].u)
				break;
		if (k == sizeof(units) / sizeof(units[0])) {
			*at = p;
			return "expected a unit: d, h, m or s (\"+1d\", \"-2h30m\", \"+90s\")";
		}
		if (last != (size_t)-1 && k <= last) {
			*at = p;
			return "units go from the largest to the smallest, once each (\"1d2h\")";
		}
		last = k;
		/* v is in 1e-9 of the unit */
		if (v / 1000000000 > INT64_MAX / units[k].ns / 2) {
			*at = num;
			return "offset too large";
		}
		/* each unit is under INT64_MAX / 2, their sum may not be */
		if (__builtin_add_overflow(total, v / NS * units[k].ns +
					   (int64_t)((double)(v % NS) * ((double)units[k].ns / 1e9)),
					   &total)) {
			*at = num;
			return "offset too large";
		}
		p++;
	}
	*ns = neg ? -total : total;
	return NULL;
}

/* A date at p ("2030-01-01", "2030-01-01 00:00:00.5+02:00") into *ns:
 * NULL, or why not with *at the offending byte. */
static const char *parse_date(const char *p, const char *e, int64_t *ns, const char **at)
{
	const char *start = p;
	int64_t y = digits(p, e, 4), mo, d, h = 0, mi = 0, sec = 0, frac = 0, zone = 0;
	static const unsigned mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };

	if (y < 0 || p + 4 >= e || p[4] != '-')
		return "expected a date \"YYYY-MM-DD[ HH:MM:SS[+HH:MM]]\", \"@SECONDS\" or an "
		       "offset \"+1d\"";
	p += 5;
	*at = p;
	mo = digits(p, e, 2);
	if (mo < 1 || mo > 12 || p + 2 >= e || p[2] != '-')
		return "expected the month, 01 to 12, then '-'";
	p += 3;
	*at = p;
	d = digits(p, e, 2);
	if (d < 1 || d > mdays[mo - 1] ||
	    (mo == 2 && d == 29 && (y % 4 || (y % 100 == 0 && y % 400))))
		return "no such day in that month";
	p += 2;
	if (p < e && (*p == ' ' || *p == 'T')) {
		p++;
		*at = p;
		h = digits(p, e, 2);
		if (h < 0 || h > 23 || p + 2 >= e || p[2] != ':')
			return "expected the hour, 00 to 23, then ':'";
		p += 3;
		*at = p;
		mi = digits(p, e, 2);
		if (mi < 0 || mi > 59)
			return "expected the minutes, 00 to 59";
		p += 2;
		if (p < e && *p == ':') {
			p++;
			*at = p;
			sec = digits(p, e, 2);
			if (sec < 0 || sec > 60)
				return "expected the seconds, 00 to 60";
			p += 2;
			if (p < e && *p == '.') {
				p++;
				for (int64_t scale = 100000000; p < e && is_digit((unsigned char)*p);
				     p++, scale /= 10)
					frac += (*p - '0') * scale;
			}
		}
		*at = p;
		if (p < e && *p == 'Z') {
			p++;
		} else if (p < e && (*p == '+' || *p == '-')) {
			int64_t zh = digits(p + 1, e, 2), zm;

			if (zh < 0 || zh > 14 || p + 3 >= e || p[3] != ':' ||
			    (zm = digits(p + 4, e, 2)) < 0 || zm > 59)
				return "expected a zone +HH:MM or -HH:MM (or Z)";
			zone = (zh * 3600 + zm * 60) * (*p == '-' ? -1 : 1);
			p += 6;
		}
	}
	if (p != e) {
		*at = p;
		return *p == ' ' ? "no space before the zone (\"2030-01-01 00:00:00+02:00\")"
				 : "unexpected text after the time";
	}
	/* a four-digit year's seconds fit; their nanoseconds may not */
	if (__builtin_mul_overflow(days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400 + h * 3600 +
					   mi * 60 + sec - zone,
				   NS, ns) ||
	    __builtin_add_overflow(*ns, frac, ns)) {
		*at = start;
		return ms_when_out_of_range;
	}
	return NULL;
}

/*
 * WHEN into *ns (since the epoch, or an offset when *offset): NULL, or
 * why not with *at the offending byte.
 */
const char *ms_parse_when(const char *s, const char *e, int64_t *ns, int *offset, const char **at)
{
	const char *p = s;

	*offset = 0;
	*at = s;
	if (p == e)
		return "an empty time (\"2030-01-01 00:00:00\", \"@1700000000\" or \"+1d\")";
	if (*p == '@') {
		int neg = ++p < e && *p == '-';
		int64_t v;

		p += neg;
		*at = p;
		v = decimal_nano(&p, e);
		if (v == -2 && p == e) {
			*at = s;
			return ms_when_out_of_range;
		}
		if (v < 0 || p != e) {
			*at = v < 0 ? *at : p;
			return "expected seconds since the epoch after '@' (\"@1700000000.25\")";
		}
		*ns = neg ? -v : v;
		return NULL;
	}
	if (*p == '+' || *p == '-') {
		const char *why = parse_offset(p, e, ns, at);

		*offset = !why;
		return why;
	}
	return parse_date(p, e, ns, at);
}

int ms_when_from(int64_t now, int64_t offset, int64_t *ns)
{
	if (__builtin_add_overflow(now, offset, ns)) {
		*ns = offset > 0 ? INT64_MAX : INT64_MIN;
		return -1;
	}
	return 0;
}

char *ms_when_text_s(int64_t secs, char *buf, size_t cap)
{
	/* floor division, then days to y-m-d (the inverse of days_from_civil) */
	int64_t days = secs / 86400 - (secs % 86400 < 0), rem = secs - days * 86400;
	int64_t z = days + 719468, era = (z >= 0 ? z : z - 146096) / 146097, y;
	unsigned doe = (unsigned)(z - era * 146097);
	unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153;
	unsigned d = doy - (153 * mp + 2) / 5 + 1, m = mp < 10 ? mp + 3 : mp - 9;

	y = (int64_t)yoe + era * 400 + (m <= 2);
	snprintf(buf, cap, "%04lld-%02u-%02u %02u:%02u:%02u", (long long)y, m, d,
		 (unsigned)(rem / 3600), (unsigned)(rem / 60 % 60), (unsigned)(rem % 60));
	return buf;
}

char *ms_when_text(int64_t ns, char *buf, size_t cap)
{
	return ms_when_text_s(ns / NS - (ns % NS < 0), buf, cap);
}
