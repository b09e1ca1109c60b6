/* SPDX-License-Identifier: MIT */
/*
 * Reports of a run for machines: JSON (doc/report.schema.json) and
 * JUnit XML, and the escaping each needs.
 *
 * +--------------------------------------------------------------------+
 * | Linked into the shim too (standalone mode prints its report at     |
 * | exit), where its fprintf, malloc and free are the shim's own       |
 * | trampolines.  That is safe only because the shim calls this code   |
 * | with the re-entry guard held, so every such call goes straight to  |
 * | the real function.  Call nothing here from the shim's call path,   |
 * | and keep the guard around any new caller in the shim.              |
 * | (tests/preload/symbols.sh exempts this file for that reason.)      |
 * +--------------------------------------------------------------------+
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "catalog/catalog.h"
#include "channel/channel.h"
#include "report.h"
#include "view.h"
#include "report_impl.h"

char *rp_headline(const char *text)
{
	const char *p = strstr(text, ": error: ");
	size_t n;
	char *h;

	p = p && (size_t)(p - text) < strcspn(text, "\n") ? p + 9 : text;
	n = strcspn(p, "\n");
	h = malloc(n + 1);
	if (h) {
		memcpy(h, p, n);
		h[n] = '\0';
	}
	return h;
}

/* A JSON string: valid UTF-8 whatever the program wrote (an invalid
 * sequence is U+FFFD), control characters as \u00XX. */
void ms_json_text(FILE *out, const char *text)
{
	const unsigned char *p = (const unsigned char *)text, *run = p;

	fputc('"', out);
	while (*p) {
		uint32_t cp;
		size_t n;

		if (*p >= 0x20 && *p < 0x7f && *p != '"' && *p != '\\') {
			p++; /* printable ASCII, the common case */
			continue;
		}
		n = rp_utf8_seq(p, &cp);
		if (n && cp >= 0x20 && cp != 0x7f && cp != '"' && cp != '\\') {
			p += n; /* written with its run */
			continue;
		}
		fwrite(run, 1, (size_t)(p - run), out);
		if (n == 0)
			fputs("\\ufffd", out);
		else if (cp == '"' || cp == '\\')
			fprintf(out, "\\%c", (int)cp);
		else if (cp == '\n')
			fputs("\\n", out);
		else
			fprintf(out, "\\u%04x", cp);
		p += n ? n : 1;
		run = p;
	}
	fwrite(run, 1, (size_t)(p - run), out);
	fputc('"', out);
}

static const char *fail_kind_name(int kind)
{
	switch (kind) {
	case MS_FAIL_OUTPUT_NULL: return "output_null";
	case MS_FAIL_CHECK: return "check";
	case MS_FAIL_NO_EXPECT: return "no_expected_value";
	case MS_FAIL_ORDER: return "order";
	case MS_FAIL_ORDER_EXTRA: return "order_extra";
	case MS_FAIL_NO_CALL: return "no_call";
	case MS_FAIL_MOCK_EMPTY: return "mock_empty";
	case MS_FAIL_HELD: return "held";
	default: return "failed";
	}
}

/* The JSON report (doc/report.schema.json): every key once; "failures"
 * holds each failed check and each leftover, "failure_count" counts them. */
/* A process's crash: "signal":11,"crash":{"site":...,"stack":[...]}
 * (raw sites: what a tool compares); nothing when it recorded none. */
