/* SPDX-License-Identifier: MIT */
/*
 * Reports of a run: the words of a failure, a leftover, an aimed
 * statement no call matched, and the programs that ran unmocked.
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

const char *rp_escape_why(const struct ms_report_in *s, unsigned kind)
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
void rp_escapes(const struct ms_report_in *s, FILE *out, const char *prefix)
{
	for (uint32_t i = 0; i < nevents(s); i++) {
		const struct ms_event *e = event_at(s, i);
		unsigned more = 0;
		int first = 1, note;

		if (e->state != 1 || e->type != MS_EV_WARN)
			continue;
		/* a static program the SYS_ statements reach is not an
		 * escape: a note, which -q leaves out */
		note = e->kind == MS_ESC_STATIC && has_syscalls(s);
		if (note && s->verbosity < MOCKSHIM_NORMAL)
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
		fprintf(out, "%s%s: `", prefix, note ? "note" : "warning");
		put_plain(out, e->text);
		fprintf(out, "` (%s by ", e->param ? "started" : "exec'd");
		put_plain(out, rp_exe_of(s, e->pid, i));
		fprintf(out, "[%d]) %s", e->pid, rp_escape_why(s, e->kind));
		if (more)
			fprintf(out, " (%u more time%s)", more, more == 1 ? "" : "s");
		fputc('\n', out);
	}
}

/* ---- failure messages ---- */

void rp_put_escaped(FILE *f, const unsigned char *p, size_t n)
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
	const struct ms_fn_meta *m = ms_catalog_get(x->stmt.fn);
	const struct ms_chan_dyn *d = rp_dyn_at(s, x->stmt.fn);
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
		rp_put_escaped(f, (const unsigned char *)e->text, n);
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

	fprintf(f, "parameter %s: ", rp_param_name(s, x->stmt.fn, x->param));
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
		rp_put_escaped(f, want, x->len);
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
	case MS_X_CHECK:
		if (e->flags & MS_EVF_FAULT)
			fprintf(f, "check function %s: no object of the process defines it (load the "
				   "handler module that exports it with -m)", (const char *)want);
		else {
			fprintf(f, "check function %s rejected ", (const char *)want);
			put_int(f, s, e->value, x);
		}
		break;
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
	none.stmt.fn = e->fn;
	switch (e->kind) {
	case MS_FAIL_OUTPUT_NULL:
	case MS_FAIL_MOCK_EMPTY:
	case MS_FAIL_HELD:
		return e->rule < h->nrules ? rp_item_at(s, e->rule) : none;
	case MS_FAIL_CHECK:
	case MS_FAIL_NO_EXPECT:
		return e->rule < h->nexpects ? rp_item_at(s, h->nrules + e->rule) : none;
	default:
		return e->rule < h->norders ? rp_item_at(s, h->nrules + h->nexpects + e->rule) : none;
	}
}

/* One failure: "SRC:LINE:COL: error: FN() call N in EXE[PID]: what" and
 * the statement and caller lines; indent starts the continuation lines. */
