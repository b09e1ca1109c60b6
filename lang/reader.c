/* SPDX-License-Identifier: MIT */
/*
 * The statement reader (reader.h): values and statements as written.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "catalog/catalog.h"
#include "reader.h"

const char *ms_val_kind_name(enum val_kind k)
{
	switch (k) {
	case V_INT: return "an integer";
	case V_DBL: return "a double";
	case V_STR: return "a string";
	case V_NULL: return "NULL";
	case V_BOOL: return "a boolean";
	case V_PH: return "'_'";
	case V_STRUCT: return "a struct literal";
	case V_DUR: return "a duration";
	case V_IDENT: return "a name";
	}
	return "?";
}

static int parse_scalar(struct ms_parser *ps, struct ms_val *v, char *scratch);

/* Reads the file at path (relative: to the directory of the spec file the
 * statement is in, or the working directory) into scratch, by raw system
 * calls (this code also runs inside the shim): its length, or -1. */
static long read_into(struct ms_parser *ps, const char *path, char *scratch, size_t cap)
{
	char full[4096];
	const char *slash = strrchr(ps->src, '/');
	long fd, n = 0;

	if (path[0] != '/' && slash && (size_t)(slash - ps->src) + strlen(path) + 2 < sizeof(full)) {
		memcpy(full, ps->src, (size_t)(slash - ps->src) + 1);
		strcpy(full + (slash - ps->src) + 1, path);
		path = full;
	}
	fd = syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	for (;;) {
		long k = syscall(SYS_read, fd, scratch + n, cap - (size_t)n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0 || (size_t)(n += k) == cap) {
			if (k < 0)
				n = -1;
			break;
		}
	}
	if (n >= 0 && (size_t)n == cap) {
		char c;

		if (syscall(SYS_read, fd, &c, 1L) == 1)
			n = -2; /* larger than cap */
	}
	syscall(SYS_close, fd);
	return n;
}

/* Memory for the parse is gone: -1, the lexer's error -ENOMEM. */
static int fail_nomem(struct ms_parser *ps)
{
	ps->lx.err = -ENOMEM;
	return -1;
}

/* size bytes at data into the pool: *off (0 and ENOMEM when it cannot grow). */
int ms_pool_store(struct ms_parser *ps, const void *data, size_t size, uint32_t *off)
{
	*off = ms_spec_str(ps->spec, data, size);
	return *off ? 0 : fail_nomem(ps);
}

/* repeat("ab", N): N copies; file("path"): the file's bytes.  At the '('. */
static int parse_bytes_call(struct ms_parser *ps, const struct ms_tok *fn, struct ms_val *v, char *scratch)
{
	struct ms_tok *t = &ps->lx.tok;
	int repeat = fn->n == 6;
	struct ms_val s, n;
	uint64_t total = 0;
	char *buf;
	long got;
	int r;

	memset(&s, 0, sizeof(s));
	memset(&n, 0, sizeof(n));
	v->line = fn->line;
	v->col = fn->col;
	if (ms_lex_next(&ps->lx) || parse_scalar(ps, &s, scratch))
		return -1;
	if (s.kind != V_STR)
		return ms_fail_at(&ps->lx, s.line, s.col, "%s needs a string, not %s",
				  repeat ? "repeat(STRING, COUNT)" : "file(PATH)", ms_val_kind_name(s.kind));
	if (repeat) {
		if (!ms_tok_punct(t, ','))
			return ms_fail_tok(&ps->lx, t, "expected ', COUNT' in repeat(STRING, COUNT)");
		if (ms_lex_next(&ps->lx) || parse_scalar(ps, &n, scratch))
			return -1;
		if (n.kind != V_INT || n.i < 0)
			return ms_fail_at(&ps->lx, n.line, n.col, "repeat's COUNT must be a number, 0 or more");
		if (s.len && (uint64_t)n.i > MAX_STR / s.len)
			return ms_fail_at(&ps->lx, v->line, v->col,
					  "repeat() makes more than %u bytes (%u x %lld)", MAX_STR, s.len,
					  (long long)n.i);
		total = (uint64_t)s.len * (uint64_t)n.i;
		/* scratch holds what the text spells, no more: the copies
		 * are made in a buffer of their own */
		buf = ps->spec->realloc_fn(NULL, total ? total : 1);
		if (!buf)
			return fail_nomem(ps);
		for (uint64_t k = 0; k < total; k += s.len)
			memcpy(buf + k, ps->spec->pool + s.str, s.len);
	} else {
		char path[4096];

		if (s.len == 0 || s.len >= sizeof(path) || memchr(ps->spec->pool + s.str, 0, s.len))
			return ms_fail_at(&ps->lx, s.line, s.col, "file() needs a path");
		memcpy(path, ps->spec->pool + s.str, s.len);
		path[s.len] = '\0';
		buf = ps->spec->realloc_fn(NULL, MAX_STR);
		if (!buf)
			return fail_nomem(ps);
		got = read_into(ps, path, buf, MAX_STR);
		if (got < 0) {
			int e = errno;

			ps->spec->free_fn(buf);
			if (got == -2)
				return ms_fail_at(&ps->lx, s.line, s.col,
						  "file(\"%s\"): larger than %u bytes", path, MAX_STR);
			return ms_fail_at(&ps->lx, s.line, s.col, "file(\"%s\"): cannot read: %s", path,
					  strerror(e));
		}
		total = (uint64_t)got;
	}
	if (!ms_tok_punct(t, ')')) {
		ps->spec->free_fn(buf);
		return ms_fail_tok(&ps->lx, t, "expected ')' after %s", repeat ? "repeat's COUNT" : "file's PATH");
	}
	v->kind = V_STR;
	v->len = (uint32_t)total;
	r = ms_pool_store(ps, buf, total, &v->str);
	ps->spec->free_fn(buf);
	return r ? -1 : ms_lex_next(&ps->lx);
}