static void json_crash(FILE *out, struct ms_report_in *s, int32_t pid)
{
	struct rp_crash c;
	char site[320];

	if (rp_crash_of(s, pid, &c))
		return;
	fprintf(out, ",\"signal\":%d,\"crash\":{\"site\":", c.sig);
	ms_json_text(out, rp_site(s, c.site->caller, c.site->caller_off, "", 1, site, sizeof(site)));
	fputs(",\"stack\":[", out);
	for (unsigned k = 0; k < c.nframes; k++) {
		if (k)
			fputc(',', out);
		ms_json_text(out, rp_site(s, c.frame[k]->caller, c.frame[k]->caller_off, "", 1, site,
					  sizeof(site)));
	}
	/* and as the text shows them: symbolized where they can be */
	fputs("],\"site_text\":", out);
	ms_json_text(out, rp_crash_is_pc(&c, c.site)
				  ? rp_site_pc(s, c.site->caller, c.site->caller_off, 0, site, sizeof(site))
				  : rp_site(s, c.site->caller, c.site->caller_off, "", 0, site, sizeof(site)));
	fputs(",\"stack_text\":[", out);
	for (unsigned k = 0; k < c.nframes; k++) {
		if (k)
			fputc(',', out);
		ms_json_text(out, k == 0 ? rp_site_pc(s, c.frame[k]->caller, c.frame[k]->caller_off, 0, site,
						      sizeof(site))
					 : rp_site(s, c.frame[k]->caller, c.frame[k]->caller_off, "", 0, site,
						   sizeof(site)));
	}
	fputs("],\"replies_before\":[", out);
	{
		const struct ms_event *f[RP_CRASH_FAULTS];
		unsigned nf = rp_crash_faults(s, pid, f, RP_CRASH_FAULTS);

		for (unsigned k = 0; k < nf; k++) {
			const struct ms_rule *r = rule_at(s, f[k]->rule);

			fprintf(out, "%s{\"function\":", k ? "," : "");
			ms_json_text(out, rp_fn_name(s, f[k]->fn));
			fprintf(out, ",\"source\":");
			ms_json_text(out, str(s, r->stmt.src));
			fprintf(out, ",\"line\":%u,\"col\":%u,\"call\":%u", r->stmt.line, r->stmt.col,
				f[k]->call);
			if (f[k]->caller[0]) {
				fprintf(out, ",\"site\":");
				ms_json_text(out, rp_site(s, f[k]->caller, f[k]->caller_off, "", 1, site,
							  sizeof(site)));
			}
			fputc('}', out);
		}
	}
	fputs("]}", out);
}

/* The attach events (type MS_EV_ATTACH, rule any) or the processes that
 * read a fake clock (MS_EV_TIME, rule its index), as [{pid, exe}]. */
static void json_processes(FILE *out, struct ms_report_in *s, uint16_t type, uint32_t rule)
{
	int first = 1;

	fputc('[', out);
	for (uint32_t i = 0; i < nevents(s); i++) {
		const struct ms_event *e = event_at(s, i);

		if (e->state != 1 || e->type != type || (type == MS_EV_TIME && e->rule != rule))
			continue;
		fprintf(out, "%s{\"pid\":%d,\"exe\":", first ? "" : ",", e->pid);
		ms_json_text(out, e->text);
		if (type == MS_EV_ATTACH)
			json_crash(out, s, e->pid);
		fputc('}', out);
		first = 0;
	}
	fputc(']', out);
}

static void json_escapes(FILE *out, struct ms_report_in *s)
{
	int first = 1;

	fputc('[', out);
	for (uint32_t i = 0; i < nevents(s); i++) {
		const struct ms_event *e = event_at(s, i);

		if (e->state != 1 || e->type != MS_EV_WARN)
			continue;
		fprintf(out, "%s{\"pid\":%d,\"by\":", first ? "" : ",", e->pid);
		ms_json_text(out, rp_exe_of(s, e->pid, i));
		fprintf(out, ",\"program\":");
		ms_json_text(out, e->text);
		fprintf(out, ",\"how\":\"%s\",\"why\":", e->param ? "spawn" : "exec");
		ms_json_text(out, rp_escape_why(s, e->kind));
		fputc('}', out);
		first = 0;
	}
	fputc(']', out);
}

/* The kill points reached: each turn of a will_signal (the process it
 * raised its signal in). */
