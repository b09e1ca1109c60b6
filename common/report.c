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
#include "report.h"
#include "spec.h"

#define MAX_NAMED 8

/*
 * Static data (statements, strings) comes from the driver's own snapshot
 * of the channel as written; only the counters and the events come from
 * the shared mapping, which the program could have scribbled over.
 */
static const struct ms_chan_hdr *hdr(const struct ms_report_in *s)
{
	return s->snapshot;
}

static const struct ms_chan_hdr *live(const struct ms_report_in *s)
{
	return s->map;
}

static const struct ms_rule *rule_at(const struct ms_report_in *s, uint32_t i)
{
	return (const struct ms_rule *)ms_chan_at(hdr(s), hdr(s)->rules_off) + i;
}

static const struct ms_event *event_at(const struct ms_report_in *s, uint32_t i)
{
	return (const struct ms_event *)ms_chan_at(live(s), hdr(s)->events_off) + i;
}

static uint32_t nevents(const struct ms_report_in *s)
{
	uint32_t n = live(s)->events_next;

	return n < hdr(s)->events_cap ? n : hdr(s)->events_cap;
}

static const struct ms_expect *expect_at(const struct ms_report_in *s, uint32_t i)
{
	return (const struct ms_expect *)ms_chan_at(hdr(s), hdr(s)->expects_off) + i;
}

static const struct ms_order *order_at(const struct ms_report_in *s, uint32_t i)
{
	return (const struct ms_order *)ms_chan_at(hdr(s), hdr(s)->orders_off) + i;
}

static const char *str(const struct ms_report_in *s, uint32_t off)
{
	const char *p = ms_chan_str(hdr(s), off);

	return p ? p : "";
}

/* A statement as a report line shows it: a recorded read's bytes would
 * fill screens, so the text is cut at STMT_SHOWN bytes (JSON has it all). */
#define STMT_SHOWN 200

static const char *stmt_text(const struct ms_report_in *s, uint32_t off)
{
	static char buf[4][STMT_SHOWN + 8];
	static unsigned next;
	const char *t = str(s, off);
	char *b;

	if (strlen(t) <= STMT_SHOWN)
		return t;
	b = buf[next++ % 4];
	memcpy(b, t, STMT_SHOWN);
	memcpy(b + STMT_SHOWN, " ...)", 6);
	return b;
}

static const struct ms_chan_dyn *dyn_at(const struct ms_report_in *s, unsigned id)
{
	if (id < MS_FN_COUNT || id - MS_FN_COUNT >= hdr(s)->ndyn)
		return NULL;
	return (const struct ms_chan_dyn *)ms_chan_at(hdr(s), hdr(s)->dyn_off) + (id - MS_FN_COUNT);
}

static const char *fn_name(const struct ms_report_in *s, unsigned id)
{
	const struct ms_fn_meta *m = ms_catalog_get(id);
	const struct ms_chan_dyn *d = dyn_at(s, id);

	return m ? m->name : d ? str(s, d->name) : "?";
}

/* The name of parameter param of fn (a static buffer for module functions). */
static const char *param_name(const struct ms_report_in *s, unsigned fn, unsigned param)
{
	const struct ms_fn_meta *m = ms_catalog_get(fn);
	const struct ms_chan_dyn *d = dyn_at(s, fn);
	static char buf[64];
	const char *p;

	if (m)
		return param < m->nparams ? m->params[param].name : "?";
	if (!d || param >= d->nparams)
		return "?";
	p = str(s, d->params);
	for (unsigned i = 0; i < param && p; i++) {
		p = strchr(p, ',');
		p = p ? p + 1 : NULL;
	}
	if (!p)
		return "?";
	snprintf(buf, sizeof(buf), "%.*s", (int)strcspn(p, ","), p);
	return buf;
}

/*
 * Every statement is an item of the report: where it was declared, how
 * often it was used, and whether it is a leftover.
 */
enum item_table { IT_RULE, IT_EXPECT, IT_ORDER };

struct item {
	enum item_table table;
	uint32_t index;
	unsigned fn;
	int32_t count;
	uint32_t consumed;
	uint32_t src, line, col, text;
	int kind;		/* the table's own kind */
};

static uint32_t nitems(const struct ms_report_in *s)
{
	return hdr(s)->nrules + hdr(s)->nexpects + hdr(s)->norders;
}