void rp_failure_text(FILE *f, const struct ms_report_in *s, const struct ms_event *e,
		     uint32_t i, const char *indent)
{
	const struct ms_chan_hdr *h = hdr(s);
	struct item it = failure_item(s, e);

	fprintf(f, "%s:%u:%u: error: %s()", str(s, it.stmt.src), it.stmt.line, it.stmt.col,
		it.stmt.text && it.stmt.fn == e->fn ? rp_stmt_fn_name(s, e->fn, it.stmt.text) : rp_fn_name(s, e->fn));
	if (e->call)
		fprintf(f, " call %u", e->call);
	fprintf(f, " in %s[%d]: ", rp_exe_of(s, e->pid, i), e->pid);
	switch (e->kind) {
	case MS_FAIL_OUTPUT_NULL:
		fprintf(f, "output %s is NULL: nothing written", rp_param_name(s, e->fn, e->param));
		break;
	case MS_FAIL_CHECK:
		check_message(f, s, e, expect_at(s, e->rule));
		break;
	case MS_FAIL_NO_EXPECT:
		fprintf(f, "parameter %s: no expected value left (all %u declared were checked); got ",
			rp_param_name(s, e->fn, e->param), it.consumed);
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
			(long long)e->value, rp_fn_name(s, it.stmt.fn), str(s, it.stmt.src), it.stmt.line,
			rp_fn_name(s, e->fn), e->seq);
		break;
	case MS_FAIL_ORDER_EXTRA:
		fprintf(f, "called more often than expected: call #%u of the sequence comes after "
			   "every expected call",
			e->seq);
		break;
	case MS_FAIL_NO_CALL:
		fputs("called, but expect_no_call forbids any call", f);
		break;
	case MS_FAIL_HELD:
		fprintf(f, "thread %d held at hold '%s' %s: ", e->tid,
			e->rule < h->nrules ? rp_safe(str(s, rule_at(s, e->rule)->value_str)) : "?",
			e->value == 1 ? "past its timeout=, then let go"
				      : "was never released (still held when its process or the run ended)");
		rp_put_escaped(f, (const unsigned char *)e->text, strnlen(e->text, MS_EV_TEXT));
		break;
	case MS_FAIL_MOCK_EMPTY:
		fprintf(f, "mock() #%u of the run found no value queued (%s)", e->seq,
			e->rule < h->nrules ? "every will_return value was used" : "nothing was queued");
		break;
	default:
		fputs("failed", f);
	}
	fprintf(f, "\n%s%s\n", indent, rp_stmt_text(s, it.stmt.text));
	if (e->caller[0]) {
		char site[320];

		fprintf(f, "%scalled from %s\n", indent,
			rp_site(s, e->caller, e->caller_off, e->sym, 0, site, sizeof(site)));
	}
}

/* A condition as the language writes it: pathname ~ "*.conf". */
static void put_cond(FILE *f, const struct ms_report_in *s, const struct ms_cond *c, unsigned fn)
{
	static const char *const ops[] = { "?", "==", "!=", "<", "<=", ">", ">=", "&", "&", "in",
					   "~", "!~", "==", "!=", "==", "!=" };
	const char *name = rp_param_name(s, fn, c->param);

	if (c->arg == MS_CA_SITE) {
		fputs("a site in {", f);
		for (uint32_t j = 0; j < c->nset && j < 3; j++) {
			struct ms_site_rng g;

			memcpy(&g, str(s, c->set) + j * sizeof(g), sizeof(g));
			fprintf(f, "%s%s+%#llx", j ? ", " : "", str(s, g.object), (unsigned long long)g.lo);
			if (g.hi != g.lo)
				fprintf(f, "..%#llx", (unsigned long long)g.hi);
		}
		fprintf(f, "%s}", c->nset > 3 ? ", ..." : "");
		return;
	}
	if (c->op == MS_C_NOBITS)
		fprintf(f, "!(%s & %#llx)", name, (unsigned long long)c->value);
	else if (c->op == MS_C_ANYBITS)
		fprintf(f, "%s & %#llx", name, (unsigned long long)c->value);
	else if (c->op == MS_C_IN)
		fprintf(f, "%s in {...%u values}", name, c->nset);
	else if (c->op == MS_C_ISNULL || c->op == MS_C_NOTNULL)
		fprintf(f, "%s %s NULL", name, ops[c->op]);
	else if (c->op >= MS_C_GLOB)
		fprintf(f, "%s %s ", name, ops[c->op]), rp_put_escaped(f, (const unsigned char *)str(s, c->str),
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
				  it->stmt.cond_first;
	const struct ms_event *pick[3] = { NULL, NULL, NULL };
	size_t score[3] = { 0, 0, 0 };
	unsigned seen = 0;

	if (it->consumed)
		return;
	fprintf(f, "%snote: no call of %s() had ", indent, rp_fn_name(s, it->stmt.fn));
	for (uint32_t k = 0; k < it->stmt.ncond; k++) {
		if (k)
			fputs(" and ", f);
		put_cond(f, s, &c[k], it->stmt.fn);
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
		for (uint32_t k = 0; k < it->stmt.ncond && !which; k++)
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
			rp_param_name(s, it->stmt.fn, e->param));
		if (e->flags & MS_EVF_TEXT)
			rp_put_escaped(f, (const unsigned char *)e->text, strnlen(e->text, MS_EV_TEXT));
		else
			fprintf(f, "%lld", (long long)e->value);
	}
	if (it->passed > 1)
		fprintf(f, " (%u calls passed it by)", it->passed);
	else if (!seen)
		fprintf(f, "; it passed no call by either (is %s() called at all?)", rp_fn_name(s, it->stmt.fn));
	fputc('\n', f);
}