static void json_kill_points(FILE *out, struct ms_report_in *s)
{
	int first = 1;

	fputc('[', out);
	for (uint32_t i = 0; i < nevents(s); i++) {
		const struct ms_event *e = event_at(s, i);
		const struct ms_rule *r;
		const char *sig;

		if (e->state != 1 || e->type != MS_EV_CONSUME || rule_at(s, e->rule)->kind != MS_R_SIGNAL)
			continue;
		r = rule_at(s, e->rule);
		sig = ms_signal_abbrev((int)e->value);
		fprintf(out, "%s{\"source\":", first ? "" : ",");
		ms_json_text(out, str(s, r->stmt.src));
		fprintf(out, ",\"line\":%u,\"statement\":", r->stmt.line);
		ms_json_text(out, rp_stmt_text(s, r->stmt.text));
		fprintf(out, ",\"signal\":\"SIG%s\",\"signo\":%lld,\"pid\":%d,\"tid\":%d,\"exe\":",
			sig ? sig : "?", (long long)e->value, e->pid, e->tid);
		ms_json_text(out, rp_exe_of(s, e->pid, i));
		fprintf(out, ",\"function\":");
		ms_json_text(out, rp_fn_name(s, e->fn));
		fprintf(out, ",\"call\":%u}", e->call);
		first = 0;
	}
	fputc(']', out);
}

static void json_statements(FILE *out, struct ms_report_in *s, const struct cases *c)
{
	static const char *const tables[] = { "rule", "expectation", "order" };

	fputc('[', out);
	for (uint32_t i = 0; i < c->n; i++) {
		const struct item *it = &c->items[i];

		fprintf(out, "%s{\"kind\":\"%s\",\"source\":", i ? "," : "", tables[it->table]);
		ms_json_text(out, str(s, it->stmt.src));
		fprintf(out, ",\"line\":%u,\"col\":%u,\"statement\":", it->stmt.line, it->stmt.col);
		ms_json_text(out, str(s, it->stmt.text));
		fprintf(out, ",\"function\":");
		ms_json_text(out, rp_stmt_fn_name(s, it->stmt.fn, it->stmt.text));
		fprintf(out, ",\"count\":%d,\"consumed\":%u,\"leftover\":%s,\"failed_checks\":%u}",
			it->stmt.count, it->consumed, rp_leftover(s, it) ? "true" : "false", c->nfail[i]);
	}
	fputc(']', out);
}

static void json_clocks(FILE *out, struct ms_report_in *s)
{
	fputc('[', out);
	for (uint32_t i = 0; i < hdr(s)->nftimes; i++) {
		const struct ms_ftime *t = ftime_at(s, i);
		const struct ms_time_state *ts = time_state_at(s, i);

		fprintf(out, "%s{\"source\":", i ? "," : "");
		ms_json_text(out, str(s, t->src));
		fprintf(out, ",\"line\":%u,\"col\":%u,\"statement\":", t->line, t->col);
		ms_json_text(out, str(s, t->text));
		fprintf(out, ",\"reads\":%llu,\"waits_converted\":%llu,\"moves\":%u,\"processes\":",
			(unsigned long long)ts->reads, (unsigned long long)ts->sleeps, ts->moves);
		json_processes(out, s, MS_EV_TIME, i);
		fputc('}', out);
	}
	fputc(']', out);
}

/* The failed checks, then the leftovers, each with its message as the
 * text report words it. */
