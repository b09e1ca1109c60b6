/* SPDX-License-Identifier: MIT */
/* Reports of a run (text, TAP, JSON) and the catalog listing. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "channel.h"
#include "session.h"

#define MAX_NAMED 8

static const struct ms_chan_hdr *hdr(const struct mockshim_session *s)
{
	return s->map;
}

static const struct ms_rule *rule_at(const struct mockshim_session *s, uint32_t i)
{
	return (const struct ms_rule *)ms_chan_at(hdr(s), hdr(s)->rules_off) + i;
}

static const struct ms_event *event_at(const struct mockshim_session *s, uint32_t i)
{
	return (const struct ms_event *)ms_chan_at(hdr(s), hdr(s)->events_off) + i;
}

static uint32_t nevents(const struct mockshim_session *s)
{
	uint32_t n = hdr(s)->events_next;

	return n < hdr(s)->events_cap ? n : hdr(s)->events_cap;
}

static int leftover(const struct ms_rule *r)
{
	if (r->count > 0)
		return r->consumed < (uint32_t)r->count;
	return r->count == MS_COUNT_ALWAYS && r->consumed == 0;
}

unsigned ms_count_failures(const struct mockshim_session *s)
{
	unsigned n = hdr(s)->failures;

	for (uint32_t i = 0; i < hdr(s)->nrules; i++)
		n += leftover(rule_at(s, i));
	return n;
}

/* The executable a pid had at event i: the latest attach before it. */
static const char *exe_of(const struct mockshim_session *s, int32_t pid, uint32_t upto)
{
	const char *name = NULL;

	for (uint32_t i = 0; i < upto && i < nevents(s); i++) {
		const struct ms_event *e = event_at(s, i);

		if (e->state == 1 && e->type == MS_EV_ATTACH && e->pid == pid)
			name = e->text;
	}
	if (!name) {
		/* a forked child that did not exec: its parent's name is unknown
		 * here; say so rather than guess */
		return "?";
	}
	return name;
}

static const char *str(const struct mockshim_session *s, uint32_t off)
{
	const char *p = ms_chan_str(hdr(s), off);

	return p ? p : "";
}

static const char *fn_name(unsigned id)
{
	const struct ms_fn_meta *m = ms_catalog_get(id);

	return m ? m->name : "?";
}

static void count_str(char *buf, size_t n, const struct ms_rule *r)
{
	if (r->count == MS_COUNT_ALWAYS)
		snprintf(buf, n, "used %u times (always)", r->consumed);
	else if (r->count == MS_COUNT_MAYBE)
		snprintf(buf, n, "used %u times (maybe)", r->consumed);
	else
		snprintf(buf, n, "%u of %d used", r->consumed, r->count);
}

/* "cat[12], sh[11]": the distinct processes that consumed rule ri. */
static void consumers(const struct mockshim_session *s, uint32_t ri, char *buf, size_t cap)
{
	int32_t seen[MAX_NAMED];
	size_t nseen = 0, off = 0, more = 0;

	buf[0] = '\0';
	for (uint32_t i = 0; i < nevents(s); i++) {
		const struct ms_event *e = event_at(s, i);
		size_t k;

		if (e->state != 1 || e->type != MS_EV_CONSUME || e->rule != ri)
			continue;
		for (k = 0; k < nseen; k++)
			if (seen[k] == e->pid)
				break;
		if (k < nseen)
			continue;
		if (nseen == MAX_NAMED) {
			more++;
			continue;
		}
		seen[nseen++] = e->pid;
		off += (size_t)snprintf(buf + off, off < cap ? cap - off : 0, "%s%s[%d]",
					nseen > 1 ? ", " : "", exe_of(s, e->pid, i), e->pid);
	}
	if (more && off < cap)
		snprintf(buf + off, cap - off, " and more");
}

static void describe_status(const struct mockshim_session *s, char *buf, size_t n)
{
	const struct mockshim_result *r = &s->result;

	if (r->exec_errno)
		snprintf(buf, n, "could not be started: %s", strerror(r->exec_errno));
	else if (r->timed_out)
		snprintf(buf, n, "timed out and was killed%s%s", r->signal ? " by " : "",
			 r->signal ? sigabbrev_np(r->signal) : "");
	else if (r->signal)
		snprintf(buf, n, "was killed by SIG%s", sigabbrev_np(r->signal) ? sigabbrev_np(r->signal) : "?");
	else
		snprintf(buf, n, "exited with status %d", r->exit_status);
}

