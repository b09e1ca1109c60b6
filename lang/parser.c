/* SPDX-License-Identifier: MIT */
/*
 * The statement language (parser.h): a spec text, statement by
 * statement, into the store; nothing of it when it fails.  Allocates
 * only through the spec's callbacks; never touches stdio or the
 * environment.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile.h"
#include "declare.h"
#include "parser.h"

/*
 * `mock RET NAME(PARAMS)` and `struct NAME { ... }`: C declarations, read
 * as text up to the end of the statement (a new line or ';' outside the
 * parentheses, the closing brace of a struct) by declare.c.
 */
static int parse_decl(struct ms_parser *ps, int is_struct)
{
	const char *s = ps->lx.p, *q = s, *at, *open = NULL;
	char msg[320] = "", *text;
	size_t off = 0, n;
	int depth = 0, r;

	for (; q < ps->lx.end; q++) {
		if (*q == '#') {
			/* a comment, to the end of its line */
			if (depth <= 0)
				break;
			while (q + 1 < ps->lx.end && q[1] != '\n')
				q++;
		} else if (*q == '(' || *q == '{') {
			if (!depth++)
				open = q;
		} else if (*q == ')' || *q == '}') {
			if (--depth == 0 && is_struct && *q == '}') {
				q++;
				break;
			}
		} else if (depth <= 0 && (*q == '\n' || *q == ';')) {
			break;
		}
	}
	if (depth > 0 && open) {
		/* never closed: the bracket that was opened is the error */
		off = (size_t)(open - s);
		snprintf(msg, sizeof(msg), "'%c' without its '%c'", *open, *open == '(' ? ')' : '}');
		r = -EINVAL;
		goto fail;
	}
	/* declare.c reads C, not comments: blanks where they were */
	n = (size_t)(q - s);
	text = ps->spec->realloc_fn(NULL, n + 1);
	if (!text) {
		ps->lx.err = -ENOMEM;
		return -1;
	}
	for (size_t k = 0; k < n; k++) {
		if (s[k] == '#')
			while (k < n && s[k] != '\n')
				text[k++] = ' ';
		if (k < n)
			text[k] = s[k];
	}
	text[n] = '\0';
	r = is_struct ? ms_spec_struct(ps->spec, text, n, msg, sizeof(msg), &off)
		      : ms_spec_mock(ps->spec, text, n, msg, sizeof(msg), &off);
	ps->spec->free_fn(text);
	if (r == -ENOMEM) {
		ps->lx.err = -ENOMEM;
		return -1;
	}
fail:
	if (r == MS_DECL_CATALOG) {
		/* a warning at its place, then on to the end */
		uint32_t line = ps->lx.line;
		const char *ls = ps->lx.line_start;

		for (const char *c = s; c < s + off; c++)
			if (*c == '\n') {
				line++;
				ls = c + 1;
			}
		if (ps->spec->warn_fn)
			ps->spec->warn_fn(ps->spec->warn_ctx, ps->src, line, (uint32_t)(s + off - ls) + 1,
					  msg);
		r = 0;
	}
	/* lines and columns: of the error, then of the end */
	at = r ? s + off : q;
	for (const char *c = s; c < at; c++)
		if (*c == '\n') {
			ps->lx.line++;
			ps->lx.line_start = c + 1;
		}
	if (r)
		return ms_fail_at(&ps->lx, ps->lx.line, (uint32_t)(at - ps->lx.line_start) + 1, "%s", msg);
	ps->lx.p = q;
	return ms_lex_next(&ps->lx);
}

/* module "path.so": the driver loads it and declares its functions. */
static int parse_module(struct ms_parser *ps, char *scratch)
{
	struct ms_tok *t = &ps->lx.tok;
	struct ms_tok kw = *t;
	char msg[256] = "";
	size_t len = 0;

	if (ms_lex_next(&ps->lx))
		return -1;
	if (t->type != T_STR)
		return ms_fail_tok(&ps->lx, t, "expected the module's path in double quotes: module \"x.so\"");
	if (ms_lex_str(&ps->lx, t, scratch, &len, ps->scratch_cap - 1))
		return -1;
	scratch[len] = '\0';
	if (!ps->spec->module_fn)
		return ms_fail_tok(&ps->lx, &kw, "handler modules cannot be loaded here (use mockrun -m)");
	if (ps->spec->module_fn(ps->spec->module_ctx, ps->src, scratch, msg, sizeof(msg)) != 0)
		return ms_fail_tok(&ps->lx, t, "module \"%s\": %s", scratch, msg);
	return ms_lex_next(&ps->lx);
}