static void json_failures(FILE *out, struct ms_report_in *s, const struct cases *c)
{
	int first = 1;

	fputc('[', out);
	for (uint32_t i = 0; i < nevents(s); i++) {
		const struct ms_event *e = event_at(s, i);
		uint32_t k;
		char *msg = NULL;
		size_t len = 0;
		FILE *m;

		if (e->state != 1 || e->type != MS_EV_FAIL || !(m = open_memstream(&msg, &len)))
			continue;
		rp_failure_text(m, s, e, i, "    ");
		fclose(m);
		k = rp_case_of(s, c, e);
		fprintf(out, "%s{\"kind\":\"%s\",\"function\":", first ? "" : ",", fail_kind_name(e->kind));
		ms_json_text(out, rp_fn_name(s, e->fn));
		if (k < c->n) {
			fprintf(out, ",\"source\":");
			ms_json_text(out, str(s, c->items[k].stmt.src));
			fprintf(out, ",\"line\":%u,\"col\":%u", c->items[k].stmt.line, c->items[k].stmt.col);
		}
		fprintf(out, ",\"call\":%u,\"pid\":%d,\"tid\":%d,\"exe\":", e->call, e->pid, e->tid);
		ms_json_text(out, rp_exe_of(s, e->pid, i));
		fprintf(out, ",\"caller\":");
		ms_json_text(out, e->caller);
		fprintf(out, ",\"caller_offset\":%llu", (unsigned long long)e->caller_off);
		if (e->caller[0]) {
			char site[320];

			fprintf(out, ",\"site\":");
			ms_json_text(out, rp_site(s, e->caller, e->caller_off, e->sym, 1, site, sizeof(site)));
			/* and as the text shows it: symbolized where it can be */
			fprintf(out, ",\"site_text\":");
			ms_json_text(out, rp_site(s, e->caller, e->caller_off, e->sym, 0, site, sizeof(site)));
		}
		fprintf(out, ",\"message\":");
		ms_json_text(out, msg);
		fputc('}', out);
		free(msg);
		first = 0;
	}
	for (uint32_t i = 0; i < c->n; i++) {
		const struct item *it = &c->items[i];
		char *msg = NULL;
		size_t len = 0;
		FILE *m;

		if (!rp_leftover(s, it) || !(m = open_memstream(&msg, &len)))
			continue;
		rp_leftover_text(m, s, it, "    ");
		fclose(m);
		fprintf(out, "%s{\"kind\":\"leftover\",\"function\":", first ? "" : ",");
		ms_json_text(out, rp_fn_name(s, it->stmt.fn));
		fprintf(out, ",\"source\":");
		ms_json_text(out, str(s, it->stmt.src));
		fprintf(out, ",\"line\":%u,\"col\":%u,\"message\":", it->stmt.line, it->stmt.col);
		ms_json_text(out, msg);
		fputc('}', out);
		free(msg);
		first = 0;
	}
	fputc(']', out);
}

void rp_report_json(struct ms_report_in *s, FILE *out)
{
	const struct mockshim_result *res = &s->result;
	struct cases c;

	if (rp_cases_make(s, &c) < 0)
		return;
	fprintf(out, "{\"program\":");
	ms_json_text(out, s->program);
	fprintf(out, ",\"tampered\":");
	if (s->tampered)
		ms_json_text(out, s->tampered);
	else
		fputs("null", out);
	if (s->running)
		fputs(",\"running\":true", out);
	if (s->power) {
		fputs(",\"power_loss\":", out);
		ms_json_text(out, s->power);
	}
	fprintf(out, ",\"exited\":%s,\"exit_status\":%d,\"signal\":%d,\"timed_out\":%s,"
		     "\"exec_errno\":%d,\"seconds\":%.3f,\"failure_count\":%u,\"processes\":",
		res->exited ? "true" : "false", res->exit_status, res->signal,
		res->timed_out ? "true" : "false", res->exec_errno, res->seconds,
		ms_report_failures(s));
	json_processes(out, s, MS_EV_ATTACH, 0);
	fprintf(out, ",\"escapes\":");
	json_escapes(out, s);
	fprintf(out, ",\"kill_points\":");
	json_kill_points(out, s);
	fprintf(out, ",\"statements\":");
	json_statements(out, s, &c);
	fprintf(out, ",\"clocks\":");
	json_clocks(out, s);
	fprintf(out, ",\"failures\":");
	json_failures(out, s, &c);
	fprintf(out, ",\"failures_not_shown\":%u,\"events_dropped\":%u}\n",
		rp_failed_checks(s) > rp_failure_events(s) ? rp_failed_checks(s) - rp_failure_events(s) : 0,
		live(s)->events_next > hdr(s)->events_cap ? live(s)->events_next - hdr(s)->events_cap : 0);
	rp_cases_free(&c);
}

