/* SPDX-License-Identifier: MIT */
/*
 * mockrun sites: the table of sites (function, site, calls, failed by,
 * outcomes), the error-site coverage (sites failed by some test / sites
 * reached), the untested sites, and --sites-baseline (coverage.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "coverage.h"

static ms_sites_symbolizer symbolizer;
static void *symbolizer_ctx;

void ms_sites_set_symbolizer(ms_sites_symbolizer fn, void *ctx)
{
	symbolizer = fn;
	symbolizer_ctx = ctx;
}

/* "OBJ+0xOFF" and, with a symbolizer, what it says: into buf. */
static const char *site_text(const char *site, char *buf, size_t cap)
{
	const char *plus = strrchr(site, '+');
	size_t n;
	char obj[256];

	if (!symbolizer || !plus || (size_t)(plus - site) >= sizeof(obj))
		return site;
	memcpy(obj, site, (size_t)(plus - site));
	obj[plus - site] = '\0';
	n = (size_t)snprintf(buf, cap, "%s", site);
	if (n >= cap || symbolizer(symbolizer_ctx, obj, strtoull(plus + 1, NULL, 16), buf + n, cap - n) <= 0)
		return site;
	return buf;
}

/* One site of one function: rows[first .. first + n), normalized. */
struct group {
	size_t first, n;
	uint64_t calls;
	int failed;	/* some row failed the call */
};

static int fn_listed(const char *fns, const char *fn)
{
	size_t len = strlen(fn);

	if (!fns)
		return 1;
	for (const char *p = fns; *p;) {
		size_t n = strcspn(p, ",");

		if (n == len && strncmp(p, fn, n) == 0)
			return 1;
		p += n + (p[n] == ',');
	}
	return 0;
}

/* The groups of s (normalized), those of fns only; *ng of them. */
static struct group *groups_of(struct ms_sites *s, const char *fns, size_t *ng)
{
	struct group *g = calloc(s->n ? s->n : 1, sizeof(*g));
	size_t n = 0;

	if (!g)
		return NULL;
	ms_sites_normalize(s);
	for (size_t i = 0; i < s->n; i++) {
		const struct ms_sites_row *r = &s->rows[i];

		if (!fn_listed(fns, r->fn))
			continue;
		if (!n || strcmp(s->rows[g[n - 1].first].fn, r->fn) ||
		    strcmp(s->rows[g[n - 1].first].site, r->site) || g[n - 1].first + g[n - 1].n != i)
			g[n++] = (struct group){ i, 0, 0, 0 };
		g[n - 1].n++;
		g[n - 1].calls += r->calls;
		g[n - 1].failed |= ms_sites_failed(r->outcome);
	}
	*ng = n;
	return g;
}

static int by_calls(const void *a, const void *b)
{
	const struct group *x = a, *y = b;

	if (x->calls != y->calls)
		return x->calls > y->calls ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;
}