static struct item item_at(const struct ms_report_in *s, uint32_t i)
{
	const struct ms_chan_hdr *h = hdr(s);
	struct item it;

	memset(&it, 0, sizeof(it));
	if (i < h->nrules) {
		const struct ms_rule *r = rule_at(s, i);

		it = (struct item){ IT_RULE, i, r->fn, r->count,
				    ((const struct ms_rule *)ms_chan_at(live(s), h->rules_off))[i].consumed,
				    r->src, r->line, r->col, r->text, r->kind };
	} else if ((i -= h->nrules) < h->nexpects) {
		const struct ms_expect *x = expect_at(s, i);

		it = (struct item){ IT_EXPECT, i, x->fn, x->count,
				    ((const struct ms_expect *)ms_chan_at(live(s), h->expects_off))[i].consumed,
				    x->src, x->line, x->col, x->text, x->kind };
	} else {
		const struct ms_order *o = order_at(s, i -= h->nexpects);

		it = (struct item){ IT_ORDER, i, o->fn, o->count,
				    ((const struct ms_order *)ms_chan_at(live(s), h->orders_off))[i].consumed,
				    o->src, o->line, o->col, o->text, o->kind };
	}
	return it;
}

/* Items are reported in declaration order. */
static int item_cmp(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->col < y->col ? -1 : x->col > y->col;
}

static int leftover(const struct item *it)
{
	if (it->table == IT_ORDER)
		return it->kind == MS_ORD_CALL && it->consumed < (uint32_t)it->count;
	if (it->count > 0)
		return it->consumed < (uint32_t)it->count;
	return it->count == MS_COUNT_ALWAYS && it->consumed == 0;
}

static uint32_t failure_events(const struct ms_report_in *s)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < nevents(s); i++)
		n += event_at(s, i)->state == 1 && event_at(s, i)->type == MS_EV_FAIL;
	return n;
}

unsigned ms_report_leftovers(const struct ms_report_in *s)
{
	unsigned n = 0;

	for (uint32_t i = 0; i < nitems(s); i++) {
		struct item it = item_at(s, i);

		n += leftover(&it);
	}
	return n;
}

unsigned ms_report_consumed(const struct ms_report_in *s)
{
	unsigned n = 0;

	for (uint32_t i = 0; i < nitems(s); i++)
		n += item_at(s, i).consumed;
	return n;
}

unsigned ms_report_failures(const struct ms_report_in *s)
{
	return live(s)->failures + ms_report_leftovers(s);
}

/* The executable a pid had at event i: the latest attach before it. */
static const char *exe_of(const struct ms_report_in *s, int32_t pid, uint32_t upto)
{
	const char *name = "?";

	for (uint32_t i = 0; i < upto && i < nevents(s); i++) {
		const struct ms_event *e = event_at(s, i);

		if (e->state == 1 && e->type == MS_EV_ATTACH && e->pid == pid)
			name = e->text;
	}
	return name;
}

static void count_str(char *buf, size_t n, const struct item *it)
{
	const char *verb = it->table == IT_RULE	    ? "used"
			   : it->table == IT_EXPECT ? "checked"
						    : "called";

	if (it->table == IT_ORDER && it->kind != MS_ORD_CALL)
		snprintf(buf, n, "called %u times", it->consumed);
	else if (it->count == MS_COUNT_ALWAYS)
		snprintf(buf, n, "%s %u times (always)", verb, it->consumed);
	else if (it->count == MS_COUNT_MAYBE)
		snprintf(buf, n, "%s %u times (maybe)", verb, it->consumed);
	else
		snprintf(buf, n, "%u of %d %s", it->consumed, it->count, verb);
}

/* "cat[12], sh[11]": the distinct processes that consumed rule ri. */
static void consumers(const struct ms_report_in *s, uint32_t ri, char *buf, size_t cap)
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

static void describe_status(const struct ms_report_in *s, char *buf, size_t n)
{
	const struct mockshim_result *r = &s->result;
	const char *sig = r->signal ? sigabbrev_np(r->signal) : NULL;

	if (r->exec_errno)
		snprintf(buf, n, "could not be started: %s", strerror(r->exec_errno));
	else if (r->timed_out)
		snprintf(buf, n, "timed out and was killed%s%s", sig ? " by SIG" : "", sig ? sig : "");
	else if (r->signal)
		snprintf(buf, n, "was killed by SIG%s", sig ? sig : "?");
	else
		snprintf(buf, n, "exited with status %d", r->exit_status);
}