/* The first line of every text report of a tampered run. */
void ms_xml_text(FILE *out, const char *text)
{
	const unsigned char *p = (const unsigned char *)(text ? text : ""), *run = p;

	while (*p) {
		uint32_t cp;
		size_t n;

		if (*p >= 0x20 && *p < 0x7f && *p != '<' && *p != '>' && *p != '&' && *p != '"') {
			p++; /* printable ASCII, the common case */
			continue;
		}
		n = rp_utf8_seq(p, &cp);
		if (n && cp != '<' && cp != '>' && cp != '&' && cp != '"' &&
		    (cp >= 0x20 || cp == '\n' || cp == '\t') && cp != 0xfffe && cp != 0xffff) {
			p += n; /* written with its run */
			continue;
		}
		fwrite(run, 1, (size_t)(p - run), out);
		if (n && cp == '<')
			fputs("&lt;", out);
		else if (n && cp == '>')
			fputs("&gt;", out);
		else if (n && cp == '&')
			fputs("&amp;", out);
		else if (n && cp == '"')
			fputs("&quot;", out);
		else if (n && cp == '\r')
			fputs("&#13;", out);
		else
			fputs("\xef\xbf\xbd", out);
		p += n ? n : 1;
		run = p;
	}
	fwrite(run, 1, (size_t)(p - run), out);
}

/*
 * JUnit's classname for a source: a file as a CI system groups it, its
 * path relative to the current directory without the "../" that a build
 * directory adds, without ".mock", "/" as "." (../tests/x.mock:
 * tests.x); a name that is no file (-e#1) as it is.
 */
char *ms_junit_class(const char *path)
{
	char *real = realpath(path, NULL), *cwd = getcwd(NULL, 0), *name = NULL;
	size_t n;

	if (real && cwd) {
		size_t cl = strlen(cwd);

		/* the deepest ancestor of cwd that holds the file */
		while (cl > 1 && !(strncmp(real, cwd, cl) == 0 && real[cl] == '/')) {
			while (cl > 1 && cwd[cl - 1] != '/')
				cl--;
			cl = cl > 1 ? cl - 1 : 1;
		}
		name = strdup(cl > 1 ? real + cl + 1 : real + 1);
	}
	free(real);
	free(cwd);
	if (!name)
		return NULL;
	n = strlen(name);
	if (n > 5 && strcmp(name + n - 5, ".mock") == 0)
		n -= 5;
	for (size_t i = 0; i < n; i++)
		if (name[i] == '/')
			name[i] = '.';
	name[n] = '\0';
	return name;
}

void ms_junit_classname(FILE *out, const char *path)
{
	char *name = ms_junit_class(path);

	ms_xml_text(out, name ? name : path);
	free(name);
}

/* JUnit's timestamp (xs:dateTime, UTC) and hostname attributes. */
void ms_junit_when_where(FILE *out, long long started)
{
	time_t t = (time_t)started;
	struct tm tm;
	char when[32] = "1970-01-01T00:00:00", host[256] = "localhost";

	if (gmtime_r(&t, &tm))
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	if (gethostname(host, sizeof(host)) != 0)
		snprintf(host, sizeof(host), "localhost");
	host[sizeof(host) - 1] = '\0';
	fprintf(out, " timestamp=\"%s\" hostname=\"", when);
	ms_xml_text(out, host);
	fputc('"', out);
}

/* <failure message="HEADLINE">full text</failure>, or <error>. */
static void junit_problem(FILE *out, const char *tag, const char *text, unsigned more)
{
	char *h = rp_headline(text);

	fprintf(out, "<%s message=\"", tag);
	ms_xml_text(out, h ? h : "");
	if (more)
		fprintf(out, " (and %u more)", more);
	fputs("\">", out);
	ms_xml_text(out, text);
	fprintf(out, "</%s>", tag);
	free(h);
}

