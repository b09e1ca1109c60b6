/* SPDX-License-Identifier: MIT */
/*
 * Reports of a run: the statements as items, their counts and
 * consumers, the processes, and ms_report_write, which picks the format
 * (report_msg.c words the failures, report_text.c writes text and TAP,
 * report_data.c JSON and JUnit, report_html.c the page).
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
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "catalog/catalog.h"
#include "channel/channel.h"
#include "report.h"
#include "view.h"
#include "report_impl.h"

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
size_t rp_utf8_seq(const unsigned char *p, uint32_t *cp)
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
static int unsafe(size_t n, uint32_t cp)
{
	return n == 0 || cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0);
}

void ms_safe_text(FILE *out, const char *text)
{
	const unsigned char *p = (const unsigned char *)text, *run = p;

	/* runs of plain text in one fwrite: a call per character was most
	 * of a report's time */
	while (*p) {
		uint32_t cp;
		size_t n;

		if (*p >= 0x20 && *p < 0x7f) {
			p++; /* printable ASCII, the common case */
			continue;
		}
		n = rp_utf8_seq(p, &cp);
		if (unsafe(n, cp)) {
			fwrite(run, 1, (size_t)(p - run), out);
			for (size_t i = 0; i < (n ? n : 1); i++)
				fprintf(out, "\\x%02x", p[i]);
			p += n ? n : 1;
			run = p;
		} else {
			p += n;
		}
	}
	fwrite(run, 1, (size_t)(p - run), out);
}

/* The same into one of a few static buffers, for a format argument (no
 * stdio: an fmemopen per call was a report's largest cost under ASan);
 * a text too long ends before the character that does not fit. */