/* Whether glob names the program at path, as in= names an executable:
 * by its basename (or its path, written whole). */
static int names_path(const char *glob, const char *path)
{
	const char *base = strrchr(path, '/');

	return ms_glob_match(glob, base ? base + 1 : path) || ms_glob_match(glob, path);
}

/*
 * A program that ran where no shim attached (static, setuid, without
 * LD_PRELOAD) is seen by the syscall tier only when it answers one of its
 * calls: one that made none has no attach event, yet it ran.  A note
 * that in= "matched no program" would send the user after the name: say
 * what happened instead.  1 when said.
 */
static int in_unattached(FILE *f, const struct ms_report_in *s, const char *glob, const char *indent)
{
	for (uint32_t i = 0; i < nevents(s); i++) {
		const struct ms_event *e = event_at(s, i);

		if (e->state != 1 || e->type != MS_EV_WARN || !names_path(glob, e->text))
			continue;
		fprintf(f, "%snote: in=\"%s\" matched ", indent, rp_safe(glob));
		put_plain(f, e->text);
		fprintf(f, " (%s by ", e->param ? "started" : "exec'd");
		put_plain(f, rp_exe_of(s, e->pid, i));
		fprintf(f, "[%d]), which ran (%s) but made no call this statement takes\n", e->pid,
			e->kind == MS_ESC_STATIC ? "static" : "unmocked");
		return 1;
	}
	/* the program itself, when nothing attached (the report's warning
	 * says so): mockrun started it, no shim announced it */
	if (s->program && !s->result.exec_errno && live(s)->attached == 0 && names_path(glob, s->program)) {
		fprintf(f, "%snote: in=\"%s\" matched the program, %s, which ran (no process attached: "
			   "static, setuid or without LD_PRELOAD) but made no call this statement takes\n",
			indent, rp_safe(glob), rp_safe(s->program));
		return 1;
	}
	return 0;
}

/*
 * A leftover whose in= matched no program of the run says which programs
 * ran, by their executables (in= also matches argv[0], which the events
 * do not hold: in="sh" reaches dash started as sh).
 */
static void in_text(FILE *f, const struct ms_report_in *s, const struct item *it, const char *indent)
{
	uint32_t glob = it->stmt.in_glob, shown = 0;
	const char *names[8];

	if (!glob)
		return;
	for (uint32_t i = 0; i < nevents(s); i++) {
		const struct ms_event *e = event_at(s, i);
		uint32_t k;

		if (e->state != 1 || e->type != MS_EV_ATTACH)
			continue;
		if (ms_glob_match(str(s, glob), e->text))
			return;
		for (k = 0; k < shown && strcmp(names[k], e->text) != 0; k++)
			;
		if (k == shown && shown < 8)
			names[shown++] = e->text;
	}
	if (in_unattached(f, s, str(s, glob), indent))
		return;
	fprintf(f, "%snote: in=\"%s\" matched no program of the run", indent, rp_safe(str(s, glob)));
	for (uint32_t k = 0; k < shown; k++)
		fprintf(f, "%s%s", k ? ", " : "; the programs were ", rp_safe(names[k]));
	fputc('\n', f);
}

