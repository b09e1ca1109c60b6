/* SPDX-License-Identifier: MIT */
/*
 * --report html: one self-contained page (inline CSS and SVG, no
 * network, no script) for a person to look at: the verdict at the top,
 * every statement with its uses, each failure with what was expected and
 * what happened, and the processes of the run with the calls statements
 * answered, in the order they were answered.
 *
 * The page is built from the verbose text report, the one place that
 * words every failure: the HTML says the same things as the terminal.
 * A test-file run (mockrun -t) gets the same page with a section per
 * test: its statements' table from its run's report, its failures from
 * why it failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

static void esc(FILE *out, const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		switch (p[i]) {
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '&': fputs("&amp;", out); break;
		case '"': fputs("&quot;", out); break;
		default: fputc(p[i], out);
		}
	}
}

static void escs(FILE *out, const char *s)
{
	esc(out, s, strlen(s));
}

static const char css[] =
	"body{font:14px/1.4 sans-serif;margin:0;color:#222;background:#fafafa}"
	"header{padding:16px 24px;color:#fff}header.fail{background:#b3261e}header.pass{background:#1e7b34}"
	"header h1{margin:0;font-size:22px}header p{margin:4px 0 0}"
	"section{margin:16px 24px}h2{font-size:16px;border-bottom:1px solid #ccc}"
	"table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:4px 8px;border-bottom:1px solid #eee}"
	"code,pre{font-family:monospace}.left{color:#b3261e;font-weight:bold}"
	".failure{background:#fff;border-left:4px solid #b3261e;padding:8px 12px;margin:8px 0}"
	".failure .msg{font-weight:bold}.failure pre{margin:4px 0 0;color:#555}"
	"svg text{font:12px monospace}pre.raw{background:#fff;padding:8px;overflow:auto}"
	"section.test{background:#fff;padding:4px 12px 8px;border:1px solid #ddd}h3{font-size:14px;margin:10px 0 4px}"
	".tpass{color:#1e7b34;font-weight:bold}.tfail{color:#b3261e;font-weight:bold}";

/* Whether line l says " in PROC..." (a call made in that process); a
 * process name of any length, where a buffer of 80 cut it short. */
static int names_process(const char *l, const char *proc)
{
	size_t n = strlen(proc);

	for (const char *s = strstr(l, " in "); s; s = strstr(s + 1, " in "))
		if (strncmp(s + 4, proc, n) == 0)
			return 1;
	return 0;
}

/* A statement's line: "  SRC:L:C: STMT: USES", USES "N of M used" (or
 * checked, called) or, for fake_time, "clocks read N times ...". */
static int statement_line(const char *l)
{
	return l[0] == ' ' && l[1] == ' ' && l[2] != ' ' && strstr(l, ": ") && !strstr(l, "() call ") &&
	       (strstr(l, " used") || strstr(l, " checked") || strstr(l, " called") || strstr(l, " of ") ||
		strstr(l, ": clocks read "));
}

/* Uses that took nothing: a statement none of whose turns were taken, a
 * fake clock no process read. */
static int unused(const char *uses)
{
	return strncmp(uses, "0 of ", 5) == 0 || strncmp(uses, "clocks read 0 times", 19) == 0;
}

/* The lines of text, split in place; -ENOMEM. */
static int split_lines(char *text, char ***lines, size_t *n)
{
	char *line, *save = NULL;
	size_t cap = 0;

	*lines = NULL;
	*n = 0;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (*n == cap) {
			char **nl = realloc(*lines, (cap = cap ? cap * 2 : 64) * sizeof(**lines));

			if (!nl) {
				free(*lines);
				return -ENOMEM;
			}
			*lines = nl;
		}
		(*lines)[(*n)++] = line;
	}
	return 0;
}

/* The table of html_statements. */
static void statements_table(FILE *out, char *const *lines, size_t n)
{
	fputs("<table><tr><th>where</th><th>statement</th><th>uses</th></tr>\n", out);
	for (size_t i = 0; i < n; i++) {
		const char *l = lines[i], *a, *b;

		if (!statement_line(l))
			continue;
		/* SRC:L:C: STMT: USES -- the last ": " before the counts */
		a = strstr(l + 2, ": ");
		b = strrchr(l, ':');
		while (b && b > a && b[1] != ' ')
			b = NULL;
		if (!a || !b || b <= a)
			continue;
		fputs("<tr><td><code>", out);
		esc(out, l + 2, (size_t)(a - l - 2));
		fputs("</code></td><td><code>", out);
		esc(out, a + 2, (size_t)(b - a - 2));
		fprintf(out, "</code></td><td%s>", unused(b + 2) ? " class=\"left\"" : "");
		escs(out, b + 2);
		fputs("</td></tr>\n", out);
	}
	fputs("</table>\n", out);
}

/* The statements: "SRC:L:C: STMT: USES" lines as a table. */
static void html_statements(FILE *out, char *const *lines, size_t n)
{
	fputs("<section id=\"statements\"><h2>Statements</h2>", out);
	statements_table(out, lines, n);
	fputs("</section>\n", out);
}

