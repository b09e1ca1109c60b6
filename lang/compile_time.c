/* SPDX-License-Identifier: MIT */
/*
 * fake_time(WHEN [, rate=R] [, clocks=...] [, stat=BOOL] [, in=GLOB]):
 * the one statement for a program's sense of time (DESIGN.md section 3),
 * compiled into a struct ms_ftime.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "compile.h"
#include "compile_base.h"
#include "datetime.h"

static const char *const clock_list =
	"all, or CLOCK_REALTIME, CLOCK_REALTIME_COARSE, CLOCK_TAI, CLOCK_MONOTONIC, "
	"CLOCK_MONOTONIC_COARSE, CLOCK_MONOTONIC_RAW, CLOCK_BOOTTIME, or a list of them in {...}";

static int clock_bit(struct ms_parser *ps, const struct ms_val *v, uint32_t *mask)
{
	int k;

	if (v->kind == V_IDENT)
		return ms_fail_at(&ps->lx, v->line, v->col, "unknown clock '%.*s': clocks= takes %s",
				  (int)v->name_n, v->name, clock_list);
	if (v->kind != V_INT || (k = ms_tclock_of((long)v->i)) < 0 || v->i < 0)
		return ms_fail_at(&ps->lx, v->line, v->col, "clocks= takes %s", clock_list);
	*mask |= 1u << k;
	return 0;
}

/* KEY=VALUE after WHEN: rate=, clocks=, stat= or in=. */
static int ftime_option(struct ms_parser *ps, const struct ms_tok *key, const struct ms_val *v,
			struct ms_ftime *ft)
{
	if (ms_tok_is(key, "rate")) {
		double r = v->kind == V_DBL ? v->d : v->kind == V_INT ? (double)v->i : -1;

		if (v->kind != V_DBL && v->kind != V_INT)
			return ms_fail_at(&ps->lx, v->line, v->col, "rate= takes a number, not %s",
					  ms_val_kind_name(v->kind));
		if (!(r >= 0 && r <= 1e6))
			return ms_fail_at(&ps->lx, v->line, v->col,
					  "rate= takes a number from 0 (a frozen clock) to 1000000, "
					  "not %g", r);
		ft->rate = r;
	} else if (ms_tok_is(key, "clocks")) {
		ft->clocks = 0;
		if (v->kind == V_IDENT && v->name_n == 3 && memcmp(v->name, "all", 3) == 0) {
			ft->clocks = MS_TC_ALL;
		} else if (v->kind == V_STRUCT) {
			if (v->nfields == 0)
				return ms_fail_at(&ps->lx, v->line, v->col, "clocks= takes %s", clock_list);
			for (unsigned k = 0; k < v->nfields; k++)
				if (v->fields[k].name ? ms_fail_at(&ps->lx, v->fields[k].line,
								   v->fields[k].col, "clocks= takes %s",
								   clock_list)
						      : clock_bit(ps, v->fields[k].v, &ft->clocks))
					return -1;
		} else if (clock_bit(ps, v, &ft->clocks)) {
			return -1;
		}
	} else if (ms_tok_is(key, "stat")) {
		if (v->kind != V_BOOL)
			return ms_fail_at(&ps->lx, v->line, v->col, "stat= takes true or false");
		ft->flags = v->i ? ft->flags | MS_FT_STAT : ft->flags & ~(uint32_t)MS_FT_STAT;
	} else if (ms_tok_is(key, "in")) {
		if (v->kind != V_STR || v->len == 0)
			return ms_fail_at(&ps->lx, v->line, v->col,
					  "in= needs a non-empty glob string, not %s",
					  ms_val_kind_name(v->kind));
		ft->in_glob = v->str;
	} else {
		return ms_fail_tok(&ps->lx, key,
				   "fake_time takes no '%.*s=' (only rate=, clocks=, stat= and in=)",
				   (int)key->n, key->s);
	}
	return 0;
}

