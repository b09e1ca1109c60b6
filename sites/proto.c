/* SPDX-License-Identifier: MIT */
/* The protocol's pieces, shared by mockrun's client and the helper. */
#include <stdlib.h>
#include <string.h>

#include "sites.h"

static int is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

size_t ms_site_parse(const char *s, char *obj, size_t objlen, uint64_t *off)
{
	size_t end = strcspn(s, " \t\n"), plus = 0, i;
	uint64_t v = 0;

	/* the last "+0x" of the word: object names may hold '+' (libstdc++) */
	for (i = 0; i + 3 <= end; i++)
		if (s[i] == '+' && s[i + 1] == '0' && s[i + 2] == 'x')
			plus = i;
	if (plus == 0 || plus + 3 >= end || plus >= objlen)
		return 0;
	for (i = plus + 3; i < end; i++) {
		if (!is_hex(s[i]) || i - plus - 3 >= 16)
			return 0;
		v = v << 4 | (uint64_t)(s[i] <= '9' ? s[i] - '0' : (s[i] | 0x20) - 'a' + 10);
	}
	memcpy(obj, s, plus);
	obj[plus] = '\0';
	*off = v;
	return end;
}

const char *ms_site_in_line(const char *line, size_t len)
{
	const char *at;
	char obj[256];
	uint64_t off;

	while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
		len--;
	/* " at " then one word to the line's end */
	for (size_t i = len; i-- > 0;) {
		if (line[i] == ' ' && i >= 3 && memcmp(line + i - 3, " at", 3) == 0) {
			at = line + i + 1;
			if (ms_site_parse(at, obj, sizeof(obj), &off) == (size_t)(line + len - at))
				return at;
			return NULL;
		}
		if (line[i] == ' ')
			return NULL;
	}
	return NULL;
}

static int hex_word(const char **p, uint64_t *v)
{
	char *end;

	if ((*p)[0] != '0' || (*p)[1] != 'x')
		return -1;
	*v = strtoull(*p, &end, 16);
	if (end == *p + 2)
		return -1;
	*p = end;
	return 0;
}

int ms_sym_parse_range(const char *line, struct ms_sym_range *r)
{
	const char *p, *sp;

	if (strncmp(line, "range ", 6) != 0)
		return -1;
	p = line + 6;
	sp = strchr(p, ' ');
	if (!sp || sp == p || (size_t)(sp - p) >= sizeof(r->object))
		return -1;
	memcpy(r->object, p, (size_t)(sp - p));
	r->object[sp - p] = '\0';
	p = sp + 1;
	if (hex_word(&p, &r->lo) < 0 || *p++ != ' ' || hex_word(&p, &r->hi) < 0)
		return -1;
	if (*p && *p != '\n')
		return -1;
	return r->lo <= r->hi ? 0 : -1;
}

int ms_sym_parse_end(const char *line, const char **msg)
{
	int v;

	if (strncmp(line, "end ", 4) != 0)
		return -2;
	line += 4;
	if (strncmp(line, "-1", 2) == 0)
		v = -1, line += 2;
	else if (*line == '0' || *line == '1')
		v = *line++ - '0';
	else
		return -2;
	if (*line != ' ' && *line != '\0' && *line != '\n')
		return -2;
	*msg = *line == ' ' ? line + 1 : line;
	return v;
}

unsigned ms_sym_distance(const char *a, const char *b, unsigned limit)
{
	unsigned row[65], la = (unsigned)strlen(a), lb = (unsigned)strlen(b);

	if (lb > 64 || la > 64)
		return limit + 1;
	if ((la > lb ? la - lb : lb - la) > limit)
		return limit + 1;
	for (unsigned j = 0; j <= lb; j++)
		row[j] = j;
	for (unsigned i = 1; i <= la; i++) {
		unsigned diag = row[0], best;

		row[0] = i;
		best = i;
		for (unsigned j = 1; j <= lb; j++) {
			unsigned up = row[j], v = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < v)
				v = up + 1;
			if (row[j - 1] + 1 < v)
				v = row[j - 1] + 1;
			row[j] = v;
			diag = up;
			if (v < best)
				best = v;
		}
		if (best > limit)
			return limit + 1;
	}
	return row[lb] > limit ? limit + 1 : row[lb];
}