static int parse_scalar(struct ms_parser *ps, struct ms_val *v, char *scratch)
{
	struct ms_tok *t = &ps->lx.tok;
	int neg = 0;

	v->line = t->line;
	v->col = t->col;
	if (ms_tok_punct(t, '-')) {
		neg = 1;
		if (ms_lex_next(&ps->lx))
			return -1;
		if (t->type == T_IDENT && ms_name_value(t->s, t->n, &v->i)) {
			/* -ENOENT: a negated name, the kernel's way of returning errors */
			v->kind = V_INT;
			v->i = (int64_t)(0 - (uint64_t)v->i);
			return ms_lex_next(&ps->lx);
		}
		if (t->type != T_INT && t->type != T_DBL)
			return ms_fail_tok(&ps->lx, t, "expected a number or a named constant after '-'");
	}
	switch (t->type) {
	case T_INT:
	case T_DBL:
		if (t->suffix_n == 1 && t->suffix[0] == '%') {
			v->kind = V_DBL;
			v->d = (t->type == T_INT ? (double)t->ival : t->dval) / 100;
			if (neg)
				v->d = -v->d;
			break;
		}
		if (t->type == T_DBL) {
			v->kind = V_DBL;
			v->d = neg ? -t->dval : t->dval;
			break;
		}
		if (t->suffix_n) {
			static const struct { const char *u; uint64_t ns; } units[] = {
				{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 },
				{ "s", 1000000000ull }, { "m", 60000000000ull },
			};
			size_t k;

			for (k = 0; k < sizeof(units) / sizeof(units[0]); k++)
				if (strlen(units[k].u) == t->suffix_n &&
				    memcmp(units[k].u, t->suffix, t->suffix_n) == 0)
					break;
			if (k == sizeof(units) / sizeof(units[0]))
				return ms_fail_tok(&ps->lx, t, "invalid number '%.*s' (durations take ns, us, ms, s, m)",
						   (int)t->n, t->s);
			if (neg)
				return ms_fail_tok(&ps->lx, t, "a duration cannot be negative: -%.*s", (int)t->n,
						   t->s);
			if ((uint64_t)t->ival > UINT64_MAX / units[k].ns)
				return ms_fail_tok(&ps->lx, t, "duration too long");
			v->kind = V_DUR;
			v->i = (int64_t)((uint64_t)t->ival * units[k].ns);
			break;
		}
		v->kind = V_INT;
		if (!neg && (uint64_t)t->ival > INT64_MAX)
			return ms_fail_tok(&ps->lx, t, "integer out of range");
		v->i = neg ? (int64_t)(0 - (uint64_t)t->ival) : t->ival;
		break;
	case T_STR: {
		size_t len = 0;

		while (t->type == T_STR) {
			if (ms_lex_str(&ps->lx, t, scratch, &len, ps->scratch_cap))
				return -1;
			if (ms_lex_next(&ps->lx))
				return -1;
		}
		v->kind = V_STR;
		v->len = (uint32_t)len;
		v->str = ms_spec_str(ps->spec, scratch, len);
		if (!v->str) {
			ps->lx.err = -ENOMEM;
			return -1;
		}
		return 0; /* already advanced */
	}
	case T_IDENT:
		if (ms_tok_is(t, "repeat") || ms_tok_is(t, "file")) {
			struct ms_tok fn = *t;

			if (ms_lex_next(&ps->lx))
				return -1;
			if (ms_tok_punct(t, '('))
				return parse_bytes_call(ps, &fn, v, scratch);
			v->kind = V_IDENT; /* a parameter named so (execvp's file) */
			v->name = fn.s;
			v->name_n = fn.n;
			return 0;
		}
		if (ms_tok_is(t, "true") || ms_tok_is(t, "false")) {
			v->kind = V_BOOL;
			v->i = ms_tok_is(t, "true");
		} else if (ms_tok_is(t, "NULL")) {
			v->kind = V_NULL;
		} else if (ms_tok_is(t, "_")) {
			v->kind = V_PH;
		} else if (ms_name_value(t->s, t->n, &v->i)) {
			v->kind = V_INT;
		} else {
			/* resolved by the statement: a parameter name, or an error */
			v->kind = V_IDENT;
			v->name = t->s;
			v->name_n = t->n;
		}
		break;
	default:
		return ms_fail_tok(&ps->lx, t, "expected a value");
	}
	return ms_lex_next(&ps->lx);
}