static void processes(const struct mockshim_session *s, char *buf, size_t cap)
{
	size_t off = 0, shown = 0;

	buf[0] = '\0';
	for (uint32_t i = 0; i < nevents(s); i++) {
		const struct ms_event *e = event_at(s, i);

		if (e->state != 1 || e->type != MS_EV_ATTACH)
			continue;
		if (shown++ == MAX_NAMED) {
			off += (size_t)snprintf(buf + off, off < cap ? cap - off : 0, ", ...");
			break;
		}
		off += (size_t)snprintf(buf + off, off < cap ? cap - off : 0, "%s%s[%d]",
					shown > 1 ? ", " : "", e->text, e->pid);
	}
}

static void report_text(struct mockshim_session *s, FILE *out)
{
	const struct ms_chan_hdr *h = hdr(s);
	char status[160], procs[600], buf[600];
	unsigned failures = ms_count_failures(s);

	describe_status(s, status, sizeof(status));
	processes(s, procs, sizeof(procs));
	if (s->verbosity >= MOCKSHIM_NORMAL || failures) {
		fprintf(out, "mockshim: %s %s; %u process%s attached%s%s%s\n", s->program, status,
			h->attached, h->attached == 1 ? "" : "es", h->attached ? " (" : "", procs,
			h->attached ? ")" : "");
		if (h->attached == 0 && h->nrules > 0 && !s->result.exec_errno)
			fprintf(out, "mockshim: warning: no process attached: the program may be "
				     "static or setuid, or it cleared LD_PRELOAD\n");
	}
	if (s->verbosity >= MOCKSHIM_NORMAL) {
		for (uint32_t i = 0; i < h->nrules; i++) {
			const struct ms_rule *r = rule_at(s, i);

			count_str(status, sizeof(status), r);
			consumers(s, i, buf, sizeof(buf));
			fprintf(out, "  %s:%u:%u: %s: %s%s%s\n", str(s, r->src), r->line, r->col,
				str(s, r->text), status, buf[0] ? ", by " : "", buf);
		}
	}
	for (uint32_t i = 0; i < nevents(s); i++) {
		const struct ms_event *e = event_at(s, i);
		const struct ms_rule *r;

		if (e->state != 1)
			continue;
		if (e->type == MS_EV_CONSUME && s->verbosity >= MOCKSHIM_VERBOSE) {
			r = rule_at(s, e->rule);
			fprintf(out, "  %s() call %u in %s[%d] (thread %d): %s:%u: returned %lld\n",
				fn_name(e->fn), e->call, exe_of(s, e->pid, i), e->pid, e->tid,
				str(s, r->src), r->line, (long long)e->value);
		} else if (e->type == MS_EV_FAIL) {
			r = e->rule < h->nrules ? rule_at(s, e->rule) : NULL;
			fprintf(out, "%s:%u:%u: error: %s() call %u in %s[%d]: %s\n",
				r ? str(s, r->src) : "?", r ? r->line : 0, r ? r->col : 0,
				fn_name(e->fn), e->call, exe_of(s, e->pid, i), e->pid, e->text);
		} else if (e->type == MS_EV_WARN) {
			fprintf(out, "mockshim: warning: %s[%d]: %s\n", exe_of(s, e->pid, i), e->pid,
				e->text);
		}
	}
	for (uint32_t i = 0; i < h->nrules; i++) {
		const struct ms_rule *r = rule_at(s, i);

		if (!leftover(r))
			continue;
		count_str(status, sizeof(status), r);
		fprintf(out, "%s:%u:%u: error: %s() has remaining non-returned values (%s)\n",
			str(s, r->src), r->line, r->col, fn_name(r->fn), status);
		fprintf(out, "    %s\n  note: remaining item was declared here: %s:%u\n",
			str(s, r->text), str(s, r->src), r->line);
	}
	if (h->events_next > h->events_cap)
		fprintf(out, "mockshim: %u more events not recorded (the event log holds %u)\n",
			h->events_next - h->events_cap, h->events_cap);
	for (size_t i = 0; i < s->nstill_running; i++)
		fprintf(out, "mockshim: still running at the timeout: %s\n", s->still_running[i]);
	if (failures)
		fprintf(out, "mockshim: FAILED: %u check%s failed\n", failures, failures == 1 ? "" : "s");
	else if (s->verbosity >= MOCKSHIM_NORMAL)
		fprintf(out, "mockshim: all checks passed\n");
}