static void processes(const struct ms_report_in *s, char *buf, size_t cap)
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

/* ---- failure messages ---- */

static void put_escaped(FILE *f, const unsigned char *p, size_t n)
{
	fputc('"', f);
	for (size_t i = 0; i < n; i++) {
		unsigned c = p[i];

		switch (c) {
		case '\n': fputs("\\n", f); break;
		case '\t': fputs("\\t", f); break;
		case '\r': fputs("\\r", f); break;
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		default:
			if (c < 0x20 || c >= 0x7f)
				fprintf(f, "\\x%02x", c);
			else
				fputc((int)c, f);
		}
	}
	fputc('"', f);
}

static void put_hexbytes(FILE *f, const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%02x", i ? " " : "", p[i]);
}

static void put_int(FILE *f, const struct ms_report_in *s, int64_t v, const struct ms_expect *x)
{
	const struct ms_fn_meta *m = ms_catalog_get(x->fn);
	const struct ms_chan_dyn *d = dyn_at(s, x->fn);
	int is_ptr = m ? x->param < m->nparams && m->params[x->param].type.tclass >= MS_T_PTR
		       : d && x->param < 16 && (d->ptrmask & (1u << x->param));

	if (d && x->param < 16 && (d->dblmask & (1u << x->param))) {
		/* a declared double: the shortest text that reads back the same */
		char buf[40];
		double dv;

		memcpy(&dv, &v, sizeof(dv));
		for (int prec = 1; prec <= 17; prec++) {
			snprintf(buf, sizeof(buf), "%.*g", prec, dv);
			if (strtod(buf, NULL) == dv)
				break;
		}
		fputs(buf, f);
	} else if (is_ptr)
		v ? fprintf(f, "%#llx", (unsigned long long)v) : fputs("NULL", f);
	else if (m && strcmp(m->params[x->param].type.text, "mode_t") == 0)
		fprintf(f, "0%llo", (unsigned long long)(uint32_t)v);
	else if (x->psigned)
		fprintf(f, "%lld", (long long)v);
	else
		fprintf(f, "%llu", (unsigned long long)(x->psize == 4 ? (uint32_t)v : (uint64_t)v));
}

static void put_set(FILE *f, const struct ms_report_in *s, const struct ms_expect *x)
{
	const char *data = ms_chan_at(hdr(s), hdr(s)->pool_off + x->data);

	fputc('{', f);
	for (uint32_t i = 0; i < x->len; i++) {
		int64_t v;

		memcpy(&v, data + 8 * i, 8);
		if (i)
			fputs(", ", f);
		put_int(f, s, v, x);
	}
	fputc('}', f);
}

/* What the actual bytes of a string or memory parameter were. */
static void put_actual_bytes(FILE *f, const struct ms_event *e, int string)
{
	size_t n = e->len - e->at < MS_EV_TEXT ? e->len - e->at : MS_EV_TEXT;

	if (e->flags & MS_EVF_NULL) {
		fputs("NULL", f);
		return;
	}
	if ((e->flags & MS_EVF_FAULT) && e->len == 0) {
		fprintf(f, "an unreadable pointer, %#llx", (unsigned long long)e->value);
		return;
	}
	if (string) {
		put_escaped(f, (const unsigned char *)e->text, n);
		if (e->flags & MS_EVF_UNTERMINATED)
			fprintf(f, "... (no NUL within %d bytes)", MS_STRING_BOUND);
		else if (e->flags & MS_EVF_TRUNCATED)
			fprintf(f, "... (%u bytes)", e->len);
		if (e->flags & MS_EVF_FAULT)
			fputs(" (then unreadable)", f);
	} else {
		put_hexbytes(f, (const unsigned char *)e->text, n > 24 ? 24 : n);
		if (n > 24 || e->at + n < e->len)
			fputs(" ...", f);
		if (e->flags & MS_EVF_FAULT)
			fputs(" (then unreadable)", f);
	}
}