/* value := scalar { '|' scalar } | '{' fields '}' */
int ms_read_value(struct ms_parser *ps, struct ms_val *v, struct ms_val *fieldvals, char *scratch)
{
	struct ms_tok *t = &ps->lx.tok;

	/* the fields up to nfields are set as they are read: a value is
	 * cleared without its 16 fields (most are scalars) */
	memset(v, 0, offsetof(struct ms_val, fields));
	if (ms_tok_punct(t, '{')) {
		v->kind = V_STRUCT;
		v->line = t->line;
		v->col = t->col;
		if (ms_lex_next(&ps->lx))
			return -1;
		while (!ms_tok_punct(t, '}')) {
			struct ms_field *f;

			if (v->nfields == MAX_FIELDS)
				return ms_fail_tok(&ps->lx, t, "too many fields (at most %d)", MAX_FIELDS);
			f = &v->fields[v->nfields];
			memset(f, 0, sizeof(*f));
			f->v = &fieldvals[v->nfields];
			v->nfields++;
			f->name = NULL;
			if (ms_tok_punct(t, '.')) {
				if (ms_lex_next(&ps->lx))
					return -1;
				if (t->type != T_IDENT)
					return ms_fail_tok(&ps->lx, t, "expected a field name after '.'");
				f->name = t->s;
				f->name_n = t->n;
				f->line = t->line;
				f->col = t->col;
				if (ms_lex_next(&ps->lx))
					return -1;
				if (!ms_tok_punct(t, '='))
					return ms_fail_tok(&ps->lx, t, "expected '=' after the field name");
				if (ms_lex_next(&ps->lx))
					return -1;
			}
			if (ms_tok_punct(t, '{')) {
				int r;

				if (ps->in_literal || !ps->st)
					return ms_fail_tok(&ps->lx, t, "struct literals nest one level deep");
				if (ps->st->nnested == MAX_NESTED)
					return ms_fail_tok(&ps->lx, t,
							   "too many struct literals inside others (at most %d)",
							   MAX_NESTED);
				ps->in_literal = 1;
				r = ms_read_value(ps, f->v, ps->st->nested[ps->st->nnested++], scratch);
				ps->in_literal = 0;
				if (r)
					return -1;
			} else if (ms_read_value(ps, f->v, NULL, scratch)) {
				return -1;
			}
			if (ms_lex_list_next(&ps->lx, '}', "expected ',' or '}' in struct literal"))
				return -1;
		}
		return ms_lex_next(&ps->lx);
	}
	if (parse_scalar(ps, v, scratch))
		return -1;
	while (ms_tok_punct(t, '|')) {
		struct ms_val rhs;

		if (v->kind == V_IDENT)
			return ms_fail_at(&ps->lx, v->line, v->col, "unknown name '%.*s'", (int)v->name_n,
					  v->name);
		if (v->kind != V_INT)
			return ms_fail_at(&ps->lx, v->line, v->col, "'|' joins integers, not %s",
					  ms_val_kind_name(v->kind));
		if (ms_lex_next(&ps->lx))
			return -1;
		memset(&rhs, 0, sizeof(rhs));
		if (parse_scalar(ps, &rhs, scratch))
			return -1;
		if (rhs.kind == V_IDENT)
			return ms_fail_at(&ps->lx, rhs.line, rhs.col, "unknown name '%.*s'", (int)rhs.name_n,
					  rhs.name);
		if (rhs.kind != V_INT)
			return ms_fail_at(&ps->lx, rhs.line, rhs.col, "'|' joins integers, not %s",
					  ms_val_kind_name(rhs.kind));
		v->i |= rhs.i;
	}
	return 0;
}