/* JUnit: one testsuite for the run, a testcase per statement (its
 * failures and its leftover fail it), and one for the program's exit. */
void rp_report_junit(struct ms_report_in *s, FILE *out)
{
	struct cases c;
	unsigned failed = 0, errors = 0;
	char status[160], *cls = NULL;

	if (rp_cases_make(s, &c) < 0)
		return;
	for (uint32_t i = 0; i < c.n; i++)
		failed += rp_leftover(s, &c.items[i]) || c.nfail[i];
	if (c.nfail[c.n] || s->lost_failures)
		failed++;
	else if (rp_program_failed(s, &c))
		errors++;
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n  <testsuite name=\"");
	ms_xml_text(out, s->program);
	fprintf(out, "\" tests=\"%u\" failures=\"%u\" errors=\"%u\" skipped=\"0\" time=\"%.3f\"", c.n + 1,
		failed, errors + (s->tampered ? 1 : 0), s->result.seconds);
	ms_junit_when_where(out, s->result.started);
	fputs(">\n", out);
	for (uint32_t i = 0; i < c.n; i++) {
		const struct item *it = &c.items[i];
		char name[512];

		snprintf(name, sizeof(name), "%u:%u: %s", it->stmt.line, it->stmt.col, rp_stmt_text(s, it->stmt.text));
		/* the statements of a source are in a row: its classname
		 * (a realpath and a getcwd) once, not per testcase */
		if (!i || it->stmt.src != c.items[i - 1].stmt.src) {
			free(cls);
			cls = ms_junit_class(str(s, it->stmt.src));
		}
		fprintf(out, "    <testcase classname=\"");
		ms_xml_text(out, cls ? cls : str(s, it->stmt.src));
		fprintf(out, "\" name=\"");
		ms_xml_text(out, name);
		fprintf(out, "\" time=\"0.000\">");
		if (rp_leftover(s, it) || c.nfail[i]) {
			char *msg = rp_case_text(s, &c, i, "");

			if (msg)
				junit_problem(out, "failure", msg,
					      c.nfail[i] + (unsigned)rp_leftover(s, it) - 1);
			free(msg);
		}
		fprintf(out, "</testcase>\n");
	}
	rp_describe_status(s, status, sizeof(status));
	fprintf(out, "    <testcase classname=\"");
	ms_xml_text(out, s->program);
	fprintf(out, "\" name=\"");
	ms_xml_text(out, s->program);
	fprintf(out, " %s\" time=\"%.3f\">", status, s->result.seconds);
	if (s->power) {
		fprintf(out, "<system-out>");
		ms_xml_text(out, s->power);
		fprintf(out, "</system-out>");
	}
	if (s->tampered) {
		char text[240];

		snprintf(text, sizeof(text), "no verdict: the channel was tampered with: %s",
			 s->tampered);
		junit_problem(out, "error", text, 0);
	} else if (s->lost_failures && !c.nfail[c.n]) {
		char text[200];

		rp_lost_text(s, text, sizeof(text));
		junit_problem(out, "failure", text, 0);
	} else if (c.nfail[c.n]) {
		char *msg = rp_case_text(s, &c, c.n, "    "), *all = NULL;
		size_t len = 0;
		FILE *m = msg ? open_memstream(&all, &len) : NULL;

		/* the crashes after the failures: where a process died */
		if (m) {
			fputs(msg, m);
			rp_crashes(s, m, "");
			fclose(m);
		}
		if (all || msg)
			junit_problem(out, "failure", all ? all : msg, c.nfail[c.n] - 1);
		free(all);
		free(msg);
	} else if (rp_program_failed(s, &c)) {
		char *text = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&text, &len);

		if (m) {
			fprintf(m, "%s %s\n", s->program, status);
			rp_crashes(s, m, "");
			fclose(m);
		}
		junit_problem(out, "error", text ? text : s->program, 0);
		free(text);
	}
	fprintf(out, "</testcase>\n  </testsuite>\n</testsuites>\n");
	free(cls);
	rp_cases_free(&c);
}