/* A failure: line i, "WHERE: error: MESSAGE" (e at ": error: ", or NULL:
 * the line is the message), and the indented lines under it. */
static void failure_div(FILE *out, char *const *lines, size_t n, size_t i, const char *e)
{
	fputs("<div class=\"failure\"><div class=\"msg\">", out);
	escs(out, e ? e + 9 : lines[i]);
	fputs("</div>", out);
	if (e) {
		fputs("<div><code>", out);
		esc(out, lines[i], (size_t)(e - lines[i]));
		fputs("</code></div>", out);
	}
	fputs("<pre>", out);
	for (size_t k = i + 1; k < n && lines[k][0] == ' ' && lines[k][1] == ' ' && lines[k][2] == ' '; k++) {
		escs(out, lines[k] + 4);
		fputc('\n', out);
	}
	fputs("</pre></div>\n", out);
}

/* The failures: "...: error: MESSAGE" and its indented lines. */
static void html_failures(FILE *out, char *const *lines, size_t n, unsigned failures)
{
	fprintf(out, "<section id=\"failures\"><h2>Failures (%u)</h2>\n", failures);
	for (size_t i = 0; i < n; i++) {
		const char *e = strstr(lines[i], ": error: ");

		if (!e || lines[i][0] == ' ')
			continue;
		failure_div(out, lines, n, i, e);
	}
	if (!failures)
		fputs("<p>None.</p>\n", out);
	fputs("</section>\n", out);
}

/* An answered call's line ("  read() call 1 ..."), not a failure's. */
static const char *call_of(const char *l)
{
	const char *c = strstr(l, "() call ");

	return c && l[0] == ' ' && !strstr(l, "error:") ? c : NULL;
}

/* The processes (the first line's "attached (a[1], b[2])"), and the
 * calls statements answered, in order, as an SVG timeline. */
static void html_timeline(FILE *out, char *const *lines, size_t n)
{
	const char *att = n ? strstr(lines[0], "attached (") : NULL;
	char procs[64][64];
	size_t np = 0, ncalls = 0, x = 0;

	for (const char *p = att ? att + 10 : ""; *p && *p != ')' && np < 64;) {
		size_t k = strcspn(p, ",)");

		snprintf(procs[np++], sizeof(procs[0]), "%.*s", (int)(k < 63 ? k : 63), p);
		p += k;
		while (*p == ',' || *p == ' ')
			p++;
	}
	for (size_t i = 0; i < n; i++)
		ncalls += call_of(lines[i]) != NULL;
	fprintf(out, "<section id=\"timeline\"><h2>Processes and answered calls</h2>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%zu\" height=\"%zu\">\n",
		(size_t)220 + (ncalls + 1) * 90, np * 28 + 10);
	for (size_t p = 0; p < np; p++) {
		fprintf(out, "<text x=\"4\" y=\"%zu\">", p * 28 + 22);
		escs(out, procs[p]);
		fprintf(out, "</text><rect x=\"200\" y=\"%zu\" width=\"%zu\" height=\"16\" fill=\"#dde6f5\"/>\n",
			p * 28 + 9, (ncalls + 1) * 90);
	}
	for (size_t i = 0; i < n; i++) {
		const char *l = lines[i], *c = call_of(l);

		if (!c)
			continue;
		for (size_t p = 0; p < np; p++) {
			if (!names_process(l, procs[p]))
				continue;
			fprintf(out, "<g><title>");
			escs(out, l + 2);
			fprintf(out, "</title><rect x=\"%zu\" y=\"%zu\" width=\"84\" height=\"16\" fill=\"#1e5fb3\"/>"
				"<text x=\"%zu\" y=\"%zu\" fill=\"#fff\">",
				205 + x * 90, p * 28 + 9, 208 + x * 90, p * 28 + 21);
			esc(out, l + 2, (size_t)(c - l - 2 > 9 ? 9 : c - l - 2));
			fputs("()</text></g>\n", out);
			break;
		}
		x++;
	}
	fputs("</svg></section>\n", out);
}

/* <!DOCTYPE html> to <body>: a page that loads nothing and runs nothing. */
static void page_head(FILE *out, const char *what, int failed)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">"
	      "<title>mockshim: ", out);
	escs(out, what);
	fprintf(out, " %s</title><style>%s</style></head><body>\n", failed ? "FAILED" : "passed", css);
}

