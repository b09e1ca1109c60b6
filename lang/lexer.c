/* SPDX-License-Identifier: MIT */
/*
 * The statement language's lexer (lexer.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lexer.h"

void ms_lex_init(struct ms_lexer *lx, const char *text, size_t len, struct ms_diag *diag)
{
	memset(lx, 0, sizeof(*lx));
	memset(diag, 0, sizeof(*diag));
	lx->text = lx->p = lx->line_start = text;
	lx->end = text + len;
	lx->line = 1;
	lx->diag = diag;
}

int ms_fail_at(struct ms_lexer *lx, uint32_t line, uint32_t col, const char *fmt, ...)
{
	va_list ap;

	if (lx->err)
		return -1;
	lx->err = -EINVAL;
	lx->diag->line = line;
	lx->diag->col = col;
	va_start(ap, fmt);
	vsnprintf(lx->diag->msg, sizeof(lx->diag->msg), fmt, ap);
	va_end(ap);
	return -1;
}

void ms_lex_mark(const struct ms_lexer *lx, struct ms_lex_mark *m)
{
	m->p = lx->p;
	m->line_start = lx->line_start;
	m->line = lx->line;
	m->depth = lx->depth;
	m->tok = lx->tok;
}

void ms_lex_back(struct ms_lexer *lx, const struct ms_lex_mark *m)
{
	lx->p = m->p;
	lx->line_start = m->line_start;
	lx->line = m->line;
	lx->depth = m->depth;
	lx->tok = m->tok;
}

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

/* A number at p ("42", "0x1f", "1.5e3", "250ms", "5%"): the token t, and
 * the end of it; NULL when it is malformed (lx says why). */
static const char *lex_number(struct ms_lexer *lx, struct ms_tok *t, const char *p)
{
	char buf[64];
	const char *q = p;
	size_t n;
	char *endp;
	int dbl = 0;

	if (*q == '0' && q + 1 < lx->end && (q[1] == 'x' || q[1] == 'X')) {
		q += 2;
		while (q < lx->end && (is_digit(*q) || (*q >= 'a' && *q <= 'f') ||
				       (*q >= 'A' && *q <= 'F')))
			q++;
	} else {
		while (q < lx->end && (is_digit(*q) || *q == '.' ||
				       ((*q == 'e' || *q == 'E') && q + 1 < lx->end &&
					(is_digit(q[1]) || q[1] == '-' || q[1] == '+')) ||
				       ((*q == '-' || *q == '+') && (q[-1] == 'e' || q[-1] == 'E')))) {
			if (*q == '.' || *q == 'e' || *q == 'E')
				dbl = 1;
			q++;
		}
	}
	n = (size_t)(q - p);
	if (n >= sizeof(buf))
		return ms_fail_tok(lx, t, "number too long"), NULL;
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
			return ms_fail_tok(lx, t, "integer '%s' out of range", buf), NULL;
		t->ival = (int64_t)v;
	}
	if (*endp != '\0')
		return ms_fail_tok(lx, t, "invalid number '%s'", buf), NULL;
suffix:
	t->suffix = q;
	while (q < lx->end && is_alpha(*q))
		q++;
	if (q == t->suffix && q < lx->end && *q == '%')
		q++; /* probability=5% */
	t->suffix_n = (size_t)(q - t->suffix);
	return q;
}

int ms_lex_next(struct ms_lexer *lx)
{
	struct ms_tok *t = &lx->tok;
	const char *p = lx->p;

	if (t->s) {
		lx->prev_line = t->line;
		lx->prev_end = t->col + (uint32_t)t->n;
	}

	for (;;) {
		while (p < lx->end && (*p == ' ' || *p == '\t' || *p == '\r' ||
				       (lx->depth > 0 && *p == '\n'))) {
			if (*p == '\n') {
				lx->line++;
				lx->line_start = p + 1;
			}
			p++;
		}
		if (p < lx->end && *p == '#') {
			while (p < lx->end && *p != '\n')
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
	t->line = lx->line;
	t->col = (uint32_t)(p - lx->line_start) + 1;
	if (p >= lx->end) {
		t->type = T_EOF;
		lx->p = p;
		return 0;
	}
	if (*p == '\n' || *p == ';') {
		t->type = T_SEP;
		if (*p == '\n') {
			lx->line++;
			lx->line_start = p + 1;
		}
		t->n = 1;
		lx->p = p + 1;
		return 0;
	}
	if (is_alpha(*p)) {
		while (p < lx->end && char_class[(unsigned char)*p])
			p++;
		t->type = T_IDENT;
	} else if (is_digit(*p) || (*p == '.' && p + 1 < lx->end && is_digit(p[1]))) {
		p = lex_number(lx, t, p);
		if (!p)
			return -1;
	} else if (*p == '"') {
		p++;
		while (p < lx->end && *p != '"') {
			if (*p == '\n')
				return ms_fail_tok(lx, t, "unterminated string");
			if (*p == '\\')
				p++;
			p++;
		}
		if (p >= lx->end)
			return ms_fail_tok(lx, t, "unterminated string");
		p++;
		t->type = T_STR;
	} else if ((*p == '=' || *p == '!' || *p == '<' || *p == '>') && p + 1 < lx->end &&
		   p[1] == '=') {
		/* when(): ==, !=, <=, >= */
		t->type = T_OP;
		p += 2;
	} else if (*p == '!' && p + 1 < lx->end && p[1] == '~') {
		t->type = T_OP;
		p += 2;
	} else {
		switch (*p) {
		case '<': case '>': case '~': case '&': case '!':
			t->type = T_OP;
			break;
		case '(': case '{':
			lx->depth++;
			t->type = T_PUNCT;
			break;
		case ')': case '}':
			if (lx->depth > 0)
				lx->depth--;
			t->type = T_PUNCT;
			break;
		case ',': case '=': case '.': case '*': case '|': case '-':
			t->type = T_PUNCT;
			break;
		default:
			return ms_fail_tok(lx, t, "unexpected character '%c'", *p);
		}
		p++;
	}
	t->n = (size_t)(p - t->s);
	lx->p = p;
	return 0;
}

int ms_lex_list_next(struct ms_lexer *lx, char close, const char *msg)
{
	if (ms_tok_punct(&lx->tok, ','))
		return ms_lex_next(lx);
	if (!ms_tok_punct(&lx->tok, close))
		return ms_fail_tok(lx, &lx->tok, "%s", msg);
	return 0;
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
int ms_lex_str(struct ms_lexer *lx, const struct ms_tok *t, char *buf, size_t *len, size_t cap)
{
	const char *where = t->s, *why = ms_unescape(t->s + 1, t->s + t->n - 1, buf, len, cap, &where);

	if (!why)
		return 0;
	if (strcmp(why, "unknown escape") == 0)
		return ms_fail_at(lx, t->line, t->col + (uint32_t)(where - t->s), "unknown escape '\\%c'",
				  where[1]);
	if (strcmp(why, "string too long") == 0)
		return ms_fail_tok(lx, t, "string too long (at most %zu bytes)", cap);
	return ms_fail_at(lx, t->line, t->col + (uint32_t)(where - t->s), "%s", why);
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
