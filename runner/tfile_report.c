/* SPDX-License-Identifier: MIT */
/*
 * Test files: the results as TAP, JUnit, JSON or text.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "tfile.h"

#define TAIL_LINES 20

/* The last TAIL_LINES lines of what a program wrote. */
static const char *tail_of(const char *text, size_t *lines)
{
	size_t n = strlen(text), k = 0;
	const char *p = text + n;

	if (n && p[-1] == '\n')
		p--;
	while (p > text) {
		if (p[-1] == '\n' && ++k == TAIL_LINES)
			break;
		p--;
	}
	*lines = k;
	return p;
}

/* The tail of a failed test's stdout or stderr, a line each with
 * prefix, escaped (ms_safe_text): what a program wrote reaches a
 * terminal or a YAML block. */
static void put_tail(FILE *out, const char *what, const char *text, const char *head,
		     const char *prefix)
{
	size_t skipped;
	const char *p;

	if (!text || !*text)
		return;
	p = tail_of(text, &skipped);
	if (*what)
		fprintf(out, "%s%s%s:\n", head, what, p > text ? " (the last 20 lines)" : "");
	while (*p) {
		size_t n = strcspn(p, "\n");
		char *line = xstrndup(p, n);

		fputs(prefix, out);
		ms_safe_text(out, line);
		fputc('\n', out);
		free(line);
		p += n + (p[n] == '\n');
	}
}

void ms_tf_write_tap(FILE *out, struct entry *e, size_t n, int version)
{
	fprintf(out, "TAP version %d\n1..%zu\n", version, n);
	for (size_t i = 0; i < n; i++) {
		fprintf(out, "%s %zu - ", e[i].r.passed ? "ok" : "not ok", i + 1);
		ms_tap_text(out, e[i].f->path);
		fputs(": ", out);
		ms_tap_text(out, e[i].t->name);
		fputc('\n', out);
		if (!e[i].r.passed) {
			const char *d = e[i].r.details ? e[i].r.details : "";

			char *at = NULL;

			if (asprintf(&at, "%s:%u", e[i].f->path, e[i].t->line) < 0)
				at = NULL;
			fputs("  ---\n  at: ", out);
			ms_json_text(out, at ? at : e[i].f->path);
			free(at);
			fputs("\n  message: |\n", out);
			while (*d) {
				size_t k = strcspn(d, "\n");
				char *line = xstrndup(d, k);

				fputs("    ", out);
				ms_safe_text(out, line);
				fputc('\n', out);
				free(line);
				d += k + (d[k] == '\n');
			}
			if (e[i].r.out && *e[i].r.out) {
				fputs("  stdout: |\n", out);
				put_tail(out, "", e[i].r.out, "", "    ");
			}
			if (e[i].r.err && *e[i].r.err) {
				fputs("  stderr: |\n", out);
				put_tail(out, "", e[i].r.err, "", "    ");
			}
			fprintf(out, "  ...\n");
		}
	}
}

/*
 * The line of a failed test's details a CI system shows as its headline
 * (JUnit's message=): the first failure.  A report's lines that say no
 * failure are passed over: its summary ("mockshim: PROG exited ...;
 * N processes attached"), its warnings and its verdict, which come
 * before or after the failures, and the indented lines under a failure.
 * Details of nothing but such lines give their first line (malloc'd).
 */
static char *headline(const char *d)
{
	for (const char *p = d; *p;) {
		size_t k = strcspn(p, "\n");

		if (k && p[0] != ' ' && strncmp(p, "mockshim: ", 10) != 0)
			return xstrndup(p, k);
		p += k + (p[k] == '\n');
	}
	return xstrndup(d, strcspn(d, "\n"));
}