static void check_message(FILE *f, const struct ms_report_in *s, const struct ms_event *e,
			  const struct ms_expect *x)
{
	const unsigned char *want = (const unsigned char *)ms_chan_at(hdr(s), hdr(s)->pool_off + x->data);

	fprintf(f, "parameter %s: ", param_name(s, x->fn, x->param));
	switch (x->kind) {
	case MS_X_VALUE:
	case MS_X_NOT_VALUE:
		fputs(x->kind == MS_X_VALUE ? "expected " : "expected anything but ", f);
		put_int(f, s, x->lo, x);
		fputs(", got ", f);
		put_int(f, s, e->value, x);
		break;
	case MS_X_RANGE:
	case MS_X_NOT_RANGE:
		fputs(x->kind == MS_X_RANGE ? "expected within " : "expected outside ", f);
		put_int(f, s, x->lo, x);
		fputs("..", f);
		put_int(f, s, x->hi, x);
		fputs(", got ", f);
		put_int(f, s, e->value, x);
		break;
	case MS_X_SET:
	case MS_X_NOT_SET:
		fputs(x->kind == MS_X_SET ? "expected one of " : "expected none of ", f);
		put_set(f, s, x);
		fputs(", got ", f);
		put_int(f, s, e->value, x);
		break;
	case MS_X_STRING:
	case MS_X_NOT_STRING:
		fputs(x->kind == MS_X_STRING ? "expected " : "expected anything but ", f);
		put_escaped(f, want, x->len);
		fputs(", got ", f);
		put_actual_bytes(f, e, 1);
		break;
	case MS_X_MEMORY:
	case MS_X_NOT_MEMORY: {
		size_t at = e->at, n = x->len - at < 24 ? x->len - at : 24;

		if (x->kind == MS_X_NOT_MEMORY) {
			fprintf(f, "expected %u bytes other than ", x->len);
			put_hexbytes(f, want, x->len < 24 ? x->len : 24);
			fputs(x->len > 24 ? " ..., got them" : ", got them", f);
			if (e->flags & (MS_EVF_NULL | MS_EVF_FAULT)) {
				fputs(": ", f);
				put_actual_bytes(f, e, 0);
			}
			break;
		}
		if (e->flags & MS_EVF_NULL) {
			fprintf(f, "expected %u bytes, got NULL", x->len);
			break;
		}
		fprintf(f, "%u bytes differ from the expected ones%s\n", x->len,
			e->flags & MS_EVF_FAULT ? " (unreadable)" : "");
		fprintf(f, "      offset %zu expected: ", at);
		put_hexbytes(f, want + at, n);
		fprintf(f, "\n      offset %zu actual:   ", at);
		put_actual_bytes(f, e, 0);
		break;
	}
	default:
		break;
	}
}

/* Where a failure was declared: the statement its event names. */
static struct item failure_item(const struct ms_report_in *s, const struct ms_event *e)
{
	const struct ms_chan_hdr *h = hdr(s);
	struct item none;

	memset(&none, 0, sizeof(none));
	none.fn = e->fn;
	switch (e->kind) {
	case MS_FAIL_OUTPUT_NULL:
	case MS_FAIL_MOCK_EMPTY:
		return e->rule < h->nrules ? item_at(s, e->rule) : none;
	case MS_FAIL_CHECK:
	case MS_FAIL_NO_EXPECT:
		return e->rule < h->nexpects ? item_at(s, h->nrules + e->rule) : none;
	default:
		return e->rule < h->norders ? item_at(s, h->nrules + h->nexpects + e->rule) : none;
	}
}

/* One failure: "SRC:LINE:COL: error: FN() call N in EXE[PID]: what" and
 * the statement and caller lines; indent starts the continuation lines. */
