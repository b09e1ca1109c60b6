/* SPDX-License-Identifier: MIT */
/*
 * The statement language (DESIGN.md section 3): lexer, parser and the
 * compiler from statements to rules.  Allocates only through the spec's
 * callbacks; never touches stdio or the environment.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <netinet/in.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "spec.h"

/* ---- spec storage ---- */

void ms_spec_init(struct ms_spec *spec, void *(*realloc_fn)(void *, size_t),
		  void (*free_fn)(void *))
{
	memset(spec, 0, sizeof(*spec));
	spec->realloc_fn = realloc_fn;
	spec->free_fn = free_fn;
}

void ms_spec_fini(struct ms_spec *spec)
{
	if (!spec)
		return;
	spec->free_fn(spec->rules);
	spec->free_fn(spec->outs);
	spec->free_fn(spec->expects);
	spec->free_fn(spec->orders);
	spec->free_fn(spec->conds);
	spec->free_fn(spec->ftimes);
	for (uint32_t i = 0; i < spec->ndyn; i++)
		spec->free_fn(spec->dyn[i]);
	spec->free_fn(spec->dyn);
	for (uint32_t i = 0; i < spec->nstructs; i++)
		spec->free_fn(spec->structs[i]);
	spec->free_fn(spec->structs);
	spec->free_fn(spec->pool);
	memset(spec, 0, sizeof(*spec));
}

int ms_spec_grow(struct ms_spec *spec, void **p, uint32_t *cap, uint32_t need, size_t elem)
{
	uint32_t n = *cap ? *cap : 16;
	void *q;

	if (need <= *cap)
		return 0;
	while (n < need) {
		if (n > UINT32_MAX / 2)
			return -ENOMEM;
		n *= 2;
	}
	q = spec->realloc_fn(*p, (size_t)n * elem);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = n;
	return 0;
}

int ms_spec_find(const struct ms_spec *spec, const char *name, size_t len)
{
	int id = ms_catalog_find(name, len);

	if (id >= 0)
		return id;
	for (uint32_t i = 0; i < spec->ndyn; i++)
		if (strlen(spec->dyn[i]->name) == len && memcmp(spec->dyn[i]->name, name, len) == 0)
			return (int)(MS_FN_COUNT + i);
	return -1;
}

const struct ms_fn_meta *ms_spec_meta(const struct ms_spec *spec, unsigned id)
{
	if (id < MS_FN_COUNT)
		return ms_catalog_get(id);
	id -= MS_FN_COUNT;
	return id < spec->ndyn ? spec->dyn[id] : NULL;
}

uint32_t ms_spec_str(struct ms_spec *spec, const char *s, size_t n)
{
	uint32_t off;

	if (n > UINT32_MAX / 4)
		return 0;
	if (spec->pool_len == 0) {
		/* Offset 0 means "none": reserve it. */
		if (ms_spec_grow(spec, (void **)&spec->pool, &spec->pool_cap, 1, 1))
			return 0;
		spec->pool[spec->pool_len++] = '\0';
	}
	if (ms_spec_grow(spec, (void **)&spec->pool, &spec->pool_cap,
		 spec->pool_len + (uint32_t)n + 1, 1))
		return 0;
	off = spec->pool_len;
	if (n)
		memcpy(spec->pool + off, s, n);
	spec->pool[off + n] = '\0';
	spec->pool_len += (uint32_t)n + 1;
	return off;
}

/* ---- lexer ---- */

enum tok_type { T_EOF, T_SEP, T_IDENT, T_INT, T_DBL, T_STR, T_PUNCT, T_OP };

struct tok {
	enum tok_type type;
	const char *s;
	size_t n;
	uint32_t line, col;
	int64_t ival;
	double dval;
	const char *suffix;	/* T_INT: letters right after the digits */
	size_t suffix_n;
};

struct parser {
	struct ms_spec *spec;
	const char *src;
	const char *text, *end, *p;
	const char *line_start;
	uint32_t line;
	int depth;		/* ( and { nesting: newlines are blanks inside */
	struct tok tok;		/* current token */
	uint32_t prev_line, prev_end;	/* where the token before it ended (line, column after it) */
	struct ms_diag *diag;
	int err;
	uint32_t src_off;
	struct stmt *st;	/* the statement being read: its nested literals */
	int in_literal;		/* reading a literal inside a literal */
};