/* WHEN read, then the fake_time added: one per process. */
static int ftime_add(struct ms_parser *ps, const struct ms_src_stmt *st, struct ms_ftime *ft,
		     const struct ms_val *when)
{
	const char *w = ps->spec->pool + when->str, *why, *at;
	int offset;
	int64_t ns;

	why = ms_parse_when(w, w + when->len, &ns, &offset, &at);
	if (why) {
		/* the column of the byte, when the string has no escapes */
		uint32_t col = when->col + 1 + (uint32_t)(at - w);

		return ms_fail_at(&ps->lx, when->line, col,
				  why == ms_when_out_of_range ? "time \"%.*s\" is %s"
							      : "malformed time \"%.*s\": %s",
				  (int)(when->len > 60 ? 60 : when->len), w, why);
	}
	if (offset) {
		/* from the real clock now: the run starts within seconds, and
		 * a clock that then runs past an end stops there */
		struct timespec now = { 0, 0 };
		int64_t start;
		char shows[32];

		syscall(SYS_clock_gettime, (long)CLOCK_REALTIME, &now);
		if (ms_when_from((int64_t)now.tv_sec * 1000000000 + now.tv_nsec, ns, &start) < 0) {
			/* the date it would be: past the range, in seconds */
			ms_when_text_s(now.tv_sec + ns / 1000000000, shows, sizeof(shows));
			return ms_fail_at(&ps->lx, when->line, when->col + 1,
					  "time \"%.*s\" is out of range: from now it is %s UTC; a fake "
					  "clock shows " MS_TIME_RANGE_TEXT,
					  (int)(when->len > 60 ? 60 : when->len), w, shows);
		}
	}
	for (uint32_t i = 0; i < ps->spec->nftimes; i++) {
		const struct ms_ftime *o = &ps->spec->ftimes[i];

		if ((!o->in_glob && !ft->in_glob) ||
		    (o->in_glob && ft->in_glob &&
		     strcmp(ps->spec->pool + o->in_glob, ps->spec->pool + ft->in_glob) == 0))
			return ms_fail_at(&ps->lx, ft->line, ft->col,
					  "a second fake_time for the same processes (the first is at "
					  "%s:%u:%u): one clock per process",
					  ps->spec->pool + o->src, o->line, o->col);
	}
	ft->when_ns = ns;
	ft->flags |= offset ? MS_FT_OFFSET : 0;
	ft->when = when->str;
	ft->text = ms_stmt_text(ps, st);
	if (!ft->text)
		return -1;
	return ms_append(ps, (void **)&ps->spec->ftimes, &ps->spec->nftimes, &ps->spec->cap_ftimes,
			 ft, sizeof(*ft));
}

int ms_compile_fake_time(struct ms_parser *ps, struct ms_src_stmt *st, char *scratch)
{
	struct ms_tok *t = &ps->lx.tok;
	struct ms_ftime ft;
	struct ms_val when;
	int has_when = 0;

	memset(&ft, 0, sizeof(ft));
	memset(&when, 0, sizeof(when));
	ft.clocks = MS_TC_WALL;
	ft.rate = 1;
	ft.src = ps->src_off;
	ft.line = t->line;
	ft.col = t->col;
	st->start = t->s;
	st->nnested = 0;
	ps->st = st;
	if (ms_lex_next(&ps->lx))
		return -1;
	if (!ms_tok_punct(t, '('))
		return ms_fail_tok(&ps->lx, t, "expected '(' after 'fake_time'");
	if (ms_lex_next(&ps->lx))
		return -1;
	while (!ms_tok_punct(t, ')')) {
		struct ms_tok key = *t;
		struct ms_val v;
		int keyed = 0;

		if (t->type == T_EOF)
			return ms_fail_tok(&ps->lx, t, "missing ')'");
		if (t->type == T_IDENT && ms_read_key(&ps->lx, &keyed))
			return -1;
		if (ms_read_value(ps, &v, st->fieldvals[0], scratch))
			return -1;
		if (!keyed) {
			if (has_when)
				return ms_fail_at(&ps->lx, v.line, v.col,
						  "fake_time takes one time, then options (rate=, "
						  "clocks=, stat=, in=)");
			if (v.kind != V_STR)
				return ms_fail_at(&ps->lx, v.line, v.col,
						  "fake_time needs a time string first: \"2030-01-01 "
						  "00:00:00\", \"@1700000000\" or \"+1d\"");
			when = v;
			has_when = 1;
		} else if (!has_when) {
			return ms_fail_tok(&ps->lx, &key,
					   "fake_time needs the time first: fake_time(\"2030-01-01\", "
					   "%.*s=...)",
					   (int)key.n, key.s);
		} else if (ftime_option(ps, &key, &v, &ft)) {
			return -1;
		}
		if (ms_lex_list_next(&ps->lx, ')', "expected ',' or ')'"))
			return -1;
	}
	if (!has_when)
		return ms_fail_tok(&ps->lx, t, "fake_time needs a time: fake_time(\"2030-01-01 00:00:00\")");
	st->stop = t->s + 1;
	if (ms_lex_next(&ps->lx))
		return -1;
	return ftime_add(ps, st, &ft, &when);
}
