/* SPDX-License-Identifier: MIT */
/*
 * Reports of a run (text, TAP, JSON) and the catalog listing.
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

#include "catalog.h"
#include "channel.h"
#include "report.h"
#include "spec.h"
#include "view.h"

#define MAX_NAMED 8

static void tamper_line(FILE *out, const struct ms_report_in *s, const char *prefix);
static void put_escaped(FILE *f, const unsigned char *p, size_t n);

const struct ms_state_hdr *ms_report_state(const struct ms_report_in *s)
{
	return s->state;
}


/* ---- text that came from the program ---- */

/*
 * The length of the valid UTF-8 sequence at p (1-4) with its code point,
 * or 0 for an invalid one (a stray continuation byte, an overlong form, a
 * surrogate, past U+10FFFF, cut short by the NUL).
 */
static size_t utf8_seq(const unsigned char *p, uint32_t *cp)
{
	uint32_t c = p[0], min;
	size_t n;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, c &= 0x1f, min = 0x80;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, c &= 0x0f, min = 0x800;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, c &= 0x07, min = 0x10000;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (p[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

/*
 * For a terminal (and every text report): what a program named or wrote
 * cannot move the cursor, clear a line or print a line of its own (a
 * forged "mockshim: all checks passed"): control characters, C1 controls
 * and invalid UTF-8 become \xNN.  Valid UTF-8 stays.
 */
void ms_safe_text(FILE *out, const char *text)
{
	const unsigned char *p = (const unsigned char *)text;

	while (*p) {
		uint32_t cp;
		size_t n = utf8_seq(p, &cp);

		if (n == 0 || cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0)) {
			for (size_t i = 0; i < (n ? n : 1); i++)
				fprintf(out, "\\x%02x", p[i]);
			p += n ? n : 1;
		} else {
			fwrite(p, 1, n, out);
			p += n;
		}
	}
}

/* The same into one of a few static buffers, for a format argument. */
static const char *safe(const char *text)
{
	static char bufs[8][1024];
	static unsigned next;
	char *b = bufs[next++ % 8];
	FILE *m = fmemopen(b, sizeof(bufs[0]), "w");

	if (!m)
		return "?";
	ms_safe_text(m, text);
	fputc('\0', m);
	fclose(m);
	b[sizeof(bufs[0]) - 1] = '\0';
	return b;
}

/*
 * A TAP test name: '#' would start a directive (a failing test named
 * "x # TODO" would count as a TODO) and a newline would end the line, so
 * '#' is written \#, '\' as \\ (TAP 14's escapes, which TAP 13 harnesses
 * show as they are), and other control characters as \xNN.
 */
void ms_tap_text(FILE *out, const char *text)
{
	for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
		if (*p == '#' || *p == '\\')
			fprintf(out, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(out, "\\x%02x", *p);
		else
			fputc(*p, out);
	}
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

/*
 * The function as the statement at text names it: "will_return(getline,
 * 5)" arms getdelim, whose alias getline is, and the report says getline
 * as the user wrote it.  fn's own name when the statement names another.
 */
static const char *stmt_fn_name(const struct ms_report_in *s, unsigned fn, uint32_t text)
{
	static char bufs[4][64];
	static unsigned next;
	const char *t = str(s, text), *p = strchr(t, '(');
	size_t n = 0;
	char *b;

	if (!p || fn >= MS_FN_COUNT)
		return fn_name(s, fn);
	p += strspn(p + 1, " \t") + 1;
	while (p[n] == '_' || (p[n] >= 'a' && p[n] <= 'z') || (p[n] >= 'A' && p[n] <= 'Z') ||
	       (p[n] >= '0' && p[n] <= '9'))
		n++;
	if (n == 0 || n >= sizeof(bufs[0]) || ms_catalog_find(p, n) != (int)fn)
		return fn_name(s, fn);
	b = bufs[next++ % 4];
	memcpy(b, p, n);
	b[n] = '\0';
	return b;
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
	uint32_t cond_first, ncond;	/* when() */
	uint32_t passed;	/* calls its when() passed by */
	uint32_t declined;	/* draws of its probability= that passed it by */
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

		it = (struct item){ IT_RULE, i, r->fn, r->count, rule_consumed(s, i),
				    r->src, r->line, r->col, r->text, r->kind,
				    r->cond_first, r->ncond,
				    ((const struct ms_rule_state *)ms_state_at(live(s), h->st_rules_off))[i].passed,
				    ((const struct ms_rule_state *)ms_state_at(live(s), h->st_rules_off))[i].declined };
	} else if ((i -= h->nrules) < h->nexpects) {
		const struct ms_expect *x = expect_at(s, i);

		it = (struct item){ IT_EXPECT, i, x->fn, x->count, expect_consumed(s, i),
				    x->src, x->line, x->col, x->text, x->kind,
				    x->cond_first, x->ncond,
				    ((const struct ms_count_state *)ms_state_at(live(s), h->st_expects_off))[i].passed,
				    0 };
	} else {
		const struct ms_order *o = order_at(s, i -= h->nexpects);

		it = (struct item){ IT_ORDER, i, o->fn, o->count, order_consumed(s, i),
				    o->src, o->line, o->col, o->text, o->kind,
				    o->cond_first, o->ncond,
				    ((const struct ms_count_state *)ms_state_at(live(s), h->st_orders_off))[i].passed,
				    0 };
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

static int leftover(const struct ms_report_in *s, const struct item *it)
{
	/* a broken sequence is one failure, its rest is not checked */
	if (it->table == IT_ORDER)
		return it->kind == MS_ORD_CALL && it->consumed < (uint32_t)it->count &&
		       live(s)->order_cursor != MS_ORDER_BROKEN;
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

		n += leftover(s, &it);
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

/*
 * Failed checks, counted from the failure events themselves; the
 * counter adds only the ones the full log had no room for.  A tampered
 * state is a failure whatever it says.
 */
static unsigned failed_checks(const struct ms_report_in *s)
{
	uint64_t n = (uint64_t)failure_events(s) + s->lost_failures + live(s)->failures;

	return n > UINT32_MAX ? UINT32_MAX : (unsigned)n;
}

unsigned ms_report_failures(const struct ms_report_in *s)
{
	uint64_t n = (uint64_t)failed_checks(s) + ms_report_leftovers(s);

	if (s->tampered && n == 0)
		n = 1;
	return n > UINT32_MAX ? UINT32_MAX : (unsigned)n;
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
	return safe(name);
}

static void count_str(char *buf, size_t n, const struct item *it)
{
	const char *verb = it->table == IT_RULE	    ? "used"
			   : it->table == IT_EXPECT ? "checked"
						    : "called";

	const char *times = it->consumed == 1 ? "time" : "times";

	if (it->table == IT_ORDER && it->kind != MS_ORD_CALL)
		snprintf(buf, n, "called %u %s", it->consumed, times);
	else if (it->count == MS_COUNT_ALWAYS)
		snprintf(buf, n, "%s %u %s (always)", verb, it->consumed, times);
	else if (it->count == MS_COUNT_MAYBE)
		snprintf(buf, n, "%s %u %s (maybe)", verb, it->consumed, times);
	else
		snprintf(buf, n, "%u of %d %s", it->consumed, it->count, verb);
}

/* n with thousands separators: "1,234". */
static void grouped(char *buf, size_t cap, uint64_t n)
{
	char d[24];
	int len = snprintf(d, sizeof(d), "%llu", (unsigned long long)n);
	size_t o = 0;

	for (int i = 0; i < len && o + 2 < cap; i++) {
		if (i && (len - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = d[i];
	}
	buf[o] = '\0';
}

/* "cat[12], sh[11]": the distinct processes with an event of type
 * (MS_EV_CONSUME: that consumed rule ri; MS_EV_TIME: that read fake_time
 * ri's clock). */
static void consumers(const struct ms_report_in *s, uint16_t type, uint32_t ri, char *buf,
		      size_t cap)
{
	int32_t seen[MAX_NAMED];
	size_t nseen = 0, off = 0, more = 0;

	buf[0] = '\0';
	for (uint32_t i = 0; i < nevents(s); i++) {
		const struct ms_event *e = event_at(s, i);
		size_t k;

		if (e->state != 1 || e->type != type || e->rule != ri)
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

	if (s->running)
		snprintf(buf, n, "is still running (the report so far)");
	else if (r->exec_errno)
		snprintf(buf, n, "could not be started: %s", strerror(r->exec_errno));
	else if (r->timed_out && s->done_before_timeout && r->exited)
		snprintf(buf, n, "exited with status %d (its descendants did not, by the timeout)",
			 r->exit_status);
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
		off += (size_t)snprintf(buf + off, off < cap ? cap - off : 0, "%s%s[%d]%s",
					shown > 1 ? ", " : "", safe(e->text), e->pid,
					e->value == 2 ? " (syscall tier)" : "");
	}
}

/* ---- programs that ran unmocked ---- */

/* Whether the spec has SYS_ statements: the syscall tier reaches a
 * static program, a setuid one runs without its privilege. */
static int has_syscalls(const struct ms_report_in *s)
{
	const struct ms_chan_dyn *d = ms_chan_at(hdr(s), hdr(s)->dyn_off);

	for (uint32_t i = 0; i < hdr(s)->ndyn; i++)
		if (d[i].kind == MS_DYN_SYSCALL)
			return 1;
	return 0;
}

static const char *escape_why(const struct ms_report_in *s, unsigned kind)
{
	switch (kind) {
	case MS_ESC_STATIC:
		return has_syscalls(s) ? "is static: LD_PRELOAD cannot reach it, only the SYS_ "
					 "statements act in it"
				       : "is static: nothing in it was mocked (LD_PRELOAD cannot "
					 "reach it); use SYS_ statements";
	case MS_ESC_SETUID:
		return has_syscalls(s) ? "is setuid or setgid: the shim is inert in it; the SYS_ "
					 "statements reach it, and it ran without its privilege "
					 "unless mockrun had CAP_SYS_ADMIN (no_new_privs)"
				       : "is setuid or setgid: nothing in it was mocked (the shim is "
					 "inert in secure execution)";
	case MS_ESC_CAPS:
		return "has file capabilities: nothing in it was mocked (secure execution)";
	case MS_ESC_32BIT:
		return "is a 32-bit program: nothing in it was mocked";
	case MS_ESC_NO_PRELOAD:
		return "ran with an environment without the shim in LD_PRELOAD (a cleared "
		       "environment?): nothing in it was mocked";
	case MS_ESC_NO_CHANNEL:
		return "ran with an environment without MOCKSHIM_CHANNEL: nothing in it was mocked";
	default:
		return "ran unmocked";
	}
}

/* Text from the program, for a terminal: printable ASCII as it is, any
 * other byte as \xNN (no escape sequence, no forged line). */
static void put_plain(FILE *f, const char *p)
{
	for (; *p; p++) {
		unsigned char c = (unsigned char)*p;

		if (c < 0x20 || c >= 0x7f || c == '\\')
			fprintf(f, "\\x%02x", c);
		else
			fputc(c, f);
	}
}

/* One line per distinct program and reason: "sh[41] started
 * /bin/busybox, which is static: ..." (and how often, if more). */
static void escapes(const struct ms_report_in *s, FILE *out, const char *prefix)
{
	for (uint32_t i = 0; i < nevents(s); i++) {
		const struct ms_event *e = event_at(s, i);
		unsigned more = 0;
		int first = 1;

		if (e->state != 1 || e->type != MS_EV_WARN)
			continue;
		for (uint32_t k = 0; k < nevents(s) && first; k++) {
			const struct ms_event *o = event_at(s, k);

			if (o->state == 1 && o->type == MS_EV_WARN && o->kind == e->kind &&
			    strcmp(o->text, e->text) == 0) {
				if (k < i)
					first = 0;
				else if (k > i)
					more++;
			}
		}
		if (!first)
			continue;
		fprintf(out, "%swarning: `", prefix);
		put_plain(out, e->text);
		fprintf(out, "` (%s by ", e->param ? "started" : "exec'd");
		put_plain(out, exe_of(s, e->pid, i));
		fprintf(out, "[%d]) %s", e->pid, escape_why(s, e->kind));
		if (more)
			fprintf(out, " (%u more time%s)", more, more == 1 ? "" : "s");
		fputc('\n', out);
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

	fprintf(f, "%s:%u:%u: error: %s()", str(s, it.src), it.line, it.col,
		it.text && it.fn == e->fn ? stmt_fn_name(s, e->fn, it.text) : fn_name(s, e->fn));
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
		if (e->rule < h->nexpects) {
			const struct ms_expect *x = expect_at(s, e->rule);

			if (x->kind == MS_X_STRING || x->kind == MS_X_NOT_STRING)
				put_actual_bytes(f, e, 1);
			else if (x->kind == MS_X_MEMORY || x->kind == MS_X_NOT_MEMORY)
				put_actual_bytes(f, e, 0);
			else
				put_int(f, s, e->value, x);
		}
		break;
	case MS_FAIL_ORDER:
		fprintf(f, "called out of order: call #%lld of the sequence should be %s() (%s:%u), "
			   "but %s() came (call #%u); the rest of the sequence is not checked",
			(long long)e->value, fn_name(s, it.fn), str(s, it.src), it.line,
			fn_name(s, e->fn), e->seq);
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
		fprintf(f, "%scalled from %s+%#llx%s%s%s\n", indent, safe(e->caller),
			(unsigned long long)e->caller_off, e->sym[0] ? " (" : "", safe(e->sym),
			e->sym[0] ? ")" : "");
}

/* A condition as the language writes it: pathname ~ "*.conf". */
static void put_cond(FILE *f, const struct ms_report_in *s, const struct ms_cond *c, unsigned fn)
{
	static const char *const ops[] = { "?", "==", "!=", "<", "<=", ">", ">=", "&", "&", "in",
					   "~", "!~", "==", "!=", "==", "!=" };
	const char *name = param_name(s, fn, c->param);

	if (c->op == MS_C_NOBITS)
		fprintf(f, "!(%s & %#llx)", name, (unsigned long long)c->value);
	else if (c->op == MS_C_ANYBITS)
		fprintf(f, "%s & %#llx", name, (unsigned long long)c->value);
	else if (c->op == MS_C_IN)
		fprintf(f, "%s in {...%u values}", name, c->nset);
	else if (c->op == MS_C_ISNULL || c->op == MS_C_NOTNULL)
		fprintf(f, "%s %s NULL", name, ops[c->op]);
	else if (c->op >= MS_C_GLOB)
		fprintf(f, "%s %s ", name, ops[c->op]), put_escaped(f, (const unsigned char *)str(s, c->str),
								   strlen(str(s, c->str)));
	else
		fprintf(f, "%s %s %lld", name, ops[c->op < 16 ? c->op : 0], (long long)c->value);
}

/* How alike a value is to a glob or string: the longest run of bytes
 * they share (a typo leaves the rest of the name). */
static size_t likeness(const char *pat, const char *v)
{
	size_t best = 0;

	for (const char *p = pat; *p; p++)
		for (const char *q = v; *q; q++) {
			size_t n = 0;

			while (p[n] && q[n] && p[n] == q[n] && p[n] != '*' && p[n] != '?')
				n++;
			if (n > best)
				best = n;
		}
	return best;
}

/*
 * A statement whose when() no call satisfied: the values the calls it
 * passed by had, the three closest to what it asked for first (a typo in
 * a glob shows at once).
 */
static void aimed_text(FILE *f, const struct ms_report_in *s, const struct item *it,
		       const char *indent)
{
	const struct ms_cond *c = (const struct ms_cond *)ms_chan_at(hdr(s), hdr(s)->conds_off) +
				  it->cond_first;
	const struct ms_event *pick[3] = { NULL, NULL, NULL };
	size_t score[3] = { 0, 0, 0 };
	unsigned seen = 0;

	if (it->consumed)
		return;
	fprintf(f, "%snote: no call of %s() had ", indent, fn_name(s, it->fn));
	for (uint32_t k = 0; k < it->ncond; k++) {
		if (k)
			fputs(" and ", f);
		put_cond(f, s, &c[k], it->fn);
	}
	for (uint32_t i = 0; i < nevents(s); i++) {
		const struct ms_event *e = event_at(s, i);
		const struct ms_cond *which = NULL;
		size_t sc = 0;
		int dup = 0;

		if (e->state != 1 || e->type != MS_EV_PASSBY || e->kind != it->table ||
		    e->rule != it->index)
			continue;
		seen++;
		for (uint32_t k = 0; k < it->ncond && !which; k++)
			if (c[k].param == e->param)
				which = &c[k];
		for (int k = 0; k < 3; k++)
			dup |= pick[k] && pick[k]->param == e->param &&
			       ((e->flags & MS_EVF_TEXT) ? strcmp(pick[k]->text, e->text) == 0
							 : pick[k]->value == e->value);
		if (dup)
			continue;
		if (which && which->str && (e->flags & MS_EVF_TEXT))
			sc = likeness(str(s, which->str), e->text) + 1;
		for (int k = 0; k < 3; k++) {
			if (!pick[k] || sc > score[k]) {
				for (int j = 2; j > k; j--) {
					pick[j] = pick[j - 1];
					score[j] = score[j - 1];
				}
				pick[k] = e;
				score[k] = sc;
				break;
			}
		}
	}
	for (int k = 0; k < 3 && pick[k]; k++) {
		const struct ms_event *e = pick[k];

		fprintf(f, "%s%s ", k ? ", " : "; the closest of the calls it passed by had ",
			param_name(s, it->fn, e->param));
		if (e->flags & MS_EVF_TEXT)
			put_escaped(f, (const unsigned char *)e->text, strnlen(e->text, MS_EV_TEXT));
		else
			fprintf(f, "%lld", (long long)e->value);
	}
	if (it->passed > 1)
		fprintf(f, " (%u calls passed it by)", it->passed);
	else if (!seen)
		fprintf(f, "; it passed no call by either (is %s() called at all?)", fn_name(s, it->fn));
	fputc('\n', f);
}

static void leftover_text(FILE *f, const struct ms_report_in *s, const struct item *it,
			  const char *indent)
{
	char count[80];

	count_str(count, sizeof(count), it);
	fprintf(f, "%s:%u:%u: error: ", str(s, it->src), it->line, it->col);
	if (it->table == IT_RULE)
		fprintf(f, "%s() has remaining non-returned values", stmt_fn_name(s, it->fn, it->text));
	else if (it->table == IT_EXPECT)
		fprintf(f, "%s(): `%s` parameter still has values that haven't been checked",
			stmt_fn_name(s, it->fn, it->text), param_name(s, it->fn, expect_at(s, it->index)->param));
	else
		fprintf(f, "%s() was expected to be called but was not", stmt_fn_name(s, it->fn, it->text));
	fprintf(f, " (%s)\n%s%s\n%snote: remaining item was declared here: %s:%u\n", count, indent,
		stmt_text(s, it->text), indent, str(s, it->src), it->line);
	if (it->ncond)
		aimed_text(f, s, it, indent);
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
	const struct ms_fn_state *fns = ms_state_at(live(s), hdr(s)->st_fns_off);
	uint32_t attached = live(s)->attached;

	for (uint32_t i = 0; attached && i < hdr(s)->ndyn; i++) {
		const struct ms_chan_dyn *d = dyn_at(s, MS_FN_COUNT + i);

		if (!d || d->kind != MS_DYN_DECLARED ||
		    fns[MS_FN_COUNT + i].bound)
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
	if (s->tampered) {
		tamper_line(out, s, "");
		fprintf(out, "mockshim: %s %s\n", s->program, status);
		fprintf(out, "mockshim: FAILED: no verdict: the channel was tampered with\n");
		free(items);
		return;
	}
	processes(s, procs, sizeof(procs));
	if (s->verbosity >= MOCKSHIM_NORMAL || failures) {
		fprintf(out, "mockshim: %s %s; %u process%s attached%s%s%s\n", safe(s->program), status,
			live(s)->attached, live(s)->attached == 1 ? "" : "es", live(s)->attached ? " (" : "", procs,
			live(s)->attached ? ")" : "");
		if (live(s)->attached == 0 && n > 0 && !s->result.exec_errno)
			fprintf(out, "mockshim: warning: no process attached: the program may be "
				     "static or setuid, or it cleared LD_PRELOAD\n");
	}
	unbound_declared(s, out, "mockshim: ");
	escapes(s, out, "mockshim: ");
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
	if (live(s)->trace_lost)
		fprintf(out, "mockshim: warning: %u --trace line%s could not be written: the trace "
			     "is incomplete\n", live(s)->trace_lost, live(s)->trace_lost == 1 ? "" : "s");
	if (s->verbosity >= MOCKSHIM_NORMAL && items) {
		for (uint32_t i = 0; i < n; i++) {
			count_str(status, sizeof(status), &items[i]);
			buf[0] = '\0';
			if (items[i].table == IT_RULE)
				consumers(s, MS_EV_CONSUME, items[i].index, buf, sizeof(buf));
			fprintf(out, "  %s:%u:%u: %s: %s%s%s", str(s, items[i].src), items[i].line,
				items[i].col, stmt_text(s, items[i].text), status, buf[0] ? ", by " : "",
				buf);
			if (items[i].passed)
				fprintf(out, "; %u call%s passed it by", items[i].passed,
					items[i].passed == 1 ? "" : "s");
			if (items[i].declined)
				fprintf(out, "; %u call%s not drawn (probability=)", items[i].declined,
					items[i].declined == 1 ? "" : "s");
			fputc('\n', out);
		}
	}
	for (uint32_t i = 0; s->verbosity >= MOCKSHIM_NORMAL && i < h->nftimes; i++) {
		const struct ms_ftime *t = ftime_at(s, i);
		const struct ms_time_state *ts = time_state_at(s, i);
		char reads[32];

		consumers(s, MS_EV_TIME, i, buf, sizeof(buf));
		grouped(reads, sizeof(reads), ts->reads);
		fprintf(out, "  %s:%u:%u: %s: clocks read %s time%s%s%s", str(s, t->src), t->line,
			t->col, stmt_text(s, t->text), reads, ts->reads == 1 ? "" : "s",
			buf[0] ? " by " : "", buf);
		if (ts->sleeps)
			fprintf(out, "; %llu wait%s converted", (unsigned long long)ts->sleeps,
				ts->sleeps == 1 ? "" : "s");
		if (ts->moves)
			fprintf(out, "; moved %u time%s by mockrun ctl", ts->moves,
				ts->moves == 1 ? "" : "s");
		fputc('\n', out);
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
	if (failed_checks(s) > shown)
		fprintf(out, "mockshim: %u more failures not shown (the event log holds %u events)\n",
			failed_checks(s) - shown, h->events_cap);
	for (uint32_t i = 0; items && i < n; i++)
		if (leftover(s, &items[i]))
			leftover_text(out, s, &items[i], "    ");
	if (live(s)->events_next > h->events_cap)
		fprintf(out, "mockshim: %u events not recorded (the event log holds %u)\n",
			live(s)->events_next - h->events_cap, h->events_cap);
	if (live(s)->consume_dropped && s->verbosity >= MOCKSHIM_VERBOSE)
		fprintf(out, "mockshim: %u consumed values not listed (room is kept for failures)\n",
			live(s)->consume_dropped);
	for (size_t i = 0; i < s->nstill_running; i++)
		fprintf(out, "mockshim: still running at the timeout: %s\n", safe(s->still_running[i]));
	if (failures)
		fprintf(out, "mockshim: FAILED: %u check%s failed\n", failures, failures == 1 ? "" : "s");
	else if (s->verbosity >= MOCKSHIM_NORMAL)
		fprintf(out, "mockshim: all checks passed\n");
	free(items);
}

/*
 * Each statement is a test case of the TAP and JUnit reports, and a
 * failure a shim recorded fails the case of the statement it names
 * (a failed expect_string fails that expect_string); the last case is the
 * program's exit, with the failures that name no statement.
 */
struct cases {
	struct item *items;	/* sorted, as reported */
	uint32_t n;
	uint32_t *pos;		/* an item's table index (rules, expects, orders) -> its case */
	uint32_t *nfail;	/* per case (n + 1: the program), failure events */
};

static uint32_t item_global(const struct ms_report_in *s, const struct item *it)
{
	return it->table == IT_RULE     ? it->index
	       : it->table == IT_EXPECT ? hdr(s)->nrules + it->index
					: hdr(s)->nrules + hdr(s)->nexpects + it->index;
}

/* The case of failure event e: the statement it names, or n. */
static uint32_t case_of(const struct ms_report_in *s, const struct cases *c, const struct ms_event *e)
{
	const struct ms_chan_hdr *h = hdr(s);

	switch (e->kind) {
	case MS_FAIL_OUTPUT_NULL:
	case MS_FAIL_MOCK_EMPTY:
		return e->rule < h->nrules ? c->pos[e->rule] : c->n;
	case MS_FAIL_CHECK:
	case MS_FAIL_NO_EXPECT:
		return e->rule < h->nexpects ? c->pos[h->nrules + e->rule] : c->n;
	default:
		return e->rule < h->norders ? c->pos[h->nrules + h->nexpects + e->rule] : c->n;
	}
}

static int cases_make(const struct ms_report_in *s, struct cases *c)
{
	c->n = nitems(s);
	c->items = sorted_items(s);
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
			c->nfail[case_of(s, c, e)]++;
	}
	return 0;
}

static void cases_free(struct cases *c)
{
	free(c->items);
	free(c->pos);
	free(c->nfail);
}

/* The text of case k's failures (k == n: the program's), and of its
 * leftover; malloc'd, or NULL. */
static char *case_text(const struct ms_report_in *s, const struct cases *c, uint32_t k,
		       const char *indent)
{
	char *msg = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&msg, &len);

	if (!m)
		return NULL;
	for (uint32_t i = 0; i < nevents(s); i++) {
		const struct ms_event *e = event_at(s, i);

		if (e->state == 1 && e->type == MS_EV_FAIL && case_of(s, c, e) == k)
			failure_text(m, s, e, i, indent);
	}
	if (k < c->n && leftover(s, &c->items[k]))
		leftover_text(m, s, &c->items[k], indent);
	if (fclose(m) != 0) {
		free(msg);
		return NULL;
	}
	return msg;
}

/* The program's case fails when the program did not get to exit on its
 * own, or when a failure names no statement. */
static int program_failed(const struct ms_report_in *s, const struct cases *c)
{
	const struct mockshim_result *r = &s->result;

	return c->nfail[c->n] || r->signal || r->timed_out || r->exec_errno;
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

static void report_tap(struct ms_report_in *s, FILE *out, int version)
{
	struct cases c;
	char status[160];
	uint32_t k = 0;

	if (cases_make(s, &c) < 0)
		return;
	fprintf(out, "TAP version %d\n", version);
	if (s->tampered) {
		fputs("Bail out! ", out);
		tamper_line(out, s, "");
	}
	fprintf(out, "1..%u\n", c.n + 1);
	unbound_declared(s, out, "# ");
	escapes(s, out, "# ");
	for (uint32_t i = 0; i < c.n; i++) {
		const struct item *it = &c.items[i];
		int bad = leftover(s, it) || c.nfail[i];
		char *msg;

		count_str(status, sizeof(status), it);
		fprintf(out, "%s %u - ", bad ? "not ok" : "ok", ++k);
		fprintf(out, "%s:%u: ", str(s, it->src), it->line);
		ms_tap_text(out, stmt_text(s, it->text));
		fprintf(out, " (%s", status);
		if (c.nfail[i])
			fprintf(out, ", %u failed check%s", c.nfail[i], c.nfail[i] == 1 ? "" : "s");
		fputs(")\n", out);
		if (!bad || !(msg = case_text(s, &c, i, "")))
			continue;
		fprintf(out, "  ---\n");
		yaml_block(out, "message", msg);
		fprintf(out, "  at: \"%s:%u:%u\"\n  ...\n", str(s, it->src), it->line, it->col);
		free(msg);
	}
	describe_status(s, status, sizeof(status));
	fprintf(out, "%s %u - ", program_failed(s, &c) ? "not ok" : "ok", ++k);
	ms_tap_text(out, s->program);
	fprintf(out, " %s", status);
	if (c.nfail[c.n])
		fprintf(out, ", %u failed check%s that name no statement", c.nfail[c.n],
			c.nfail[c.n] == 1 ? "" : "s");
	fputc('\n', out);
	if (c.nfail[c.n]) {
		char *msg = case_text(s, &c, c.n, "");

		if (msg) {
			fprintf(out, "  ---\n");
			yaml_block(out, "message", msg);
			fprintf(out, "  ...\n");
			free(msg);
		}
	}
	cases_free(&c);
}

/* "SRC:LINE:COL: error: HEADLINE\n...": the headline, what a CI system
 * shows of a failure (malloc'd). */
static char *headline(const char *text)
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
	const unsigned char *p = (const unsigned char *)text;

	fputc('"', out);
	while (*p) {
		uint32_t cp;
		size_t n = utf8_seq(p, &cp);

		if (n == 0) {
			fputs("\\ufffd", out);
			p++;
			continue;
		}
		if (cp == '"' || cp == '\\')
			fprintf(out, "\\%c", (int)cp);
		else if (cp == '\n')
			fputs("\\n", out);
		else if (cp < 0x20 || cp == 0x7f)
			fprintf(out, "\\u%04x", cp);
		else
			fwrite(p, 1, n, out);
		p += n;
	}
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
	default: return "failed";
	}
}

/* The JSON report (doc/report.schema.json): every key once; "failures"
 * holds each failed check and each leftover, "failure_count" counts them. */
static void report_json(struct ms_report_in *s, FILE *out)
{
	const struct ms_chan_hdr *h = hdr(s);
	const struct mockshim_result *res = &s->result;
	static const char *const tables[] = { "rule", "expectation", "order" };
	struct cases c;
	int first = 1;

	if (cases_make(s, &c) < 0)
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
	fprintf(out, ",\"exited\":%s,\"exit_status\":%d,\"signal\":%d,\"timed_out\":%s,"
		     "\"exec_errno\":%d,\"seconds\":%.3f,\"failure_count\":%u,\"processes\":[",
		res->exited ? "true" : "false", res->exit_status, res->signal,
		res->timed_out ? "true" : "false", res->exec_errno, res->seconds,
		ms_report_failures(s));
	for (uint32_t i = 0; i < nevents(s); i++) {
		const struct ms_event *e = event_at(s, i);

		if (e->state != 1 || e->type != MS_EV_ATTACH)
			continue;
		fprintf(out, "%s{\"pid\":%d,\"exe\":", first ? "" : ",", e->pid);
		ms_json_text(out, e->text);
		fputc('}', out);
		first = 0;
	}
	fprintf(out, "],\"escapes\":[");
	first = 1;
	for (uint32_t i = 0; i < nevents(s); i++) {
		const struct ms_event *e = event_at(s, i);

		if (e->state != 1 || e->type != MS_EV_WARN)
			continue;
		fprintf(out, "%s{\"pid\":%d,\"by\":", first ? "" : ",", e->pid);
		ms_json_text(out, exe_of(s, e->pid, i));
		fprintf(out, ",\"program\":");
		ms_json_text(out, e->text);
		fprintf(out, ",\"how\":\"%s\",\"why\":", e->param ? "spawn" : "exec");
		ms_json_text(out, escape_why(s, e->kind));
		fputc('}', out);
		first = 0;
	}
	fprintf(out, "],\"statements\":[");
	for (uint32_t i = 0; i < c.n; i++) {
		const struct item *it = &c.items[i];

		fprintf(out, "%s{\"kind\":\"%s\",\"source\":", i ? "," : "", tables[it->table]);
		ms_json_text(out, str(s, it->src));
		fprintf(out, ",\"line\":%u,\"col\":%u,\"statement\":", it->line, it->col);
		ms_json_text(out, str(s, it->text));
		fprintf(out, ",\"function\":");
		ms_json_text(out, stmt_fn_name(s, it->fn, it->text));
		fprintf(out, ",\"count\":%d,\"consumed\":%u,\"leftover\":%s,\"failed_checks\":%u}",
			it->count, it->consumed, leftover(s, it) ? "true" : "false", c.nfail[i]);
	}
	fprintf(out, "],\"clocks\":[");
	for (uint32_t i = 0; i < h->nftimes; i++) {
		const struct ms_ftime *t = ftime_at(s, i);
		const struct ms_time_state *ts = time_state_at(s, i);

		fprintf(out, "%s{\"source\":", i ? "," : "");
		ms_json_text(out, str(s, t->src));
		fprintf(out, ",\"line\":%u,\"col\":%u,\"statement\":", t->line, t->col);
		ms_json_text(out, str(s, t->text));
		fprintf(out, ",\"reads\":%llu,\"waits_converted\":%llu,\"moves\":%u,\"processes\":[",
			(unsigned long long)ts->reads, (unsigned long long)ts->sleeps, ts->moves);
		first = 1;
		for (uint32_t k = 0; k < nevents(s); k++) {
			const struct ms_event *e = event_at(s, k);

			if (e->state != 1 || e->type != MS_EV_TIME || e->rule != i)
				continue;
			fprintf(out, "%s{\"pid\":%d,\"exe\":", first ? "" : ",", e->pid);
			ms_json_text(out, e->text);
			fputc('}', out);
			first = 0;
		}
		fputs("]}", out);
	}
	fprintf(out, "],\"failures\":[");
	first = 1;
	for (uint32_t i = 0; i < nevents(s); i++) {
		const struct ms_event *e = event_at(s, i);
		uint32_t k;
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
		k = case_of(s, &c, e);
		fprintf(out, "%s{\"kind\":\"%s\",\"function\":", first ? "" : ",", fail_kind_name(e->kind));
		ms_json_text(out, fn_name(s, e->fn));
		if (k < c.n) {
			fprintf(out, ",\"source\":");
			ms_json_text(out, str(s, c.items[k].src));
			fprintf(out, ",\"line\":%u,\"col\":%u", c.items[k].line, c.items[k].col);
		}
		fprintf(out, ",\"call\":%u,\"pid\":%d,\"tid\":%d,\"exe\":", e->call, e->pid, e->tid);
		ms_json_text(out, exe_of(s, e->pid, i));
		fprintf(out, ",\"caller\":");
		ms_json_text(out, e->caller);
		fprintf(out, ",\"caller_offset\":%llu,\"message\":", (unsigned long long)e->caller_off);
		ms_json_text(out, msg);
		fputc('}', out);
		free(msg);
		first = 0;
	}
	for (uint32_t i = 0; i < c.n; i++) {
		const struct item *it = &c.items[i];
		char *msg = NULL;
		size_t len = 0;
		FILE *m;

		if (!leftover(s, it) || !(m = open_memstream(&msg, &len)))
			continue;
		leftover_text(m, s, it, "    ");
		fclose(m);
		fprintf(out, "%s{\"kind\":\"leftover\",\"function\":", first ? "" : ",");
		ms_json_text(out, fn_name(s, it->fn));
		fprintf(out, ",\"source\":");
		ms_json_text(out, str(s, it->src));
		fprintf(out, ",\"line\":%u,\"col\":%u,\"message\":", it->line, it->col);
		ms_json_text(out, msg);
		fputc('}', out);
		free(msg);
		first = 0;
	}
	fprintf(out, "],\"failures_not_shown\":%u,\"events_dropped\":%u}\n",
		failed_checks(s) > failure_events(s) ? failed_checks(s) - failure_events(s) : 0,
		live(s)->events_next > h->events_cap ? live(s)->events_next - h->events_cap : 0);
	cases_free(&c);
}

/* The first line of every text report of a tampered run. */
static void tamper_line(FILE *out, const struct ms_report_in *s, const char *prefix)
{
	if (s->tamper_pid)
		fprintf(out, "%smockshim: the channel was tampered with by %s[%d]: %s\n", prefix,
			exe_of(s, s->tamper_pid, nevents(s)), s->tamper_pid, s->tampered);
	else
		fprintf(out, "%smockshim: the channel was tampered with by an unknown process: %s\n",
			prefix, s->tampered);
}

/*
 * XML 1.0 text and attribute values, well-formed whatever the program
 * wrote: an invalid UTF-8 sequence and a character XML 1.0 forbids (C0
 * controls but tab, newline and CR; U+FFFE, U+FFFF) become U+FFFD.
 */
void ms_xml_text(FILE *out, const char *text)
{
	const unsigned char *p = (const unsigned char *)(text ? text : "");

	while (*p) {
		uint32_t cp;
		size_t n = utf8_seq(p, &cp);

		if (n == 0) {
			fputs("\xef\xbf\xbd", out);
			p++;
			continue;
		}
		if (cp == '<')
			fputs("&lt;", out);
		else if (cp == '>')
			fputs("&gt;", out);
		else if (cp == '&')
			fputs("&amp;", out);
		else if (cp == '"')
			fputs("&quot;", out);
		else if (cp == '\r')
			fputs("&#13;", out);
		else if ((cp < 0x20 && cp != '\n' && cp != '\t') || cp == 0xfffe || cp == 0xffff)
			fputs("\xef\xbf\xbd", out);
		else
			fwrite(p, 1, n, out);
		p += n;
	}
}

/*
 * JUnit's classname for a source: a file as a CI system groups it, its
 * path relative to the current directory without the "../" that a build
 * directory adds, without ".mock", "/" as "." (../tests/x.mock:
 * tests.x); a name that is no file (-e#1) as it is.
 */
void ms_junit_classname(FILE *out, const char *path)
{
	char *real = realpath(path, NULL), *cwd = getcwd(NULL, 0), *name = NULL;
	const char *p;
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
	p = name ? name : path;
	n = strlen(p);
	if (n > 5 && strcmp(p + n - 5, ".mock") == 0)
		n -= 5;
	if (!name) {
		ms_xml_text(out, path);
	} else {
		for (size_t i = 0; i < n; i++)
			if (p[i] == '/')
				name[i] = '.';
		name[n] = '\0';
		ms_xml_text(out, name);
	}
	free(name);
	free(real);
	free(cwd);
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
	char *h = headline(text);

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
static void report_junit(struct ms_report_in *s, FILE *out)
{
	struct cases c;
	unsigned failed = 0, errors = 0;
	char status[160];

	if (cases_make(s, &c) < 0)
		return;
	for (uint32_t i = 0; i < c.n; i++)
		failed += leftover(s, &c.items[i]) || c.nfail[i];
	if (c.nfail[c.n])
		failed++;
	else if (program_failed(s, &c))
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

		snprintf(name, sizeof(name), "%u:%u: %s", it->line, it->col, stmt_text(s, it->text));
		fprintf(out, "    <testcase classname=\"");
		ms_junit_classname(out, str(s, it->src));
		fprintf(out, "\" name=\"");
		ms_xml_text(out, name);
		fprintf(out, "\" time=\"0.000\">");
		if (leftover(s, it) || c.nfail[i]) {
			char *msg = case_text(s, &c, i, "");

			if (msg)
				junit_problem(out, "failure", msg,
					      c.nfail[i] + (unsigned)leftover(s, it) - 1);
			free(msg);
		}
		fprintf(out, "</testcase>\n");
	}
	describe_status(s, status, sizeof(status));
	fprintf(out, "    <testcase classname=\"");
	ms_xml_text(out, s->program);
	fprintf(out, "\" name=\"");
	ms_xml_text(out, s->program);
	fprintf(out, " %s\" time=\"%.3f\">", status, s->result.seconds);
	if (s->tampered) {
		char text[240];

		snprintf(text, sizeof(text), "no verdict: the channel was tampered with: %s",
			 s->tampered);
		junit_problem(out, "error", text, 0);
	} else if (c.nfail[c.n]) {
		char *msg = case_text(s, &c, c.n, "    ");

		if (msg)
			junit_problem(out, "failure", msg, c.nfail[c.n] - 1);
		free(msg);
	} else if (program_failed(s, &c)) {
		char text[200];

		snprintf(text, sizeof(text), "%s %s", s->program, status);
		junit_problem(out, "error", text, 0);
	}
	fprintf(out, "</testcase>\n  </testsuite>\n</testsuites>\n");
	cases_free(&c);
}

int ms_report_write(struct ms_report_in *s, FILE *out, int format)
{
	if (!s->spec || !s->state)
		return -EINVAL;
	switch (format) {
	case MOCKSHIM_REPORT_TEXT:
		report_text(s, out);
		break;
	case MOCKSHIM_REPORT_TAP:
	case MOCKSHIM_REPORT_TAP14:
		report_tap(s, out, format == MOCKSHIM_REPORT_TAP14 ? 14 : 13);
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