const char *rp_safe(const char *text)
{
	static const char hex[] = "0123456789abcdef";
	static char bufs[8][1024];
	static unsigned next;
	char *b = bufs[next++ % 8];
	const unsigned char *p = (const unsigned char *)text;
	size_t k = 0, cap = sizeof(bufs[0]) - 1;

	while (*p) {
		uint32_t cp;
		size_t n = rp_utf8_seq(p, &cp);

		if (!unsafe(n, cp)) {
			if (n > cap - k)
				break;
			memcpy(b + k, p, n);
			k += n;
			p += n;
			continue;
		}
		/* each byte of it, as ms_safe_text writes it */
		if ((n ? n : 1) * 4 > cap - k)
			break;
		for (size_t i = 0; i < (n ? n : 1); i++, k += 4) {
			b[k] = '\\';
			b[k + 1] = 'x';
			b[k + 2] = hex[*p >> 4];
			b[k + 3] = hex[*p++ & 15];
		}
	}
	b[k] = '\0';
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

const char *rp_stmt_text(const struct ms_report_in *s, uint32_t off)
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

const struct ms_chan_dyn *rp_dyn_at(const struct ms_report_in *s, unsigned id)
{
	if (id < MS_FN_COUNT || id - MS_FN_COUNT >= hdr(s)->ndyn)
		return NULL;
	return (const struct ms_chan_dyn *)ms_chan_at(hdr(s), hdr(s)->dyn_off) + (id - MS_FN_COUNT);
}

const char *rp_fn_name(const struct ms_report_in *s, unsigned id)
{
	const struct ms_fn_meta *m = ms_catalog_get(id);
	const struct ms_chan_dyn *d = rp_dyn_at(s, id);

	return m ? m->name : d ? str(s, d->name) : "?";
}

/*
 * The function as the statement at text names it: "will_return(getline,
 * 5)" arms getdelim, whose alias getline is, and the report says getline
 * as the user wrote it.  fn's own name when the statement names another.
 */
const char *rp_stmt_fn_name(const struct ms_report_in *s, unsigned fn, uint32_t text)
{
	static char bufs[4][64];
	static unsigned next;
	const char *t = str(s, text), *p = strchr(t, '(');
	size_t n = 0;
	char *b;

	if (!p || fn >= MS_FN_COUNT)
		return rp_fn_name(s, fn);
	p += strspn(p + 1, " \t") + 1;
	while (p[n] == '_' || (p[n] >= 'a' && p[n] <= 'z') || (p[n] >= 'A' && p[n] <= 'Z') ||
	       (p[n] >= '0' && p[n] <= '9'))
		n++;
	if (n == 0 || n >= sizeof(bufs[0]) || ms_catalog_find(p, n) != (int)fn)
		return rp_fn_name(s, fn);
	b = bufs[next++ % 4];
	memcpy(b, p, n);
	b[n] = '\0';
	return b;
}

/* The name of parameter param of fn (a static buffer for module functions). */
const char *rp_param_name(const struct ms_report_in *s, unsigned fn, unsigned param)
{
	const struct ms_fn_meta *m = ms_catalog_get(fn);
	const struct ms_chan_dyn *d = rp_dyn_at(s, fn);
	static char buf[64];
	const char *p;

	if (param == MS_SITE_PARAM)
		return "site"; /* at=: a pass-by's site */
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

uint32_t rp_nitems(const struct ms_report_in *s)
{
	return hdr(s)->nrules + hdr(s)->nexpects + hdr(s)->norders;
}

struct item rp_item_at(const struct ms_report_in *s, uint32_t i)
{
	const struct ms_chan_hdr *h = hdr(s);
	const struct ms_count_state *cs;
	const struct ms_stmt *st;
	struct item it;

	memset(&it, 0, sizeof(it));
	it.index = i;
	if (i < h->nrules) {
		const struct ms_rule_state *rs = rule_state_at(s, i);

		it.table = IT_RULE;
		st = &rule_at(s, i)->stmt;
		it.kind = rule_at(s, i)->kind;
		it.consumed = rs->consumed;
		it.passed = rs->passed;
		it.declined = rs->declined;
	} else if ((it.index = i -= h->nrules) < h->nexpects) {
		cs = count_state_at(s, h->st_expects_off, i);
		it.table = IT_EXPECT;
		st = &expect_at(s, i)->stmt;
		it.kind = expect_at(s, i)->kind;
		it.consumed = cs->consumed;
		it.passed = cs->passed;
	} else {
		it.index = i -= h->nexpects;
		cs = count_state_at(s, h->st_orders_off, i);
		it.table = IT_ORDER;
		st = &order_at(s, i)->stmt;
		it.kind = order_at(s, i)->kind;
		it.consumed = cs->consumed;
		it.passed = cs->passed;
	}
	it.stmt = *st;
	return it;
}

/* Items are reported in declaration order. */
int rp_item_cmp(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	if (x->stmt.src != y->stmt.src)
		return x->stmt.src < y->stmt.src ? -1 : 1;
	if (x->stmt.line != y->stmt.line)
		return x->stmt.line < y->stmt.line ? -1 : 1;
	return x->stmt.col < y->stmt.col ? -1 : x->stmt.col > y->stmt.col;
}

int rp_leftover(const struct ms_report_in *s, const struct item *it)
{
	/* a broken sequence is one failure, its rest is not checked */
	if (it->table == IT_ORDER)
		return it->kind == MS_ORD_CALL &&
		       (it->stmt.count < 0 ? it->consumed == 0
					   : it->consumed < (uint32_t)it->stmt.count) &&
		       live(s)->order_cursor != MS_ORDER_BROKEN;
	if (it->stmt.count > 0)
		return it->consumed < (uint32_t)it->stmt.count;
	return it->stmt.count == MS_COUNT_ALWAYS && it->consumed == 0;
}

uint32_t rp_failure_events(const struct ms_report_in *s)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < nevents(s); i++)
		n += event_at(s, i)->state == 1 && event_at(s, i)->type == MS_EV_FAIL;
	return n;
}

unsigned ms_report_leftovers(const struct ms_report_in *s)
{
	unsigned n = 0;

	for (uint32_t i = 0; i < rp_nitems(s); i++) {
		struct item it = rp_item_at(s, i);

		n += rp_leftover(s, &it);
	}
	return n;
}

unsigned ms_report_consumed(const struct ms_report_in *s)
{
	unsigned n = 0;

	for (uint32_t i = 0; i < rp_nitems(s); i++)
		n += rp_item_at(s, i).consumed;
	return n;
}

/*
 * Failed checks, counted from the failure events themselves; the
 * counter adds only the ones the full log had no room for.  A tampered
 * state is a failure whatever it says.
 */
/* The failures recorded in part (audit.c), as the text and JUnit
 * reports say them. */
