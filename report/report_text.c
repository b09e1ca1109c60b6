/* SPDX-License-Identifier: MIT */
/*
 * Reports of a run as text (the terminal's) and as TAP (13 and 14): each
 * statement a test case.
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
#include "lang/lang.h"
#include "report.h"
#include "view.h"
#include "report_impl.h"

void rp_report_text(struct ms_report_in *s, FILE *out)
{
	const struct ms_chan_hdr *h = hdr(s);
	char status[160], procs[600], buf[600];
	unsigned failures = ms_report_failures(s);
	uint32_t shown = rp_failure_events(s), n = rp_nitems(s);
	int ok;
	uint32_t *order = rp_sorted_order(s, &ok);

	rp_describe_status(s, status, sizeof(status));
	if (s->tampered) {
		rp_tamper_line(out, s, "");
		fprintf(out, "mockshim: %s %s\n", s->program, status);
		fprintf(out, "mockshim: FAILED: no verdict: the channel was tampered with\n");
		free(order);
		return;
	}
	if (s->verbosity >= MOCKSHIM_NORMAL || failures) {
		/* (only when shown: each name is made safe in a stream of
		 * its own) */
		rp_processes(s, procs, sizeof(procs));
		fprintf(out, "mockshim: %s %s; %u process%s attached%s%s%s\n", rp_safe(s->program), status,
			live(s)->attached, live(s)->attached == 1 ? "" : "es", live(s)->attached ? " (" : "", procs,
			live(s)->attached ? ")" : "");
		if (s->power)
			fprintf(out, "mockshim: %s\n", rp_safe(s->power));
		if (live(s)->attached == 0 && n > 0 && !s->result.exec_errno)
			fprintf(out, "mockshim: warning: no process attached: the program may be "
				     "static or setuid, or it cleared LD_PRELOAD\n");
	}
	rp_unbound_declared(s, out, "mockshim: ");
	rp_escapes(s, out, "mockshim: ");
	rp_crashes(s, out, "mockshim: ");
	for (uint32_t i = 0; (s->verbosity >= MOCKSHIM_NORMAL || failures) && i < h->nrules; i++)
		if (rule_at(s, i)->prob) {
			fprintf(out, "mockshim: seed %llu (replay with --seed %llu)\n",
				(unsigned long long)h->seed, (unsigned long long)h->seed);
			break;
		}
	for (size_t i = 0; i < s->nunattached; i++)
		fprintf(out, "mockshim: warning: %s, an orphan of the tree, never attached: nothing in it "
			     "was mocked (static or setuid, or started without LD_PRELOAD)\n",
			s->unattached[i]);
	if (s->unattached_more)
		fprintf(out, "mockshim: warning: %zu more orphans never attached\n", s->unattached_more);
	if (s->lost_failures) {
		char lost[200];

		rp_lost_text(s, lost, sizeof(lost));
		fprintf(out, "mockshim: %s; counted as failed\n", lost);
	}
	if (live(s)->trace_lost)
		fprintf(out, "mockshim: warning: %u --trace line%s could not be written: the trace "
			     "is incomplete\n", live(s)->trace_lost, live(s)->trace_lost == 1 ? "" : "s");
	if (live(s)->trace_badf)
		fprintf(out, "mockshim: warning: %u --trace line%s could not be written: the program "
			     "closed the trace's descriptor %d\n", live(s)->trace_badf,
			live(s)->trace_badf == 1 ? "" : "s", (int)live(s)->trace_badf_fd - 1);
	for (uint32_t i = 0; i < h->nftimes; i++) {
		int64_t end = rp_clock_end(s, i);
		char when[32];

		if (end)
			fprintf(out, "mockshim: warning: %s:%u:%u: the clock stopped at the %s of its "
				     "range, %s UTC, and shows it still (a fake clock shows "
				     MS_TIME_RANGE_TEXT ")\n",
				str(s, ftime_at(s, i)->src), ftime_at(s, i)->line, ftime_at(s, i)->col,
				end > 0 ? "end" : "start", ms_when_text(end, when, sizeof(when)));
	}
	if (s->verbosity >= MOCKSHIM_NORMAL && ok) {
		for (uint32_t i = 0; i < n; i++) {
			struct item it = rp_item_at(s, order ? order[i] : i);

			rp_count_str(status, sizeof(status), &it);
			buf[0] = '\0';
			if (it.table == IT_RULE)
				rp_consumers(s, MS_EV_CONSUME, it.index, buf, sizeof(buf));
			fprintf(out, "  %s:%u:%u: %s: %s%s%s", str(s, it.stmt.src), it.stmt.line,
				it.stmt.col, rp_stmt_text(s, it.stmt.text), status, buf[0] ? ", by " : "",
				buf);
			if (it.passed)
				fprintf(out, "; %u call%s passed it by", it.passed,
					it.passed == 1 ? "" : "s");
			if (it.declined)
				fprintf(out, "; %u call%s not drawn (probability=)", it.declined,
					it.declined == 1 ? "" : "s");
			fputc('\n', out);
		}
	}
	for (uint32_t i = 0; s->verbosity >= MOCKSHIM_NORMAL && i < h->nftimes; i++) {
		const struct ms_ftime *t = ftime_at(s, i);
		const struct ms_time_state *ts = time_state_at(s, i);
		char reads[32];

		rp_consumers(s, MS_EV_TIME, i, buf, sizeof(buf));
		rp_grouped(reads, sizeof(reads), ts->reads);
		fprintf(out, "  %s:%u:%u: %s: clocks read %s time%s%s%s", str(s, t->src), t->line,
			t->col, rp_stmt_text(s, t->text), reads, ts->reads == 1 ? "" : "s",
			buf[0] ? " by " : "", buf);
		if (ts->sleeps)
			fprintf(out, "; %llu wait%s converted", (unsigned long long)ts->sleeps,
				ts->sleeps == 1 ? "" : "s");
		if (ts->moves)
			fprintf(out, "; moved %u time%s by mockrun ctl", ts->moves,
				ts->moves == 1 ? "" : "s");
		if (!ts->reads && s->go_program)
			fprintf(out, "; %s is a Go program, which reads the clock from the vDSO "
				     "itself: no fake_time reaches it (mockrun(1), fake_time)",
				s->program ? s->program : "the program");
		fputc('\n', out);
	}
	for (uint32_t i = 0; i < nevents(s); i++) {
		const struct ms_event *e = event_at(s, i);

		if (e->state != 1)
			continue;
		if (e->type == MS_EV_CONSUME && s->verbosity >= MOCKSHIM_VERBOSE) {
			const struct ms_rule *r = rule_at(s, e->rule);

			/* a lean function's turns are not numbered (call 0) */
			fprintf(out, "  %s()", rp_fn_name(s, e->fn));
			if (e->call)
				fprintf(out, " call %u", e->call);
			fprintf(out, " in %s[%d] (thread %d): %s:%u: %s %lld\n",
				rp_exe_of(s, e->pid, i), e->pid, e->tid, str(s, r->stmt.src), r->stmt.line,
				r->kind == MS_R_REAL ? "passed to the real function" : "returned",
				(long long)e->value);
		} else if (e->type == MS_EV_FAIL) {
			rp_failure_text(out, s, e, i, "    ");
		} else if (e->type == MS_EV_CONSUME && rule_at(s, e->rule)->kind == MS_R_SIGNAL) {
			const struct ms_rule *r = rule_at(s, e->rule);
			/* will_signal: the signal the process (likely) died of */
			const char *sig = ms_signal_abbrev((int)e->value);

			fprintf(out, "mockshim: kill point reached: %s:%u: %s raised SIG%s in %s[%d] "
				     "(thread %d) at %s()",
				str(s, r->stmt.src), r->stmt.line, rp_stmt_text(s, r->stmt.text),
				sig ? sig : "?", rp_exe_of(s, e->pid, i), e->pid, e->tid,
				rp_fn_name(s, e->fn));
			if (e->call)
				fprintf(out, " call %u", e->call);
			fputc('\n', out);
		}
	}
	if (rp_failed_checks(s) > shown + s->lost_failures)
		fprintf(out, "mockshim: %u more failures not shown (the event log holds %u events)\n",
			rp_failed_checks(s) - shown - s->lost_failures, h->events_cap);
	for (uint32_t i = 0; ok && i < n; i++) {
		struct item it = rp_item_at(s, order ? order[i] : i);

		if (rp_leftover(s, &it))
			rp_leftover_text(out, s, &it, "    ");
	}
	if (live(s)->events_next > h->events_cap)
		fprintf(out, "mockshim: %u events not recorded (the event log holds %u)\n",
			live(s)->events_next - h->events_cap, h->events_cap);
	if (live(s)->consume_dropped && s->verbosity >= MOCKSHIM_VERBOSE)
		fprintf(out, "mockshim: %u consumed values not listed (room is kept for failures)\n",
			live(s)->consume_dropped);
	for (size_t i = 0; i < s->nstill_running; i++)
		fprintf(out, "mockshim: still running at the timeout: %s\n", rp_safe(s->still_running[i]));
	if (failures)
		fprintf(out, "mockshim: FAILED: %u check%s failed\n", failures, failures == 1 ? "" : "s");
	else if (s->verbosity >= MOCKSHIM_NORMAL)
		fprintf(out, "mockshim: all checks passed\n");
	free(order);
}