/* when(COND, ...) after the statement's other arguments: the current
 * token is `when`. */
static int read_when(struct ms_parser *ps, struct ms_src_stmt *st, char *scratch)
{
	struct ms_tok *t = &ps->lx.tok;

	if (st->has_when)
		return ms_fail_tok(&ps->lx, t, "a statement takes one when(...); join its conditions with ','");
	st->has_when = 1;
	st->when_line = t->line;
	st->when_col = t->col;
	if (ms_lex_next(&ps->lx))
		return -1;
	if (!ms_tok_punct(t, '('))
		return ms_fail_tok(&ps->lx, t, "expected '(' after 'when'");
	if (ms_lex_next(&ps->lx))
		return -1;
	if (ms_tok_punct(t, ')'))
		return ms_fail_tok(&ps->lx, t, "when() needs a condition: PARAM == VALUE, PARAM ~ \"GLOB\", ...");
	for (;;) {
		struct ms_cond_src *c;
		int negbits = 0;

		if (st->nconds == MAX_CONDS)
			return ms_fail_tok(&ps->lx, t, "too many conditions (at most %d)", MAX_CONDS);
		c = &st->conds[st->nconds];
		memset(c, 0, sizeof(*c));
		if (ms_tok_op(t, "!")) {
			/* !(PARAM & FLAGS) */
			negbits = 1;
			if (ms_lex_next(&ps->lx))
				return -1;
			if (!ms_tok_punct(t, '('))
				return ms_fail_tok(&ps->lx, t, "expected '(' after '!': !(PARAM & FLAGS)");
			if (ms_lex_next(&ps->lx))
				return -1;
		}
		if (t->type != T_IDENT)
			return ms_fail_tok(&ps->lx, t, "expected a parameter name in when()");
		c->param = *t;
		if (ms_lex_next(&ps->lx))
			return -1;
		c->op_line = t->line;
		c->op_col = t->col;
		if (ms_tok_is(t, "in") && !negbits) {
			memcpy(c->op, "in", 3);
		} else if (t->type == T_OP && !negbits &&
			   (ms_tok_op(t, "==") || ms_tok_op(t, "!=") || ms_tok_op(t, "<") || ms_tok_op(t, "<=") ||
			    ms_tok_op(t, ">") || ms_tok_op(t, ">=") || ms_tok_op(t, "~") || ms_tok_op(t, "!~") ||
			    ms_tok_op(t, "&"))) {
			memcpy(c->op, t->s, t->n);
		} else if (negbits && ms_tok_op(t, "&")) {
			memcpy(c->op, "!&", 3);
		} else {
			return ms_fail_tok(&ps->lx, t, negbits ? "expected '&': !(PARAM & FLAGS)"
						       : "expected an operator (== != < <= > >= ~ !~ & in) "
							 "after '%.*s'",
					(int)c->param.n, c->param.s);
		}
		if (ms_lex_next(&ps->lx))
			return -1;
		if (ms_read_value(ps, &c->v, st->condfields[st->nconds], scratch))
			return -1;
		st->nconds++;
		if (negbits) {
			if (!ms_tok_punct(t, ')'))
				return ms_fail_tok(&ps->lx, t, "expected ')' to close !(PARAM & FLAGS)");
			if (ms_lex_next(&ps->lx))
				return -1;
		}
		if (ms_tok_punct(t, ',')) {
			if (ms_lex_next(&ps->lx))
				return -1;
			continue;
		}
		if (!ms_tok_punct(t, ')'))
			return ms_fail_tok(&ps->lx, t, "expected ',' or ')' in when()");
		return ms_lex_next(&ps->lx);
	}
}

/* Whether the token after the current one is the punctuation c: *yes;
 * the current token stays current.  0, or -1 (lx->err). */
static int followed_by(struct ms_lexer *lx, char c, int *yes)
{
	struct ms_lex_mark m;

	ms_lex_mark(lx, &m);
	if (ms_lex_next(lx))
		return -1;
	*yes = ms_tok_punct(&lx->tok, c);
	ms_lex_back(lx, &m);
	return 0;
}