/* "TEST (N), TEST (N)": the tests that failed the group's calls. */
static char *failed_by(const struct ms_sites *s, const struct group *g)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	int any = 0;

	if (!m)
		return NULL;
	for (size_t i = g->first; i < g->first + g->n; i++) {
		const struct ms_sites_row *r = &s->rows[i];
		uint64_t calls = 0;

		if (!ms_sites_failed(r->outcome))
			continue;
		/* one test's failed rows are adjacent (sorted by test) */
		if (i > g->first && ms_sites_failed(s->rows[i - 1].outcome) &&
		    strcmp(s->rows[i - 1].test, r->test) == 0)
			continue;
		for (size_t k = i; k < g->first + g->n && strcmp(s->rows[k].test, r->test) == 0; k++)
			if (ms_sites_failed(s->rows[k].outcome))
				calls += s->rows[k].calls;
		fprintf(m, "%s%s (%" PRIu64 ")", any ? ", " : "", r->test, calls);
		any = 1;
	}
	if (fclose(m) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

/* "failed EIO, real": the group's outcomes, each once, in order. */
static char *outcomes(const struct ms_sites *s, const struct group *g)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	int any = 0;

	if (!m)
		return NULL;
	for (size_t i = g->first; i < g->first + g->n; i++) {
		size_t k;

		for (k = g->first; k < i && strcmp(s->rows[k].outcome, s->rows[i].outcome); k++)
			;
		if (k < i)
			continue;
		fprintf(m, "%s%s", any ? ", " : "", s->rows[i].outcome);
		any = 1;
	}
	if (fclose(m) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

static void pct(char *buf, size_t cap, size_t a, size_t b)
{
	if (b)
		snprintf(buf, cap, "%zu/%zu (%.1f%%)", a, b, 100.0 * (double)a / (double)b);
	else
		snprintf(buf, cap, "0/0");
}

static void json_str(FILE *f, const char *p)
{
	fputc('"', f);
	for (; *p; p++) {
		unsigned char c = (unsigned char)*p;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* Markdown's and HTML's cells: | and < escaped. */
static void cell(FILE *f, const char *p, int html)
{
	for (; *p; p++) {
		if (html && *p == '<')
			fputs("&lt;", f);
		else if (html && *p == '>')
			fputs("&gt;", f);
		else if (html && *p == '&')
			fputs("&amp;", f);
		else if (html && *p == '"')
			fputs("&quot;", f);
		else if (!html && *p == '|')
			fputs("\\|", f);
		else
			fputc(*p, f);
	}
}

struct fig {
	const char *fn;
	size_t failed, reached;
};

/* Per function (in order) and overall; *nf figures. */
static struct fig *figures(const struct ms_sites *s, const struct group *g, size_t ng, size_t *nf,
			   struct fig *all)
{
	struct fig *f = calloc(ng ? ng : 1, sizeof(*f));
	size_t n = 0;

	all->fn = "overall";
	all->failed = all->reached = 0;
	if (!f)
		return NULL;
	for (size_t i = 0; i < ng; i++) {
		const char *fn = s->rows[g[i].first].fn;

		if (!n || strcmp(f[n - 1].fn, fn))
			f[n++] = (struct fig){ fn, 0, 0 };
		f[n - 1].reached++;
		f[n - 1].failed += g[i].failed;
		all->reached++;
		all->failed += g[i].failed;
	}
	*nf = n;
	return f;
}

static int print(struct ms_sites *s, FILE *out, int format, const char *fns, int untested, int html)
{
	size_t ng = 0, nf = 0;
	struct group *g = groups_of(s, fns, &ng);
	struct fig all, *fg = g ? figures(s, g, ng, &nf, &all) : NULL;
	size_t shown = 0, w_site = 4, w_fn = 8, w_by = 9;
	char buf[64];

	if (!g || !fg) {
		free(g);
		free(fg);
		return -ENOMEM;
	}
	if (untested) {
		size_t w = 0;

		for (size_t i = 0; i < ng; i++)
			if (!g[i].failed)
				g[w++] = g[i];
		ng = w;
		if (ng)
			qsort(g, ng, sizeof(*g), by_calls);
	}
	if (html) {
		fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
		      "<title>mockshim error-site coverage</title>\n<style>\n"
		      "body{font-family:sans-serif;margin:1.5em}table{border-collapse:collapse}\n"
		      "td,th{border:1px solid #bbb;padding:.2em .5em;text-align:left}\n"
		      "tr.untested td{background:#fde8e8}tr.failed td{background:#e8f6e8}\n"
		      "code{font-family:monospace}\n</style></head><body>\n"
		      "<h1>Error-site coverage</h1>\n<p id=\"overall\">",
		      out);
		pct(buf, sizeof(buf), all.failed, all.reached);
		fprintf(out, "Sites failed by some test / sites reached: <b>%s</b></p>\n", buf);
		fputs("<table id=\"functions\"><tr><th>function</th><th>failed / reached</th></tr>\n", out);
		for (size_t i = 0; i < nf; i++) {
			pct(buf, sizeof(buf), fg[i].failed, fg[i].reached);
			fputs("<tr><td><code>", out);
			cell(out, fg[i].fn, 1);
			fprintf(out, "</code></td><td>%s</td></tr>\n", buf);
		}
		fprintf(out, "</table>\n<h2>%s</h2>\n<table id=\"sites\"><tr><th>site</th><th>function</th>"
			"<th>calls</th><th>failed by</th><th>outcome</th></tr>\n",
			untested ? "Reached, never failed" : "Sites");
	} else if (format == MS_SITES_JSON) {
		fputs("{\"sites\": [", out);
	} else if (format == MS_SITES_MARKDOWN) {
		fputs("| site | function | calls | failed by | outcome |\n|---|---|---:|---|---|\n", out);
	} else {
		/* the columns as wide as their widest cell */
		for (size_t i = 0; i < ng; i++) {
			const struct ms_sites_row *r = &s->rows[g[i].first];
			char *by = failed_by(s, &g[i]);
			size_t n = by ? strlen(by) : 0;

			char sb[512];
			const char *st = site_text(r->site, sb, sizeof(sb));

			w_site = strlen(st) > w_site ? strlen(st) : w_site;
			w_fn = strlen(r->fn) > w_fn ? strlen(r->fn) : w_fn;
			w_by = n > w_by ? n : w_by;
			free(by);
		}
		fprintf(out, "%-*s  %-*s  %8s  %-*s  %s\n", (int)w_site, "SITE", (int)w_fn, "FUNCTION",
			"CALLS", (int)w_by, "FAILED BY", "OUTCOME");
	}
	for (size_t i = 0; i < ng; i++) {
		const struct ms_sites_row *r = &s->rows[g[i].first];
		char *by = failed_by(s, &g[i]), *oc = outcomes(s, &g[i]), sb[512];
		const char *st = site_text(r->site, sb, sizeof(sb));

		if (!by || !oc) {
			free(by);
			free(oc);
			free(g);
			free(fg);
			return -ENOMEM;
		}
		if (html) {
			fprintf(out, "<tr class=\"%s\"><td><code>", g[i].failed ? "failed" : "untested");
			cell(out, st, 1);
			fputs("</code></td><td><code>", out);
			cell(out, r->fn, 1);
			fprintf(out, "</code></td><td>%" PRIu64 "</td><td>", g[i].calls);
			cell(out, *by ? by : "-", 1);
			fputs("</td><td>", out);
			cell(out, oc, 1);
			fputs("</td></tr>\n", out);
		} else if (format == MS_SITES_JSON) {
			fputs(shown ? ",\n  {\"site\": " : "\n  {\"site\": ", out);
			json_str(out, r->site);
			fputs(", \"function\": ", out);
			json_str(out, r->fn);
			fprintf(out, ", \"calls\": %" PRIu64 ", \"failed\": %s, \"by\": [", g[i].calls,
				g[i].failed ? "true" : "false");
			for (size_t k = g[i].first, any = 0; k < g[i].first + g[i].n; k++) {
				const struct ms_sites_row *x = &s->rows[k];

				fputs(any++ ? ", {\"test\": " : "{\"test\": ", out);
				json_str(out, x->test);
				fputs(", \"statement\": ", out);
				json_str(out, x->stmt);
				fputs(", \"outcome\": ", out);
				json_str(out, x->outcome);
				fprintf(out, ", \"calls\": %" PRIu64 "}", x->calls);
			}
			fputs("]}", out);
		} else if (format == MS_SITES_MARKDOWN) {
			fputs("| `", out);
			cell(out, st, 0);
			fputs("` | `", out);
			cell(out, r->fn, 0);
			fprintf(out, "` | %" PRIu64 " | ", g[i].calls);
			cell(out, *by ? by : "-", 0);
			fputs(" | ", out);
			cell(out, oc, 0);
			fputs(" |\n", out);
		} else {
			fprintf(out, "%-*s  %-*s  %8" PRIu64 "  %-*s  %s\n", (int)w_site, st, (int)w_fn,
				r->fn, g[i].calls, (int)w_by, *by ? by : "-", oc);
		}
		shown++;
		free(by);
		free(oc);
	}
	if (html) {
		fputs("</table>\n", out);
		if (s->lost)
			fprintf(out, "<p id=\"lost\">%" PRIu64 " calls not counted (a full sites "
				"table, or a process ended in a count)</p>\n", s->lost);
		fputs("</body></html>\n", out);
	} else if (format == MS_SITES_JSON) {
		fputs(shown ? "\n ],\n \"coverage\": {\"functions\": [" : "],\n \"coverage\": {\"functions\": [",
		      out);
		for (size_t i = 0; i < nf; i++) {
			fputs(i ? ", {\"function\": " : "{\"function\": ", out);
			json_str(out, fg[i].fn);
			fprintf(out, ", \"failed\": %zu, \"reached\": %zu}", fg[i].failed, fg[i].reached);
		}
		fprintf(out, "],\n  \"failed\": %zu, \"reached\": %zu},\n \"lost\": %" PRIu64 "}\n",
			all.failed, all.reached, s->lost);
	} else {
		const char *pre = format == MS_SITES_MARKDOWN ? "\n" : "";

		int w = 14;

		for (size_t i = 0; i < nf; i++)
			w = (int)strlen(fg[i].fn) > w ? (int)strlen(fg[i].fn) : w;
		fprintf(out, "%serror-site coverage (sites failed by some test / sites reached):\n", pre);
		for (size_t i = 0; i < nf; i++) {
			pct(buf, sizeof(buf), fg[i].failed, fg[i].reached);
			if (format == MS_SITES_MARKDOWN)
				fprintf(out, "- `%s`: %s\n", fg[i].fn, buf);
			else
				fprintf(out, "  %-*s %s\n", w, fg[i].fn, buf);
		}
		pct(buf, sizeof(buf), all.failed, all.reached);
		if (format == MS_SITES_MARKDOWN)
			fprintf(out, "- **overall**: %s\n", buf);
		else
			fprintf(out, "  %-*s %s\n", w, "overall", buf);
		if (s->lost)
			fprintf(out, "%s%" PRIu64 " calls not counted (a full sites table, or a process "
				"ended in a count)\n", pre, s->lost);
	}
	free(g);
	free(fg);
	return ferror(out) ? -EIO : 0;
}

int ms_sites_print(struct ms_sites *s, FILE *f, int format, const char *fns, int untested)
{
	return print(s, f, format, fns, untested, 0);
}

int ms_sites_html(struct ms_sites *s, FILE *f, const char *fns, int untested)
{
	return print(s, f, MS_SITES_TEXT, fns, untested, 1);
}

static int ptr_strcmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Whether test ran in s (normalized: its tests sorted). */
static int test_ran(const struct ms_sites *s, const char *test)
{
	return s->ntests && bsearch(&test, s->tests, s->ntests, sizeof(*s->tests), ptr_strcmp);
}

/* now's rows of (fn, site, test): 0 none, 1 reached only, 2 failed. */
static int now_state(const struct ms_sites *now, const struct ms_sites_row *b)
{
	int st = 0;

	for (size_t i = 0; i < now->n; i++) {
		const struct ms_sites_row *r = &now->rows[i];

		if (strcmp(r->fn, b->fn) || strcmp(r->site, b->site) || strcmp(r->test, b->test))
			continue;
		if (ms_sites_failed(r->outcome))
			return 2;
		st = 1;
	}
	return st;
}

unsigned ms_sites_baseline(struct ms_sites *base, struct ms_sites *now, const char *base_name,
			   FILE *err)
{
	unsigned bad = 0;

	ms_sites_normalize(base);
	ms_sites_normalize(now);
	for (size_t i = 0; i < base->n; i++) {
		const struct ms_sites_row *b = &base->rows[i];
		int st;

		if (!ms_sites_failed(b->outcome) || !test_ran(now, b->test))
			continue;
		/* one message per (function, site, test) */
		if (i && ms_sites_failed(base->rows[i - 1].outcome) &&
		    strcmp(base->rows[i - 1].fn, b->fn) == 0 && strcmp(base->rows[i - 1].site, b->site) == 0 &&
		    strcmp(base->rows[i - 1].test, b->test) == 0)
			continue;
		st = now_state(now, b);
		if (st == 2)
			continue;
		fprintf(err, "mockrun: --sites-baseline %s: %s() at %s was failed by %s (%s), which %s\n",
			base_name, b->fn, b->site, b->test, b->outcome,
			st ? "reaches it but no longer fails it" : "no longer reaches it");
		bad++;
	}
	return bad;
}