int ms_report_html(struct ms_report_in *r, FILE *out)
{
	char *text = NULL, **lines;
	size_t len = 0, n;
	int verbosity = r->verbosity, rc;
	FILE *m = open_memstream(&text, &len);
	unsigned failures = ms_report_failures(r);

	if (!m)
		return -errno;
	r->verbosity = 1; /* MOCKSHIM_VERBOSE: every answered call */
	rc = ms_report_write(r, m, MOCKSHIM_REPORT_TEXT);
	r->verbosity = verbosity;
	fclose(m);
	if (rc >= 0)
		rc = split_lines(text, &lines, &n);
	if (rc < 0) {
		free(text);
		return rc;
	}
	page_head(out, r->program ? r->program : "run", failures != 0);
	/* the verdict */
	fprintf(out, "<header class=\"%s\"><h1 id=\"verdict\">%s</h1><p>", failures ? "fail" : "pass",
		failures ? "FAILED" : "PASSED");
	if (failures)
		fprintf(out, "%u check%s failed. ", failures, failures == 1 ? "" : "s");
	if (n && strncmp(lines[0], "mockshim: ", 10) == 0)
		escs(out, lines[0] + 10);
	fputs("</p></header>\n", out);
	html_statements(out, lines, n);
	html_failures(out, lines, n, failures);
	html_timeline(out, lines, n);
	/* everything, as the terminal shows it */
	fputs("<section id=\"text\"><h2>Report</h2><pre class=\"raw\">", out);
	for (size_t i = 0; i < n; i++) {
		escs(out, lines[i]);
		fputc('\n', out);
	}
	fputs("</pre></section>\n</body></html>\n", out);
	free(lines);
	free(text);
	return fflush(out) == 0 ? 0 : -EIO;
}

/* Lines of text as a <pre>, escaped; nothing for no text. */
static void pre_text(FILE *out, const char *heading, const char *text)
{
	if (!text || !*text)
		return;
	fprintf(out, "<h3>%s</h3><pre class=\"raw\">", heading);
	escs(out, text);
	fputs("</pre>\n", out);
}

/* Test k's section: its statements (from its run's report), its failures
 * (from why it failed), what it wrote, and the report as text. */
static int html_test(FILE *out, size_t k, const struct ms_html_test *t)
{
	char *rep = t->report ? strdup(t->report) : NULL, *why = t->details ? strdup(t->details) : NULL;
	char **rl = NULL, **wl = NULL;
	size_t rn = 0, wn = 0, shown = 0;

	if ((t->report && !rep) || (t->details && !why) || (rep && split_lines(rep, &rl, &rn) < 0) ||
	    (why && split_lines(why, &wl, &wn) < 0)) {
		free(rl);
		free(rep);
		free(why);
		return -ENOMEM;
	}
	fprintf(out, "<section class=\"test\" id=\"test-%zu\"><h2><span class=\"%s\">%s</span> ", k + 1,
		t->passed ? "tpass" : "tfail", t->passed ? "PASS" : t->error ? "ERROR" : "FAIL");
	escs(out, t->file);
	fputs(": ", out);
	escs(out, t->name);
	fputs("</h2><p><code>", out);
	escs(out, t->file);
	fprintf(out, ":%u</code>, %.2f s</p>\n<h3>Statements</h3>", t->line, t->seconds);
	if (rep)
		statements_table(out, rl, rn);
	else
		fputs("<p>None reported.</p>\n", out);
	fputs("<h3>Failures</h3>\n", out);
	/* why it failed: a line each (an expectation of the test file, or
	 * a report's failure), the report's own lines passed over */
	for (size_t i = 0; !t->passed && i < wn; i++) {
		if (wl[i][0] == ' ' || strncmp(wl[i], "mockshim: ", 10) == 0)
			continue;
		failure_div(out, wl, wn, i, strstr(wl[i], ": error: "));
		shown++;
	}
	if (!shown)
		fputs(t->passed ? "<p>None.</p>\n" : "<p>The test failed (see its report below).</p>\n", out);
	pre_text(out, "Standard output", t->out);
	pre_text(out, "Standard error", t->err);
	if (t->report || t->details) {
		fputs("<h3>Report</h3><pre class=\"raw\">", out);
		if (t->details && !t->passed)
			escs(out, t->details);
		else if (t->report)
			escs(out, t->report);
		fputs("</pre>\n", out);
	}
	fputs("</section>\n", out);
	free(rl);
	free(wl);
	free(rep);
	free(why);
	return 0;
}

int ms_report_html_tests(FILE *out, const struct ms_html_test *t, size_t n)
{
	size_t failed = 0;

	for (size_t i = 0; i < n; i++)
		failed += !t[i].passed;
	page_head(out, "tests", failed != 0);
	fprintf(out, "<header class=\"%s\"><h1 id=\"verdict\">%s</h1><p>%zu passed, %zu failed</p></header>\n",
		failed ? "fail" : "pass", failed ? "FAILED" : "PASSED", n - failed, failed);
	fputs("<section id=\"tests\"><h2>Tests</h2><table><tr><th>result</th><th>file</th><th>test</th>"
	      "<th>time</th></tr>\n", out);
	for (size_t i = 0; i < n; i++) {
		fprintf(out, "<tr><td class=\"%s\">%s</td><td><code>", t[i].passed ? "tpass" : "tfail",
			t[i].passed ? "PASS" : t[i].error ? "ERROR" : "FAIL");
		escs(out, t[i].file);
		fprintf(out, "</code></td><td><a href=\"#test-%zu\">", i + 1);
		escs(out, t[i].name);
		fprintf(out, "</a></td><td>%.2f s</td></tr>\n", t[i].seconds);
	}
	fputs("</table></section>\n", out);
	for (size_t i = 0; i < n; i++)
		if (html_test(out, i, &t[i]) < 0)
			return -ENOMEM;
	fputs("</body></html>\n", out);
	return fflush(out) == 0 ? 0 : -EIO;
}