static uint32_t item_global(const struct ms_report_in *s, const struct item *it)
{
	return it->table == IT_RULE     ? it->index
	       : it->table == IT_EXPECT ? hdr(s)->nrules + it->index
					: hdr(s)->nrules + hdr(s)->nexpects + it->index;
}

/* The case of failure event e: the statement it names, or n. */
uint32_t rp_case_of(const struct ms_report_in *s, const struct cases *c, const struct ms_event *e)
{
	const struct ms_chan_hdr *h = hdr(s);

	switch (e->kind) {
	case MS_FAIL_OUTPUT_NULL:
	case MS_FAIL_MOCK_EMPTY:
	case MS_FAIL_HELD:
		return e->rule < h->nrules ? c->pos[e->rule] : c->n;
	case MS_FAIL_CHECK:
	case MS_FAIL_NO_EXPECT:
		return e->rule < h->nexpects ? c->pos[h->nrules + e->rule] : c->n;
	default:
		return e->rule < h->norders ? c->pos[h->nrules + h->nexpects + e->rule] : c->n;
	}
}

int rp_cases_make(const struct ms_report_in *s, struct cases *c)
{
	c->n = rp_nitems(s);
	c->items = rp_sorted_items(s);
	c->pos = calloc(c->n + 1, sizeof(*c->pos));
	c->nfail = calloc(c->n + 1, sizeof(*c->nfail));
	if (!c->items || !c->pos || !c->nfail) {
		free(c->items);
		free(c->pos);
		free(c->nfail);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < c->n; i++)
		c->pos[item_global(s, &c->items[i])] = i;
	for (uint32_t i = 0; i < nevents(s); i++) {
		const struct ms_event *e = event_at(s, i);

		if (e->state == 1 && e->type == MS_EV_FAIL)
			c->nfail[rp_case_of(s, c, e)]++;
	}
	return 0;
}