static void failure_text(FILE *f, const struct ms_report_in *s, const struct ms_event *e,
			 uint32_t i, const char *indent)
{
	const struct ms_chan_hdr *h = hdr(s);
	struct item it = failure_item(s, e);

	fprintf(f, "%s:%u:%u: error: %s()", str(s, it.src), it.line, it.col, fn_name(s, e->fn));
	if (e->call)
		fprintf(f, " call %u", e->call);
	fprintf(f, " in %s[%d]: ", exe_of(s, e->pid, i), e->pid);
	switch (e->kind) {
	case MS_FAIL_OUTPUT_NULL:
		fprintf(f, "output %s is NULL: nothing written", param_name(s, e->fn, e->param));
		break;
	case MS_FAIL_CHECK:
		check_message(f, s, e, expect_at(s, e->rule));
		break;
	case MS_FAIL_NO_EXPECT:
		fprintf(f, "parameter %s: no expected value left (all %u declared were checked); got ",
			param_name(s, e->fn, e->param), it.consumed);
		if (e->rule < h->nexpects)
			put_int(f, s, e->value, expect_at(s, e->rule));
		break;
	case MS_FAIL_ORDER:
		fprintf(f, "called out of order: this is call #%u of the sequence, but the next "
			   "expected one, #%lld, is %s()",
			e->seq, (long long)e->value, fn_name(s, it.fn));
		break;
	case MS_FAIL_ORDER_EXTRA:
		fprintf(f, "called more often than expected: call #%u of the sequence comes after "
			   "every expected call",
			e->seq);
		break;
	case MS_FAIL_NO_CALL:
		fputs("called, but expect_no_call forbids any call", f);
		break;
	case MS_FAIL_MOCK_EMPTY:
		fprintf(f, "mock() #%u of the run found no value queued (%s)", e->seq,
			e->rule < h->nrules ? "every will_return value was used" : "nothing was queued");
		break;
	default:
		fputs("failed", f);
	}
	fprintf(f, "\n%s%s\n", indent, stmt_text(s, it.text));
	if (e->caller[0])
		fprintf(f, "%scalled from %s+%#llx%s%s%s\n", indent, e->caller,
			(unsigned long long)e->caller_off, e->sym[0] ? " (" : "", e->sym,
			e->sym[0] ? ")" : "");
}

static void leftover_text(FILE *f, const struct ms_report_in *s, const struct item *it,
			  const char *indent)
{
	char count[80];

	count_str(count, sizeof(count), it);
	fprintf(f, "%s:%u:%u: error: ", str(s, it->src), it->line, it->col);
	if (it->table == IT_RULE)
		fprintf(f, "%s() has remaining non-returned values", fn_name(s, it->fn));
	else if (it->table == IT_EXPECT)
		fprintf(f, "%s(): `%s` parameter still has values that haven't been checked",
			fn_name(s, it->fn), param_name(s, it->fn, expect_at(s, it->index)->param));
	else
		fprintf(f, "%s() was expected to be called but was not", fn_name(s, it->fn));
	fprintf(f, " (%s)\n%s%s\n%snote: remaining item was declared here: %s:%u\n", count, indent,
		stmt_text(s, it->text), indent, str(s, it->src), it->line);
}

static struct item *sorted_items(const struct ms_report_in *s)
{
	uint32_t n = nitems(s);
	struct item *v = calloc(n ? n : 1, sizeof(*v));

	if (!v)
		return NULL;
	for (uint32_t i = 0; i < n; i++)
		v[i] = item_at(s, i);
	qsort(v, n, sizeof(*v), item_cmp);
	return v;
}

/* Declared functions no attached process had a definition of: their
 * statements could never apply. */
static void unbound_declared(const struct ms_report_in *s, FILE *out, const char *prefix)
{
	const struct ms_chan_fn *fns = ms_chan_at(live(s), hdr(s)->fns_off);
	uint32_t attached = live(s)->attached;

	for (uint32_t i = 0; attached && i < hdr(s)->ndyn; i++) {
		const struct ms_chan_dyn *d = dyn_at(s, MS_FN_COUNT + i);

		if (!d || d->kind != MS_DYN_DECLARED ||
		    __atomic_load_n(&fns[MS_FN_COUNT + i].bound, __ATOMIC_RELAXED))
			continue;
		if (attached == 1)
			fprintf(out, "%swarning: mock %s: no loaded object of the program exports %s()\n",
				prefix, str(s, d->proto), str(s, d->name));
		else
			fprintf(out,
				"%swarning: mock %s: no loaded object exports %s() in any of the %u "
				"attached processes\n",
				prefix, str(s, d->proto), str(s, d->name), attached);
	}
}