int ms_read_key(struct ms_lexer *lx, int *keyed)
{
	struct ms_lex_mark m;

	*keyed = 0;
	ms_lex_mark(lx, &m);
	if (ms_lex_next(lx))
		return -1;
	if (!ms_tok_punct(&lx->tok, '=')) {
		ms_lex_back(lx, &m);
		return 0;
	}
	*keyed = 1;
	return ms_lex_next(lx);
}

/* An argument after FN, [*]NAME=VALUE or a value, into
 * st->args[st->nargs]. */
static int read_arg(struct ms_parser *ps, struct ms_src_stmt *st, struct ms_arg *a, char *scratch)
{
	struct ms_tok *t = &ps->lx.tok;

	if (ms_tok_punct(t, '*')) {
		a->deref = 1;
		if (ms_lex_next(&ps->lx))
			return -1;
		if (t->type != T_IDENT)
			return ms_fail_tok(&ps->lx, t, "expected a parameter name after '*'");
	}
	if (t->type == T_IDENT) {
		struct ms_tok ident = *t;
		int keyed;

		if (ms_read_key(&ps->lx, &keyed))
			return -1;
		if (keyed) {
			a->key = ident.s;
			a->key_n = ident.n;
		} else if (a->deref) {
			/* the token after the name is the error */
			if (ms_lex_next(&ps->lx))
				return -1;
			return ms_fail_tok(&ps->lx, t, "expected '=' after '*%.*s'", (int)ident.n,
					   ident.s);
		}
	}
	if (ms_read_value(ps, &a->v, st->fieldvals[st->nargs], scratch))
		return -1;
	st->nargs++;
	return 0;
}

int ms_read_stmt(struct ms_parser *ps, struct ms_src_stmt *st, char *scratch)
{
	struct ms_tok *t = &ps->lx.tok;

	st->name = *t;
	st->start = t->s;
	st->has_when = 0;
	st->nconds = 0;
	if (ms_lex_next(&ps->lx))
		return -1;
	if (!ms_tok_punct(t, '('))
		return ms_fail_tok(&ps->lx, t, "expected '(' after '%.*s'", (int)st->name.n, st->name.s);
	if (ms_lex_next(&ps->lx))
		return -1;
	st->nargs = 0;
	st->nnested = 0;
	ps->st = st;
	while (!ms_tok_punct(t, ')')) {
		struct ms_arg *a;
		int when = 0;

		if (t->type == T_EOF)
			return ms_fail_tok(&ps->lx, t, "missing ')'");
		if (st->nargs == MAX_ARGS)
			return ms_fail_tok(&ps->lx, t, "too many arguments (at most %d)", MAX_ARGS);
		a = &st->args[st->nargs];
		/* ms_read_value clears a->v */
		memset(a, 0, offsetof(struct ms_arg, v) + offsetof(struct ms_val, fields));
		a->line = t->line;
		a->col = t->col;
		if (st->nargs == 0) {
			if (t->type != T_IDENT)
				return ms_fail_tok(&ps->lx, t, "expected a function name");
			st->fn = *t;
			st->nargs++;
			if (ms_lex_next(&ps->lx))
				return -1;
		} else if (ms_tok_is(t, "when") && followed_by(&ps->lx, '(', &when)) {
			return -1;
		} else if (when ? read_when(ps, st, scratch) : read_arg(ps, st, a, scratch)) {
			return -1;
		}
		if (ms_tok_punct(t, ',')) {
			if (ms_lex_next(&ps->lx))
				return -1;
		} else if (t->type == T_EOF || (!ms_tok_punct(t, ')') && ps->lx.prev_line &&
						 ps->lx.prev_line < t->line)) {
			/* as gcc does: where the ')' is missing, the end of the
			 * statement's last line, and a note at the '(' it closes */
			return ms_fail_at(&ps->lx, ps->lx.prev_line ? ps->lx.prev_line : t->line,
					  ps->lx.prev_line ? ps->lx.prev_end : t->col,
					  "expected ')' at the end of the line, to close '%.*s(' (note: "
					  "opened at %u:%u)",
					  (int)st->name.n, st->name.s, st->name.line,
					  st->name.col + (uint32_t)st->name.n);
		} else if (!ms_tok_punct(t, ')')) {
			return ms_fail_tok(&ps->lx, t, "expected ',' or ')'");
		}
	}
	st->stop = t->s + 1;
	return ms_lex_next(&ps->lx);
}