void rp_cases_free(struct cases *c)
{
	free(c->items);
	free(c->pos);
	free(c->nfail);
}

/* The text of case k's failures (k == n: the program's), and of its
 * leftover; malloc'd, or NULL. */
char *rp_case_text(const struct ms_report_in *s, const struct cases *c, uint32_t k,
		   const char *indent)
{
	char *msg = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&msg, &len);

	if (!m)
		return NULL;
	for (uint32_t i = 0; i < nevents(s); i++) {
		const struct ms_event *e = event_at(s, i);

		if (e->state == 1 && e->type == MS_EV_FAIL && rp_case_of(s, c, e) == k)
			rp_failure_text(m, s, e, i, indent);
	}
	if (k < c->n && rp_leftover(s, &c->items[k]))
		rp_leftover_text(m, s, &c->items[k], indent);
	if (fclose(m) != 0) {
		free(msg);
		return NULL;
	}
	return msg;
}

/* The program's case fails when the program did not get to exit on its
 * own, or when a failure names no statement. */
int rp_program_failed(const struct ms_report_in *s, const struct cases *c)
{
	const struct mockshim_result *r = &s->result;

	return c->nfail[c->n] || s->lost_failures || r->signal || r->timed_out || r->exec_errno;
}

/* Lines of text as a YAML block scalar, indented; what YAML cannot hold
 * (control characters, invalid UTF-8) escaped as in the text report. */