static void report_text(struct ms_report_in *s, FILE *out)
{
	const struct ms_chan_hdr *h = hdr(s);
	char status[160], procs[600], buf[600];
	unsigned failures = ms_report_failures(s);
	uint32_t shown = failure_events(s), n = nitems(s);
	struct item *items = sorted_items(s);

	describe_status(s, status, sizeof(status));
	processes(s, procs, sizeof(procs));
	if (s->verbosity >= MOCKSHIM_NORMAL || failures) {
		fprintf(out, "mockshim: %s %s; %u process%s attached%s%s%s\n", s->program, status,
			live(s)->attached, live(s)->attached == 1 ? "" : "es", live(s)->attached ? " (" : "", procs,
			live(s)->attached ? ")" : "");
		if (live(s)->attached == 0 && n > 0 && !s->result.exec_errno)
			fprintf(out, "mockshim: warning: no process attached: the program may be "
				     "static or setuid, or it cleared LD_PRELOAD\n");
	}
	unbound_declared(s, out, "mockshim: ");
	if (s->verbosity >= MOCKSHIM_NORMAL && items) {
		for (uint32_t i = 0; i < n; i++) {
			count_str(status, sizeof(status), &items[i]);
			buf[0] = '\0';
			if (items[i].table == IT_RULE)
				consumers(s, items[i].index, buf, sizeof(buf));
			fprintf(out, "  %s:%u:%u: %s: %s%s%s\n", str(s, items[i].src), items[i].line,
				items[i].col, stmt_text(s, items[i].text), status, buf[0] ? ", by " : "",
				buf);
		}
	}
	for (uint32_t i = 0; i < nevents(s); i++) {
		const struct ms_event *e = event_at(s, i);

		if (e->state != 1)
			continue;
		if (e->type == MS_EV_CONSUME && s->verbosity >= MOCKSHIM_VERBOSE) {
			const struct ms_rule *r = rule_at(s, e->rule);

			fprintf(out, "  %s() call %u in %s[%d] (thread %d): %s:%u: %s %lld\n",
				fn_name(s, e->fn), e->call, exe_of(s, e->pid, i), e->pid, e->tid,
				str(s, r->src), r->line,
				r->kind == MS_R_REAL ? "passed to the real function" : "returned",
				(long long)e->value);
		} else if (e->type == MS_EV_FAIL) {
			failure_text(out, s, e, i, "    ");
		}
	}
	if (live(s)->failures > shown)
		fprintf(out, "mockshim: %u more failures not shown (the event log holds %u events)\n",
			live(s)->failures - shown, h->events_cap);
	for (uint32_t i = 0; items && i < n; i++)
		if (leftover(&items[i]))
			leftover_text(out, s, &items[i], "    ");
	if (live(s)->events_next > h->events_cap)
		fprintf(out, "mockshim: %u events not recorded (the event log holds %u)\n",
			live(s)->events_next - h->events_cap, h->events_cap);
	if (live(s)->consume_dropped && s->verbosity >= MOCKSHIM_VERBOSE)
		fprintf(out, "mockshim: %u consumed values not listed (room is kept for failures)\n",
			live(s)->consume_dropped);
	for (size_t i = 0; i < s->nstill_running; i++)
		fprintf(out, "mockshim: still running at the timeout: %s\n", s->still_running[i]);
	if (failures)
		fprintf(out, "mockshim: FAILED: %u check%s failed\n", failures, failures == 1 ? "" : "s");
	else if (s->verbosity >= MOCKSHIM_NORMAL)
		fprintf(out, "mockshim: all checks passed\n");
	free(items);
}

/* Every failure the shims recorded, as text (malloc'd), or NULL. */
static char *failures_text(const struct ms_report_in *s, const char *indent)
{
	char *msg = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&msg, &len);

	if (!m)
		return NULL;
	for (uint32_t i = 0; i < nevents(s); i++) {
		const struct ms_event *e = event_at(s, i);

		if (e->state == 1 && e->type == MS_EV_FAIL)
			failure_text(m, s, e, i, indent);
	}
	fclose(m);
	return msg;
}

static void tap_escape(FILE *out, const char *p)
{
	for (; *p; p++)
		fputc(*p == '\n' ? ' ' : *p == '#' ? '_' : *p, out);
}

/* Lines of text as YAML block lines, indented. */
static void yaml_block(FILE *out, const char *key, const char *text)
{
	fprintf(out, "  %s: |\n", key);
	while (*text) {
		const char *nl = strchr(text, '\n');
		size_t n = nl ? (size_t)(nl - text) : strlen(text);

		fprintf(out, "    %.*s\n", (int)n, text);
		text += n + (nl ? 1 : 0);
	}
}