void ms_tf_write_junit(FILE *out, struct entry *e, size_t n, long long started)
{
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n");
	for (size_t i = 0; i < n;) {
		size_t j = i, failures = 0, errors = 0;
		double secs = 0;

		while (j < n && e[j].f == e[i].f) {
			failures += !e[j].r.passed && !e[j].r.error;
			errors += e[j].r.error;
			secs += e[j].r.seconds;
			j++;
		}
		fprintf(out, "  <testsuite name=\"");
		ms_junit_classname(out, e[i].f->path);
		fprintf(out, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"0\" time=\"%.3f\"",
			j - i, failures, errors, secs);
		ms_junit_when_where(out, started);
		fputs(">\n", out);
		for (size_t k = i; k < j; k++) {
			fprintf(out, "    <testcase classname=\"");
			ms_junit_classname(out, e[k].f->path);
			fprintf(out, "\" name=\"");
			ms_xml_text(out, e[k].t->name);
			fprintf(out, "\" time=\"%.3f\">\n", e[k].r.seconds);
			if (!e[k].r.passed) {
				/* the first line is the headline a CI system shows;
				 * a fixture's failure is an error, not the test's */
				const char *d = e[k].r.details ? e[k].r.details : "the test failed\n";
				char *first = headline(d);
				const char *tag = e[k].r.error ? "error" : "failure";

				fprintf(out, "      <%s message=\"", tag);
				ms_xml_text(out, first);
				fprintf(out, "\">");
				ms_xml_text(out, d);
				fprintf(out, "</%s>\n", tag);
				free(first);
			}
			fprintf(out, "      <system-out>");
			ms_xml_text(out, e[k].r.out);
			fprintf(out, "</system-out>\n      <system-err>");
			ms_xml_text(out, e[k].r.err);
			fprintf(out, "</system-err>\n    </testcase>\n");
		}
		fprintf(out, "  </testsuite>\n");
		i = j;
	}
	fprintf(out, "</testsuites>\n");
}

int ms_tf_write_html(FILE *out, struct entry *e, size_t n)
{
	struct ms_html_test *t = xrealloc(NULL, n * sizeof(*t));
	int rc;

	for (size_t i = 0; i < n; i++)
		t[i] = (struct ms_html_test){
			.file = e[i].f->path,
			.name = e[i].t->name,
			.line = e[i].t->line,
			.passed = e[i].r.passed,
			.error = e[i].r.error,
			.seconds = e[i].r.seconds,
			.report = e[i].r.report,
			.details = e[i].r.details,
			.out = e[i].r.out,
			.err = e[i].r.err,
		};
	rc = ms_report_html_tests(out, t, n);
	free(t);
	return rc;
}

void ms_tf_write_json(FILE *out, struct entry *e, size_t n)
{
	size_t failed = 0;

	for (size_t i = 0; i < n; i++)
		failed += !e[i].r.passed;
	fprintf(out, "{\"failure_count\":%zu,\"tests\":[", failed);
	for (size_t i = 0; i < n; i++) {
		fprintf(out, "%s{\"file\":", i ? "," : "");
		ms_json_text(out, e[i].f->path);
		fprintf(out, ",\"name\":");
		ms_json_text(out, e[i].t->name);
		fprintf(out, ",\"line\":%u,\"passed\":%s,\"error\":%s,\"seconds\":%.3f,\"details\":",
			e[i].t->line, e[i].r.passed ? "true" : "false", e[i].r.error ? "true" : "false",
			e[i].r.seconds);
		ms_json_text(out, e[i].r.details ? e[i].r.details : "");
		fprintf(out, ",\"stdout\":");
		ms_json_text(out, e[i].r.out ? e[i].r.out : "");
		fprintf(out, ",\"stderr\":");
		ms_json_text(out, e[i].r.err ? e[i].r.err : "");
		fputc('}', out);
	}
	fprintf(out, "]}\n");
}

void ms_tf_write_text(FILE *out, struct entry *e, size_t n, int color)
{
	size_t failed = 0;
	const char *red = color ? "\033[31m" : "", *green = color ? "\033[32m" : "",
		   *off = color ? "\033[0m" : "";

	for (size_t i = 0; i < n; i++) {
		failed += !e[i].r.passed;
		fprintf(out, "%s%s%s ", e[i].r.passed ? green : red, e[i].r.passed ? "PASS" : "FAIL", off);
		ms_safe_text(out, e[i].f->path);
		fputs(": ", out);
		ms_safe_text(out, e[i].t->name);
		fprintf(out, " (%.2fs)\n", e[i].r.seconds);
		if (!e[i].r.passed && e[i].r.details) {
			const char *d = e[i].r.details;

			while (*d) {
				size_t k = strcspn(d, "\n");
				char *line = xstrndup(d, k);

				ms_safe_text(out, line);
				fputc('\n', out);
				free(line);
				d += k + (d[k] == '\n');
			}
		}
		if (!e[i].r.passed) {
			put_tail(out, "stdout", e[i].r.out, "  ", "  | ");
			put_tail(out, "stderr", e[i].r.err, "  ", "  | ");
		}
	}
	fprintf(out, "%zu passed, %zu failed\n", n - failed, failed);
}