void rp_lost_text(const struct ms_report_in *s, char *buf, size_t n)
{
	snprintf(buf, n, "%u failure%s recorded in part: a process or thread ended while "
		 "recording it (or the program rewrote the state)", s->lost_failures,
		 s->lost_failures == 1 ? "" : "s");
}

unsigned rp_failed_checks(const struct ms_report_in *s)
{
	uint64_t n = (uint64_t)rp_failure_events(s) + s->lost_failures + live(s)->failures;

	return n > UINT32_MAX ? UINT32_MAX : (unsigned)n;
}

unsigned ms_report_failures(const struct ms_report_in *s)
{
	uint64_t n = (uint64_t)rp_failed_checks(s) + ms_report_leftovers(s);

	if (s->tampered && n == 0)
		n = 1;
	return n > UINT32_MAX ? UINT32_MAX : (unsigned)n;
}

/* The executable a pid had at event i: the latest attach before it. */
const char *rp_exe_of(const struct ms_report_in *s, int32_t pid, uint32_t upto)
{
	const char *name = "?";

	for (uint32_t i = 0; i < upto && i < nevents(s); i++) {
		const struct ms_event *e = event_at(s, i);

		if (e->state == 1 && e->type == MS_EV_ATTACH && e->pid == pid)
			name = e->text;
	}
	return rp_safe(name);
}

void rp_count_str(char *buf, size_t n, const struct item *it)
{
	const char *verb = it->table == IT_RULE	    ? "used"
			   : it->table == IT_EXPECT ? "checked"
						    : "called";

	const char *times = it->consumed == 1 ? "time" : "times";

	if (it->table == IT_ORDER && it->kind != MS_ORD_CALL)
		snprintf(buf, n, "called %u %s", it->consumed, times);
	else if (it->table == IT_ORDER && it->stmt.count == MS_COUNT_ALWAYS)
		snprintf(buf, n, "called %u %s (at least once)", it->consumed, times);
	else if (it->stmt.count == MS_COUNT_ALWAYS)
		snprintf(buf, n, "%s %u %s (always)", verb, it->consumed, times);
	else if (it->stmt.count == MS_COUNT_MAYBE)
		snprintf(buf, n, "%s %u %s (maybe)", verb, it->consumed, times);
	else
		snprintf(buf, n, "%u of %d %s", it->consumed, it->stmt.count, verb);
}

/* n with thousands separators: "1,234". */
void rp_grouped(char *buf, size_t cap, uint64_t n)
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

int64_t rp_clock_end(const struct ms_report_in *s, uint32_t i)
{
	static const clockid_t ids[MS_TC_N] = {
		[MS_TC_REALTIME] = CLOCK_REALTIME, [MS_TC_TAI] = CLOCK_TAI,
		[MS_TC_MONOTONIC] = CLOCK_MONOTONIC, [MS_TC_MONO_RAW] = CLOCK_MONOTONIC_RAW,
		[MS_TC_BOOTTIME] = CLOCK_BOOTTIME,
	};
	const struct ms_ftime *t = ftime_at(s, i);
	struct ms_time_now n;

	ms_time_read(time_state_at(s, i), &n);
	for (unsigned k = 0; k < MS_TC_N; k++) {
		struct timespec now = { 0, 0 };
		int64_t f;

		if (!(t->clocks >> k & 1))
			continue;
		/* the system call: the shim's report calls no catalog function
		 * it need not (and every clock here is real to it) */
		syscall(SYS_clock_gettime, (long)ids[k], &now);
		f = ms_time_fake(&n, k, (int64_t)now.tv_sec * 1000000000 + now.tv_nsec);
		if (f == INT64_MAX || f == INT64_MIN)
			return f;
	}
	return 0;
}

/* "cat[12], sh[11]": the distinct processes with an event of type
 * (MS_EV_CONSUME: that consumed rule ri; MS_EV_TIME: that read fake_time
 * ri's clock). */
static const char *site_text(const struct ms_report_in *s, const char *object, uint64_t off,
			     const char *sym, int raw, int pc, char *buf, size_t cap)
{
	ms_report_symbolizer fn = pc && s->symbolize_pc ? s->symbolize_pc : s->symbolize;
	char more[256];
	int n;

	n = snprintf(buf, cap, "%s+%#llx", rp_safe(object), (unsigned long long)off);
	if (raw || n < 0 || (size_t)n >= cap)
		return buf;
	more[0] = '\0';
	if (fn && fn(s->symbolize_ctx, object, off, more, sizeof(more)) > 0) {
		more[sizeof(more) - 1] = '\0';
		snprintf(buf + n, cap - (size_t)n, "%s", rp_safe(more));
	} else if (sym && sym[0]) {
		snprintf(buf + n, cap - (size_t)n, " (%s)", rp_safe(sym));
	}
	return buf;
}