static void report_tap(struct ms_report_in *s, FILE *out)
{
	uint32_t n = nitems(s), k = 0;
	struct item *items = sorted_items(s);
	char status[160];

	fprintf(out, "TAP version 14\n1..%u\n", n + 1);
	unbound_declared(s, out, "# ");
	for (uint32_t i = 0; items && i < n; i++) {
		const struct item *it = &items[i];
		char *msg = NULL;
		size_t len = 0;
		FILE *m;
		int bad = leftover(it);

		count_str(status, sizeof(status), it);
		fprintf(out, "%s %u - %s:%u: ", bad ? "not ok" : "ok", ++k, str(s, it->src), it->line);
		tap_escape(out, stmt_text(s, it->text));
		fprintf(out, " (%s)\n", status);
		if (!bad)
			continue;
		m = open_memstream(&msg, &len);
		if (!m)
			continue;
		leftover_text(m, s, it, "");
		fclose(m);
		fprintf(out, "  ---\n");
		yaml_block(out, "message", msg);
		fprintf(out, "  at: \"%s:%u:%u\"\n  ...\n", str(s, it->src), it->line, it->col);
		free(msg);
	}
	describe_status(s, status, sizeof(status));
	fprintf(out, "%s %u - %s %s, %u failed check%s in the program\n",
		live(s)->failures ? "not ok" : "ok", ++k, s->program, status, live(s)->failures,
		live(s)->failures == 1 ? "" : "s");
	if (live(s)->failures) {
		char *msg = failures_text(s, "  ");

		if (msg) {
			fprintf(out, "  ---\n");
			yaml_block(out, "failures", msg);
			fprintf(out, "  ...\n");
			free(msg);
		}
	}
	free(items);
}

void ms_json_text(FILE *out, const char *p)
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

static void report_json(struct ms_report_in *s, FILE *out)
{
	const struct ms_chan_hdr *h = hdr(s);
	const struct mockshim_result *res = &s->result;
	static const char *const tables[] = { "rule", "expectation", "order" };
	uint32_t n = nitems(s);
	struct item *items = sorted_items(s);
	int first = 1;

	fprintf(out, "{\"program\":");
	ms_json_text(out, s->program);
	fprintf(out, ",\"exited\":%s,\"exit_status\":%d,\"signal\":%d,\"timed_out\":%s,"
		     "\"exec_errno\":%d,\"failures\":%u,\"processes\":[",
		res->exited ? "true" : "false", res->exit_status, res->signal,
		res->timed_out ? "true" : "false", res->exec_errno, ms_report_failures(s));
	for (uint32_t i = 0; i < nevents(s); i++) {
		const struct ms_event *e = event_at(s, i);

		if (e->state != 1 || e->type != MS_EV_ATTACH)
			continue;
		fprintf(out, "%s{\"pid\":%d,\"exe\":", first ? "" : ",", e->pid);
		ms_json_text(out, e->text);
		fputc('}', out);
		first = 0;
	}
	fprintf(out, "],\"statements\":[");
	for (uint32_t i = 0; items && i < n; i++) {
		const struct item *it = &items[i];

		fprintf(out, "%s{\"kind\":\"%s\",\"source\":", i ? "," : "", tables[it->table]);
		ms_json_text(out, str(s, it->src));
		fprintf(out, ",\"line\":%u,\"col\":%u,\"statement\":", it->line, it->col);
		ms_json_text(out, str(s, it->text));
		fprintf(out, ",\"function\":\"%s\",\"count\":%d,\"consumed\":%u,\"leftover\":%s}",
			fn_name(s, it->fn), it->count, it->consumed, leftover(it) ? "true" : "false");
	}
	fprintf(out, "],\"failures\":[");
	first = 1;
	for (uint32_t i = 0; i < nevents(s); i++) {
		const struct ms_event *e = event_at(s, i);
		char *msg = NULL;
		size_t len = 0;
		FILE *m;

		if (e->state != 1 || e->type != MS_EV_FAIL)
			continue;
		m = open_memstream(&msg, &len);
		if (!m)
			continue;
		failure_text(m, s, e, i, "    ");
		fclose(m);
		fprintf(out, "%s{\"function\":\"%s\",\"call\":%u,\"pid\":%d,\"tid\":%d,\"exe\":",
			first ? "" : ",", fn_name(s, e->fn), e->call, e->pid, e->tid);
		ms_json_text(out, exe_of(s, e->pid, i));
		fprintf(out, ",\"caller\":");
		ms_json_text(out, e->caller);
		fprintf(out, ",\"caller_offset\":%llu,\"message\":", (unsigned long long)e->caller_off);
		ms_json_text(out, msg);
		fputc('}', out);
		free(msg);
		first = 0;
	}
	fprintf(out, "],\"failures_not_shown\":%u,\"events_dropped\":%u}\n",
		live(s)->failures > failure_events(s) ? live(s)->failures - failure_events(s) : 0,
		live(s)->events_next > h->events_cap ? live(s)->events_next - h->events_cap : 0);
	free(items);
}