void rp_leftover_text(FILE *f, const struct ms_report_in *s, const struct item *it,
		      const char *indent)
{
	char count[80];

	rp_count_str(count, sizeof(count), it);
	fprintf(f, "%s:%u:%u: error: ", str(s, it->stmt.src), it->stmt.line, it->stmt.col);
	if (it->table == IT_RULE)
		fprintf(f, "%s() has remaining non-returned values", rp_stmt_fn_name(s, it->stmt.fn, it->stmt.text));
	else if (it->table == IT_EXPECT)
		fprintf(f, "%s(): `%s` parameter still has values that haven't been checked",
			rp_stmt_fn_name(s, it->stmt.fn, it->stmt.text), rp_param_name(s, it->stmt.fn, expect_at(s, it->index)->param));
	else
		fprintf(f, "%s() was expected to be called but was not", rp_stmt_fn_name(s, it->stmt.fn, it->stmt.text));
	fprintf(f, " (%s)\n%s%s\n%snote: remaining item was declared here: %s:%u\n", count, indent,
		rp_stmt_text(s, it->stmt.text), indent, str(s, it->stmt.src), it->stmt.line);
	if (it->stmt.ncond)
		aimed_text(f, s, it, indent);
	if (it->consumed == 0)
		in_text(f, s, it, indent);
}

struct item *rp_sorted_items(const struct ms_report_in *s)
{
	uint32_t n = rp_nitems(s);
	struct item *v = calloc(n ? n : 1, sizeof(*v));

	int sorted = 1;

	if (!v)
		return NULL;
	for (uint32_t i = 0; i < n; i++) {
		v[i] = rp_item_at(s, i);
		if (i && sorted && rp_item_cmp(&v[i - 1], &v[i]) > 0)
			sorted = 0;
	}
	/* the channel groups statements by function, each group in order:
	 * a spec about one function (the large ones) needs no sort */
	if (!sorted)
		qsort(v, n, sizeof(*v), rp_item_cmp);
	return v;
}

static int index_cmp(const void *a, const void *b, void *arg)
{
	const struct ms_report_in *s = arg;
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	struct item x = rp_item_at(s, i), y = rp_item_at(s, j);
	int c = rp_item_cmp(&x, &y);

	/* ties in index order: as the stable sort of the items had them */
	return c ? c : i < j ? -1 : i > j;
}

uint32_t *rp_sorted_order(const struct ms_report_in *s, int *ok)
{
	uint32_t n = rp_nitems(s), *v, i;
	struct item prev, it;

	*ok = 1;
	memset(&prev, 0, sizeof(prev));
	for (i = 0; i < n; i++, prev = it) {
		it = rp_item_at(s, i);
		if (i && rp_item_cmp(&prev, &it) > 0)
			break;
	}
	if (i == n)
		return NULL;
	v = malloc(n * sizeof(*v));
	if (!v) {
		*ok = 0;
		return NULL;
	}
	for (i = 0; i < n; i++)
		v[i] = i;
	qsort_r(v, n, sizeof(*v), index_cmp, (void *)s);
	return v;
}

/* Declared functions no attached process had a definition of: their
 * statements could never apply. */
void rp_unbound_declared(const struct ms_report_in *s, FILE *out, const char *prefix)
{
	const struct ms_fn_state *fns = ms_state_at(live(s), hdr(s)->st_fns_off);
	uint32_t attached = live(s)->attached;

	for (uint32_t i = 0; attached && i < hdr(s)->ndyn; i++) {
		const struct ms_chan_dyn *d = rp_dyn_at(s, MS_FN_COUNT + i);

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