const char *rp_site(const struct ms_report_in *s, const char *object, uint64_t off, const char *sym,
		    int raw, char *buf, size_t cap)
{
	return site_text(s, object, off, sym, raw, 0, buf, cap);
}

const char *rp_site_pc(const struct ms_report_in *s, const char *object, uint64_t off, int raw, char *buf,
		       size_t cap)
{
	return site_text(s, object, off, "", raw, 1, buf, cap);
}

int rp_crash_of(const struct ms_report_in *s, int32_t pid, struct rp_crash *c)
{
	memset(c, 0, sizeof(*c));
	for (uint32_t i = 0; i < nevents(s); i++) {
		const struct ms_event *e = event_at(s, i);

		if (e->state != 1 || e->type != MS_EV_CRASH || e->pid != pid)
			continue;
		if (e->kind == MS_CRASH_SITE && !c->site) {
			c->site = e;
			c->sig = (int)e->value;
		} else if (e->kind == MS_CRASH_FRAME && e->param < MS_CRASH_FRAMES &&
			   !c->frame[e->param]) {
			c->frame[e->param] = e;
		}
	}
	while (c->nframes < MS_CRASH_FRAMES && c->frame[c->nframes])
		c->nframes++;
	return c->site ? 0 : -1;
}

unsigned rp_crash_faults(const struct ms_report_in *s, int32_t pid, const struct ms_event **out,
			 unsigned max)
{
	unsigned n = 0;

	for (uint32_t i = nevents(s); i-- > 0 && n < max;) {
		const struct ms_event *e = event_at(s, i);

		if (e->state != 1 || e->type != MS_EV_CONSUME || e->pid != pid ||
		    e->rule >= hdr(s)->nrules || rule_at(s, e->rule)->kind == MS_R_REAL)
			continue;
		out[n++] = e;
	}
	return n;
}

int rp_crash_is_pc(const struct rp_crash *c, const struct ms_event *e)
{
	return c->nframes && c->frame[0]->caller_off == e->caller_off &&
	       strcmp(c->frame[0]->caller, e->caller) == 0;
}

unsigned rp_crashes(const struct ms_report_in *s, FILE *out, const char *prefix)
{
	unsigned n = 0;

	for (uint32_t i = 0; i < nevents(s); i++) {
		const struct ms_event *e = event_at(s, i);
		const char *sig;
		struct rp_crash c;
		char site[320];

		if (e->state != 1 || e->type != MS_EV_CRASH || e->kind != MS_CRASH_SITE ||
		    rp_crash_of(s, e->pid, &c) || c.site != e)
			continue;
		n++;
		sig = ms_signal_abbrev(c.sig);
		/* frame 0 is the faulting instruction, the others return addresses */
		fprintf(out, "%s%s[%d] killed by SIG%s at %s\n", prefix, rp_exe_of(s, e->pid, i), e->pid,
			sig ? sig : "?",
			rp_crash_is_pc(&c, e) ? rp_site_pc(s, e->caller, e->caller_off, 0, site, sizeof(site))
					      : rp_site(s, e->caller, e->caller_off, "", 0, site, sizeof(site)));
		if (!c.nframes)
			continue;
		fprintf(out, "%s  stack:", prefix);
		for (unsigned k = 0; k < c.nframes; k++)
			fprintf(out, "%s %s", k ? "," : "",
				k == 0 ? rp_site_pc(s, c.frame[k]->caller, c.frame[k]->caller_off, 0, site,
						    sizeof(site))
				       : rp_site(s, c.frame[k]->caller, c.frame[k]->caller_off, "", 0, site,
						 sizeof(site)));
		fputc('\n', out);
		{
			const struct ms_event *f[RP_CRASH_FAULTS];
			unsigned nf = rp_crash_faults(s, e->pid, f, RP_CRASH_FAULTS);

			for (unsigned k = 0; k < nf; k++) {
				const struct ms_rule *r = rule_at(s, f[k]->rule);

				if (!k)
					fprintf(out, "%s  replies before it, most recent first:", prefix);
				fprintf(out, "%s %s() by %s:%u:%u", k ? ";" : "", rp_fn_name(s, f[k]->fn),
					str(s, r->stmt.src), r->stmt.line, r->stmt.col);
				if (f[k]->call)
					fprintf(out, " (call %u)", f[k]->call);
				if (f[k]->caller[0])
					fprintf(out, " at %s", rp_site(s, f[k]->caller, f[k]->caller_off, "",
								      0, site, sizeof(site)));
			}
			if (nf)
				fputc('\n', out);
		}
	}
	return n;
}