/* Event strings are NUL-terminated before anything prints them: every
 * process has exited, and what they left is data, not trusted. */
static void terminate_event_strings(struct ms_report_in *s)
{
	for (uint32_t i = 0; i < nevents(s); i++) {
		struct ms_event *e = (struct ms_event *)event_at(s, i);

		e->caller[MS_EV_CALLER - 1] = '\0';
		e->sym[MS_EV_SYM - 1] = '\0';
		if (e->type != MS_EV_FAIL)
			e->text[MS_EV_TEXT - 1] = '\0';
		if (e->at > e->len)
			e->at = e->len;
	}
}

void ms_xml_text(FILE *out, const char *p)
{
	for (; *p; p++) {
		unsigned char c = (unsigned char)*p;

		if (c == '<')
			fputs("&lt;", out);
		else if (c == '>')
			fputs("&gt;", out);
		else if (c == '&')
			fputs("&amp;", out);
		else if (c == '"')
			fputs("&quot;", out);
		else if (c < 0x20 && c != '\n' && c != '\t')
			fputs("&#xfffd;", out);
		else
			fputc(c, out);
	}
}

/* JUnit: one testsuite for the run, a testcase per statement (a leftover
 * fails it), and one for the program (the checks the shims recorded). */
static void report_junit(struct ms_report_in *s, FILE *out)
{
	uint32_t n = nitems(s);
	struct item *items = sorted_items(s);
	unsigned failed = live(s)->failures ? 1 : 0;
	char status[160];

	for (uint32_t i = 0; items && i < n; i++)
		failed += leftover(&items[i]);
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n  <testsuite name=\"");
	ms_xml_text(out, s->program);
	fprintf(out, "\" tests=\"%u\" failures=\"%u\" errors=\"0\">\n", n + 1, failed);
	for (uint32_t i = 0; items && i < n; i++) {
		const struct item *it = &items[i];
		char name[512];

		snprintf(name, sizeof(name), "%s:%u: %s", str(s, it->src), it->line,
			 stmt_text(s, it->text));
		fprintf(out, "    <testcase classname=\"mockshim\" name=\"");
		ms_xml_text(out, name);
		fprintf(out, "\">");
		if (leftover(it)) {
			char *msg = NULL;
			size_t len = 0;
			FILE *m = open_memstream(&msg, &len);

			if (m) {
				leftover_text(m, s, it, "");
				fclose(m);
				fprintf(out, "<failure message=\"");
				ms_xml_text(out, msg);
				fprintf(out, "\"/>");
				free(msg);
			}
		}
		fprintf(out, "</testcase>\n");
	}
	describe_status(s, status, sizeof(status));
	fprintf(out, "    <testcase classname=\"mockshim\" name=\"");
	ms_xml_text(out, s->program);
	fprintf(out, " %s\">", status);
	if (live(s)->failures) {
		char *msg = failures_text(s, "    ");

		if (msg) {
			fprintf(out, "<failure message=\"%u failed checks\">", live(s)->failures);
			ms_xml_text(out, msg);
			fprintf(out, "</failure>");
			free(msg);
		}
	}
	fprintf(out, "</testcase>\n  </testsuite>\n</testsuites>\n");
	free(items);
}

int ms_report_write(struct ms_report_in *s, FILE *out, int format)
{
	if (!s->map || !s->snapshot)
		return -EINVAL;
	terminate_event_strings(s);
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
	case MOCKSHIM_REPORT_JUNIT:
		report_junit(s, out);
		break;
	case MOCKSHIM_REPORT_HTML: /* report_html.c, over the text report */
		return ms_report_html(s, out);
	default:
		return -EINVAL;
	}
	return fflush(out) == 0 ? 0 : -EIO;
}
