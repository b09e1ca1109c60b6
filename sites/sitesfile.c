/* SPDX-License-Identifier: MIT */
/*
 * The sites file: its rows in memory, taken from a run's state, read,
 * merged and written (coverage.h; the format: doc/sites.schema.json).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/catalog.h"
#include "channel/channel.h"
#include "coverage.h"

void ms_sites_init(struct ms_sites *s)
{
	memset(s, 0, sizeof(*s));
}

static void row_free(struct ms_sites_row *r)
{
	free(r->fn);
	free(r->site);
	free(r->test);
	free(r->stmt);
	free(r->text);
	free(r->outcome);
}

void ms_sites_free(struct ms_sites *s)
{
	for (size_t i = 0; i < s->n; i++)
		row_free(&s->rows[i]);
	for (size_t i = 0; i < s->ntests; i++)
		free(s->tests[i]);
	free(s->rows);
	free(s->tests);
	ms_sites_init(s);
}

static char *dup0(const char *p)
{
	return strdup(p ? p : "");
}

int ms_sites_add(struct ms_sites *s, const struct ms_sites_row *r)
{
	struct ms_sites_row *d;

	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		void *p = realloc(s->rows, cap * sizeof(*s->rows));

		if (!p)
			return -ENOMEM;
		s->rows = p;
		s->cap = cap;
	}
	d = &s->rows[s->n];
	d->fn = dup0(r->fn);
	d->site = dup0(r->site);
	d->test = dup0(r->test);
	d->stmt = dup0(r->stmt);
	d->text = dup0(r->text);
	d->outcome = dup0(r->outcome);
	d->calls = r->calls;
	if (!d->fn || !d->site || !d->test || !d->stmt || !d->text || !d->outcome) {
		row_free(d);
		return -ENOMEM;
	}
	s->n++;
	return 0;
}

int ms_sites_add_test(struct ms_sites *s, const char *test)
{
	if (s->ntests == s->tcap) {
		size_t cap = s->tcap ? s->tcap * 2 : 16;
		void *p = realloc(s->tests, cap * sizeof(*s->tests));

		if (!p)
			return -ENOMEM;
		s->tests = p;
		s->tcap = cap;
	}
	if (!(s->tests[s->ntests] = strdup(test)))
		return -ENOMEM;
	s->ntests++;
	return 0;
}

int ms_sites_failed(const char *outcome)
{
	return strncmp(outcome, "failed", 6) == 0 && (outcome[6] == ' ' || outcome[6] == ':');
}

/* Sites by object, then offset as a number: "a+0x9" before "a+0x10". */
static int site_cmp(const char *a, const char *b)
{
	const char *pa = strrchr(a, '+'), *pb = strrchr(b, '+');
	size_t la = pa ? (size_t)(pa - a) : strlen(a), lb = pb ? (size_t)(pb - b) : strlen(b);
	int c = strncmp(a, b, la < lb ? la : lb);
	unsigned long long oa, ob;

	if (c || la != lb)
		return c ? c : la < lb ? -1 : 1;
	oa = pa ? strtoull(pa + 1, NULL, 16) : 0;
	ob = pb ? strtoull(pb + 1, NULL, 16) : 0;
	if (oa != ob)
		return oa < ob ? -1 : 1;
	return strcmp(a, b);
}

static int key_cmp(const struct ms_sites_row *a, const struct ms_sites_row *b)
{
	int c;

	if ((c = strcmp(a->fn, b->fn)) || (c = site_cmp(a->site, b->site)) ||
	    (c = strcmp(a->test, b->test)) || (c = strcmp(a->stmt, b->stmt)) ||
	    (c = strcmp(a->outcome, b->outcome)))
		return c;
	return strcmp(a->text, b->text);
}

static int row_qcmp(const void *a, const void *b)
{
	return key_cmp(a, b);
}