void rp_consumers(const struct ms_report_in *s, uint16_t type, uint32_t ri, char *buf,
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
					nseen > 1 ? ", " : "", rp_exe_of(s, e->pid, i), e->pid);
		/* a reply's first turn in the process: where it was taken */
		if (type == MS_EV_CONSUME && e->caller[0]) {
			char site[320];

			off += (size_t)snprintf(buf + off, off < cap ? cap - off : 0, " at %s",
						rp_site(s, e->caller, e->caller_off, e->sym, 0, site,
							sizeof(site)));
		}
	}
	if (more && off < cap)
		snprintf(buf + off, cap - off, " and more");
}

void rp_describe_status(const struct ms_report_in *s, char *buf, size_t n)
{
	const struct mockshim_result *r = &s->result;
	const char *sig = r->signal ? ms_signal_abbrev(r->signal) : NULL;

	if (s->running)
		snprintf(buf, n, "is still running (the report so far)");
	else if (r->exec_errno)
		snprintf(buf, n, "could not be started: %s", strerror(r->exec_errno));
	else if (r->timed_out && s->done_before_timeout && r->exited)
		snprintf(buf, n, "exited with status %d (its descendants did not, by the timeout)",
			 r->exit_status);
	else if (r->timed_out)
		snprintf(buf, n, "timed out and was killed%s%s", sig ? " by SIG" : "", sig ? sig : "");
	else if (s->power && !strncmp(s->power, "the power went out", 18))
		snprintf(buf, n, "lost its power (power_loss)");
	else if (r->signal)
		snprintf(buf, n, "was killed by SIG%s", sig ? sig : "?");
	else
		snprintf(buf, n, "exited with status %d", r->exit_status);
}

void rp_processes(const struct ms_report_in *s, char *buf, size_t cap)
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
					shown > 1 ? ", " : "", rp_safe(e->text), e->pid,
					e->value == 2 ? " (syscall tier)" : "");
	}
}

void rp_tamper_line(FILE *out, const struct ms_report_in *s, const char *prefix)
{
	if (s->tamper_pid)
		fprintf(out, "%smockshim: the channel was tampered with by %s[%d]: %s\n", prefix,
			rp_exe_of(s, s->tamper_pid, nevents(s)), s->tamper_pid, s->tampered);
	else
		fprintf(out, "%smockshim: the channel was tampered with by an unknown process: %s\n",
			prefix, s->tampered);
}

/*
 * XML 1.0 text and attribute values, well-formed whatever the program
 * wrote: an invalid UTF-8 sequence and a character XML 1.0 forbids (C0
 * controls but tab, newline and CR; U+FFFE, U+FFFF) become U+FFFD.
 */
int ms_report_write(struct ms_report_in *s, FILE *out, int format)
{
	if (!s->spec || !s->state)
		return -EINVAL;
	switch (format) {
	case MOCKSHIM_REPORT_TEXT:
		rp_report_text(s, out);
		break;
	case MOCKSHIM_REPORT_TAP:
	case MOCKSHIM_REPORT_TAP14:
		rp_report_tap(s, out, format == MOCKSHIM_REPORT_TAP14 ? 14 : 13);
		break;
	case MOCKSHIM_REPORT_JSON:
		rp_report_json(s, out);
		break;
	case MOCKSHIM_REPORT_JUNIT:
		rp_report_junit(s, out);
		break;
	case MOCKSHIM_REPORT_HTML: /* report_html.c, over the text report */
		return ms_report_html(s, out);
	default:
		return -EINVAL;
	}
	return fflush(out) == 0 ? 0 : -EIO;
}