static void tap_escape(FILE *out, const char *p)
{
	for (; *p; p++)
		fputc(*p == '\n' ? ' ' : *p == '#' ? '_' : *p, out);
}

static void report_tap(struct mockshim_session *s, FILE *out)
{
	const struct ms_chan_hdr *h = hdr(s);
	unsigned n = 0;
	char status[160];

	fprintf(out, "TAP version 14\n1..%u\n", h->nrules + 1);
	for (uint32_t i = 0; i < h->nrules; i++) {
		const struct ms_rule *r = rule_at(s, i);

		count_str(status, sizeof(status), r);
		fprintf(out, "%s %u - %s:%u: ", leftover(r) ? "not ok" : "ok", ++n, str(s, r->src),
			r->line);
		tap_escape(out, str(s, r->text));
		fprintf(out, " (%s)\n", status);
		if (leftover(r))
			fprintf(out, "  ---\n  message: \"%s() has remaining non-returned values\"\n"
				     "  at: \"%s:%u:%u\"\n  ...\n",
				fn_name(r->fn), str(s, r->src), r->line, r->col);
	}
	describe_status(s, status, sizeof(status));
	fprintf(out, "%s %u - %s %s, %u failed check%s in the program\n",
		h->failures ? "not ok" : "ok", ++n, s->program, status, h->failures,
		h->failures == 1 ? "" : "s");
	for (uint32_t i = 0; i < nevents(s); i++) {
		const struct ms_event *e = event_at(s, i);

		if (e->state == 1 && e->type == MS_EV_FAIL)
			fprintf(out, "# %s() call %u in %s[%d]: %s\n", fn_name(e->fn), e->call,
				exe_of(s, e->pid, i), e->pid, e->text);
	}
}