static int str_qcmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void ms_sites_normalize(struct ms_sites *s)
{
	size_t w = 0;

	if (s->n)
		qsort(s->rows, s->n, sizeof(*s->rows), row_qcmp);
	for (size_t i = 0; i < s->n; i++) {
		if (w && key_cmp(&s->rows[w - 1], &s->rows[i]) == 0) {
			s->rows[w - 1].calls += s->rows[i].calls;
			row_free(&s->rows[i]);
		} else {
			s->rows[w++] = s->rows[i];
		}
	}
	s->n = w;
	if (s->ntests)
		qsort(s->tests, s->ntests, sizeof(*s->tests), str_qcmp);
	w = 0;
	for (size_t i = 0; i < s->ntests; i++) {
		if (w && strcmp(s->tests[w - 1], s->tests[i]) == 0)
			free(s->tests[i]);
		else
			s->tests[w++] = s->tests[i];
	}
	s->ntests = w;
}

/* ---- a run's sites table ---- */

static const char *fn_name(const struct ms_chan_hdr *h, uint32_t fn)
{
	const struct ms_chan_dyn *d;

	if (fn < MS_FN_COUNT)
		return ms_catalog_get(fn)->name;
	d = (const struct ms_chan_dyn *)ms_chan_at(h, h->dyn_off) + (fn - MS_FN_COUNT);
	return (const char *)ms_chan_at(h, h->pool_off) + d->name;
}

/* What the statement's turn did to the call: "failed ..." when it set
 * errno or returned a negative number (an error code). */
static void outcome_of(const struct ms_rule *r, char *buf, size_t cap)
{
	const char *e;

	if (r->kind == MS_R_REAL)
		snprintf(buf, cap, "real");
	else if (r->flags & MS_RF_ERRNO)
		(e = ms_errno_name(r->err)) ? snprintf(buf, cap, "failed %s", e)
					    : snprintf(buf, cap, "failed errno %d", (int)r->err);
	else if (r->flags & MS_RF_STRVAL)
		snprintf(buf, cap, "returned a string");
	else if (r->flags & (MS_RF_DEFAULT | MS_RF_DOUBLE))
		snprintf(buf, cap, "returned a value");
	else if (r->value < 0)
		snprintf(buf, cap, "failed: returned %" PRId64, r->value);
	else
		snprintf(buf, cap, "returned %" PRId64, r->value);
}