static void yaml_block(FILE *out, const char *key, const char *text)
{
	fprintf(out, "  %s: |\n", key);
	while (*text) {
		const char *nl = strchr(text, '\n');
		size_t n = nl ? (size_t)(nl - text) : strlen(text);
		char *line = malloc(n + 1);

		if (line) {
			memcpy(line, text, n);
			line[n] = '\0';
			fputs("    ", out);
			ms_safe_text(out, line);
			fputc('\n', out);
			free(line);
		}
		text += n + (nl ? 1 : 0);
	}
}

void rp_report_tap(struct ms_report_in *s, FILE *out, int version)
{
	struct cases c;
	char status[160];
	uint32_t k = 0;

	if (rp_cases_make(s, &c) < 0)
		return;
	fprintf(out, "TAP version %d\n", version);
	if (s->tampered) {
		fputs("Bail out! ", out);
		rp_tamper_line(out, s, "");
	}
	fprintf(out, "1..%u\n", c.n + 1);
	rp_unbound_declared(s, out, "# ");
	rp_escapes(s, out, "# ");
	rp_crashes(s, out, "# ");
	for (uint32_t i = 0; i < c.n; i++) {
		const struct item *it = &c.items[i];
		int bad = rp_leftover(s, it) || c.nfail[i];
		char *msg;

		rp_count_str(status, sizeof(status), it);
		fprintf(out, "%s %u - ", bad ? "not ok" : "ok", ++k);
		ms_tap_text(out, str(s, it->stmt.src)); /* "-e#1": a '#' */
		fprintf(out, ":%u: ", it->stmt.line);
		ms_tap_text(out, rp_stmt_text(s, it->stmt.text));
		fprintf(out, " (%s", status);
		if (c.nfail[i])
			fprintf(out, ", %u failed check%s", c.nfail[i], c.nfail[i] == 1 ? "" : "s");
		fputs(")\n", out);
		if (!bad || !(msg = rp_case_text(s, &c, i, "")))
			continue;
		fprintf(out, "  ---\n");
		yaml_block(out, "message", msg);
		fprintf(out, "  at: \"%s:%u:%u\"\n  ...\n", str(s, it->stmt.src), it->stmt.line, it->stmt.col);
		free(msg);
	}
	rp_describe_status(s, status, sizeof(status));
	fprintf(out, "%s %u - ", rp_program_failed(s, &c) ? "not ok" : "ok", ++k);
	ms_tap_text(out, s->program);
	fprintf(out, " %s", status);
	if (c.nfail[c.n])
		fprintf(out, ", %u failed check%s that name no statement", c.nfail[c.n],
			c.nfail[c.n] == 1 ? "" : "s");
	fputc('\n', out);
	if (c.nfail[c.n]) {
		char *msg = rp_case_text(s, &c, c.n, "");

		if (msg) {
			fprintf(out, "  ---\n");
			yaml_block(out, "message", msg);
			fprintf(out, "  ...\n");
			free(msg);
		}
	}
	rp_cases_free(&c);
}

/* "SRC:LINE:COL: error: HEADLINE\n...": the headline, what a CI system
 * shows of a failure (malloc'd). */