static void json_str(FILE *out, const char *p)
{
	fputc('"', out);
	for (; *p; p++) {
		unsigned char c = (unsigned char)*p;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

static void report_json(struct mockshim_session *s, FILE *out)
{
	const struct ms_chan_hdr *h = hdr(s);
	const struct mockshim_result *res = &s->result;
	int first = 1;

	fprintf(out, "{\"program\":");
	json_str(out, s->program);
	fprintf(out, ",\"exited\":%s,\"exit_status\":%d,\"signal\":%d,\"timed_out\":%s,"
		     "\"exec_errno\":%d,\"failures\":%u,\"processes\":[",
		res->exited ? "true" : "false", res->exit_status, res->signal,
		res->timed_out ? "true" : "false", res->exec_errno, ms_count_failures(s));
	for (uint32_t i = 0; i < nevents(s); i++) {
		const struct ms_event *e = event_at(s, i);

		if (e->state != 1 || e->type != MS_EV_ATTACH)
			continue;
		fprintf(out, "%s{\"pid\":%d,\"exe\":", first ? "" : ",", e->pid);
		json_str(out, e->text);
		fputc('}', out);
		first = 0;
	}
	fprintf(out, "],\"rules\":[");
	for (uint32_t i = 0; i < h->nrules; i++) {
		const struct ms_rule *r = rule_at(s, i);

		fprintf(out, "%s{\"source\":", i ? "," : "");
		json_str(out, str(s, r->src));
		fprintf(out, ",\"line\":%u,\"col\":%u,\"statement\":", r->line, r->col);
		json_str(out, str(s, r->text));
		fprintf(out, ",\"function\":\"%s\",\"count\":%d,\"consumed\":%u,\"leftover\":%s}",
			fn_name(r->fn), r->count, r->consumed, leftover(r) ? "true" : "false");
	}
	fprintf(out, "],\"events\":[");
	first = 1;
	for (uint32_t i = 0; i < nevents(s); i++) {
		const struct ms_event *e = event_at(s, i);
		static const char *const types[] = { "?", "attach", "consume", "failure", "warning" };

		if (e->state != 1 || e->type > MS_EV_WARN)
			continue;
		fprintf(out, "%s{\"type\":\"%s\",\"pid\":%d,\"tid\":%d", first ? "" : ",",
			types[e->type], e->pid, e->tid);
		if (e->type != MS_EV_ATTACH)
			fprintf(out, ",\"function\":\"%s\",\"call\":%u,\"rule\":%d,\"value\":%lld",
				fn_name(e->fn), e->call, e->rule < h->nrules ? (int)e->rule : -1,
				(long long)e->value);
		fprintf(out, ",\"text\":");
		json_str(out, e->text);
		fputc('}', out);
		first = 0;
	}
	fprintf(out, "],\"events_dropped\":%u}\n",
		h->events_next > h->events_cap ? h->events_next - h->events_cap : 0);
}

int mockshim_session_report(struct mockshim_session *s, FILE *out, int format)
{
	if (!s->ran || !s->map)
		return -EINVAL;
	switch (format) {
	case MOCKSHIM_REPORT_TEXT:
		report_text(s, out);
		break;
	case MOCKSHIM_REPORT_TAP:
		report_tap(s, out);
		break;
	case MOCKSHIM_REPORT_JSON:
		report_json(s, out);
		break;
	default:
		return -EINVAL;
	}
	return fflush(out) == 0 ? 0 : -EIO;
}

/* ---- the catalog ---- */

static void fail_convention(const struct ms_fn_meta *m, char *buf, size_t n)
{
	const char *e = ms_errno_name(m->fail_errno);

	switch (m->fail_kind) {
	case MS_FK_NEVER:
		snprintf(buf, n, "cannot fail");
		break;
	case MS_FK_RC:
		snprintf(buf, n, "returns the error code (default %s)",
			 ms_eai_name((int)m->fail_value) ? ms_eai_name((int)m->fail_value) : "?");
		break;
	default:
		if (m->ret.tclass == MS_T_PTR || m->ret.tclass == MS_T_STR)
			snprintf(buf, n, "returns NULL%s%s", e ? ", errno " : "", e ? e : "");
		else
			snprintf(buf, n, "returns %lld%s%s", (long long)m->fail_value,
				 e ? ", errno " : "", e ? e : "");
	}
}

int mockshim_catalog_list(FILE *out, const char *fn)
{
	const char *group = NULL;
	char buf[200];

	ms_catalog_init();
	if (!fn) {
		for (unsigned i = 0; i < MS_FN_COUNT; i++) {
			const struct ms_fn_meta *m = ms_catalog_get(i);

			if (!group || strcmp(group, m->group) != 0) {
				fprintf(out, "%s%s:", group ? "\n" : "", m->group);
				group = m->group;
			}
			fprintf(out, " %s", m->name);
		}
		fputc('\n', out);
		return 0;
	}
	int id = ms_catalog_find(fn, strlen(fn));
	const struct ms_fn_meta *m;

	if (id < 0)
		return -ENOENT;
	m = ms_catalog_get((unsigned)id);
	fprintf(out, "%s %s%s\n", m->ret.text, m->name, m->proto);
	fprintf(out, "  group: %s\n  parameters:", m->group);
	for (unsigned i = 0; i < m->nparams; i++)
		fprintf(out, " %s", m->params[i].name);
	fprintf(out, "%s\n", m->nparams ? "" : " none");
	if (m->nouts) {
		fprintf(out, "  outputs:");
		for (unsigned i = 0; i < m->nouts; i++) {
			const struct ms_out_desc *o = &m->outs[i];

			switch (o->kind) {
			case MS_OK_BYTES:
				fprintf(out, " %s=\"bytes\"", m->params[o->param].name);
				break;
			case MS_OK_STR:
				fprintf(out, " %s=\"string\"", m->params[o->param].name);
				break;
			case MS_OK_STRUCT:
				fprintf(out, " *%s={struct %s}", m->params[o->param].name, o->strct);
				break;
			case MS_OK_SCALAR:
				fprintf(out, " *%s=INTEGER%s", m->params[o->param].name,
					o->mirror_ret ? " (the return value by default)" : "");
				break;
			default:
				break;
			}
		}
		fputc('\n', out);
	}
	fail_convention(m, buf, sizeof(buf));
	fprintf(out, "  failure: %s\n", buf);
	if (m->naliases) {
		fprintf(out, "  aliases:");
		for (unsigned i = 0; i < m->naliases; i++)
			fprintf(out, " %s", m->aliases[i]);
		fputc('\n', out);
	}
	if (m->fail_kind != MS_FK_NEVER)
		fprintf(out, "  example: will_fail(%s%s%s)\n", m->name,
			m->fail_kind == MS_FK_ERRNO && m->fail_errno ? ", " : "",
			m->fail_kind == MS_FK_ERRNO && m->fail_errno ? ms_errno_name(m->fail_errno) : "");
	else
		fprintf(out, "  example: will_return(%s, 42)\n", m->name);
	return 0;
}