int ms_sites_from_state(struct ms_sites *s, const void *spec, const void *state, const char *test)
{
	const struct ms_chan_hdr *h = spec;
	const struct ms_state_hdr *st = state;
	const struct ms_site_slot *t;
	const struct ms_rule *rules;
	const char *pool;

	if (ms_sites_add_test(s, test) < 0)
		return -ENOMEM;
	if (!h->sites_cap)
		return 0;
	s->lost += st->sites_lost;
	t = ms_state_at(st, ms_sites_off(h));
	rules = ms_chan_at(h, h->rules_off);
	pool = ms_chan_at(h, h->pool_off);
	for (uint32_t i = 0; i < h->sites_cap; i++) {
		char site[MS_SITE_OBJ + 24], where[256], outcome[64];
		struct ms_sites_row r = { 0 };

		if (t[i].state != 2 || !t[i].calls)
			continue;
		snprintf(site, sizeof(site), "%s+0x%" PRIx64, t[i].obj[0] ? t[i].obj : "?", t[i].off);
		r.fn = (char *)fn_name(h, t[i].fn);
		r.site = site;
		r.test = (char *)test;
		r.calls = t[i].calls;
		if (t[i].rule) {
			const struct ms_rule *ru = &rules[t[i].rule - 1];

			snprintf(where, sizeof(where), "%s:%u", pool + ru->stmt.src, ru->stmt.line);
			outcome_of(ru, outcome, sizeof(outcome));
			r.stmt = where;
			r.text = (char *)(pool + ru->stmt.text);
			r.outcome = outcome;
		} else {
			r.stmt = r.text = (char *)"";
			r.outcome = (char *)"real";
		}
		if (ms_sites_add(s, &r) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* ---- the JSON file ---- */

static void put_str(FILE *f, const char *p)
{
	fputc('"', f);
	for (; *p; p++) {
		unsigned char c = (unsigned char)*p;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

int ms_sites_write_json(struct ms_sites *s, FILE *f)
{
	ms_sites_normalize(s);
	fprintf(f, "{\"mockshim_sites\": %d,\n \"lost\": %" PRIu64 ",\n \"tests\": [", MS_SITES_VERSION,
		s->lost);
	for (size_t i = 0; i < s->ntests; i++) {
		fputs(i ? ",\n  " : "\n  ", f);
		put_str(f, s->tests[i]);
	}
	fputs(s->ntests ? "\n ],\n \"rows\": [" : "],\n \"rows\": [", f);
	for (size_t i = 0; i < s->n; i++) {
		const struct ms_sites_row *r = &s->rows[i];

		fputs(i ? ",\n  {\"function\": " : "\n  {\"function\": ", f);
		put_str(f, r->fn);
		fputs(", \"site\": ", f);
		put_str(f, r->site);
		fputs(", \"test\": ", f);
		put_str(f, r->test);
		fputs(", \"statement\": ", f);
		put_str(f, r->stmt);
		fputs(", \"text\": ", f);
		put_str(f, r->text);
		fputs(", \"outcome\": ", f);
		put_str(f, r->outcome);
		fprintf(f, ", \"calls\": %" PRIu64 "}", r->calls);
	}
	fputs(s->n ? "\n ]\n}\n" : "]\n}\n", f);
	return ferror(f) ? -EIO : 0;
}

/* A small reader of JSON, enough for the sites file (any object's
 * unknown member is passed over). */
struct rd {
	const char *p, *start, *end, *name;
	char *err;
	size_t errcap;
	int failed;
};

static int fail(struct rd *r, const char *why)
{
	unsigned line = 1, col = 1;

	if (r->failed)
		return -1;
	for (const char *q = r->start; q < r->p && q < r->end; q++) {
		if (*q == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	snprintf(r->err, r->errcap, "%s:%u:%u: %s", r->name, line, col, why);
	r->failed = 1;
	return -1;
}

static void ws(struct rd *r)
{
	while (r->p < r->end && (*r->p == ' ' || *r->p == '\n' || *r->p == '\t' || *r->p == '\r'))
		r->p++;
}

static int expect(struct rd *r, char c)
{
	char why[40];

	ws(r);
	if (r->p < r->end && *r->p == c) {
		r->p++;
		return 0;
	}
	snprintf(why, sizeof(why), "expected '%c'", c);
	return fail(r, why);
}

static int peek(struct rd *r, char c)
{
	ws(r);
	if (r->p < r->end && *r->p == c) {
		r->p++;
		return 1;
	}
	return 0;
}

/* A string, malloc'd into *out (NULL: passed over). */
static int string(struct rd *r, char **out)
{
	char *b;
	size_t n = 0;

	if (expect(r, '"'))
		return -1;
	b = malloc((size_t)(r->end - r->p) + 1);
	if (!b)
		return fail(r, "out of memory");
	while (r->p < r->end && *r->p != '"') {
		unsigned char c = (unsigned char)*r->p++;

		if (c < 0x20) {
			free(b);
			r->p--;
			return fail(r, "a control character in a string");
		}
		if (c != '\\') {
			b[n++] = (char)c;
			continue;
		}
		if (r->p >= r->end)
			break;
		c = (unsigned char)*r->p++;
		switch (c) {
		case 'n': b[n++] = '\n'; break;
		case 't': b[n++] = '\t'; break;
		case 'r': b[n++] = '\r'; break;
		case 'b': b[n++] = '\b'; break;
		case 'f': b[n++] = '\f'; break;
		case '"': case '\\': case '/': b[n++] = (char)c; break;
		case 'u': {
			unsigned v = 0;

			for (int k = 0; k < 4; k++, r->p++) {
				char h = r->p < r->end ? *r->p : 0;

				if (!((h >= '0' && h <= '9') || (h >= 'a' && h <= 'f') || (h >= 'A' && h <= 'F'))) {
					free(b);
					return fail(r, "a bad \\u escape");
				}
				v = v * 16 + (unsigned)(h <= '9' ? h - '0' : (h | 0x20) - 'a' + 10);
			}
			if (v < 0x80) {
				b[n++] = (char)v;
			} else if (v < 0x800) {
				b[n++] = (char)(0xc0 | v >> 6);
				b[n++] = (char)(0x80 | (v & 0x3f));
			} else {
				b[n++] = (char)(0xe0 | v >> 12);
				b[n++] = (char)(0x80 | (v >> 6 & 0x3f));
				b[n++] = (char)(0x80 | (v & 0x3f));
			}
			break;
		}
		default:
			free(b);
			r->p--;
			return fail(r, "a bad escape");
		}
	}
	if (r->p >= r->end) {
		free(b);
		return fail(r, "an unterminated string");
	}
	r->p++;
	b[n] = '\0';
	if (out)
		*out = b;
	else
		free(b);
	return 0;
}

static int number(struct rd *r, uint64_t *v)
{
	uint64_t x = 0;
	const char *q;

	ws(r);
	q = r->p;
	while (r->p < r->end && *r->p >= '0' && *r->p <= '9') {
		if (x > (UINT64_MAX - 9) / 10)
			return fail(r, "a number too large");
		x = x * 10 + (uint64_t)(*r->p++ - '0');
	}
	if (r->p == q)
		return fail(r, "expected a count (a whole number, 0 or more)");
	if (r->p < r->end && (*r->p == '.' || *r->p == 'e' || *r->p == 'E'))
		return fail(r, "expected a whole number");
	*v = x;
	return 0;
}

static int skip_value(struct rd *r, int depth)
{
	ws(r);
	if (depth > 64)
		return fail(r, "nested too deep");
	if (r->p >= r->end)
		return fail(r, "expected a value");
	if (*r->p == '"')
		return string(r, NULL);
	if (*r->p == '{' || *r->p == '[') {
		char close = *r->p == '{' ? '}' : ']';
		int obj = *r->p == '{';

		r->p++;
		if (peek(r, close))
			return 0;
		do {
			if (obj && (string(r, NULL) || expect(r, ':')))
				return -1;
			if (skip_value(r, depth + 1))
				return -1;
		} while (peek(r, ','));
		return expect(r, close);
	}
	while (r->p < r->end && (strchr("-+.eE", *r->p) || (*r->p >= '0' && *r->p <= '9') ||
				 (*r->p >= 'a' && *r->p <= 'z')))
		r->p++;
	return 0;
}

static int row(struct rd *r, struct ms_sites *s)
{
	struct ms_sites_row w = { 0 };
	char **slot, *key = NULL;
	int have_calls = 0, rc = -1;
	const char *at = r->p;

	if (expect(r, '{'))
		return -1;
	if (!peek(r, '}')) {
		do {
			if (string(r, &key) || expect(r, ':'))
				goto out;
			slot = strcmp(key, "function") == 0    ? &w.fn
			       : strcmp(key, "site") == 0      ? &w.site
			       : strcmp(key, "test") == 0      ? &w.test
			       : strcmp(key, "statement") == 0 ? &w.stmt
			       : strcmp(key, "text") == 0      ? &w.text
			       : strcmp(key, "outcome") == 0   ? &w.outcome
								: NULL;
			if (slot) {
				free(*slot);
				*slot = NULL;
				if (string(r, slot))
					goto out;
			} else if (strcmp(key, "calls") == 0) {
				if (number(r, &w.calls))
					goto out;
				have_calls = 1;
			} else if (skip_value(r, 1)) {
				goto out;
			}
			free(key);
			key = NULL;
		} while (peek(r, ','));
		if (expect(r, '}'))
			goto out;
	}
	if (!w.fn || !w.site || !w.test || !w.outcome || !have_calls) {
		r->p = at;
		fail(r, "a row needs function, site, test, outcome and calls");
		goto out;
	}
	if (ms_sites_add(s, &w) < 0) {
		fail(r, "out of memory");
		goto out;
	}
	rc = 0;
out:
	free(key);
	free(w.fn);
	free(w.site);
	free(w.test);
	free(w.stmt);
	free(w.text);
	free(w.outcome);
	return rc;
}

int ms_sites_read_json(struct ms_sites *s, const char *text, size_t len, const char *name,
		       char *err, size_t errcap)
{
	struct rd r = { text, text, text + len, name, err, errcap, 0 };
	char *key = NULL;
	int version = 0;

	if (expect(&r, '{'))
		return -1;
	if (!peek(&r, '}')) {
		do {
			if (string(&r, &key) || expect(&r, ':'))
				goto bad;
			if (strcmp(key, "mockshim_sites") == 0) {
				uint64_t v;

				if (number(&r, &v))
					goto bad;
				if (v != MS_SITES_VERSION) {
					fail(&r, "not a sites file of this version (mockshim_sites: 1)");
					goto bad;
				}
				version = 1;
			} else if (strcmp(key, "lost") == 0) {
				uint64_t v;

				if (number(&r, &v))
					goto bad;
				s->lost += v;
			} else if (strcmp(key, "tests") == 0) {
				if (expect(&r, '['))
					goto bad;
				if (!peek(&r, ']')) {
					do {
						char *t = NULL;

						if (string(&r, &t))
							goto bad;
						if (ms_sites_add_test(s, t) < 0) {
							free(t);
							fail(&r, "out of memory");
							goto bad;
						}
						free(t);
					} while (peek(&r, ','));
					if (expect(&r, ']'))
						goto bad;
				}
			} else if (strcmp(key, "rows") == 0) {
				if (expect(&r, '['))
					goto bad;
				if (!peek(&r, ']')) {
					do {
						if (row(&r, s))
							goto bad;
					} while (peek(&r, ','));
					if (expect(&r, ']'))
						goto bad;
				}
			} else if (skip_value(&r, 1)) {
				goto bad;
			}
			free(key);
			key = NULL;
		} while (peek(&r, ','));
		if (expect(&r, '}'))
			goto bad;
	}
	ws(&r);
	if (r.p != r.end) {
		fail(&r, "text after the end of the object");
		goto bad;
	}
	if (!version) {
		r.p = r.start;
		fail(&r, "not a sites file (no \"mockshim_sites\" member)");
		goto bad;
	}
	return 0;
bad:
	free(key);
	return -1;
}

int ms_sites_read_file(struct ms_sites *s, const char *path, char *err, size_t errcap)
{
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "re");
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int rc;

	if (!f) {
		snprintf(err, errcap, "%s: %s", path, strerror(errno));
		return -1;
	}
	for (;;) {
		size_t k;

		if (len + 4096 > cap) {
			char *p = realloc(buf, cap = cap ? cap * 2 : 65536);

			if (!p) {
				free(buf);
				if (f != stdin)
					fclose(f);
				snprintf(err, errcap, "%s: out of memory", path);
				return -1;
			}
			buf = p;
		}
		k = fread(buf + len, 1, cap - len, f);
		len += k;
		if (k == 0)
			break;
	}
	if (ferror(f)) {
		snprintf(err, errcap, "%s: %s", path, strerror(errno ? errno : EIO));
		free(buf);
		if (f != stdin)
			fclose(f);
		return -1;
	}
	if (f != stdin)
		fclose(f);
	rc = ms_sites_read_json(s, buf ? buf : "", len, path, err, errcap);
	free(buf);
	return rc;
}