static int fail_at(struct parser *ps, uint32_t line, uint32_t col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail_at(struct parser *ps, uint32_t line, uint32_t col, const char *fmt, ...)
{
	va_list ap;

	if (ps->err)
		return -1;
	ps->err = -EINVAL;
	ps->diag->line = line;
	ps->diag->col = col;
	va_start(ap, fmt);
	vsnprintf(ps->diag->msg, sizeof(ps->diag->msg), fmt, ap);
	va_end(ap);
	return -1;
}

#define fail_tok(ps, t, ...) fail_at(ps, (t)->line, (t)->col, __VA_ARGS__)

/* Character classes by table: the lexer tests every byte of the spec. */
enum { C_ALPHA = 1, C_DIGIT = 2 };

/* C_ALPHA for [A-Za-z_], C_DIGIT for [0-9], by code point */
static const unsigned char char_class[256] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 0, 0, 0, 0, 0, 0,
	0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1,
	0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

static int is_alpha(int c)
{
	return char_class[(unsigned char)c] & C_ALPHA;
}

static int is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static int next(struct parser *ps)
{
	struct tok *t = &ps->tok;
	const char *p = ps->p;

	if (t->s) {
		ps->prev_line = t->line;
		ps->prev_end = t->col + (uint32_t)t->n;
	}

	for (;;) {
		while (p < ps->end && (*p == ' ' || *p == '\t' || *p == '\r' ||
				       (ps->depth > 0 && *p == '\n'))) {
			if (*p == '\n') {
				ps->line++;
				ps->line_start = p + 1;
			}
			p++;
		}
		if (p < ps->end && *p == '#') {
			while (p < ps->end && *p != '\n')
				p++;
			continue;
		}
		break;
	}
	/* every field, not memset: the lexer runs once per token of a spec
	 * that may hold a million statements */
	t->type = T_EOF;
	t->n = 0;
	t->ival = 0;
	t->dval = 0;
	t->suffix = NULL;
	t->suffix_n = 0;
	t->s = p;
	t->line = ps->line;
	t->col = (uint32_t)(p - ps->line_start) + 1;
	if (p >= ps->end) {
		t->type = T_EOF;
		ps->p = p;
		return 0;
	}
	if (*p == '\n' || *p == ';') {
		t->type = T_SEP;
		if (*p == '\n') {
			ps->line++;
			ps->line_start = p + 1;
		}
		t->n = 1;
		ps->p = p + 1;
		return 0;
	}
	if (is_alpha(*p)) {
		while (p < ps->end && char_class[(unsigned char)*p])
			p++;
		t->type = T_IDENT;
	} else if (is_digit(*p) || (*p == '.' && p + 1 < ps->end && is_digit(p[1]))) {
		char buf[64];
		const char *q = p;
		size_t n;
		char *endp;
		int dbl = 0;

		if (*q == '0' && q + 1 < ps->end && (q[1] == 'x' || q[1] == 'X')) {
			q += 2;
			while (q < ps->end && (is_digit(*q) || (*q >= 'a' && *q <= 'f') ||
					       (*q >= 'A' && *q <= 'F')))
				q++;
		} else {
			while (q < ps->end && (is_digit(*q) || *q == '.' ||
					       ((*q == 'e' || *q == 'E') && q + 1 < ps->end &&
						(is_digit(q[1]) || q[1] == '-' || q[1] == '+')) ||
					       ((*q == '-' || *q == '+') && (q[-1] == 'e' || q[-1] == 'E')))) {
				if (*q == '.' || *q == 'e' || *q == 'E')
					dbl = 1;
				q++;
			}
		}
		n = (size_t)(q - p);
		if (n >= sizeof(buf))
			return fail_tok(ps, t, "number too long");
		if (!dbl && n < 19 && (*p != '0' || n == 1)) {
			/* decimal, at most 18 digits: no overflow, no strtoull */
			int64_t v = 0;

			for (const char *d = p; d < q; d++)
				v = v * 10 + (*d - '0');
			t->type = T_INT;
			t->ival = v;
			goto suffix;
		}
		memcpy(buf, p, n);
		buf[n] = '\0';
		errno = 0;
		if (dbl) {
			t->type = T_DBL;
			t->dval = strtod(buf, &endp);
		} else {
			unsigned long long v = strtoull(buf, &endp, 0);

			t->type = T_INT;
			if (errno == ERANGE || v > (unsigned long long)INT64_MAX + 1)
				return fail_tok(ps, t, "integer '%s' out of range", buf);
			t->ival = (int64_t)v;
		}
		if (*endp != '\0')
			return fail_tok(ps, t, "invalid number '%s'", buf);
suffix:
		t->suffix = q;
		while (q < ps->end && is_alpha(*q))
			q++;
		if (q == t->suffix && q < ps->end && *q == '%')
			q++; /* probability=5% */
		t->suffix_n = (size_t)(q - t->suffix);
		p = q;
	} else if (*p == '"') {
		p++;
		while (p < ps->end && *p != '"') {
			if (*p == '\n')
				return fail_tok(ps, t, "unterminated string");
			if (*p == '\\')
				p++;
			p++;
		}
		if (p >= ps->end)
			return fail_tok(ps, t, "unterminated string");
		p++;
		t->type = T_STR;
	} else if ((*p == '=' || *p == '!' || *p == '<' || *p == '>') && p + 1 < ps->end &&
		   p[1] == '=') {
		/* when(): ==, !=, <=, >= */
		t->type = T_OP;
		p += 2;
	} else if (*p == '!' && p + 1 < ps->end && p[1] == '~') {
		t->type = T_OP;
		p += 2;
	} else {
		switch (*p) {
		case '<': case '>': case '~': case '&': case '!':
			t->type = T_OP;
			break;
		case '(': case '{':
			ps->depth++;
			t->type = T_PUNCT;
			break;
		case ')': case '}':
			if (ps->depth > 0)
				ps->depth--;
			t->type = T_PUNCT;
			break;
		case ',': case '=': case '.': case '*': case '|': case '-':
			t->type = T_PUNCT;
			break;
		default:
			return fail_tok(ps, t, "unexpected character '%c'", *p);
		}
		p++;
	}
	t->n = (size_t)(p - t->s);
	ps->p = p;
	return 0;
}

static int is_punct(const struct tok *t, char c)
{
	return t->type == T_PUNCT && t->s[0] == c;
}

static int tok_is(const struct tok *t, const char *word)
{
	return t->type == T_IDENT && t->n == strlen(word) && memcmp(t->s, word, t->n) == 0;
}

static int hexval(int c)
{
	if (is_digit(c))
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

const char *ms_unescape(const char *p, const char *e, char *buf, size_t *len, size_t cap,
			const char **where)
{
	while (p < e) {
		int c = (unsigned char)*p++;

		if (c == '\\') {
			*where = p - 1;
			if (p >= e)
				return "a string cannot end in a backslash";
			c = (unsigned char)*p++;
			switch (c) {
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'r': c = '\r'; break;
			case 'a': c = '\a'; break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'v': c = '\v'; break;
			case 'e': c = 27; break;
			case '\\': case '"': case '\'': case '?': break;
			case 'x': {
				int v = 0, k = 0;

				while (k < 2 && p < e && hexval(*p) >= 0)
					v = v * 16 + hexval(*p++), k++;
				if (k == 0)
					return "\\x needs hex digits";
				c = v;
				break;
			}
			default:
				if (c >= '0' && c <= '7') {
					int v = c - '0', k = 1;

					while (k < 3 && p < e && *p >= '0' && *p <= '7')
						v = v * 8 + (*p++ - '0'), k++;
					if (v > 255)
						return "octal escape out of range";
					c = v;
					break;
				}
				return "unknown escape";
			}
		}
		if (*len >= cap) {
			*where = p - 1;
			return "string too long";
		}
		buf[(*len)++] = (char)c;
	}
	return NULL;
}

/* Decodes the string token t (with escapes) and appends it to buf. */
static int decode_str(struct parser *ps, const struct tok *t, char *buf, size_t *len,
		      size_t cap)
{
	const char *where = t->s, *why = ms_unescape(t->s + 1, t->s + t->n - 1, buf, len, cap, &where);

	if (!why)
		return 0;
	if (strcmp(why, "unknown escape") == 0)
		return fail_at(ps, t->line, t->col + (uint32_t)(where - t->s), "unknown escape '\\%c'",
			       where[1]);
	if (strcmp(why, "string too long") == 0)
		return fail_tok(ps, t, "string too long (at most %zu bytes)", cap);
	return fail_at(ps, t->line, t->col + (uint32_t)(where - t->s), "%s", why);
}

/* ---- values ---- */

enum val_kind { V_INT = 1, V_DBL, V_STR, V_NULL, V_BOOL, V_PH, V_STRUCT, V_DUR, V_IDENT };

#define MAX_FIELDS 16
#define MAX_ARGS 16
#define MAX_NESTED 8
/* A string, a repeat() or a file(): 16 MiB.  The fuzz targets build with
 * less: each parse allocates its scratch at this size, and ASan poisons
 * all of it on every run. */
#ifndef MS_PARSER_MAX_STR
#define MS_PARSER_MAX_STR (16u << 20)
#endif
#define MAX_STR MS_PARSER_MAX_STR

struct field {
	const char *name;	/* NULL: positional */
	size_t name_n;
	uint32_t line, col;	/* of the name */
	struct val *v;
};

struct val {
	enum val_kind kind;
	uint32_t line, col;
	const char *name;	/* V_IDENT: a name that is no constant (a parameter?) */
	size_t name_n;
	int64_t i;
	double d;
	uint32_t str, len;	/* V_STR: pool */
	unsigned nfields;
	struct field fields[MAX_FIELDS];
};

struct arg {
	const char *key;	/* NULL: positional */
	size_t key_n;
	int deref;
	uint32_t line, col;
	struct val v;
};

#define MAX_CONDS 8

/* when(PARAM OP VALUE, ...): one condition, as written. */
struct cond_src {
	struct tok param;
	char op[3];		/* "==" "!=" "<" "<=" ">" ">=" "~" "!~" "&" "!&" "in" */
	uint32_t op_line, op_col;
	struct val v;
};

struct stmt {
	struct tok name;
	struct tok fn;
	const char *start, *stop;
	unsigned nargs;
	struct arg args[MAX_ARGS];
	struct val fieldvals[MAX_ARGS][MAX_FIELDS];
	int has_when;
	uint32_t when_line, when_col;
	unsigned nconds;
	struct cond_src conds[MAX_CONDS];
	struct val condfields[MAX_CONDS][MAX_FIELDS];
	/* the fields of struct literals inside struct literals (statx's
	 * stx_mtime = {S, NS}), one level deep */
	struct val nested[MAX_NESTED][MAX_FIELDS];
	unsigned nnested;
};

static const char *kind_name(enum val_kind k)
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

static int parse_scalar(struct parser *ps, struct val *v, char *scratch);

/* Reads the file at path (relative: to the directory of the spec file the
 * statement is in, or the working directory) into scratch, by raw system
 * calls (this code also runs inside the shim): its length, or -1. */
static long read_into(struct parser *ps, const char *path, char *scratch, size_t cap)
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

/* size bytes at data into the pool: *off (0 and ENOMEM when it cannot grow). */
static int pool_store(struct parser *ps, const void *data, size_t size, uint32_t *off)
{
	*off = ms_spec_str(ps->spec, data, size);
	if (!*off) {
		ps->err = -ENOMEM;
		return -1;
	}
	return 0;
}

/* repeat("ab", N): N copies; file("path"): the file's bytes.  At the '('. */
static int parse_bytes_call(struct parser *ps, const struct tok *fn, struct val *v, char *scratch)
{
	struct tok *t = &ps->tok;
	int repeat = fn->n == 6;
	struct val s, n;
	uint64_t total = 0;
	long got;

	memset(&s, 0, sizeof(s));
	memset(&n, 0, sizeof(n));
	v->line = fn->line;
	v->col = fn->col;
	if (next(ps) || parse_scalar(ps, &s, scratch))
		return -1;
	if (s.kind != V_STR)
		return fail_at(ps, s.line, s.col, "%s needs a string, not %s",
			       repeat ? "repeat(STRING, COUNT)" : "file(PATH)", kind_name(s.kind));
	if (repeat) {
		if (!is_punct(t, ','))
			return fail_tok(ps, t, "expected ', COUNT' in repeat(STRING, COUNT)");
		if (next(ps) || parse_scalar(ps, &n, scratch))
			return -1;
		if (n.kind != V_INT || n.i < 0)
			return fail_at(ps, n.line, n.col, "repeat's COUNT must be a number, 0 or more");
		if (s.len && (uint64_t)n.i > MAX_STR / s.len)
			return fail_at(ps, v->line, v->col,
				       "repeat() makes more than %u bytes (%u x %lld)", MAX_STR, s.len,
				       (long long)n.i);
		total = (uint64_t)s.len * (uint64_t)n.i;
		for (uint64_t k = 0; k < total; k += s.len)
			memcpy(scratch + k, ps->spec->pool + s.str, s.len);
	} else {
		char path[4096];

		if (s.len == 0 || s.len >= sizeof(path) || memchr(ps->spec->pool + s.str, 0, s.len))
			return fail_at(ps, s.line, s.col, "file() needs a path");
		memcpy(path, ps->spec->pool + s.str, s.len);
		path[s.len] = '\0';
		got = read_into(ps, path, scratch, MAX_STR);
		if (got == -2)
			return fail_at(ps, s.line, s.col, "file(\"%s\"): larger than %u bytes", path,
				       MAX_STR);
		if (got < 0)
			return fail_at(ps, s.line, s.col, "file(\"%s\"): cannot read: %s", path,
				       strerror(errno));
		total = (uint64_t)got;
	}
	if (!is_punct(t, ')'))
		return fail_tok(ps, t, "expected ')' after %s", repeat ? "repeat's COUNT" : "file's PATH");
	v->kind = V_STR;
	v->len = (uint32_t)total;
	if (pool_store(ps, scratch, total, &v->str))
		return -1;
	return next(ps);
}

static int parse_scalar(struct parser *ps, struct val *v, char *scratch)
{
	struct tok *t = &ps->tok;
	int neg = 0;

	v->line = t->line;
	v->col = t->col;
	if (is_punct(t, '-')) {
		neg = 1;
		if (next(ps))
			return -1;
		if (t->type == T_IDENT && ms_name_value(t->s, t->n, &v->i)) {
			/* -ENOENT: a negated name, the kernel's way of returning errors */
			v->kind = V_INT;
			v->i = (int64_t)(0 - (uint64_t)v->i);
			return next(ps);
		}
		if (t->type != T_INT && t->type != T_DBL)
			return fail_tok(ps, t, "expected a number or a named constant after '-'");
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
				return fail_tok(ps, t, "invalid number '%.*s' (durations take ns, us, ms, s, m)",
						(int)t->n, t->s);
			if (neg)
				return fail_tok(ps, t, "a duration cannot be negative: -%.*s", (int)t->n,
						t->s);
			if ((uint64_t)t->ival > UINT64_MAX / units[k].ns)
				return fail_tok(ps, t, "duration too long");
			v->kind = V_DUR;
			v->i = (int64_t)((uint64_t)t->ival * units[k].ns);
			break;
		}
		v->kind = V_INT;
		if (!neg && (uint64_t)t->ival > INT64_MAX)
			return fail_tok(ps, t, "integer out of range");
		v->i = neg ? (int64_t)(0 - (uint64_t)t->ival) : t->ival;
		break;
	case T_STR: {
		size_t len = 0;

		while (t->type == T_STR) {
			if (decode_str(ps, t, scratch, &len, MAX_STR))
				return -1;
			if (next(ps))
				return -1;
		}
		v->kind = V_STR;
		v->len = (uint32_t)len;
		v->str = ms_spec_str(ps->spec, scratch, len);
		if (!v->str) {
			ps->err = -ENOMEM;
			return -1;
		}
		return 0; /* already advanced */
	}
	case T_IDENT:
		if (tok_is(t, "repeat") || tok_is(t, "file")) {
			struct tok fn = *t;

			if (next(ps))
				return -1;
			if (is_punct(t, '('))
				return parse_bytes_call(ps, &fn, v, scratch);
			v->kind = V_IDENT; /* a parameter named so (execvp's file) */
			v->name = fn.s;
			v->name_n = fn.n;
			return 0;
		}
		if (tok_is(t, "true") || tok_is(t, "false")) {
			v->kind = V_BOOL;
			v->i = tok_is(t, "true");
		} else if (tok_is(t, "NULL")) {
			v->kind = V_NULL;
		} else if (tok_is(t, "_")) {
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
		return fail_tok(ps, t, "expected a value");
	}
	return next(ps);
}

/* value := scalar { '|' scalar } | '{' fields '}' */
static int parse_value(struct parser *ps, struct val *v, struct val *fieldvals, char *scratch)
{
	struct tok *t = &ps->tok;

	/* the fields up to nfields are set as they are read: a value is
	 * cleared without its 16 fields (most are scalars) */
	memset(v, 0, offsetof(struct val, fields));
	if (is_punct(t, '{')) {
		v->kind = V_STRUCT;
		v->line = t->line;
		v->col = t->col;
		if (next(ps))
			return -1;
		while (!is_punct(t, '}')) {
			struct field *f;

			if (v->nfields == MAX_FIELDS)
				return fail_tok(ps, t, "too many fields (at most %d)", MAX_FIELDS);
			f = &v->fields[v->nfields];
			memset(f, 0, sizeof(*f));
			f->v = &fieldvals[v->nfields];
			v->nfields++;
			f->name = NULL;
			if (is_punct(t, '.')) {
				if (next(ps))
					return -1;
				if (t->type != T_IDENT)
					return fail_tok(ps, t, "expected a field name after '.'");
				f->name = t->s;
				f->name_n = t->n;
				f->line = t->line;
				f->col = t->col;
				if (next(ps))
					return -1;
				if (!is_punct(t, '='))
					return fail_tok(ps, t, "expected '=' after the field name");
				if (next(ps))
					return -1;
			}
			if (is_punct(t, '{')) {
				int r;

				if (ps->in_literal || !ps->st)
					return fail_tok(ps, t, "struct literals nest one level deep");
				if (ps->st->nnested == MAX_NESTED)
					return fail_tok(ps, t,
							"too many struct literals inside others (at most %d)",
							MAX_NESTED);
				ps->in_literal = 1;
				r = parse_value(ps, f->v, ps->st->nested[ps->st->nnested++], scratch);
				ps->in_literal = 0;
				if (r)
					return -1;
			} else if (parse_value(ps, f->v, NULL, scratch)) {
				return -1;
			}
			if (is_punct(t, ','))  {
				if (next(ps))
					return -1;
			} else if (!is_punct(t, '}')) {
				return fail_tok(ps, t, "expected ',' or '}' in struct literal");
			}
		}
		return next(ps);
	}
	if (parse_scalar(ps, v, scratch))
		return -1;
	while (is_punct(t, '|')) {
		struct val rhs;

		if (v->kind == V_IDENT)
			return fail_at(ps, v->line, v->col, "unknown name '%.*s'", (int)v->name_n,
				       v->name);
		if (v->kind != V_INT)
			return fail_at(ps, v->line, v->col, "'|' joins integers, not %s",
				       kind_name(v->kind));
		if (next(ps))
			return -1;
		memset(&rhs, 0, sizeof(rhs));
		if (parse_scalar(ps, &rhs, scratch))
			return -1;
		if (rhs.kind == V_IDENT)
			return fail_at(ps, rhs.line, rhs.col, "unknown name '%.*s'", (int)rhs.name_n,
				       rhs.name);
		if (rhs.kind != V_INT)
			return fail_at(ps, rhs.line, rhs.col, "'|' joins integers, not %s",
				       kind_name(rhs.kind));
		v->i |= rhs.i;
	}
	return 0;
}

static int tok_op(const struct tok *t, const char *op)
{
	return t->type == T_OP && t->n == strlen(op) && memcmp(t->s, op, t->n) == 0;
}

/* when(COND, ...) after the statement's other arguments: the current
 * token is `when`. */
static int parse_when(struct parser *ps, struct stmt *st, char *scratch)
{
	struct tok *t = &ps->tok;

	if (st->has_when)
		return fail_tok(ps, t, "a statement takes one when(...); join its conditions with ','");
	st->has_when = 1;
	st->when_line = t->line;
	st->when_col = t->col;
	if (next(ps))
		return -1;
	if (!is_punct(t, '('))
		return fail_tok(ps, t, "expected '(' after 'when'");
	if (next(ps))
		return -1;
	if (is_punct(t, ')'))
		return fail_tok(ps, t, "when() needs a condition: PARAM == VALUE, PARAM ~ \"GLOB\", ...");
	for (;;) {
		struct cond_src *c;
		int negbits = 0;

		if (st->nconds == MAX_CONDS)
			return fail_tok(ps, t, "too many conditions (at most %d)", MAX_CONDS);
		c = &st->conds[st->nconds];
		memset(c, 0, sizeof(*c));
		if (tok_op(t, "!")) {
			/* !(PARAM & FLAGS) */
			negbits = 1;
			if (next(ps))
				return -1;
			if (!is_punct(t, '('))
				return fail_tok(ps, t, "expected '(' after '!': !(PARAM & FLAGS)");
			if (next(ps))
				return -1;
		}
		if (t->type != T_IDENT)
			return fail_tok(ps, t, "expected a parameter name in when()");
		c->param = *t;
		if (next(ps))
			return -1;
		c->op_line = t->line;
		c->op_col = t->col;
		if (tok_is(t, "in") && !negbits) {
			memcpy(c->op, "in", 3);
		} else if (t->type == T_OP && !negbits &&
			   (tok_op(t, "==") || tok_op(t, "!=") || tok_op(t, "<") || tok_op(t, "<=") ||
			    tok_op(t, ">") || tok_op(t, ">=") || tok_op(t, "~") || tok_op(t, "!~") ||
			    tok_op(t, "&"))) {
			memcpy(c->op, t->s, t->n);
		} else if (negbits && tok_op(t, "&")) {
			memcpy(c->op, "!&", 3);
		} else {
			return fail_tok(ps, t, negbits ? "expected '&': !(PARAM & FLAGS)"
						       : "expected an operator (== != < <= > >= ~ !~ & in) "
							 "after '%.*s'",
					(int)c->param.n, c->param.s);
		}
		if (next(ps))
			return -1;
		if (parse_value(ps, &c->v, st->condfields[st->nconds], scratch))
			return -1;
		st->nconds++;
		if (negbits) {
			if (!is_punct(t, ')'))
				return fail_tok(ps, t, "expected ')' to close !(PARAM & FLAGS)");
			if (next(ps))
				return -1;
		}
		if (is_punct(t, ',')) {
			if (next(ps))
				return -1;
			continue;
		}
		if (!is_punct(t, ')'))
			return fail_tok(ps, t, "expected ',' or ')' in when()");
		return next(ps);
	}
}

static int parse_stmt(struct parser *ps, struct stmt *st, char *scratch)
{
	struct tok *t = &ps->tok;

	st->name = *t;
	st->start = t->s;
	st->has_when = 0;
	st->nconds = 0;
	if (next(ps))
		return -1;
	if (!is_punct(t, '('))
		return fail_tok(ps, t, "expected '(' after '%.*s'", (int)st->name.n, st->name.s);
	if (next(ps))
		return -1;
	st->nargs = 0;
	st->nnested = 0;
	ps->st = st;
	while (!is_punct(t, ')')) {
		struct arg *a;

		if (t->type == T_EOF)
			return fail_tok(ps, t, "missing ')'");
		if (st->nargs == MAX_ARGS)
			return fail_tok(ps, t, "too many arguments (at most %d)", MAX_ARGS);
		a = &st->args[st->nargs];
		/* parse_value clears a->v */
		memset(a, 0, offsetof(struct arg, v) + offsetof(struct val, fields));
		a->line = t->line;
		a->col = t->col;
		if (st->nargs == 0) {
			if (t->type != T_IDENT)
				return fail_tok(ps, t, "expected a function name");
			st->fn = *t;
			st->nargs++;
			if (next(ps))
				return -1;
		} else {
			if (tok_is(t, "when")) {
				const char *save_p = ps->p, *save_ls = ps->line_start;
				uint32_t save_line = ps->line;
				int save_depth = ps->depth;
				struct tok w = *t;

				if (next(ps))
					return -1;
				ps->p = save_p;
				ps->line_start = save_ls;
				ps->line = save_line;
				ps->depth = save_depth;
				if (is_punct(t, '(')) {
					*t = w;
					if (parse_when(ps, st, scratch))
						return -1;
					goto after_arg;
				}
				*t = w;
			}
			if (is_punct(t, '*')) {
				a->deref = 1;
				if (next(ps))
					return -1;
				if (t->type != T_IDENT)
					return fail_tok(ps, t, "expected a parameter name after '*'");
			}
			if (t->type == T_IDENT) {
				/* key=value or a named value: look one token ahead. */
				const char *save_p = ps->p, *save_ls = ps->line_start;
				uint32_t save_line = ps->line;
				int save_depth = ps->depth;
				struct tok ident = *t;

				if (next(ps))
					return -1;
				if (is_punct(t, '=')) {
					a->key = ident.s;
					a->key_n = ident.n;
					if (next(ps))
						return -1;
				} else {
					if (a->deref)
						return fail_tok(ps, t, "expected '=' after '*%.*s'",
								(int)ident.n, ident.s);
					ps->p = save_p;
					ps->line_start = save_ls;
					ps->line = save_line;
					ps->depth = save_depth;
					*t = ident;
				}
			}
			if (parse_value(ps, &a->v, st->fieldvals[st->nargs], scratch))
				return -1;
			st->nargs++;
		}
after_arg:
		if (is_punct(t, ',')) {
			if (next(ps))
				return -1;
		} else if (t->type == T_EOF || (!is_punct(t, ')') && ps->prev_line &&
						 ps->prev_line < t->line)) {
			/* as gcc does: where the ')' is missing, the end of the
			 * statement's last line, and a note at the '(' it closes */
			return fail_at(ps, ps->prev_line ? ps->prev_line : t->line,
				       ps->prev_line ? ps->prev_end : t->col,
				       "expected ')' at the end of the line, to close '%.*s(' (note: "
				       "opened at %u:%u)",
				       (int)st->name.n, st->name.s, st->name.line,
				       st->name.col + (uint32_t)st->name.n);
		} else if (!is_punct(t, ')')) {
			return fail_tok(ps, t, "expected ',' or ')'");
		}
	}
	st->stop = t->s + 1;
	return next(ps);
}

/* ---- compiling a statement into a rule ---- */

enum stmt_type { ST_RULE, ST_EXPECT, ST_ORDER };

struct stmt_kind {
	const char *name;
	size_t len;
	uint8_t type;		/* enum stmt_type */
	uint16_t kind;		/* rule, expectation or order kind */
	int32_t count;		/* 0: taken from the last positional, COUNT */
	uint8_t npos_min, npos_max;	/* positional values after FN */
	const char *usage;
};

/* a name and its length, for find_stmt_kind */
#define K(name) name, sizeof(name) - 1
static const struct stmt_kind stmt_kinds[] = {
	{ K("will_return"), ST_RULE, MS_R_RETURN, 1, 1, 1, "will_return(FN, VALUE [, OUT=...] [, OPTION=...])" },
	{ K("will_return_count"), ST_RULE, MS_R_RETURN, 0, 2, 2, "will_return_count(FN, VALUE, COUNT [, ...])" },
	{ K("will_return_always"), ST_RULE, MS_R_RETURN, MS_COUNT_ALWAYS, 1, 1, "will_return_always(FN, VALUE [, ...])" },
	{ K("will_return_maybe"), ST_RULE, MS_R_RETURN, MS_COUNT_MAYBE, 1, 1, "will_return_maybe(FN, VALUE [, ...])" },
	{ K("will_fail"), ST_RULE, MS_R_FAIL, 1, 0, 1, "will_fail(FN [, ERR] [, ...])" },
	{ K("will_fail_count"), ST_RULE, MS_R_FAIL, 0, 2, 2, "will_fail_count(FN, ERR, COUNT [, ...])" },
	{ K("will_call_real"), ST_RULE, MS_R_REAL, 1, 0, 1, "will_call_real(FN [, COUNT] [, ...])" },
#define X(name, kind, n, args)                                                              \
	{ K(name), ST_EXPECT, kind, 1, n, n, name "(FN, PARAM" args ")" },                      \
	{ K(name "_count"), ST_EXPECT, kind, 0, n + 1, n + 1, name "_count(FN, PARAM" args ", COUNT)" },
	X("expect_value", MS_X_VALUE, 2, ", VALUE")
	X("expect_not_value", MS_X_NOT_VALUE, 2, ", VALUE")
	X("expect_string", MS_X_STRING, 2, ", STRING")
	X("expect_not_string", MS_X_NOT_STRING, 2, ", STRING")
	X("expect_memory", MS_X_MEMORY, 3, ", BYTES, SIZE")
	X("expect_not_memory", MS_X_NOT_MEMORY, 3, ", BYTES, SIZE")
	X("expect_in_range", MS_X_RANGE, 3, ", MIN, MAX")
	X("expect_not_in_range", MS_X_NOT_RANGE, 3, ", MIN, MAX")
	X("expect_in_set", MS_X_SET, 2, ", {A, B, ...}")
	X("expect_not_in_set", MS_X_NOT_SET, 2, ", {A, B, ...}")
	X("expect_any", MS_X_ANY, 1, "")
#undef X
	{ K("expect_function_call"), ST_ORDER, MS_ORD_CALL, 1, 0, 0, "expect_function_call(FN)" },
	{ K("expect_function_calls"), ST_ORDER, MS_ORD_CALL, 0, 1, 1, "expect_function_calls(FN, COUNT)" },
	{ K("ignore_function_calls"), ST_ORDER, MS_ORD_IGNORE, 1, 0, 0, "ignore_function_calls(FN)" },
	{ K("expect_no_call"), ST_ORDER, MS_ORD_NO_CALL, 1, 0, 0, "expect_no_call(FN)" },
};
#undef K

static const struct stmt_kind *find_stmt_kind(struct parser *ps, const struct tok *name)
{
	for (size_t i = 0; i < sizeof(stmt_kinds) / sizeof(stmt_kinds[0]); i++) {
		const struct stmt_kind *k = &stmt_kinds[i];

		/* lengths first: no strlen of every kind's name per statement */
		if (k->len == name->n && name->type == T_IDENT && memcmp(k->name, name->s, k->len) == 0)
			return &stmt_kinds[i];
	}
	fail_tok(ps, name, "unknown statement '%.*s'", (int)name->n, name->s);
	return NULL;
}

static int unknown_name(struct parser *ps, const struct val *v)
{
	return fail_at(ps, v->line, v->col, "unknown name '%.*s'", (int)v->name_n, v->name);
}

/* COUNT: a positive integer, or -1 (always) / -2 (maybe) where allowed. */
static int parse_count(struct parser *ps, const struct val *c, int specials, int32_t *out)
{
	if (c->kind != V_INT || c->i == 0 || c->i > INT32_MAX ||
	    c->i < (specials ? MS_COUNT_MAYBE : 1))
		return fail_at(ps, c->line, c->col,
			       specials ? "COUNT must be a positive integer, -1 (always) or -2 (maybe)"
					: "COUNT must be a positive integer");
	*out = (int32_t)c->i;
	return 0;
}

static int check_int_range(struct parser *ps, const struct val *v, const struct ms_type *t,
			   const char *what)
{
	int64_t lo, hi;

	if (t->size >= 8)
		return 0;
	if (t->tclass == MS_T_UINT) {
		/* Accept -1 and friends for unsigned types, as C does ((uid_t)-1). */
		lo = -(INT64_C(1) << (t->size * 8 - 1));
		hi = (INT64_C(1) << (t->size * 8)) - 1;
	} else {
		lo = -(INT64_C(1) << (t->size * 8 - 1));
		hi = (INT64_C(1) << (t->size * 8 - 1)) - 1;
	}
	if (v->i < lo || v->i > hi)
		return fail_at(ps, v->line, v->col, "%s %lld does not fit in %s", what,
			       (long long)v->i, t->text);
	return 0;
}

static int param_list(const struct ms_fn_meta *m, char *buf, size_t cap)
{
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < m->nparams; i++)
		n += (size_t)snprintf(buf + n, n < cap ? cap - n : 0, "%s%s", i ? ", " : "",
				      m->params[i].name);
	if (m->nparams == 0)
		snprintf(buf, cap, "none");
	return 0;
}

static const struct ms_out_desc *find_out(const struct ms_fn_meta *m, int param)
{
	for (unsigned i = 0; i < m->nouts; i++)
		if (m->outs[i].param == param && m->outs[i].kind != MS_OK_FERROR)
			return &m->outs[i];
	return NULL;
}

static int add_out(struct parser *ps, const struct ms_out *o)
{
	struct ms_spec *spec = ps->spec;

	if (ms_spec_grow(spec, (void **)&spec->outs, &spec->cap_outs, spec->nouts + 1, sizeof(*o))) {
		ps->err = -ENOMEM;
		return -1;
	}
	spec->outs[spec->nouts++] = *o;
	return 0;
}

/* A string field of a declared struct: a pointer the shim sets at reply
 * time (the pool's address differs in every process). */
struct str_fix {
	uint16_t off;
	uint32_t str;
};

static int encode_struct(struct parser *ps, const struct val *v, const struct ms_struct_desc *sd,
			 char *bytes, struct str_fix *fix, unsigned *nfix)
{
	int seen[MAX_FIELDS * 2] = { 0 };
	unsigned pos = 0;

	memset(bytes, 0, sd->size);
	for (unsigned i = 0; i < v->nfields; i++) {
		const struct field *f = &v->fields[i];
		const struct ms_field_desc *fd = NULL;
		unsigned idx;

		if (f->name) {
			for (idx = 0; idx < sd->nfields; idx++)
				if (strlen(sd->fields[idx].name) == f->name_n &&
				    memcmp(sd->fields[idx].name, f->name, f->name_n) == 0)
					break;
			if (idx == sd->nfields) {
				char list[200];
				size_t n = 0;

				for (unsigned k = 0; k < sd->nfields; k++)
					n += (size_t)snprintf(list + n, n < sizeof(list) ? sizeof(list) - n : 0,
							      "%s%s", k ? ", " : "", sd->fields[k].name);
				return fail_at(ps, f->line, f->col,
					       "struct %s has no field '%.*s' (fields: %s)", sd->name,
					       (int)f->name_n, f->name, list);
			}
			pos = idx + 1;
		} else {
			idx = pos++;
			if (idx >= sd->nfields)
				return fail_at(ps, f->v->line, f->v->col,
					       "too many values for struct %s (%u fields)", sd->name,
					       sd->nfields);
		}
		fd = &sd->fields[idx];
		if (seen[idx])
			return fail_at(ps, f->v->line, f->v->col, "field %s given twice", fd->name);
		seen[idx] = 1;
		if (fd->kind == MS_FD_NESTED && f->v->kind == V_STRUCT) {
			/* its own fields, at its offset; no string fields inside */
			unsigned none = 0;

			if (encode_struct(ps, f->v, fd->sub, bytes + fd->off, NULL, &none))
				return -1;
		} else if (fd->kind == MS_FD_NESTED && f->v->kind != V_INT) {
			return fail_at(ps, f->v->line, f->v->col,
				       "field %s needs a struct %s literal {...} or an integer, not %s",
				       fd->name, fd->sub->name, kind_name(f->v->kind));
		} else if (fd->kind == MS_FD_NESTED) {
			/* an integer: the first field (the seconds of a time) */
			struct val lit = { .kind = V_STRUCT, .nfields = 1, .line = f->v->line,
					   .col = f->v->col };
			unsigned none = 0;

			lit.fields[0].v = f->v;
			if (encode_struct(ps, &lit, fd->sub, bytes + fd->off, NULL, &none))
				return -1;
		} else if (fd->kind == MS_FD_STR && f->v->kind == V_STR) {
			fix[(*nfix)++] = (struct str_fix){ fd->off, f->v->str };
		} else if (fd->kind == MS_FD_STR || fd->kind == MS_FD_PTR) {
			if (f->v->kind != V_NULL && f->v->kind != V_INT)
				return fail_at(ps, f->v->line, f->v->col, "field %s needs %s, not %s",
					       fd->name,
					       fd->kind == MS_FD_STR ? "a string or NULL"
								     : "NULL or an address",
					       kind_name(f->v->kind));
			memcpy(bytes + fd->off, &f->v->i, 8);
			if (f->v->kind == V_NULL)
				memset(bytes + fd->off, 0, 8);
		} else if (fd->kind == MS_FD_DOUBLE) {
			double x;

			if (f->v->kind != V_DBL && f->v->kind != V_INT)
				return fail_at(ps, f->v->line, f->v->col, "field %s needs a number, not %s",
					       fd->name, kind_name(f->v->kind));
			x = f->v->kind == V_DBL ? f->v->d : (double)f->v->i;
			memcpy(bytes + fd->off, &x, 8);
		} else if (fd->kind == MS_FD_CHARS) {
			if (f->v->kind != V_STR)
				return fail_at(ps, f->v->line, f->v->col, "field %s needs a string, not %s",
					       fd->name, kind_name(f->v->kind));
			if (f->v->len >= fd->size)
				return fail_at(ps, f->v->line, f->v->col,
					       "field %s holds at most %u bytes", fd->name,
					       (unsigned)fd->size - 1);
			memcpy(bytes + fd->off, ps->spec->pool + f->v->str, f->v->len);
		} else {
			int64_t x;

			if (f->v->kind != V_INT && f->v->kind != V_BOOL)
				return fail_at(ps, f->v->line, f->v->col,
					       "field %s needs an integer, not %s", fd->name,
					       kind_name(f->v->kind));
			x = f->v->i;
			if (x < fd->min || x > fd->max)
				return fail_at(ps, f->v->line, f->v->col,
					       "field %s = %lld out of range", fd->name, (long long)x);
			if (fd->size == 4) {
				uint32_t y = (uint32_t)x;

				memcpy(bytes + fd->off, &y, 4);
			} else if (fd->size == 8) {
				memcpy(bytes + fd->off, &x, 8);
			} else if (fd->size == 2) {
				uint16_t y = (uint16_t)x;

				memcpy(bytes + fd->off, &y, 2);
			} else if (fd->size == 1) {
				bytes[fd->off] = (char)x;
			}
		}
	}
	return 0;
}

/* "10.1.2.3", "::1", "10.1.2.3:80", "[::1]:80" */
static int parse_addr(const char *s, struct ms_addr *out)
{
	char host[64];
	const char *colon = strrchr(s, ':'), *h = s;
	size_t n;
	long port = 0;

	memset(out, 0, sizeof(*out));
	if (*s == '[') {
		const char *close = strchr(s, ']');

		if (!close || (close[1] && close[1] != ':'))
			return -1;
		h = s + 1;
		n = (size_t)(close - h);
		colon = close[1] ? close + 1 : NULL;
	} else if (colon && strchr(s, ':') == colon) {
		n = (size_t)(colon - s); /* one colon: IPv4 with a port */
	} else {
		n = strlen(s);
		colon = NULL;
	}
	if (n >= sizeof(host))
		return -1;
	memcpy(host, h, n);
	host[n] = '\0';
	if (colon) {
		char *end;

		port = strtol(colon + 1, &end, 10);
		if (end == colon + 1 || *end || port < 0 || port > 65535)
			return -1;
	}
	out->port = (uint16_t)port;
	if (inet_pton(AF_INET, host, out->addr) == 1)
		out->family = AF_INET;
	else if (inet_pton(AF_INET6, host, out->addr) == 1)
		out->family = AF_INET6;
	else
		return -1;
	return 0;
}

/* "10.1.2.3:80", "[::1]:80" or "unix:/path": the struct sockaddr's bytes. */
static int encode_sockaddr(struct parser *ps, const struct val *v, struct ms_out *o)
{
	union {
		struct sockaddr_in in;
		struct sockaddr_in6 in6;
		struct sockaddr_un un;
	} sa;
	const char *s = v->kind == V_STR ? ps->spec->pool + v->str : NULL;
	struct ms_addr a;
	uint32_t len;

	memset(&sa, 0, sizeof(sa));
	if (s && strncmp(s, "unix:", 5) == 0) {
		size_t n = strlen(s + 5);

		if (n == 0 || n >= sizeof(sa.un.sun_path))
			return fail_at(ps, v->line, v->col, "a unix socket path of 1 to %zu bytes",
				       sizeof(sa.un.sun_path) - 1);
		sa.un.sun_family = AF_UNIX;
		memcpy(sa.un.sun_path, s + 5, n);
		len = (uint32_t)(offsetof(struct sockaddr_un, sun_path) + n + 1);
	} else if (s && parse_addr(s, &a) == 0 && a.family == AF_INET) {
		sa.in.sin_family = AF_INET;
		sa.in.sin_port = htons(a.port);
		memcpy(&sa.in.sin_addr, a.addr, 4);
		len = sizeof(sa.in);
	} else if (s && parse_addr(s, &a) == 0) {
		sa.in6.sin6_family = AF_INET6;
		sa.in6.sin6_port = htons(a.port);
		memcpy(&sa.in6.sin6_addr, a.addr, 16);
		len = sizeof(sa.in6);
	} else {
		return fail_at(ps, v->line, v->col,
			       "expected an address: \"127.0.0.1:8080\", \"[::1]:80\" or \"unix:/path\"");
	}
	o->kind = MS_O_SOCKADDR;
	o->len = len;
	return pool_store(ps, &sa, len, &o->data);
}

static int encode_addrinfo(struct parser *ps, const struct val *v, struct ms_out *o)
{
	struct ms_addr addrs[MAX_FIELDS];

	if (v->kind != V_STRUCT || v->nfields == 0)
		return fail_at(ps, v->line, v->col,
			       "an addrinfo result is a list of addresses: {\"10.1.2.3\", \"::1\"}");
	for (unsigned i = 0; i < v->nfields; i++) {
		const struct field *f = &v->fields[i];

		if (f->name)
			return fail_at(ps, f->line, f->col, "an address list has no field names");
		if (f->v->kind != V_STR ||
		    parse_addr(ps->spec->pool + f->v->str, &addrs[i]) != 0)
			return fail_at(ps, f->v->line, f->v->col,
				       "expected an IPv4 or IPv6 address (\"10.1.2.3\", \"[::1]:80\")");
	}
	o->kind = MS_O_ADDRINFO;
	o->len = v->nfields * (uint32_t)sizeof(addrs[0]);
	o->data = ms_spec_str(ps->spec, (const char *)addrs, o->len);
	if (!o->data) {
		ps->err = -ENOMEM;
		return -1;
	}
	return 0;
}

/*
 * The fields of a record literal, by name ({.pw_name = "alice"}) or by
 * position: each a string (its pool offset) or, where the bit of ids is
 * set, a uid/gid.  hints[k] (or NULL) says more of field k's strings.
 */
static int encode_fields(struct parser *ps, const struct val *v, const char *what,
			 const char *const *names, const char *const *hints, unsigned n,
			 uint32_t ids, uint32_t *words)
{
	unsigned pos = 0;

	for (unsigned i = 0; i < v->nfields; i++) {
		const struct field *f = &v->fields[i];
		unsigned k = pos;

		if (f->name) {
			for (k = 0; k < n; k++)
				if (strlen(names[k]) == f->name_n && memcmp(names[k], f->name, f->name_n) == 0)
					break;
			if (k == n) {
				char list[160];
				size_t off = 0;

				for (unsigned x = 0; x < n; x++)
					off += (size_t)snprintf(list + off, off < sizeof(list) ? sizeof(list) - off : 0,
								"%s%s", x ? ", " : "", names[x]);
				return fail_at(ps, f->line, f->col,
					       "struct %s has no field '%.*s' (fields: %s)", what,
					       (int)f->name_n, f->name, list);
			}
		} else if (k >= n) {
			return fail_at(ps, f->v->line, f->v->col, "too many values for struct %s", what);
		}
		pos = k + 1;
		if (ids & (1u << k)) {
			if (f->v->kind != V_INT || f->v->i < 0 || f->v->i > UINT32_MAX)
				return fail_at(ps, f->v->line, f->v->col, "%s needs a uid/gid", names[k]);
			words[k] = (uint32_t)f->v->i;
		} else if (f->v->kind != V_STR) {
			return fail_at(ps, f->v->line, f->v->col, "%s needs a string%s, not %s", names[k],
				       hints && hints[k] ? hints[k] : "", kind_name(f->v->kind));
		} else {
			words[k] = f->v->str;
		}
	}
	return 0;
}

/* {.pw_name = "alice", .pw_uid = 1000, ...}: a struct passwd to return. */
static int encode_passwd(struct parser *ps, const struct val *v, uint32_t *off)
{
	static const char *const names[] = { "pw_name", "pw_passwd", "pw_uid", "pw_gid",
					     "pw_gecos", "pw_dir", "pw_shell" };
	uint32_t w[7] = { 0 };
	struct ms_passwd_rec rec;

	if (encode_fields(ps, v, "passwd", names, NULL, 7, 1u << 2 | 1u << 3, w))
		return -1;
	rec = (struct ms_passwd_rec){ w[0], w[1], w[4], w[5], w[6], w[2], w[3] };
	return pool_store(ps, &rec, sizeof(rec), off);
}

/* {.gr_name = "staff", .gr_gid = 50, .gr_mem = "alice,bob"}: a struct group. */
static int encode_group(struct parser *ps, const struct val *v, uint32_t *off)
{
	static const char *const names[] = { "gr_name", "gr_passwd", "gr_gid", "gr_mem" };
	static const char *const hints[] = { NULL, NULL, NULL,
					     " of members, comma separated (\"alice,bob\")" };
	uint32_t w[4] = { 0 };
	struct ms_group_rec rec;

	if (encode_fields(ps, v, "group", names, hints, 4, 1u << 2, w))
		return -1;
	rec = (struct ms_group_rec){ w[0], w[1], w[2], w[3] };
	return pool_store(ps, &rec, sizeof(rec), off);
}

static int compile_output(struct parser *ps, const struct ms_fn_meta *m, struct arg *a,
			  int *have_bytes, uint8_t *given)
{
	int pi = ms_catalog_param(m, a->key, a->key_n);
	const struct ms_out_desc *od;
	struct ms_out o;

	memset(&o, 0, sizeof(o));
	if (pi < 0) {
		char list[200];

		param_list(m, list, sizeof(list));
		return fail_at(ps, a->line, a->col,
			       "%s() has no parameter '%.*s' (parameters: %s; options: errno, in, from, delay)",
			       m->name, (int)a->key_n, a->key, list);
	}
	od = find_out(m, pi);
	if (!od)
		return fail_at(ps, a->line, a->col, "'%s' is not an output parameter of %s()",
			       m->params[pi].name, m->name);
	if (given[pi])
		return fail_at(ps, a->line, a->col, "output '%s' given twice", m->params[pi].name);
	given[pi] = 1;
	o.param = (uint8_t)pi;
	o.cap1 = od->cap1;
	o.cap2 = od->cap2;
	switch (od->kind) {
	case MS_OK_BYTES:
	case MS_OK_STR:
		if (a->deref)
			return fail_at(ps, a->line, a->col,
				       "'%s' is a buffer: write %s=\"...\" without '*'",
				       m->params[pi].name, m->params[pi].name);
		if (a->v.kind != V_STR)
			return fail_at(ps, a->v.line, a->v.col, "'%s' needs a string, not %s",
				       m->params[pi].name, kind_name(a->v.kind));
		o.kind = od->kind == MS_OK_STR ? MS_O_STR : MS_O_BYTES;
		o.data = a->v.str;
		o.len = a->v.len;
		*have_bytes = 1;
		break;
	case MS_OK_STRUCT: {
		const struct ms_struct_desc *sd = ms_spec_struct_find(ps->spec, od->strct);
		char bytes[1024];
		struct str_fix fix[MAX_FIELDS];
		unsigned nfix = 0;

		if (strcmp(od->strct, "addrinfo") == 0) {
			if (!a->deref)
				return fail_at(ps, a->line, a->col,
					       "write *%s={\"10.1.2.3\", \"::1\"}", m->params[pi].name);
			if (encode_addrinfo(ps, &a->v, &o))
				return -1;
			break;
		}
		if (strcmp(od->strct, "revents") == 0) {
			int16_t ev[MAX_FIELDS];

			if (!a->deref || a->v.kind != V_STRUCT || a->v.nfields == 0)
				return fail_at(ps, a->line, a->col,
					       "write *%s={POLLIN, 0, ...}: the revents of each entry",
					       m->params[pi].name);
			for (unsigned k = 0; k < a->v.nfields; k++) {
				const struct field *f = &a->v.fields[k];

				if (f->name || f->v->kind != V_INT || f->v->i < 0 || f->v->i > 0x7fff)
					return fail_at(ps, f->v->line, f->v->col,
						       "revents are POLL* flags joined with '|', or 0");
				ev[k] = (int16_t)f->v->i;
			}
			o.kind = MS_O_REVENTS;
			o.cap1 = (uint8_t)(pi + 1); /* nfds */
			o.len = a->v.nfields * (uint32_t)sizeof(ev[0]);
			if (pool_store(ps, ev, o.len, &o.data))
				return -1;
			*have_bytes = 1;
			break;
		}
		if (strcmp(od->strct, "sockaddr") == 0) {
			if (!a->deref)
				return fail_at(ps, a->line, a->col, "write *%s=\"127.0.0.1:8080\"",
					       m->params[pi].name);
			if (encode_sockaddr(ps, &a->v, &o))
				return -1;
			o.cap1 = (uint8_t)(pi + 1); /* the socklen_t * after it */
			break;
		}
		if (strcmp(od->strct, "passwd_r") == 0) {
			if (!a->deref || a->v.kind != V_STRUCT)
				return fail_at(ps, a->line, a->col,
					       "write *%s={.pw_name = \"...\", .pw_uid = N, ...}",
					       m->params[pi].name);
			if (encode_passwd(ps, &a->v, &o.data))
				return -1;
			o.kind = MS_O_PASSWD_R;
			o.len = sizeof(struct ms_passwd_rec);
			break;
		}
		if (!a->deref)
			return fail_at(ps, a->line, a->col,
				       "'%s' points to a struct %s: write *%s={...}",
				       m->params[pi].name, od->strct, m->params[pi].name);
		if (!sd && m->declared)
			return fail_at(ps, a->line, a->col,
				       "struct %s is not declared: add struct %s { TYPE FIELD; ... } "
				       "before this statement",
				       od->strct, od->strct);
		if (!sd || sd->size > sizeof(bytes))
			return fail_at(ps, a->line, a->col, "struct %s literals are not supported",
				       od->strct);
		if (a->v.kind != V_STRUCT)
			return fail_at(ps, a->v.line, a->v.col,
				       "'*%s' needs a struct %s literal {...}, not %s",
				       m->params[pi].name, od->strct, kind_name(a->v.kind));
		if (encode_struct(ps, &a->v, sd, bytes, fix, &nfix))
			return -1;
		o.kind = MS_O_STORE;
		o.len = sd->size;
		if (pool_store(ps, bytes, sd->size, &o.data) || add_out(ps, &o))
			return -1;
		/* then its string fields, which point into the pool */
		for (unsigned k = 0; k < nfix; k++) {
			o.kind = MS_O_POOLPTR;
			o.len = fix[k].off;
			o.data = fix[k].str;
			if (add_out(ps, &o))
				return -1;
		}
		return 0;
	}
	case MS_OK_STRPTR:
		if (!a->deref)
			return fail_at(ps, a->line, a->col, "write *%s=\"...\" (or NULL)",
				       m->params[pi].name);
		if (a->v.kind == V_STR) {
			/* char **: the caller owns a copy; const char **: ours */
			o.kind = od->owned ? MS_O_STRDUP : MS_O_POOLPTR;
			o.data = a->v.str;
			o.len = 0;
		} else if (a->v.kind == V_NULL) {
			uint64_t zero = 0;

			o.kind = MS_O_STORE;
			o.len = 8;
			if (pool_store(ps, &zero, 8, &o.data))
				return -1;
		} else {
			return fail_at(ps, a->v.line, a->v.col, "'*%s' needs a string or NULL, not %s",
				       m->params[pi].name, kind_name(a->v.kind));
		}
		break;
	case MS_OK_SCALAR: {
		int64_t x = a->v.i;

		if (!a->deref)
			return fail_at(ps, a->line, a->col, "write *%s=VALUE", m->params[pi].name);
		if (od->dbl && (a->v.kind == V_DBL || a->v.kind == V_INT)) {
			double d = a->v.kind == V_DBL ? a->v.d : (double)a->v.i;

			memcpy(&x, &d, 8);
		} else if (m->declared && a->v.kind == V_NULL && od->size == 8) {
			x = 0; /* a pointer */
		} else if (a->v.kind != V_INT && a->v.kind != V_BOOL) {
			return fail_at(ps, a->v.line, a->v.col, "'*%s' needs %s, not %s",
				       m->params[pi].name, od->dbl ? "a number" : "an integer",
				       kind_name(a->v.kind));
		} else if (m->declared && od->size < 8) {
			struct ms_type t = { .tclass = MS_T_UINT, .size = od->size };

			snprintf(t.text, sizeof(t.text), "a %u-byte integer", (unsigned)od->size);
			if (check_int_range(ps, &a->v, &t, "value"))
				return -1;
		}
		o.kind = MS_O_STORE;
		o.len = od->size;
		o.data = ms_spec_str(ps->spec, (const char *)&x, od->size); /* little endian */
		if (!o.data) {
			ps->err = -ENOMEM;
			return -1;
		}
		break;
	}
	default:
		return fail_at(ps, a->line, a->col, "catalog error: bad output for %s()", m->name);
	}
	return add_out(ps, &o);
}

static int compile_expect(struct parser *ps, const struct stmt_kind *sk, const struct ms_fn_meta *m,
			  struct stmt *st, struct arg **pos, unsigned npos, uint32_t in_glob,
			  uint32_t from_glob);
static int compile_order(struct parser *ps, const struct stmt_kind *sk, struct stmt *st, int fn,
			 struct arg **pos, unsigned npos, uint32_t in_glob, uint32_t from_glob);

static int is_int_class(const struct ms_type *t);

/* An integer parameter that holds a file descriptor: ~ matches its path. */
static int is_fd_param(const struct ms_param *p)
{
	size_t n = strlen(p->name);

	return n >= 2 && ((p->name[n - 2] == 'f' && p->name[n - 1] == 'd') ||
			  strncmp(p->name, "fd_", 3) == 0);
}

/* when(...): the statement's conditions, appended to the spec. */
static int compile_conds(struct parser *ps, const struct stmt *st, const struct ms_fn_meta *m,
			 uint32_t *first, uint32_t *n)
{
	struct ms_spec *spec = ps->spec;
	char list[200];

	*first = spec->nconds;
	*n = 0;
	if (!st->has_when)
		return 0;
	if (m->handler)
		return fail_at(ps, st->when_line, st->when_col,
			       "%s() comes from a handler module: the shim never sees its arguments, "
			       "so when() cannot test them (test them in the handler)",
			       m->name);
	param_list(m, list, sizeof(list));
	for (unsigned i = 0; i < st->nconds; i++) {
		const struct cond_src *cs = &st->conds[i];
		const struct val *v = &cs->v;
		const char *op = cs->op;
		struct ms_cond c;
		const struct ms_param *p;
		int pi = ms_catalog_param(m, cs->param.s, cs->param.n), isint, isstr, isfd, isaddr, out;

		memset(&c, 0, sizeof(c));
		if (pi < 0)
			return fail_tok(ps, &cs->param, "%s() has no parameter '%.*s' (parameters: %s)",
					m->name, (int)cs->param.n, cs->param.s, list);
		if (v->kind == V_IDENT)
			return unknown_name(ps, v);
		p = &m->params[pi];
		out = find_out(m, pi) != NULL;
		isint = is_int_class(&p->type);
		isstr = p->type.tclass == MS_T_STR && !out;
		isfd = isint && is_fd_param(p);
		isaddr = p->type.tclass == MS_T_PTR && !out && strstr(p->type.text, "sockaddr");
		c.param = (uint8_t)pi;
		c.psize = isint && (p->type.size == 1 || p->type.size == 2 || p->type.size == 4)
				  ? p->type.size : 8;
		c.psigned = p->type.tclass == MS_T_INT;
		if (p->type.tclass == MS_T_DOUBLE)
			return fail_tok(ps, &cs->param,
					"'%s' is a double: when() tests integers, strings, fds and "
					"addresses",
					p->name);
		if (!strcmp(op, "==") || !strcmp(op, "!=")) {
			int eq = op[0] == '=';

			if (v->kind == V_NULL && !isint) {
				c.op = eq ? MS_C_ISNULL : MS_C_NOTNULL;
				c.arg = isaddr ? MS_CA_ADDR : MS_CA_STR;
			} else if (v->kind == V_STR && (isstr || isaddr)) {
				c.op = eq ? MS_C_STREQ : MS_C_STRNE;
				c.arg = isaddr ? MS_CA_ADDR : MS_CA_STR;
				c.str = v->str;
			} else if (isint && (v->kind == V_INT || v->kind == V_BOOL)) {
				if (check_int_range(ps, v, &p->type, "value"))
					return -1;
				c.op = eq ? MS_C_EQ : MS_C_NE;
				c.value = v->i;
			} else if (isint) {
				return fail_at(ps, v->line, v->col,
					       "'%s' is %s: %s takes an integer, not %s", p->name,
					       p->type.text, op, kind_name(v->kind));
			} else {
				return fail_at(ps, v->line, v->col,
					       "'%s' is %s%s: %s takes %s or NULL, not %s", p->name,
					       p->type.text, out ? " (an output)" : "", op,
					       isstr || isaddr ? "a string" : "NULL", kind_name(v->kind));
			}
		} else if (op[0] == '<' || op[0] == '>') {
			if (!isint)
				return fail_at(ps, cs->op_line, cs->op_col,
					       "'%s' compares integers; '%s' is %s", op, p->name,
					       p->type.text);
			if (v->kind != V_INT)
				return fail_at(ps, v->line, v->col, "'%s' takes an integer, not %s", op,
					       kind_name(v->kind));
			if (check_int_range(ps, v, &p->type, "value"))
				return -1;
			if (p->type.tclass == MS_T_UINT && v->i < 0)
				return fail_at(ps, v->line, v->col,
					       "'%s' is %s: no value of it is %s %lld", p->name,
					       p->type.text, op, (long long)v->i);
			c.op = !strcmp(op, "<") ? MS_C_LT : !strcmp(op, "<=") ? MS_C_LE
			       : !strcmp(op, ">") ? MS_C_GT : MS_C_GE;
			c.value = v->i;
		} else if (op[0] == '~' || !strcmp(op, "!~")) {
			if (!isstr && !isfd && !isaddr)
				return fail_at(ps, cs->op_line, cs->op_col,
					       "'%s' matches strings, fd parameters by their path and socket "
					       "addresses; '%s' is %s%s",
					       op, p->name, p->type.text,
					       out ? ", an output of the call" : isint ? ", not an fd" : "");
			if (v->kind != V_STR)
				return fail_at(ps, v->line, v->col, "'%s' takes a glob string, not %s", op,
					       kind_name(v->kind));
			c.op = op[0] == '~' ? MS_C_GLOB : MS_C_NOGLOB;
			c.arg = isstr ? MS_CA_STR : isfd ? MS_CA_FD : MS_CA_ADDR;
			c.str = v->str;
			c.gform = (uint8_t)ms_glob_form(ps->spec->pool + v->str, &c.glen);
		} else if (!strcmp(op, "&") || !strcmp(op, "!&")) {
			if (!isint)
				return fail_tok(ps, &cs->param, "'&' tests the bits of an integer; '%s' is %s",
						p->name, p->type.text);
			if (v->kind != V_INT)
				return fail_at(ps, v->line, v->col, "'&' takes flags, not %s",
					       kind_name(v->kind));
			c.op = op[0] == '&' ? MS_C_ANYBITS : MS_C_NOBITS;
			c.value = v->i;
		} else {
			int64_t set[MAX_FIELDS];

			if (!isint)
				return fail_at(ps, cs->op_line, cs->op_col,
					       "'in' tests an integer against a set; '%s' is %s", p->name,
					       p->type.text);
			if (v->kind != V_STRUCT || !v->nfields)
				return fail_at(ps, v->line, v->col, "'in' takes a set: {A, B, ...}");
			for (unsigned k = 0; k < v->nfields; k++) {
				const struct val *e = v->fields[k].v;

				if (v->fields[k].name || (e->kind != V_INT && e->kind != V_BOOL))
					return fail_at(ps, e->line, e->col, "a set holds integers, not %s",
						       v->fields[k].name ? "a named field" : kind_name(e->kind));
				if (check_int_range(ps, e, &p->type, "value"))
					return -1;
				set[k] = e->i;
			}
			c.op = MS_C_IN;
			c.nset = v->nfields;
			if (pool_store(ps, set, 8 * v->nfields, &c.set))
				return -1;
		}
		if (ms_spec_grow(spec, (void **)&spec->conds, &spec->cap_conds, spec->nconds + 1,
				 sizeof(c)))
			return (ps->err = -ENOMEM), -1;
		spec->conds[spec->nconds++] = c;
	}
	*n = st->nconds;
	return 0;
}

/*
 * will_call_real(FN, PARAM=VALUE): the real function gets VALUE for
 * PARAM.  A relative path is made absolute here, in the directory of the
 * driver (or of the program, in standalone mode), as the user meant it.
 */
static int compile_rewrite(struct parser *ps, const struct ms_fn_meta *m, const struct arg *a)
{
	const struct ms_param *p;
	struct ms_out o;
	char list[200];
	int pi;

	memset(&o, 0, sizeof(o));
	o.cap1 = o.cap2 = MS_NONE8;
	param_list(m, list, sizeof(list));
	if (m->syscall)
		return fail_at(ps, a->line, a->col,
			       "will_call_real cannot replace an argument of a system call: the "
			       "kernel runs it with the caller's own registers");
	if (a->deref || m->handler || m->declared)
		return fail_at(ps, a->line, a->col,
			       m->handler || m->declared
				       ? "will_call_real replaces arguments of catalog functions only"
				       : "will_call_real replaces an argument (PARAM=VALUE), not what "
					 "it points to");
	pi = ms_catalog_param(m, a->key, a->key_n);
	if (pi < 0)
		return fail_at(ps, a->line, a->col,
			       "%s() has no parameter '%.*s' (parameters: %s; options: errno, in, "
			       "from, delay)",
			       m->name, (int)a->key_n, a->key, list);
	p = &m->params[pi];
	if (find_out(m, pi))
		return fail_at(ps, a->line, a->col,
			       "'%s' is an output of %s(): the real call writes it, there is nothing "
			       "to replace",
			       p->name, m->name);
	o.param = (uint8_t)pi;
	if (is_int_class(&p->type)) {
		if (a->v.kind != V_INT && a->v.kind != V_BOOL)
			return fail_at(ps, a->v.line, a->v.col, "'%s' is %s: expected an integer, not %s",
				       p->name, p->type.text, kind_name(a->v.kind));
		if (check_int_range(ps, &a->v, &p->type, "value"))
			return -1;
		o.kind = MS_O_ARG_INT;
		o.len = 8;
		if (pool_store(ps, &a->v.i, 8, &o.data))
			return -1;
	} else if (p->type.tclass == MS_T_STR) {
		const char *s;
		char path[4096];
		long n;

		/* the spec's string is read-only: a buffer the real call
		 * writes into (mktemp's template) cannot be it */
		if (strncmp(p->type.text, "const ", 6) != 0)
			return fail_at(ps, a->line, a->col,
				       "'%s' is %s: %s() may write into it, so it cannot be replaced "
				       "by the spec's string",
				       p->name, p->type.text, m->name);
		o.kind = MS_O_ARG_STR;
		if (a->v.kind == V_NULL)
			return add_out(ps, &o);
		if (a->v.kind != V_STR)
			return fail_at(ps, a->v.line, a->v.col, "'%s' is a string: expected a string or "
				       "NULL, not %s", p->name, kind_name(a->v.kind));
		s = ps->spec->pool + a->v.str;
		o.data = a->v.str;
		o.len = a->v.len;
		if (s[0] != '/' && strstr(p->name, "path") &&
		    (n = syscall(SYS_getcwd, path, sizeof(path))) > 0 &&
		    (size_t)n + 1 + a->v.len < sizeof(path)) {
			path[n - 1] = '/';
			memcpy(path + n, s, a->v.len + 1);
			o.data = ms_spec_str(ps->spec, path, (size_t)n + a->v.len);
			if (!o.data)
				return (ps->err = -ENOMEM), -1;
			o.len = (uint32_t)n + a->v.len;
		}
	} else if (p->type.tclass == MS_T_PTR && strstr(p->type.text, "sockaddr") &&
		   pi + 1 < (int)m->nparams) {
		if (encode_sockaddr(ps, &a->v, &o))
			return -1;
		o.kind = MS_O_ARG_ADDR;
		o.param = (uint8_t)pi;
		o.cap1 = (uint8_t)(pi + 1);
	} else {
		return fail_at(ps, a->line, a->col,
			       "%s() cannot have '%s' replaced: it is %s (integers, strings and "
			       "socket addresses can be)",
			       m->name, p->name, p->type.text);
	}
	return add_out(ps, &o);
}

static int compile(struct parser *ps, struct stmt *st)
{
	const struct stmt_kind *sk = NULL;
	const struct ms_fn_meta *m;
	struct ms_rule r;
	struct arg *pos[MAX_ARGS];
	unsigned npos = 0;
	int fn, have_bytes = 0, named = 0;
	uint8_t given[MS_MAX_PARAMS] = { 0 };
	uint32_t outs_first = ps->spec->nouts;
	struct val *value = NULL;

	sk = find_stmt_kind(ps, &st->name);
	if (!sk)
		return -1;
	if (st->nargs == 0)
		return fail_tok(ps, &st->name, "missing function name: %s", sk->usage);
	fn = ms_spec_find(ps->spec, st->fn.s, st->fn.n);
	if (fn < 0 && st->fn.n > 4 && memcmp(st->fn.s, "SYS_", 4) == 0) {
		char why[192];

		fn = ms_spec_syscall(ps->spec, st->fn.s, st->fn.n);
		if (fn == -ENOMEM) {
			ps->err = -ENOMEM;
			return -1;
		}
		if (fn < 0 && ms_syscall_absent(st->fn.s, st->fn.n, why, sizeof(why)))
			return fail_tok(ps, &st->fn, "%s", why);
		if (fn < 0)
			return fail_tok(ps, &st->fn,
					"unknown system call '%.*s': the syscall tier answers those "
					"mockrun --list syscall names",
					(int)st->fn.n, st->fn.s);
	}
	if (fn < 0)
		return fail_tok(ps, &st->fn,
				"unknown function '%.*s': not in the catalog (see mockrun --list) "
				"nor in a loaded module",
				(int)st->fn.n, st->fn.s);
	m = ms_spec_meta(ps->spec, (unsigned)fn);
	if (ps->spec->live && sk->type != ST_RULE)
		return fail_tok(ps, &st->name, "%.*s cannot be added to a running program: only replies "
					       "(will_return*, will_fail*, will_call_real) can",
				(int)st->name.n, st->name.s);
	if (ps->spec->live && (fn >= MS_FN_COUNT || !ps->spec->counted[fn]))
		return fail_tok(ps, &st->fn, "%s() cannot take a statement added live: %s", m->name,
				fn >= MS_FN_COUNT ? "only catalog functions can"
						  : "the allocator's functions are not armed under --control");

	memset(&r, 0, sizeof(r));
	r.fn = (uint32_t)fn;
	r.kind = sk->kind;
	r.count = sk->count;
	r.src = ps->src_off;
	r.line = st->name.line;
	r.col = st->name.col;
	r.rd_kind = MS_RD_NONE;

	/* Names that are no constant are only a parameter of expect_*. */
	for (unsigned i = 1; i < st->nargs; i++) {
		const struct val *v = &st->args[i].v;

		if (v->kind == V_IDENT && !(sk->type == ST_EXPECT && i == 1 && !st->args[i].key))
			return unknown_name(ps, v);
		for (unsigned k = 0; v->kind == V_STRUCT && k < v->nfields; k++)
			if (v->fields[k].v->kind == V_IDENT)
				return unknown_name(ps, v->fields[k].v);
	}

	/* Keyword arguments: options and outputs. */
	for (unsigned i = 1; i < st->nargs; i++) {
		struct arg *a = &st->args[i];

		if (!a->key) {
			if (named)
				return fail_at(ps, a->line, a->col,
					       "positional value after a named one: %s", sk->usage);
			pos[npos++] = a;
			continue;
		}
		named = 1;
		if (!a->deref && ((a->key_n == 2 && memcmp(a->key, "in", 2) == 0) ||
				  (a->key_n == 4 && memcmp(a->key, "from", 4) == 0))) {
			if (a->v.kind != V_STR || a->v.len == 0)
				return fail_at(ps, a->v.line, a->v.col,
					       "%.*s= needs a non-empty glob string, not %s",
					       (int)a->key_n, a->key, kind_name(a->v.kind));
			if (a->key_n == 4 && m->syscall)
				return fail_at(ps, a->line, a->col,
					       "from= names the object that calls a libc function: "
					       "a system call has none the supervisor can tell; use "
					       "in= or when()");
			if (a->key_n == 2)
				r.in_glob = a->v.str;
			else
				r.from_glob = a->v.str;
		} else if (sk->type != ST_RULE && !a->deref &&
			   ((a->key_n == 5 && memcmp(a->key, "errno", 5) == 0) ||
			    (a->key_n == 5 && memcmp(a->key, "delay", 5) == 0))) {
			/* an expectation checks a call and answers nothing: what
			 * it would set or wait for belongs to the reply */
			return fail_at(ps, a->line, a->col,
				       "%.*s takes no '%.*s=': an expectation checks the call and does not "
				       "answer it; put %.*s= on the will_* statement that replies "
				       "(will_call_real(%.*s, %.*s=...) for the real call)",
				       (int)st->name.n, st->name.s, (int)a->key_n, a->key, (int)a->key_n,
				       a->key, (int)st->fn.n, st->fn.s, (int)a->key_n, a->key);
		} else if (sk->type != ST_RULE) {
			return fail_at(ps, a->line, a->col,
				       "%.*s takes no '%.*s=' (only the options in= and from=)",
				       (int)st->name.n, st->name.s, (int)a->key_n, a->key);
		} else if (!a->deref && a->key_n == 5 && memcmp(a->key, "errno", 5) == 0) {
			if (a->v.kind != V_INT)
				return fail_at(ps, a->v.line, a->v.col,
					       "errno= needs an errno name or number, not %s",
					       kind_name(a->v.kind));
			if (a->v.i < 0 || a->v.i > 4095)
				return fail_at(ps, a->v.line, a->v.col, "errno %lld out of range",
					       (long long)a->v.i);
			r.flags |= MS_RF_ERRNO;
			r.err = (int32_t)a->v.i;
		} else if (!a->deref && a->key_n == 11 && memcmp(a->key, "probability", 11) == 0) {
			double p = a->v.kind == V_DBL ? a->v.d : a->v.kind == V_INT ? (double)a->v.i : -1;

			if (!(p > 0 && p <= 1))
				return fail_at(ps, a->v.line, a->v.col,
					       "probability= takes a number in (0, 1] or a percentage "
					       "(0.05, 5%%)");
			/* 1: every call, as without it */
			r.prob = p >= 1 ? 0 : (uint32_t)(p * 4294967296.0) ? (uint32_t)(p * 4294967296.0) : 1;
			ps->spec->has_prob |= p < 1;
		} else if (!a->deref && a->key_n == 5 && memcmp(a->key, "delay", 5) == 0) {
			if (a->v.kind != V_DUR)
				return fail_at(ps, a->v.line, a->v.col,
					       "delay= needs a duration with a unit (250ms, 2s, 10us)");
			r.delay_ns = (uint64_t)a->v.i;
		} else if (sk->kind == MS_R_REAL) {
			if (compile_rewrite(ps, m, a))
				return -1;
		} else if (m->handler) {
			return fail_at(ps, a->line, a->col,
				       "%s() comes from a handler module: its handler writes the outputs "
				       "(queue the values with will_return)",
				       m->name);
		} else if (compile_output(ps, m, a, &have_bytes, given)) {
			return -1;
		}
	}
	if (npos < sk->npos_min || npos > sk->npos_max)
		return fail_tok(ps, &st->name, "wrong number of arguments: %s", sk->usage);
	if (compile_conds(ps, st, m, &r.cond_first, &r.ncond))
		return -1;
	if (sk->type == ST_EXPECT) {
		if (compile_expect(ps, sk, m, st, pos, npos, r.in_glob, r.from_glob))
			return -1;
		ps->spec->expects[ps->spec->nexpects - 1].cond_first = r.cond_first;
		ps->spec->expects[ps->spec->nexpects - 1].ncond = r.ncond;
		return 0;
	}
	if (sk->type == ST_ORDER) {
		if (compile_order(ps, sk, st, fn, pos, npos, r.in_glob, r.from_glob))
			return -1;
		ps->spec->orders[ps->spec->norders - 1].cond_first = r.cond_first;
		ps->spec->orders[ps->spec->norders - 1].ncond = r.ncond;
		return 0;
	}

	if (m->handler && sk->kind != MS_R_RETURN)
		return fail_tok(ps, &st->name,
				"%s() comes from a handler module: its handler pops values that "
				"will_return queues (%.*s is for catalog functions)",
				m->name, (int)st->name.n, st->name.s);
	if (m->handler) {
		/* mock() pops untyped values: integers, booleans, strings, NULL;
		 * doubles for mock_double() */
		value = &pos[0]->v;
		if (sk->count == 0 && parse_count(ps, &pos[1]->v, 1, &r.count))
			return -1;
		if (value->kind == V_STR) {
			r.flags |= MS_RF_STRVAL;
			r.value_str = value->str;
		} else if (value->kind == V_INT || value->kind == V_BOOL || value->kind == V_NULL) {
			r.value = value->kind == V_NULL ? 0 : value->i;
		} else if (value->kind == V_DBL) {
			r.flags |= MS_RF_DOUBLE;
			memcpy(&r.value, &value->d, sizeof(r.value));
		} else {
			return fail_at(ps, value->line, value->col,
				       "mock() takes integers, booleans, doubles, strings and NULL, not %s",
				       kind_name(value->kind));
		}
	} else if (sk->kind == MS_R_RETURN) {
		value = &pos[0]->v;
		if (sk->count == 0 && parse_count(ps, &pos[1]->v, 1, &r.count))
			return -1;
		if (value->kind == V_PH) {
			r.flags |= MS_RF_DEFAULT;
			r.rd_kind = m->rd_kind;
			r.rd_param = m->rd_param;
			r.rd_div = m->rd_div;
			if (m->ret.tclass == MS_T_VOID) {
				r.rd_kind = MS_RD_CONST;
			} else if (m->rd_kind == MS_RD_NONE) {
				return fail_at(ps, value->line, value->col,
					       "'_' has no meaning for %s(): give the return value",
					       m->name);
			} else if (m->rd_kind == MS_RD_BYTES && !have_bytes) {
				return fail_at(ps, value->line, value->col,
					       "'_' stands for the number of bytes copied: give %s=\"...\"",
					       m->params[m->outs[0].param].name);
			} else if (m->rd_kind == MS_RD_CONST) {
				r.value = m->rd_const;
			}
		} else {
			switch (m->ret.tclass) {
			case MS_T_VOID:
				return fail_at(ps, value->line, value->col,
					       "%s() returns void: write will_return(%s, _)", m->name,
					       m->name);
			case MS_T_INT:
			case MS_T_UINT:
				if (value->kind != V_INT && value->kind != V_BOOL)
					return fail_at(ps, value->line, value->col,
						       "%s() returns %s: expected an integer, not %s",
						       m->name, m->ret.text, kind_name(value->kind));
				if (check_int_range(ps, value, &m->ret, "return value"))
					return -1;
				r.value = value->i;
				break;
			case MS_T_STR:
				if (value->kind == V_STR && m->rd_kind == MS_RD_PARAM)
					/* the caller owns and may edit the line it gets
					 * back: it must be its own buffer */
					return fail_at(ps, value->line, value->col,
						       "%s() returns its %s argument: write will_return(%s, _, %s=\"...\")",
						       m->name, m->params[m->rd_param].name, m->name,
						       m->params[m->rd_param].name);
				if (value->kind == V_STR) {
					r.flags |= MS_RF_STRVAL | (m->ret_owned ? MS_RF_OWNED : 0);
					r.value_str = value->str;
				} else if (value->kind != V_NULL) {
					return fail_at(ps, value->line, value->col,
						       "%s() returns %s: expected a string or NULL, not %s",
						       m->name, m->ret.text, kind_name(value->kind));
				}
				break;
			case MS_T_DOUBLE: {
				double d;

				if (value->kind != V_DBL && value->kind != V_INT)
					return fail_at(ps, value->line, value->col,
						       "%s() returns double: expected a number, not %s",
						       m->name, kind_name(value->kind));
				d = value->kind == V_DBL ? value->d : (double)value->i;
				memcpy(&r.value, &d, sizeof(d));
				r.flags |= MS_RF_DOUBLE;
				break;
			}
			case MS_T_PTR:
				if (m->declared && (value->kind == V_INT || value->kind == V_NULL)) {
					r.value = value->kind == V_NULL ? 0 : value->i;
					break;
				}
				if (value->kind == V_STRUCT && m->ret_passwd) {
					if (encode_passwd(ps, value, &r.value_str))
						return -1;
					r.flags |= MS_RF_PASSWD;
					break;
				}
				if (value->kind == V_STRUCT && m->ret_group) {
					if (encode_group(ps, value, &r.value_str))
						return -1;
					r.flags |= MS_RF_GROUP;
					break;
				}
				if (value->kind == V_STRUCT && m->ret_hostent) {
					struct ms_out ao;

					/* the addresses, as getaddrinfo's list */
					if (encode_addrinfo(ps, value, &ao))
						return -1;
					r.value_str = ao.data;
					r.value = ao.len / (uint32_t)sizeof(struct ms_addr);
					r.flags |= MS_RF_HOSTENT;
					break;
				}
				if (value->kind != V_NULL)
					return fail_at(ps, value->line, value->col,
						       "%s() returns %s: only NULL%s can be returned, not %s",
						       m->name, m->ret.text,
						       m->ret_passwd ? " or a {.pw_name = ...} literal"
						       : m->ret_group ? " or a {.gr_name = ...} literal"
						       : m->ret_hostent ? " or an address list {\"10.1.2.3\", ...}"
									: "",
						       kind_name(value->kind));
				break;
			}
		}
	} else if (sk->kind == MS_R_FAIL) {
		struct val *e = npos > 0 ? &pos[0]->v : NULL;
		int64_t code;

		if (m->fail_kind == MS_FK_NEVER)
			return fail_tok(ps, &st->fn, "%s() cannot fail: use will_return(%s, VALUE)",
					m->name, m->name);
		if (sk->count == 0 && parse_count(ps, &pos[1]->v, 1, &r.count))
			return -1;
		if (e && e->kind == V_PH)
			e = NULL;
		if (e && e->kind != V_INT)
			return fail_at(ps, e->line, e->col, "ERR must be an error name or number, not %s",
				       kind_name(e->kind));
		if (m->fail_kind == MS_FK_RC && m->fail_value < 0 && e && !ms_eai_name((int)e->i)) {
			/* getaddrinfo and getnameinfo return EAI_* codes, which
			 * are negative; an errno (ENOENT is 2) would come back
			 * as an unknown code */
			return fail_at(ps, e->line, e->col,
				       "%s() fails with an EAI_* code, not %lld (EAI_NONAME, EAI_AGAIN, "
				       "EAI_FAIL, EAI_MEMORY, EAI_SERVICE, EAI_FAMILY, EAI_SOCKTYPE, "
				       "EAI_BADFLAGS, EAI_OVERFLOW, EAI_NODATA, EAI_ADDRFAMILY, "
				       "EAI_SYSTEM with errno=)",
				       m->name, (long long)e->i);
		}
		if (m->fail_kind == MS_FK_RC) {
			r.value = e ? e->i : m->fail_value;
		} else {
			code = e ? e->i : m->fail_errno;
			if (e && (code < 0 || code > 4095))
				return fail_at(ps, e->line, e->col, "errno %lld out of range",
					       (long long)code);
			r.value = m->fail_value;
			if (e && (r.flags & MS_RF_ERRNO) && r.err != (int32_t)code)
				return fail_at(ps, e->line, e->col,
					       "will_fail's error and errno= disagree (%lld and %d): give one",
					       (long long)code, r.err);
			if (code && !(r.flags & MS_RF_ERRNO)) {
				r.flags |= MS_RF_ERRNO;
				r.err = (int32_t)code;
			}
		}
		for (unsigned i = 0; i < m->nouts; i++) {
			if (m->outs[i].kind == MS_OK_FERROR) {
				struct ms_out o = { .kind = MS_O_FERROR, .param = m->outs[i].param,
						    .cap1 = MS_NONE8, .cap2 = MS_NONE8 };

				if (add_out(ps, &o))
					return -1;
			}
		}
	} else if (npos == 1 && parse_count(ps, &pos[0]->v, 1, &r.count)) {
		return -1;
	}
	/* Outputs every mocked reply writes, like libc (time's *tloc). */
	if (sk->kind != MS_R_REAL) {
		for (unsigned i = 0; i < m->nouts; i++) {
			const struct ms_out_desc *od = &m->outs[i];

			if (od->kind == MS_OK_SCALAR && od->mirror_ret && !given[od->param]) {
				struct ms_out o = { .kind = MS_O_RETSTORE, .param = od->param,
						    .cap1 = MS_NONE8, .cap2 = MS_NONE8,
						    .len = od->size };

				if (add_out(ps, &o))
					return -1;
			}
			/* getpw*_r with no entry given: *result = NULL, as
			 * glibc's "not found" and failures leave it */
			if (od->kind == MS_OK_STRUCT && strcmp(od->strct, "passwd_r") == 0 &&
			    !given[od->param]) {
				struct ms_out o = { .kind = MS_O_PASSWD_R, .param = od->param,
						    .cap1 = MS_NONE8, .cap2 = MS_NONE8 };

				if (add_out(ps, &o))
					return -1;
			}
		}
	}
	r.outs_first = outs_first;
	r.nouts = ps->spec->nouts - outs_first;
	r.text = ms_spec_str(ps->spec, st->start, (size_t)(st->stop - st->start));
	if (!r.text) {
		ps->err = -ENOMEM;
		return -1;
	}
	if (ms_spec_grow(ps->spec, (void **)&ps->spec->rules, &ps->spec->cap_rules, ps->spec->nrules + 1,
		 sizeof(r))) {
		ps->err = -ENOMEM;
		return -1;
	}
	ps->spec->rules[ps->spec->nrules++] = r;
	return 0;
}

static uint32_t stmt_text(struct parser *ps, const struct stmt *st)
{
	uint32_t off = ms_spec_str(ps->spec, st->start, (size_t)(st->stop - st->start));

	if (!off)
		ps->err = -ENOMEM;
	return off;
}

static int is_int_class(const struct ms_type *t)
{
	return t->tclass == MS_T_INT || t->tclass == MS_T_UINT;
}

static int compile_expect(struct parser *ps, const struct stmt_kind *sk, const struct ms_fn_meta *m,
			  struct stmt *st, struct arg **pos, unsigned npos, uint32_t in_glob,
			  uint32_t from_glob)
{
	struct ms_spec *spec = ps->spec;
	struct ms_expect x;
	const struct val *pv = &pos[0]->v, *v = npos > 1 ? &pos[1]->v : NULL;
	const struct ms_param *p;
	char list[200];
	int pi;

	memset(&x, 0, sizeof(x));
	param_list(m, list, sizeof(list));
	if (pv->kind != V_IDENT)
		return fail_at(ps, pv->line, pv->col,
			       "expected a parameter name of %s() (parameters: %s)", m->name, list);
	pi = ms_catalog_param(m, pv->name, pv->name_n);
	if (pi < 0)
		return fail_at(ps, pv->line, pv->col, "%s() has no parameter '%.*s' (parameters: %s)",
			       m->name, (int)pv->name_n, pv->name, list);
	p = &m->params[pi];
	x.fn = (uint32_t)ms_spec_find(ps->spec, m->name, strlen(m->name));
	x.kind = (uint8_t)sk->kind;
	x.param = (uint8_t)pi;
	x.psize = p->type.size == 4 || p->type.size == 2 || p->type.size == 1 ? p->type.size : 8;
	x.psigned = p->type.tclass == MS_T_INT;
	x.count = sk->count;
	if (sk->count == 0 && parse_count(ps, &pos[npos - 1]->v, 1, &x.count))
		return -1;
	if (p->type.tclass == MS_T_DOUBLE && sk->kind != MS_X_VALUE && sk->kind != MS_X_NOT_VALUE &&
	    sk->kind != MS_X_ANY)
		return fail_at(ps, pv->line, pv->col,
			       "'%s' is a double: expect_value, expect_not_value and expect_any "
			       "take it",
			       p->name);
	switch (sk->kind) {
	case MS_X_VALUE:
	case MS_X_NOT_VALUE:
		if (p->type.tclass == MS_T_DOUBLE) {
			double d;

			if (v->kind != V_DBL && v->kind != V_INT)
				return fail_at(ps, v->line, v->col, "'%s' is a double: expected a number, not %s",
					       p->name, kind_name(v->kind));
			/* compared bit for bit: 0.1 is what the program's 0.1 is */
			d = v->kind == V_DBL ? v->d : (double)v->i;
			memcpy(&x.lo, &d, sizeof(d));
		} else if (is_int_class(&p->type)) {
			if (v->kind != V_INT && v->kind != V_BOOL)
				return fail_at(ps, v->line, v->col, "'%s' is %s: expected an integer, not %s",
					       p->name, p->type.text, kind_name(v->kind));
			if (check_int_range(ps, v, &p->type, "value"))
				return -1;
			x.lo = v->i;
		} else if (v->kind == V_NULL) {
			x.lo = 0;
		} else if (v->kind == V_INT) {
			x.lo = v->i;
		} else {
			return fail_at(ps, v->line, v->col,
				       "'%s' is %s: expected NULL or an address, not %s%s", p->name,
				       p->type.text, kind_name(v->kind),
				       v->kind == V_STR ? " (use expect_string or expect_memory)" : "");
		}
		break;
	case MS_X_STRING:
	case MS_X_NOT_STRING:
	case MS_X_MEMORY:
	case MS_X_NOT_MEMORY:
		if (is_int_class(&p->type))
			return fail_at(ps, pv->line, pv->col, "'%s' is %s, not a pointer: use expect_value",
				       p->name, p->type.text);
		if (v->kind != V_STR)
			return fail_at(ps, v->line, v->col, "expected a string, not %s", kind_name(v->kind));
		x.data = v->str;
		x.len = v->len;
		if (sk->kind == MS_X_STRING || sk->kind == MS_X_NOT_STRING) {
			if (memchr(spec->pool + v->str, '\0', v->len))
				return fail_at(ps, v->line, v->col,
					       "the string has a NUL byte: use expect_memory");
			if (v->len >= MS_STRING_BOUND)
				return fail_at(ps, v->line, v->col, "strings are compared up to %d bytes",
					       MS_STRING_BOUND - 1);
		} else {
			const struct val *n = &pos[2]->v;

			if (n->kind != V_INT || n->i < 1 || n->i > (int64_t)v->len)
				return fail_at(ps, n->line, n->col,
					       "SIZE must be 1..%u, the length of the bytes given", v->len);
			x.len = (uint32_t)n->i;
		}
		break;
	case MS_X_RANGE:
	case MS_X_NOT_RANGE: {
		const struct val *hi = &pos[2]->v;

		if (!is_int_class(&p->type))
			return fail_at(ps, pv->line, pv->col, "'%s' is %s, not an integer", p->name,
				       p->type.text);
		if (v->kind != V_INT || hi->kind != V_INT)
			return fail_at(ps, (v->kind != V_INT ? v : hi)->line,
				       (v->kind != V_INT ? v : hi)->col, "MIN and MAX must be integers");
		if (check_int_range(ps, v, &p->type, "MIN") || check_int_range(ps, hi, &p->type, "MAX"))
			return -1;
		if (v->i > hi->i)
			return fail_at(ps, v->line, v->col, "MIN %lld is greater than MAX %lld",
				       (long long)v->i, (long long)hi->i);
		x.lo = v->i;
		x.hi = hi->i;
		break;
	}
	case MS_X_SET:
	case MS_X_NOT_SET: {
		int64_t vals[MAX_FIELDS];

		if (v->kind != V_STRUCT || v->nfields == 0)
			return fail_at(ps, v->line, v->col, "expected a set of integers {A, B, ...}");
		for (unsigned k = 0; k < v->nfields; k++) {
			const struct field *f = &v->fields[k];

			if (f->name)
				return fail_at(ps, f->line, f->col, "a set has no field names");
			if (f->v->kind == V_NULL && !is_int_class(&p->type)) {
				vals[k] = 0;
				continue;
			}
			if (f->v->kind != V_INT && f->v->kind != V_BOOL)
				return fail_at(ps, f->v->line, f->v->col, "set members must be integers, not %s",
					       kind_name(f->v->kind));
			if (is_int_class(&p->type) && check_int_range(ps, f->v, &p->type, "set member"))
				return -1;
			vals[k] = f->v->i;
		}
		x.data = ms_spec_str(spec, (const char *)vals, v->nfields * sizeof(vals[0]));
		if (!x.data) {
			ps->err = -ENOMEM;
			return -1;
		}
		x.len = v->nfields;
		break;
	}
	default:
		break;
	}
	x.in_glob = in_glob;
	x.from_glob = from_glob;
	x.src = ps->src_off;
	x.line = st->name.line;
	x.col = st->name.col;
	x.text = stmt_text(ps, st);
	if (!x.text)
		return -1;
	if (ms_spec_grow(spec, (void **)&spec->expects, &spec->cap_expects, spec->nexpects + 1, sizeof(x))) {
		ps->err = -ENOMEM;
		return -1;
	}
	spec->expects[spec->nexpects++] = x;
	return 0;
}

static int compile_order(struct parser *ps, const struct stmt_kind *sk, struct stmt *st, int fn,
			 struct arg **pos, unsigned npos, uint32_t in_glob, uint32_t from_glob)
{
	struct ms_spec *spec = ps->spec;
	struct ms_order o;

	memset(&o, 0, sizeof(o));
	o.fn = (uint32_t)fn;
	o.kind = sk->kind;
	o.count = sk->count;
	if (sk->count == 0 && parse_count(ps, &pos[npos - 1]->v, 0, &o.count))
		return -1;
	o.in_glob = in_glob;
	o.from_glob = from_glob;
	o.src = ps->src_off;
	o.line = st->name.line;
	o.col = st->name.col;
	o.text = stmt_text(ps, st);
	if (!o.text)
		return -1;
	if (ms_spec_grow(spec, (void **)&spec->orders, &spec->cap_orders, spec->norders + 1, sizeof(o))) {
		ps->err = -ENOMEM;
		return -1;
	}
	spec->orders[spec->norders++] = o;
	return 0;
}

/*
 * `mock RET NAME(PARAMS)` and `struct NAME { ... }`: C declarations, read
 * as text up to the end of the statement (a new line or ';' outside the
 * parentheses, the closing brace of a struct) by declare.c.
 */
static int parse_decl(struct parser *ps, int is_struct)
{
	const char *s = ps->p, *q = s, *at, *open = NULL;
	char msg[320] = "", *text;
	size_t off = 0, n;
	int depth = 0, r;

	for (; q < ps->end; q++) {
		if (*q == '#') {
			/* a comment, to the end of its line */
			if (depth <= 0)
				break;
			while (q + 1 < ps->end && q[1] != '\n')
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
		ps->err = -ENOMEM;
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
		ps->err = -ENOMEM;
		return -1;
	}
fail:
	/* lines and columns: of the error, then of the end */
	at = r ? s + off : q;
	for (const char *c = s; c < at; c++)
		if (*c == '\n') {
			ps->line++;
			ps->line_start = c + 1;
		}
	if (r)
		return fail_at(ps, ps->line, (uint32_t)(at - ps->line_start) + 1, "%s", msg);
	ps->p = q;
	return next(ps);
}

/* module "path.so": the driver loads it and declares its functions. */
static int parse_module(struct parser *ps, char *scratch)
{
	struct tok *t = &ps->tok;
	struct tok kw = *t;
	char msg[256] = "";
	size_t len = 0;

	if (next(ps))
		return -1;
	if (t->type != T_STR)
		return fail_tok(ps, t, "expected the module's path in double quotes: module \"x.so\"");
	if (decode_str(ps, t, scratch, &len, MAX_STR - 1))
		return -1;
	scratch[len] = '\0';
	if (!ps->spec->module_fn)
		return fail_tok(ps, &kw, "handler modules cannot be loaded here (use mockrun -m)");
	if (ps->spec->module_fn(ps->spec->module_ctx, ps->src, scratch, msg, sizeof(msg)) != 0)
		return fail_tok(ps, t, "module \"%s\": %s", scratch, msg);
	return next(ps);
}

/* ---- fake_time(WHEN [, rate=R] [, clocks=...] [, stat=BOOL] [, in=GLOB]) ---- */

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian). */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
	int64_t era;
	unsigned yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = (unsigned)(y - era * 400);
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

/* n digits at s as a number, or -1. */
static int64_t digits(const char *s, const char *e, unsigned n)
{
	int64_t v = 0;

	if ((size_t)(e - s) < n)
		return -1;
	for (unsigned i = 0; i < n; i++) {
		if (!is_digit((unsigned char)s[i]))
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

/* A decimal number at *p ("1", "1.5"): its value in units of 1e-9, or
 * -1; *p moves past it. */
static int64_t decimal_nano(const char **p, const char *e)
{
	const char *s = *p;
	int64_t whole = 0, frac = 0, scale = 1000000000;

	if (s == e || !is_digit((unsigned char)*s))
		return -1;
	while (s < e && is_digit((unsigned char)*s)) {
		if (whole > 1000000000000ll)
			return -1;
		whole = whole * 10 + (*s++ - '0');
	}
	if (s < e && *s == '.') {
		s++;
		if (s == e || !is_digit((unsigned char)*s))
			return -1;
		while (s < e && is_digit((unsigned char)*s)) {
			if (scale > 1)
				frac += (*s - '0') * (scale /= 10);
			s++;
		}
	}
	*p = s;
	return whole * 1000000000 + frac;
}

/*
 * WHEN into *ns (since the epoch, or an offset when *offset): NULL, or
 * why not with *at the offending byte.
 */
const char *ms_parse_when(const char *s, const char *e, int64_t *ns, int *offset, const char **at)
{
	const char *p = s;

	*offset = 0;
	*at = s;
	if (p == e)
		return "an empty time (\"2030-01-01 00:00:00\", \"@1700000000\" or \"+1d\")";
	if (*p == '@') {
		int neg = ++p < e && *p == '-';
		int64_t v;

		p += neg;
		*at = p;
		v = decimal_nano(&p, e);
		if (v < 0 || p != e) {
			*at = v < 0 ? *at : p;
			return "expected seconds since the epoch after '@' (\"@1700000000.25\")";
		}
		*ns = neg ? -v : v;
		return NULL;
	}
	if (*p == '+' || *p == '-') {
		static const struct { char u; int64_t ns; } units[] = {
			{ 'd', 86400000000000ll }, { 'h', 3600000000000ll },
			{ 'm', 60000000000ll }, { 's', 1000000000ll },
		};
		int neg = *p++ == '-';
		int64_t total = 0;
		size_t last = (size_t)-1;

		if (p == e) {
			*at = p;
			return "expected a duration after the sign (\"+1d\", \"-2h30m\", \"+1.5s\")";
		}
		while (p < e) {
			const char *num = p;
			int64_t v = decimal_nano(&p, e);
			size_t k;

			if (v < 0) {
				*at = num;
				return "expected a number (an offset is \"+1d\", \"-2h30m\", \"+90s\")";
			}
			for (k = 0; k < sizeof(units) / sizeof(units[0]); k++)
				if (p < e && *p == units[k].u)
					break;
			if (k == sizeof(units) / sizeof(units[0])) {
				*at = p;
				return "expected a unit: d, h, m or s (\"+1d\", \"-2h30m\", \"+90s\")";
			}
			if (last != (size_t)-1 && k <= last) {
				*at = p;
				return "units go from the largest to the smallest, once each (\"1d2h\")";
			}
			last = k;
			/* v is in 1e-9 of the unit */
			if (v / 1000000000 > INT64_MAX / units[k].ns / 2) {
				*at = num;
				return "offset too large";
			}
			total += v / 1000000000 * units[k].ns +
				 (int64_t)((double)(v % 1000000000) * ((double)units[k].ns / 1e9));
			p++;
		}
		*ns = neg ? -total : total;
		*offset = 1;
		return NULL;
	}
	{
		int64_t y = digits(p, e, 4), mo, d, h = 0, mi = 0, sec = 0, frac = 0, zone = 0;
		static const unsigned mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };

		if (y < 0 || p + 4 >= e || p[4] != '-')
			return "expected a date \"YYYY-MM-DD[ HH:MM:SS[+HH:MM]]\", \"@SECONDS\" or an "
			       "offset \"+1d\"";
		p += 5;
		*at = p;
		mo = digits(p, e, 2);
		if (mo < 1 || mo > 12 || p + 2 >= e || p[2] != '-')
			return "expected the month, 01 to 12, then '-'";
		p += 3;
		*at = p;
		d = digits(p, e, 2);
		if (d < 1 || d > mdays[mo - 1] ||
		    (mo == 2 && d == 29 && (y % 4 || (y % 100 == 0 && y % 400))))
			return "no such day in that month";
		p += 2;
		if (p < e && (*p == ' ' || *p == 'T')) {
			p++;
			*at = p;
			h = digits(p, e, 2);
			if (h < 0 || h > 23 || p + 2 >= e || p[2] != ':')
				return "expected the hour, 00 to 23, then ':'";
			p += 3;
			*at = p;
			mi = digits(p, e, 2);
			if (mi < 0 || mi > 59)
				return "expected the minutes, 00 to 59";
			p += 2;
			if (p < e && *p == ':') {
				p++;
				*at = p;
				sec = digits(p, e, 2);
				if (sec < 0 || sec > 60)
					return "expected the seconds, 00 to 60";
				p += 2;
				if (p < e && *p == '.') {
					p++;
					for (int64_t scale = 100000000; p < e && is_digit((unsigned char)*p);
					     p++, scale /= 10)
						frac += (*p - '0') * scale;
				}
			}
			*at = p;
			if (p < e && *p == 'Z') {
				p++;
			} else if (p < e && (*p == '+' || *p == '-')) {
				int64_t zh = digits(p + 1, e, 2), zm;

				if (zh < 0 || zh > 14 || p + 3 >= e || p[3] != ':' ||
				    (zm = digits(p + 4, e, 2)) < 0 || zm > 59)
					return "expected a zone +HH:MM or -HH:MM (or Z)";
				zone = (zh * 3600 + zm * 60) * (*p == '-' ? -1 : 1);
				p += 6;
			}
		}
		if (p != e) {
			*at = p;
			return *p == ' ' ? "no space before the zone (\"2030-01-01 00:00:00+02:00\")"
					 : "unexpected text after the time";
		}
		*ns = ((days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400 + h * 3600 + mi * 60 + sec -
			zone) * 1000000000) + frac;
		return NULL;
	}
}

static const char *const clock_list =
	"all, or CLOCK_REALTIME, CLOCK_REALTIME_COARSE, CLOCK_TAI, CLOCK_MONOTONIC, "
	"CLOCK_MONOTONIC_COARSE, CLOCK_MONOTONIC_RAW, CLOCK_BOOTTIME, or a list of them in {...}";

static int clock_bit(struct parser *ps, const struct val *v, uint32_t *mask)
{
	int k;

	if (v->kind == V_IDENT)
		return fail_at(ps, v->line, v->col, "unknown clock '%.*s': clocks= takes %s",
			       (int)v->name_n, v->name, clock_list);
	if (v->kind != V_INT || (k = ms_tclock_of((long)v->i)) < 0 || v->i < 0)
		return fail_at(ps, v->line, v->col, "clocks= takes %s", clock_list);
	*mask |= 1u << k;
	return 0;
}

static int parse_fake_time(struct parser *ps, struct stmt *st, char *scratch)
{
	struct tok *t = &ps->tok;
	struct ms_ftime ft;
	struct val when;
	const char *why, *at;
	int offset, has_when = 0;
	int64_t ns;

	memset(&ft, 0, sizeof(ft));
	ft.clocks = MS_TC_WALL;
	ft.rate = 1;
	ft.src = ps->src_off;
	ft.line = t->line;
	ft.col = t->col;
	st->start = t->s;
	st->nnested = 0;
	ps->st = st;
	if (next(ps))
		return -1;
	if (!is_punct(t, '('))
		return fail_tok(ps, t, "expected '(' after 'fake_time'");
	if (next(ps))
		return -1;
	while (!is_punct(t, ')')) {
		struct tok key = *t;
		struct val v;
		int keyed = 0;

		if (t->type == T_EOF)
			return fail_tok(ps, t, "missing ')'");
		if (t->type == T_IDENT) {
			const char *save_p = ps->p, *save_ls = ps->line_start;
			uint32_t save_line = ps->line;
			int save_depth = ps->depth;

			if (next(ps))
				return -1;
			if (is_punct(t, '=')) {
				keyed = 1;
				if (next(ps))
					return -1;
			} else {
				ps->p = save_p;
				ps->line_start = save_ls;
				ps->line = save_line;
				ps->depth = save_depth;
				*t = key;
			}
		}
		if (parse_value(ps, &v, st->fieldvals[0], scratch))
			return -1;
		if (!keyed) {
			if (has_when)
				return fail_at(ps, v.line, v.col,
					       "fake_time takes one time, then options (rate=, clocks=, "
					       "stat=, in=)");
			if (v.kind != V_STR)
				return fail_at(ps, v.line, v.col,
					       "fake_time needs a time string first: \"2030-01-01 "
					       "00:00:00\", \"@1700000000\" or \"+1d\"");
			when = v;
			has_when = 1;
		} else if (!has_when) {
			return fail_tok(ps, &key, "fake_time needs the time first: fake_time(\"2030-01-01\", "
					"%.*s=...)", (int)key.n, key.s);
		} else if (tok_is(&key, "rate")) {
			double r = v.kind == V_DBL ? v.d : v.kind == V_INT ? (double)v.i : -1;

			if (v.kind != V_DBL && v.kind != V_INT)
				return fail_at(ps, v.line, v.col, "rate= takes a number, not %s",
					       kind_name(v.kind));
			if (!(r >= 0 && r <= 1e6))
				return fail_at(ps, v.line, v.col,
					       "rate= takes a number from 0 (a frozen clock) to 1000000, "
					       "not %g", r);
			ft.rate = r;
		} else if (tok_is(&key, "clocks")) {
			ft.clocks = 0;
			if (v.kind == V_IDENT && v.name_n == 3 && memcmp(v.name, "all", 3) == 0) {
				ft.clocks = MS_TC_ALL;
			} else if (v.kind == V_STRUCT) {
				if (v.nfields == 0)
					return fail_at(ps, v.line, v.col, "clocks= takes %s", clock_list);
				for (unsigned k = 0; k < v.nfields; k++)
					if (v.fields[k].name ? fail_at(ps, v.fields[k].line, v.fields[k].col,
								       "clocks= takes %s", clock_list)
							     : clock_bit(ps, v.fields[k].v, &ft.clocks))
						return -1;
			} else if (clock_bit(ps, &v, &ft.clocks)) {
				return -1;
			}
		} else if (tok_is(&key, "stat")) {
			if (v.kind != V_BOOL)
				return fail_at(ps, v.line, v.col, "stat= takes true or false");
			ft.flags = v.i ? ft.flags | MS_FT_STAT : ft.flags & ~(uint32_t)MS_FT_STAT;
		} else if (tok_is(&key, "in")) {
			if (v.kind != V_STR || v.len == 0)
				return fail_at(ps, v.line, v.col, "in= needs a non-empty glob string, not %s",
					       kind_name(v.kind));
			ft.in_glob = v.str;
		} else {
			return fail_tok(ps, &key,
					"fake_time takes no '%.*s=' (only rate=, clocks=, stat= and in=)",
					(int)key.n, key.s);
		}
		if (is_punct(t, ',')) {
			if (next(ps))
				return -1;
		} else if (!is_punct(t, ')')) {
			return fail_tok(ps, t, "expected ',' or ')'");
		}
	}
	if (!has_when)
		return fail_tok(ps, t, "fake_time needs a time: fake_time(\"2030-01-01 00:00:00\")");
	st->stop = t->s + 1;
	if (next(ps))
		return -1;
	{
		const char *w = ps->spec->pool + when.str;

		why = ms_parse_when(w, w + when.len, &ns, &offset, &at);
		if (why) {
			/* the column of the byte, when the string has no escapes */
			uint32_t col = when.col + 1 + (uint32_t)(at - w);

			return fail_at(ps, when.line, col, "malformed time \"%.*s\": %s",
				       (int)(when.len > 60 ? 60 : when.len), w, why);
		}
	}
	for (uint32_t i = 0; i < ps->spec->nftimes; i++) {
		const struct ms_ftime *o = &ps->spec->ftimes[i];

		if ((!o->in_glob && !ft.in_glob) ||
		    (o->in_glob && ft.in_glob &&
		     strcmp(ps->spec->pool + o->in_glob, ps->spec->pool + ft.in_glob) == 0))
			return fail_at(ps, ft.line, ft.col,
				       "a second fake_time for the same processes (the first is at "
				       "%s:%u:%u): one clock per process",
				       ps->spec->pool + o->src, o->line, o->col);
	}
	ft.when_ns = ns;
	ft.flags |= offset ? MS_FT_OFFSET : 0;
	ft.when = when.str;
	ft.text = stmt_text(ps, st);
	if (!ft.text)
		return -1;
	if (ms_spec_grow(ps->spec, (void **)&ps->spec->ftimes, &ps->spec->cap_ftimes,
			 ps->spec->nftimes + 1, sizeof(ft))) {
		ps->err = -ENOMEM;
		return -1;
	}
	ps->spec->ftimes[ps->spec->nftimes++] = ft;
	return 0;
}

int ms_parse(struct ms_spec *spec, const char *src, const char *text, size_t len,
	     struct ms_diag *diag)
{
	struct parser ps;
	struct stmt *st = NULL;
	char *scratch = NULL;
	uint32_t nrules = spec->nrules, nouts = spec->nouts, pool_len = spec->pool_len;
	uint32_t nexpects = spec->nexpects, norders = spec->norders, ndyn = spec->ndyn;
	uint32_t nstructs = spec->nstructs, ndeclared = spec->ndeclared, nconds = spec->nconds;
	uint32_t nftimes = spec->nftimes;

	memset(&ps, 0, sizeof(ps));
	memset(diag, 0, sizeof(*diag));
	ps.spec = spec;
	ps.src = src;
	ps.text = ps.p = ps.line_start = text;
	ps.end = text + len;
	ps.line = 1;
	ps.diag = diag;
	st = spec->realloc_fn(NULL, sizeof(*st));
	scratch = spec->realloc_fn(NULL, MAX_STR);
	if (!st || !scratch) {
		ps.err = -ENOMEM;
		goto out;
	}
	ps.src_off = ms_spec_str(spec, src, strlen(src));
	if (!ps.src_off) {
		ps.err = -ENOMEM;
		goto out;
	}
	if (memchr(text, '\0', len)) {
		const char *z = memchr(text, '\0', len);
		uint32_t line = 1;
		const char *ls = text;

		for (const char *q = text; q < z; q++)
			if (*q == '\n')
				line++, ls = q + 1;
		fail_at(&ps, line, (uint32_t)(z - ls) + 1, "NUL byte in statement text");
		goto out;
	}
	if (next(&ps))
		goto out;
	while (ps.tok.type != T_EOF) {
		if (ps.tok.type == T_SEP) {
			if (next(&ps))
				goto out;
			continue;
		}
		if (ps.tok.type != T_IDENT) {
			fail_tok(&ps, &ps.tok, "expected a statement");
			goto out;
		}
		if (spec->live && (tok_is(&ps.tok, "module") || tok_is(&ps.tok, "mock") ||
				   tok_is(&ps.tok, "struct") || tok_is(&ps.tok, "fake_time"))) {
			fail_tok(&ps, &ps.tok, "%.*s cannot be added to a running program: only replies "
					       "(will_return*, will_fail*, will_call_real) can",
				 (int)ps.tok.n, ps.tok.s);
			goto out;
		}
		if (tok_is(&ps.tok, "module")) {
			if (parse_module(&ps, scratch))
				goto out;
		} else if (tok_is(&ps.tok, "mock") || tok_is(&ps.tok, "struct")) {
			if (parse_decl(&ps, ps.tok.s[0] == 's'))
				goto out;
		} else if (tok_is(&ps.tok, "fake_time")) {
			if (parse_fake_time(&ps, st, scratch))
				goto out;
		} else if (!find_stmt_kind(&ps, &ps.tok) || parse_stmt(&ps, st, scratch) ||
			   compile(&ps, st)) {
			goto out;
		}
		if (ps.tok.type != T_SEP && ps.tok.type != T_EOF) {
			fail_tok(&ps, &ps.tok, "expected ';' or a new line after the statement");
			goto out;
		}
	}
	spec->nsources++;
out:
	spec->free_fn(st);
	spec->free_fn(scratch);
	if (ps.err) {
		spec->nrules = nrules;
		spec->nouts = nouts;
		spec->nexpects = nexpects;
		spec->norders = norders;
		spec->nconds = nconds;
		spec->nftimes = nftimes;
		while (spec->ndyn > ndyn)
			spec->free_fn(spec->dyn[--spec->ndyn]);
		while (spec->nstructs > nstructs)
			spec->free_fn(spec->structs[--spec->nstructs]);
		spec->ndeclared = ndeclared;
		spec->pool_len = pool_len;
		if (ps.err == -ENOMEM && !diag->msg[0]) {
			snprintf(diag->msg, sizeof(diag->msg), "out of memory");
			diag->line = ps.tok.line;
			diag->col = ps.tok.col;
		}
	}
	return ps.err;
}

size_t ms_format_diag(char *buf, size_t cap, const char *src, const char *text, size_t len,
		      const struct ms_diag *d)
{
	const char *line = text, *end = text + len, *e;
	size_t n, off;
	int k;

	if (cap == 0)
		return 0;
	for (uint32_t l = 1; l < d->line && line < end; l++) {
		e = memchr(line, '\n', (size_t)(end - line));
		line = e ? e + 1 : end;
	}
	e = memchr(line, '\n', (size_t)(end - line));
	n = (size_t)((e ? e : end) - line);
	k = snprintf(buf, cap, "%s:%u:%u: error: %s\n", src, d->line, d->col, d->msg);
	off = k > 0 ? (size_t)k : 0;
	if (off >= cap)
		return cap - 1;
	/* the line, and a caret under the column (tabs kept to line up); of
	 * a line longer than SHOWN, a window around the column, so that
	 * the caret is under the token it names */
	{
		enum { SHOWN = 200 };
		size_t from = 0, col = d->col ? d->col - 1 : 0, upto;
		int cut_left;

		if (n > SHOWN && col > SHOWN / 2)
			from = col - SHOWN / 2 < n - SHOWN ? col - SHOWN / 2 : n - SHOWN;
		upto = from + SHOWN < n ? from + SHOWN : n;
		cut_left = from > 0;
		k = snprintf(buf + off, cap - off, "    %s%.*s%s\n    %s", cut_left ? "..." : "",
			     (int)(upto - from), line + from, upto < n ? "..." : "", cut_left ? "   " : "");
		off += k > 0 ? (size_t)k : 0;
		for (size_t c = from; c < col && c < upto && off + 2 < cap; c++)
			buf[off++] = line[c] == '\t' ? '\t' : ' ';
	}
	if (off + 2 < cap) {
		buf[off++] = '^';
		buf[off++] = '\n';
	}
	if (off >= cap)
		off = cap - 1;
	buf[off] = '\0';
	return off;
}