/* The statements of the text, up to its end. */
static int parse_all(struct ms_parser *ps, struct ms_src_stmt *st, char *scratch)
{
	struct ms_tok *t = &ps->lx.tok;

	if (ms_lex_next(&ps->lx))
		return -1;
	while (t->type != T_EOF) {
		if (t->type == T_SEP) {
			if (ms_lex_next(&ps->lx))
				return -1;
			continue;
		}
		if (t->type != T_IDENT)
			return ms_fail_tok(&ps->lx, t, "expected a statement");
		if (ps->spec->live && (ms_tok_is(t, "module") || ms_tok_is(t, "mock") ||
				       ms_tok_is(t, "struct") || ms_tok_is(t, "fake_time")))
			return ms_fail_tok(&ps->lx, t,
					   "%.*s cannot be added to a running program: only replies "
					   "(will_return*, will_fail*, will_call_real) can",
					   (int)t->n, t->s);
		if (ms_tok_is(t, "module")) {
			if (parse_module(ps, scratch))
				return -1;
		} else if (ms_tok_is(t, "mock") || ms_tok_is(t, "struct")) {
			if (parse_decl(ps, t->s[0] == 's'))
				return -1;
		} else if (ms_tok_is(t, "fake_time")) {
			if (ms_compile_fake_time(ps, st, scratch))
				return -1;
		} else if (!ms_find_stmt_kind(ps, t) || ms_read_stmt(ps, st, scratch) ||
			   ms_compile(ps, st)) {
			return -1;
		}
		if (t->type != T_SEP && t->type != T_EOF)
			return ms_fail_tok(&ps->lx, t, "expected ';' or a new line after the statement");
	}
	return 0;
}

int ms_parse(struct ms_spec *spec, const char *src, const char *text, size_t len,
	     struct ms_diag *diag)
{
	struct ms_parser ps;
	struct ms_spec_mark mark;
	struct ms_src_stmt *st = NULL;
	char *scratch = NULL;
	const char *z;

	ms_spec_mark(spec, &mark);
	memset(&ps, 0, sizeof(ps));
	ms_lex_init(&ps.lx, text, len, diag);
	ps.spec = spec;
	ps.src = src;
	/* The statement and the scratch for its strings in one block: a
	 * literal spells at most as many bytes as the text has (each
	 * escape is longer than its byte), so the scratch is no longer
	 * than the text, and a short statement costs no MAX_STR mapping. */
	ps.scratch_cap = len < MAX_STR ? len + 1 : MAX_STR;
	st = spec->realloc_fn(NULL, sizeof(*st) + ps.scratch_cap);
	if (!st) {
		ps.lx.err = -ENOMEM;
		goto out;
	}
	scratch = (char *)(st + 1);
	ps.src_off = ms_spec_str(spec, src, strlen(src));
	if (!ps.src_off) {
		ps.lx.err = -ENOMEM;
		goto out;
	}
	z = memchr(text, '\0', len);
	if (z) {
		uint32_t line = 1;
		const char *ls = text;

		for (const char *q = text; q < z; q++)
			if (*q == '\n')
				line++, ls = q + 1;
		ms_fail_at(&ps.lx, line, (uint32_t)(z - ls) + 1, "NUL byte in statement text");
		goto out;
	}
	if (parse_all(&ps, st, scratch) == 0)
		spec->nsources++;
out:
	spec->free_fn(st);
	if (ps.lx.err) {
		ms_spec_rollback(spec, &mark);
		if (ps.lx.err == -ENOMEM && !diag->msg[0]) {
			snprintf(diag->msg, sizeof(diag->msg), "out of memory");
			diag->line = ps.lx.tok.line;
			diag->col = ps.lx.tok.col;
		}
	}
	return ps.lx.err;
}
