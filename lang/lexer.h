/* SPDX-License-Identifier: MIT */
/*
 * The statement language's lexer: tokens of a spec text, with their
 * line and column, and the first error found in it (struct ms_diag).
 * Runs in the driver and, in standalone mode, in the shim: no
 * allocation, no stdio but snprintf.
 */
#ifndef MS_LEXER_H
#define MS_LEXER_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Where and why a statement was rejected.  line/col are 1-based. */
struct ms_diag {
	uint32_t line, col;
	char msg[320];
};

enum tok_type { T_EOF, T_SEP, T_IDENT, T_INT, T_DBL, T_STR, T_PUNCT, T_OP };

struct ms_tok {
	enum tok_type type;
	const char *s;
	size_t n;
	uint32_t line, col;
	int64_t ival;
	double dval;
	const char *suffix;	/* T_INT: letters right after the digits */
	size_t suffix_n;
};

struct ms_lexer {
	const char *text, *end, *p;
	const char *line_start;
	uint32_t line;
	int depth;		/* ( and { nesting: newlines are blanks inside */
	struct ms_tok tok;	/* current token */
	uint32_t prev_line, prev_end;	/* where the token before it ended (line, column after it) */
	struct ms_diag *diag;
	int err;		/* the first error: -EINVAL (diag says why) or -ENOMEM */
};

/* A place in the text to come back to: one token of lookahead. */
struct ms_lex_mark {
	const char *p, *line_start;
	uint32_t line;
	int depth;
	struct ms_tok tok;
};

/* Starts lexing text (len bytes): no token read yet. */
void ms_lex_init(struct ms_lexer *lx, const char *text, size_t len, struct ms_diag *diag);
/* Reads the next token into lx->tok: 0, or -1 (lx->err). */
int ms_lex_next(struct ms_lexer *lx);
void ms_lex_mark(const struct ms_lexer *lx, struct ms_lex_mark *m);
/* Back to mark m, its token current again. */
void ms_lex_back(struct ms_lexer *lx, const struct ms_lex_mark *m);

/* Records the first error, at line:col: returns -1. */
int ms_fail_at(struct ms_lexer *lx, uint32_t line, uint32_t col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
#define ms_fail_tok(lx, t, ...) ms_fail_at(lx, (t)->line, (t)->col, __VA_ARGS__)

/* After an item of a list that close ends: past its ',', or at close;
 * else msg is the error.  0, or -1. */
int ms_lex_list_next(struct ms_lexer *lx, char close, const char *msg);
/* The token tests, inline: the reader makes several per token, and the
 * words are constants (their strlen folds). */
static inline int ms_tok_punct(const struct ms_tok *t, char c)
{
	return t->type == T_PUNCT && t->s[0] == c;
}

static inline int ms_tok_is(const struct ms_tok *t, const char *word)
{
	return t->type == T_IDENT && t->n == strlen(word) && memcmp(t->s, word, t->n) == 0;
}

static inline int ms_tok_op(const struct ms_tok *t, const char *op)
{
	return t->type == T_OP && t->n == strlen(op) && memcmp(t->s, op, t->n) == 0;
}

/* Decodes the string token t (with escapes) and appends it to buf
 * (*len bytes used, cap at most): 0, or -1 (lx->err). */
int ms_lex_str(struct ms_lexer *lx, const struct ms_tok *t, char *buf, size_t *len, size_t cap);

/*
 * C string escapes of the bytes [p, e) appended to buf (len bytes used, cap
 * at most).  NULL when done, else why, with *where at the offending byte.
 */
const char *ms_unescape(const char *p, const char *e, char *buf, size_t *len, size_t cap,
			const char **where);

/* "SRC:LINE:COL: error: MSG", the line and a caret, into buf (NUL-terminated);
 * returns the length.  text/len are what was parsed. */
size_t ms_format_diag(char *buf, size_t cap, const char *src, const char *text, size_t len,
		      const struct ms_diag *d);

#endif
