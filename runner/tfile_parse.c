/* SPDX-License-Identifier: MIT */
/*
 * Test files (*.mock, DESIGN.md section 4), read: blocks, their
 * directives and checks, and the statements each session parses.
 *
 * Statements keep their file positions: each session parses a copy of
 * the file in which every line that is not one of its statements is
 * blanked, so errors and reports name file:line:col of the real file.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include "catalog/catalog.h"
#include "channel/channel.h"
#include "lang/lang.h"
#include "expand.h"
#include "mockshim/driver.h"
#include "tfile.h"

/* ---- parsing ---- */

struct lexer {
	struct file *f;
	const char *p, *end;	/* the current line */
	uint32_t line;
	const char *line_start;
	char error[1024];
};

static int lex_error(struct lexer *lx, const char *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int lex_error(struct lexer *lx, const char *at, const char *fmt, ...)
{
	char msg[sizeof(((struct ms_diag *)0)->msg)];
	struct ms_diag d;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	memset(&d, 0, sizeof(d));
	d.line = lx->line;
	d.col = (uint32_t)(at - lx->line_start) + 1;
	memcpy(d.msg, msg, sizeof(d.msg));
	ms_format_diag(lx->error, sizeof(lx->error), lx->f->path, lx->f->text, lx->f->len, &d);
	return -1;
}

static const char *skip_ws(const char *p, const char *e)
{
	while (p < e && (*p == ' ' || *p == '\t' || *p == '\r'))
		p++;
	return p;
}

/* Nothing but blanks or a # comment from p to e. */
static int at_end(const char *p, const char *e)
{
	p = skip_ws(p, e);
	return p >= e || *p == '#';
}

static int is_word(int c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* A C string literal at *pp: decoded into a new string. */
static int lex_string(struct lexer *lx, const char **pp, char **out, size_t *outlen)
{
	const char *p = *pp, *start = p, *where = p, *why;
	size_t len = 0;
	char *buf;

	if (p >= lx->end || *p != '"')
		return lex_error(lx, p, "expected a string in double quotes");
	for (p++; p < lx->end && *p != '"'; p++)
		if (*p == '\\')
			p++;
	if (p >= lx->end)
		return lex_error(lx, start, "unterminated string");
	buf = xrealloc(NULL, (size_t)(p - start) + 1);
	why = ms_unescape(start + 1, p, buf, &len, (size_t)(p - start), &where);
	if (why) {
		free(buf);
		return lex_error(lx, where, "%s", why);
	}
	buf[len] = '\0';
	*out = buf;
	*outlen = len;
	*pp = p + 1;
	return 0;
}

/* A character of a word that is not to be expanded: a $ in single
 * quotes or after a backslash goes in as MS_EXPAND_LITERAL $, and so does
 * that byte itself (expand.h). */
static void put_literal(struct strbuf *w, char c)
{
	if (c == '$' || c == MS_EXPAND_LITERAL)
		sb_printf(w, "%c", MS_EXPAND_LITERAL);
	sb_printf(w, "%c", c);
}

/* Shell-like words: quotes, backslashes, no shell; ${DIR}, ${TMP} and
 * env() variables are expanded when the test runs, but not in single
 * quotes or after a backslash (put_literal). */
static int lex_words(struct lexer *lx, const char *p, char ***out)
{
	char **argv = NULL;
	size_t n = 0;

	for (;;) {
		struct strbuf w = { NULL, 0 };
		int any = 0;

		p = skip_ws(p, lx->end);
		if (p >= lx->end || *p == '#')
			break;
		while (p < lx->end && *p != ' ' && *p != '\t' && *p != '\r') {
			if (*p == '\'') {
				const char *q = memchr(p + 1, '\'', (size_t)(lx->end - p - 1));

				if (!q) {
					free(w.s);
					return lex_error(lx, p, "unterminated single quote");
				}
				for (const char *c = p + 1; c < q; c++)
					put_literal(&w, *c);
				p = q + 1;
			} else if (*p == '"') {
				const char *q = p + 1;

				for (; q < lx->end && *q != '"'; q++) {
					if (*q == '\\' && q + 1 < lx->end && strchr("\"\\$`", q[1]))
						put_literal(&w, *++q);
					else if (*q == MS_EXPAND_LITERAL)
						put_literal(&w, *q);
					else
						sb_printf(&w, "%c", *q);
				}
				if (q >= lx->end) {
					free(w.s);
					return lex_error(lx, p, "unterminated double quote");
				}
				p = q + 1;
			} else if (*p == '\\' && p + 1 < lx->end) {
				put_literal(&w, p[1]);
				p += 2;
			} else if (*p == MS_EXPAND_LITERAL) {
				put_literal(&w, *p++);
			} else {
				sb_printf(&w, "%c", *p++);
			}
			any = 1;
		}
		if (any) {
			if (!w.s)
				w.s = xstrndup("", 0);
			PUSH(argv, n, w.s);
		}
	}
	if (n == 0)
		return lex_error(lx, p, "run needs a program");
	PUSH(argv, n, NULL);
	*out = argv;
	return 0;
}

/* NAME(ARG) with ARG a string literal, or an integer / signal name. */
static int lex_call_args(struct lexer *lx, const char *p, int nstrings, char **a, size_t *alen,
			 char **b, size_t *blen)
{
	p = skip_ws(p, lx->end);
	if (p >= lx->end || *p != '(')
		return lex_error(lx, p, "expected '('");
	p = skip_ws(p + 1, lx->end);
	if (lex_string(lx, &p, a, alen))
		return -1;
	if (nstrings == 2) {
		p = skip_ws(p, lx->end);
		if (p >= lx->end || *p != ',')
			return lex_error(lx, p, "expected ','");
		p = skip_ws(p + 1, lx->end);
		if (lex_string(lx, &p, b, blen))
			return -1;
	}
	p = skip_ws(p, lx->end);
	if (p >= lx->end || *p != ')')
		return lex_error(lx, p, "expected ')'");
	p = skip_ws(p + 1, lx->end);
	if (p < lx->end && *p != '#')
		return lex_error(lx, p, "unexpected text after ')'");
	return 0;
}

static int lex_int_arg(struct lexer *lx, const char *p, int signal_names, int *out)
{
	const char *start;
	char word[32];
	int64_t v;
	char *end;

	p = skip_ws(p, lx->end);
	if (p >= lx->end || *p != '(')
		return lex_error(lx, p, "expected '('");
	p = start = skip_ws(p + 1, lx->end);
	while (p < lx->end && (is_word(*p) || *p == '-'))
		p++;
	if (p == start || (size_t)(p - start) >= sizeof(word))
		return lex_error(lx, start, "expected %s", signal_names ? "a signal" : "a number");
	memcpy(word, start, (size_t)(p - start));
	word[p - start] = '\0';
	v = strtol(word, &end, 0);
	if (*end) {
		if (!signal_names || !ms_name_value(word, strlen(word), &v) || strncmp(word, "SIG", 3))
			return lex_error(lx, start, "'%s' is not %s", word,
					 signal_names ? "a signal name or number" : "a number");
	}
	if (v < 0 || v > 255)
		return lex_error(lx, start, "%s out of range", word);
	p = skip_ws(p, lx->end);
	if (p >= lx->end || *p != ')')
		return lex_error(lx, p, "expected ')'");
	*out = (int)v;
	return 0;
}

enum directive {
	D_RUN, D_STDIN, D_ENV, D_CWD, D_EXPECT_EXIT, D_EXPECT_SIGNAL, D_EXPECT_STDOUT,
	D_EXPECT_STDOUT_HAS, D_EXPECT_STDERR, D_EXPECT_STDERR_HAS, D_EXPECT_FILE_HAS,
	D_STDIN_FILE, D_EXPECT_EXIT_NOT, D_EXPECT_NO_SIGNAL, D_TIMEOUT, D_EXPECT_POWER,
};

static const char *const directives[] = {
	[D_RUN] = "run",
	[D_STDIN] = "stdin",
	[D_ENV] = "env",
	[D_CWD] = "cwd",
	[D_EXPECT_EXIT] = "expect_exit",
	[D_EXPECT_SIGNAL] = "expect_signal",
	[D_EXPECT_STDOUT] = "expect_stdout",
	[D_EXPECT_STDOUT_HAS] = "expect_stdout_contains",
	[D_EXPECT_STDERR] = "expect_stderr",
	[D_EXPECT_STDERR_HAS] = "expect_stderr_contains",
	[D_EXPECT_FILE_HAS] = "expect_file_contains",
	[D_STDIN_FILE] = "stdin_file",
	[D_EXPECT_EXIT_NOT] = "expect_exit_not",
	[D_EXPECT_NO_SIGNAL] = "expect_no_signal",
	[D_TIMEOUT] = "timeout",
	[D_EXPECT_POWER] = "expect_power_loss",
};

static int directive_of(const char *p, const char *e, size_t *n)
{
	size_t k = 0;

	while (p + k < e && is_word(p[k]))
		k++;
	*n = k;
	for (size_t i = 0; i < sizeof(directives) / sizeof(directives[0]); i++)
		if (strlen(directives[i]) == k && memcmp(directives[i], p, k) == 0)
			return (int)i;
	return -1;
}

static int parse_directive(struct lexer *lx, struct block *b, int d, const char *args)
{
	struct check c = { 0 };
	char *x = NULL;
	size_t xl = 0;

	c.line = lx->line;
	if (b->kind == B_CONTROL)
		return lex_error(lx, lx->p, "%s is not allowed in a control block (only statements, "
					    "wait_call, advance_time, set_time, rate, wait_held, release, "
					    "kill_held)", directives[d]);
	if (b->kind != B_TEST) {
		if (d != D_RUN && d != D_STDIN && d != D_STDIN_FILE && d != D_ENV)
			return lex_error(lx, lx->p, "%s is not allowed in a %s (only run, stdin, stdin_file, env)",
					 directives[d], b->kind == B_BACKGROUND ? "run_background block" : "fixture");
	}
	switch (d) {
	case D_RUN: {
		struct run r = { .argv = NULL, .line = lx->line };

		if (b == &lx->f->global)
			return lex_error(lx, lx->p, "run belongs in a test or fixture block");
		if ((b->kind == B_BACKGROUND || (b->kind == B_TEST && b->nsubs)) && b->nruns)
			return lex_error(lx, lx->p, "a %s has one run (declared at line %u)",
					 b->kind == B_TEST ? "test with run_background" : "run_background block",
					 b->runs[0].line);
		if (lex_words(lx, args, &r.argv))
			return -1;
		r.expect_exit = -1;
		r.expect_exit_not = -1;
		if (b->kind == B_TEST) {
			/* the statements above it are its own */
			r.stmts = b->pending;
			b->pending = NULL;
		}
		PUSH(b->runs, b->nruns, r);
		return 0;
	}
	case D_EXPECT_POWER: {
		const char *q = skip_ws(args, lx->end);

		if (b->kind != B_TEST || !b->nruns)
			return lex_error(lx, lx->p, "expect_power_loss() checks the run above it, in a test");
		if (q >= lx->end || *q != '(' || (q = skip_ws(q + 1, lx->end)) >= lx->end || *q != ')')
			return lex_error(lx, args, "expect_power_loss takes no argument: expect_power_loss()");
		b->runs[b->nruns - 1].expect_power = lx->line;
		return 0;
	}
	case D_STDIN:
		if (lex_call_args(lx, args, 1, &x, &xl, NULL, NULL))
			return -1;
		free(b->stdin_data);
		b->stdin_data = x;
		b->stdin_len = xl;
		b->has_stdin = 1;
		free(b->stdin_file);
		b->stdin_file = NULL;
		return 0;
	case D_STDIN_FILE:
		if (lex_call_args(lx, args, 1, &x, &xl, NULL, NULL))
			return -1;
		free(b->stdin_file);
		b->stdin_file = x;
		b->stdin_line = lx->line;
		b->has_stdin = 0;
		return 0;
	case D_ENV:
		if (lex_call_args(lx, args, 1, &x, &xl, NULL, NULL))
			return -1;
		if (!strchr(x, '=') || x[0] == '=') {
			free(x);
			return lex_error(lx, args, "env needs \"NAME=VALUE\"");
		}
		PUSH(b->env, b->nenv, x);
		return 0;
	case D_CWD:
		if (b == &lx->f->global)
			return lex_error(lx, lx->p, "cwd belongs in a test");
		if (lex_call_args(lx, args, 1, &x, &xl, NULL, NULL))
			return -1;
		free(b->cwd);
		b->cwd = x;
		return 0;
	case D_EXPECT_NO_SIGNAL:
		if (b == &lx->f->global)
			return lex_error(lx, lx->p, "%s belongs in a test", directives[d]);
		args = skip_ws(args, lx->end);
		if (args + 1 >= lx->end || args[0] != '(' || *skip_ws(args + 1, lx->end) != ')')
			return lex_error(lx, args, "expected '()'");
		b->expect_no_signal = 1;
		b->expect_line = lx->line;
		if (b->kind == B_TEST && b->nruns) {
			b->runs[b->nruns - 1].expect_no_signal = 1;
			b->runs[b->nruns - 1].expect_line = lx->line;
		}
		return 0;
	case D_TIMEOUT: {
		int secs;

		if (b == &lx->f->global)
			return lex_error(lx, lx->p, "%s belongs in a test", directives[d]);
		if (lex_int_arg(lx, args, 0, &secs))
			return -1;
		if (secs == 0)
			return lex_error(lx, args, "timeout(0): a test's timeout is 1 second or more");
		b->timeout = secs;
		return 0;
	}
	case D_EXPECT_EXIT_NOT:
		if (b == &lx->f->global)
			return lex_error(lx, lx->p, "%s belongs in a test", directives[d]);
		if (lex_int_arg(lx, args, 0, &b->expect_exit_not))
			return -1;
		b->expect_line = lx->line;
		if (b->kind == B_TEST && b->nruns) {
			b->runs[b->nruns - 1].expect_exit_not = b->expect_exit_not;
			b->runs[b->nruns - 1].expect_line = lx->line;
		}
		return 0;
	case D_EXPECT_EXIT:
	case D_EXPECT_SIGNAL:
		if (b == &lx->f->global)
			return lex_error(lx, lx->p, "%s belongs in a test", directives[d]);
		if (lex_int_arg(lx, args, d == D_EXPECT_SIGNAL,
				d == D_EXPECT_EXIT ? &b->expect_exit : &b->expect_signal))
			return -1;
		if (d == D_EXPECT_SIGNAL && b->expect_signal == 0)
			return lex_error(lx, args, "signal 0 is no signal");
		b->expect_line = lx->line;
		if (b->kind == B_TEST && b->nruns) {
			struct run *r = &b->runs[b->nruns - 1];

			if (d == D_EXPECT_EXIT)
				r->expect_exit = b->expect_exit;
			else
				r->expect_signal = b->expect_signal;
			r->expect_line = lx->line;
		}
		return 0;
	default:
		if (b == &lx->f->global)
			return lex_error(lx, lx->p, "%s belongs in a test", directives[d]);
		c.kind = d == D_EXPECT_STDOUT	      ? C_STDOUT
			 : d == D_EXPECT_STDOUT_HAS ? C_STDOUT_HAS
			 : d == D_EXPECT_STDERR	      ? C_STDERR
			 : d == D_EXPECT_STDERR_HAS ? C_STDERR_HAS
						      : C_FILE_HAS;
		if (c.kind == C_FILE_HAS) {
			if (lex_call_args(lx, args, 2, &c.path, &xl, &c.text, &c.len))
				return -1;
		} else if (lex_call_args(lx, args, 1, &c.text, &c.len, NULL, NULL)) {
			return -1;
		}
		PUSH(b->checks, b->nchecks, c);
		return 0;
	}
}

/* "setup {", "teardown {", "setup_all {", "teardown_all {": the kind. */
static int fixture_of(const char *p, const char *e, size_t *n)
{
	static const struct {
		const char *word;
		enum block_kind kind;
	} words[] = {
		{ "setup", B_SETUP },
		{ "teardown", B_TEARDOWN },
		{ "setup_all", B_SETUP_ALL },
		{ "teardown_all", B_TEARDOWN_ALL },
	};
	size_t k = 0;
	const char *r;

	while (p + k < e && is_word(p[k]))
		k++;
	r = skip_ws(p + k, e);
	if (r >= e || *r != '{' || !at_end(r + 1, e))
		return -1;
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		if (strlen(words[i].word) == k && memcmp(words[i].word, p, k) == 0) {
			*n = k;
			return (int)words[i].kind;
		}
	}
	return -1;
}

/* Bracket depth change of a statement line, strings and comments skipped:
 * a statement goes on while a '(' or a '{' (a struct declaration or a
 * struct literal over several lines) is open. */
static int paren_delta(const char *p, const char *e)
{
	int d = 0;

	for (; p < e; p++) {
		if (*p == '#')
			break;
		if (*p == '"') {
			for (p++; p < e && *p != '"'; p++)
				if (*p == '\\')
					p++;
			continue;
		}
		d += *p == '(' || *p == '{' ? 1 : *p == ')' || *p == '}' ? -1 : 0;
	}
	return d;
}

static const char *line_at(const struct file *f, uint32_t line)
{
	const char *p = f->text;

	for (uint32_t l = 1; l < line && p; l++) {
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	return p ? p : f->text + f->len;
}

/* Copies the line into *text, the file blanked but for its statements,
 * at the same offset. */
static void keep_into(const struct file *f, char **text, const char *ls, const char *le)
{
	if (!*text) {
		*text = xrealloc(NULL, f->len + 1);
		for (size_t i = 0; i < f->len; i++)
			(*text)[i] = f->text[i] == '\n' ? '\n' : ' ';
		(*text)[f->len] = '\0';
	}
	memcpy(*text + (ls - f->text), ls, (size_t)(le - ls));
}

static void keep_line(struct file *f, struct block *b, uint32_t line, const char *ls, const char *le)
{
	if (b->kind == B_CONTROL) {
		/* statements between two waits are one request */
		if (!b->add_open) {
			struct act a = { A_ADD, line, NULL, 0, NULL };

			PUSH(b->acts, b->nacts, a);
			b->add_open = 1;
		}
		keep_into(f, &b->acts[b->nacts - 1].text, ls, le);
		return;
	}
	keep_into(f, &b->stmts, ls, le);
	if (b->kind == B_TEST)
		keep_into(f, &b->pending, ls, le);
	b->nstmts++;
}

static void block_init(struct block *b, enum block_kind k, uint32_t line)
{
	memset(b, 0, sizeof(*b));
	b->kind = k;
	b->line = line;
	b->expect_exit = -1;
	b->expect_exit_not = -1;
}

/* The word at p, if it is w followed by a blank, '(' or the end. */
static int word_is(const char *p, const char *e, const char *w)
{
	size_t n = strlen(w);

	return (size_t)(e - p) >= n && memcmp(p, w, n) == 0 &&
	       (p + n == e || p[n] == ' ' || p[n] == '\t' || p[n] == '(' || p[n] == '#');
}

/* A background's NAME at *pp: [A-Za-z0-9_-], 1 to 32 of them. */
static int lex_name(struct lexer *lx, const char **pp, char **name)
{
	const char *p = skip_ws(*pp, lx->end), *s = p;

	while (p < lx->end && (is_word(*p) || *p == '-'))
		p++;
	if (p == s || p - s > 32 || (p < lx->end && *p != ' ' && *p != '\t' && *p != '{' && *p != '#'))
		return lex_error(lx, s, "expected a name (letters, digits, '_' and '-', at most 32)");
	*name = xstrndup(s, (size_t)(p - s));
	*pp = p;
	return 0;
}

static size_t find_background(const struct block *t, const char *name)
{
	for (size_t i = 0; i < t->nsubs; i++)
		if (t->subs[i].kind == B_BACKGROUND && strcmp(t->subs[i].name, name) == 0)
			return i;
	return (size_t)-1;
}

/* "run_background NAME {" or "control NAME {" in test t: *sub opens. */
static int parse_sub(struct lexer *lx, struct block *t, struct block **sub, int control,
		     const char *q, const char *r)
{
	const char *word = control ? "control" : "run_background";
	struct block nb;
	struct step st;
	char *name;
	size_t bg;

	if (!t || t->kind != B_TEST)
		return lex_error(lx, q, "%s belongs in a test block", word);
	if (*sub)
		return lex_error(lx, q, "a %s block cannot be inside a %s block", word,
				 (*sub)->kind == B_CONTROL ? "control" : "run_background");
	if (lex_name(lx, &r, &name))
		return -1;
	r = skip_ws(r, lx->end);
	if (r >= lx->end || *r != '{' || !at_end(r + 1, lx->end)) {
		free(name);
		return lex_error(lx, r, "expected '{' at the end of the line");
	}
	bg = find_background(t, name);
	if (!control && bg != (size_t)-1) {
		lex_error(lx, q, "this test has a run_background %s already (line %u)", name,
			  t->subs[bg].line);
		free(name);
		return -1;
	}
	if (control && (bg == (size_t)-1 || t->subs[bg].stopped)) {
		if (bg == (size_t)-1)
			lex_error(lx, q, "no run_background %s before this line in this test", name);
		else
			lex_error(lx, q, "run_background %s was stopped at line %u", name,
				  t->subs[bg].stopped);
		free(name);
		return -1;
	}
	if (t->nruns > 1) {
		lex_error(lx, q, "a test of several runs has no run_background (runs at lines %u and %u)",
			  t->runs[0].line, t->runs[1].line);
		free(name);
		return -1;
	}
	block_init(&nb, control ? B_CONTROL : B_BACKGROUND, lx->line);
	nb.name = name;
	nb.target = bg;
	PUSH(t->subs, t->nsubs, nb);
	*sub = &t->subs[t->nsubs - 1];
	st = (struct step){ control ? S_CONTROL : S_START, t->nsubs - 1, lx->line };
	PUSH(t->steps, t->nsteps, st);
	return 0;
}

/* "stop NAME" in test t. */
static int parse_stop(struct lexer *lx, struct block *t, const struct block *sub, const char *q)
{
	const char *r = q + 4;
	struct step st;
	char *name;
	size_t bg;

	if (!t || t->kind != B_TEST || sub)
		return lex_error(lx, q, "stop belongs in a test block, after its run_background");
	if (lex_name(lx, &r, &name))
		return -1;
	if (!at_end(r, lx->end)) {
		free(name);
		return lex_error(lx, r, "unexpected text after the name");
	}
	bg = find_background(t, name);
	if (bg == (size_t)-1 || t->subs[bg].stopped) {
		if (bg == (size_t)-1)
			lex_error(lx, q + 5, "no run_background %s before this line in this test", name);
		else
			lex_error(lx, q, "run_background %s was stopped at line %u already", name,
				  t->subs[bg].stopped);
		free(name);
		return -1;
	}
	free(name);
	t->subs[bg].stopped = lx->line;
	st = (struct step){ S_STOP, bg, lx->line };
	PUSH(t->steps, t->nsteps, st);
	return 0;
}

static const char *const act_words[] = {
	[A_WAIT_CALL] = "wait_call",
	[A_ADVANCE] = "advance_time",
	[A_SET] = "set_time",
	[A_RATE] = "rate",
	[A_WAIT_HELD] = "wait_held",
	[A_RELEASE] = "release",
	[A_KILL_HELD] = "kill_held",
};

static int act_of(const char *p, const char *e)
{
	for (int k = A_WAIT_CALL; k <= A_KILL_HELD; k++)
		if (word_is(p, e, act_words[k]))
			return k;
	return -1;
}

/* wait_call(FN[, N]), advance_time("OFFSET"), set_time("WHEN"), rate(R)
 * in control block c, checked as mockrun ctl checks them. */
static int parse_act(struct lexer *lx, struct block *c, int k, const char *p)
{
	struct act a = { (enum act_kind)k, lx->line, NULL, 1, NULL };
	const char *s;

	if (!c || c->kind != B_CONTROL)
		return lex_error(lx, p, "%s belongs in a control block", act_words[k]);
	p = skip_ws(p + strlen(act_words[k]), lx->end);
	if (p >= lx->end || *p != '(')
		return lex_error(lx, p, "expected '('");
	p = s = skip_ws(p + 1, lx->end);
	if (k >= A_WAIT_HELD) {
		/* wait_held("NAME"), release("NAME"[, "STMTS"]),
		 * kill_held("NAME"[, SIG]) */
		size_t len;

		if (lex_string(lx, &p, &a.text, &len))
			return -1;
		if (!len || len > 64 || strpbrk(a.text, " \t\n\"\\")) {
			free(a.text);
			return lex_error(lx, s, "expected a hold's name (will_hold's name=): %s(\"NAME\"%s)",
					 act_words[k], k == A_RELEASE ? "[, \"STMTS\"]" : k == A_KILL_HELD ? "[, SIG]" : "");
		}
		p = skip_ws(p, lx->end);
		if (k == A_KILL_HELD)
			a.n = 9;
		if (k != A_WAIT_HELD && p < lx->end && *p == ',') {
			p = s = skip_ws(p + 1, lx->end);
			if (k == A_RELEASE) {
				if (lex_string(lx, &p, &a.stmt, &len)) {
					free(a.text);
					return -1;
				}
			} else {
				int64_t v = -1;
				char *end;

				while (p < lx->end && is_word(*p))
					p++;
				errno = 0;
				v = strtoll(s, &end, 10);
				if (end != p && !ms_name_value(s, (size_t)(p - s), &v))
					v = -1;
				if (p == s || v < 1 || v > 64 || (end != p && strncmp(s, "SIG", 3) != 0)) {
					free(a.text);
					return lex_error(lx, s, "expected a signal (SIGKILL, SIGTERM, 9)");
				}
				a.n = (unsigned long)v;
			}
			p = skip_ws(p, lx->end);
		}
	} else if (k == A_WAIT_CALL) {
		int id;

		while (p < lx->end && is_word(*p))
			p++;
		if (p == s)
			return lex_error(lx, s, "expected a function: wait_call(FN[, N])");
		id = ms_catalog_find(s, (size_t)(p - s));
		if (id < 0)
			return lex_error(lx, s, "'%.*s' is not in the catalog (see mockrun --list)",
					 (int)(p - s), s);
		if (strcmp(ms_catalog_get((unsigned)id)->group, "memory") == 0)
			return lex_error(lx, s, "%.*s is one of the allocator's functions, whose calls are "
						"not counted", (int)(p - s), s);
		a.text = xstrndup(s, (size_t)(p - s));
		p = skip_ws(p, lx->end);
		if (p < lx->end && *p == ',') {
			char *end;

			p = s = skip_ws(p + 1, lx->end);
			errno = 0;
			a.n = *p >= '0' && *p <= '9' ? strtoul(p, &end, 10) : 0;
			if (a.n < 1 || a.n > UINT32_MAX || errno) {
				free(a.text);
				return lex_error(lx, s, "expected a count of calls in 1..%u", UINT32_MAX);
			}
			p = skip_ws(end, lx->end);
		}
	} else if (k == A_RATE) {
		char *end;
		double r;

		while (p < lx->end && (is_word(*p) || *p == '.' || *p == '-' || *p == '+'))
			p++;
		a.text = xstrndup(s, (size_t)(p - s));
		r = strtod(a.text, &end);
		if (!*a.text || *end || !(r >= 0 && r <= 1e6)) {
			lex_error(lx, s, "'%s' is not a rate in 0..1000000", a.text);
			free(a.text);
			return -1;
		}
		p = skip_ws(p, lx->end);
	} else {
		const char *why, *at;
		size_t len;
		int64_t ns;
		int offset;

		if (lex_string(lx, &p, &a.text, &len))
			return -1;
		why = ms_parse_when(a.text, a.text + len, &ns, &offset, &at);
		if (!why && k == A_ADVANCE && !offset)
			why = "expected an offset (\"+1h\", \"-30s\", \"+1d\"); set_time takes a date",
			at = a.text;
		if (why) {
			lex_error(lx, s + 1 + (at - a.text), "%s", why);
			free(a.text);
			return -1;
		}
		p = skip_ws(p, lx->end);
	}
	if (p >= lx->end || *p != ')' || !at_end(p + 1, lx->end)) {
		free(a.text);
		free(a.stmt);
		return lex_error(lx, p, p < lx->end && *p == ')' ? "unexpected text after ')'" : "expected ')'");
	}
	PUSH(c->acts, c->nacts, a);
	c->add_open = 0;
	return 0;
}

/* '}' of a run_background or control block. */
static int close_sub(struct lexer *lx, const struct file *f, struct block *sub)
{
	const char *why = sub->kind == B_BACKGROUND && sub->nruns == 0 ? "has no run"
			  : sub->kind == B_CONTROL && sub->nacts == 0	   ? "does nothing"
									   : NULL;

	if (!why)
		return 0;
	lx->line = sub->line;
	lx->line_start = line_at(f, sub->line);
	lx->end = lx->line_start + strcspn(lx->line_start, "\n");
	return lex_error(lx, skip_ws(lx->line_start, lx->end), "%s %s %s",
			 sub->kind == B_BACKGROUND ? "run_background" : "control", sub->name, why);
}

static int parse_file(struct file *f, char *error, size_t cap)
{
	struct lexer lx = { .f = f };
	const char *p = f->text, *end = f->text + f->len;
	struct block *cur = NULL, *sub = NULL;	/* sub: a block in test cur */
	int depth = 0; /* a statement continued on the next lines */

	block_init(&f->global, B_TEST, 0);
	for (lx.line = 1; p < end; lx.line++) {
		const char *le = memchr(p, '\n', (size_t)(end - p)), *q;
		struct block *b = sub ? sub : cur ? cur : &f->global;
		size_t n;
		int d, serial;

		le = le ? le : end;
		lx.line_start = p;
		lx.end = le;
		q = lx.p = skip_ws(p, le);
		serial = 0;
		if (depth == 0 && !cur && word_is(q, le, "serial")) {
			/* `serial`: every test of the file runs alone under -j;
			 * `serial test "NAME" {`: that one */
			const char *r = skip_ws(q + 6, le);

			if (r >= le || *r == '#') {
				if (f->serial_line) {
					lex_error(&lx, q, "the file is serial already (line %u)",
						  f->serial_line);
					goto fail;
				}
				f->serial_line = lx.line;
				p = le < end ? le + 1 : end;
				continue;
			}
			if (!word_is(r, le, "test") && !(strncmp(r, "test", 4) == 0 && r[4] == '"')) {
				lex_error(&lx, r, "expected 'test' or the end of the line after 'serial' "
						  "(serial test \"NAME\" { ... }, or a line `serial` for the whole file)");
				goto fail;
			}
			serial = 1;
			q = lx.p = r;
		} else if (depth == 0 && cur && !sub && word_is(q, le, "serial") &&
			   at_end(q + 6, le)) {
			lex_error(&lx, q, "'serial' marks a test from outside: serial test \"%s\" { ... }",
				  cur->name);
			goto fail;
		}
		if (depth > 0) {
			keep_line(f, b, lx.line, p, le);
			depth += paren_delta(p, le);
		} else if (q >= le || *q == '#') {
			/* blank */
		} else if (*q == '}' && at_end(q + 1, le) && sub) {
			if (close_sub(&lx, f, sub))
				goto fail;
			sub = NULL;
		} else if (*q == '}' && at_end(q + 1, le)) {
			if (!cur) {
				lex_error(&lx, q, "'}' without a block");
				goto fail;
			}
			if (cur->kind == B_TEST && cur->nruns == 0) {
				lx.line = cur->line;
				lx.line_start = line_at(f, cur->line);
				lex_error(&lx, skip_ws(lx.line_start, end), "test \"%s\" has no run",
					  cur->name);
				goto fail;
			}
			if (cur->kind == B_TEST && cur->nruns > 1 && cur->pending) {
				lex_error(&lx, q, "test \"%s\" has statements after its last run: "
						  "statements go above the run they are for", cur->name);
				goto fail;
			}
			cur = NULL;
		} else if (!cur && (strncmp(q, "test", 4) == 0 && (q[4] == ' ' || q[4] == '\t' || q[4] == '"'))) {
			struct block nb;
			const char *r = skip_ws(q + 4, le);
			char *name = NULL;
			size_t nl;

			block_init(&nb, B_TEST, lx.line);
			if (lex_string(&lx, &r, &name, &nl))
				goto fail;
			r = skip_ws(r, le);
			if (r >= le || *r != '{' || !at_end(r + 1, le)) {
				free(name);
				lex_error(&lx, r, "expected '{' at the end of the line");
				goto fail;
			}
			for (size_t i = 0; i < f->nblocks; i++) {
				if (f->blocks[i].kind == B_TEST && strcmp(f->blocks[i].name, name) == 0) {
					lex_error(&lx, q, "a test \"%s\" exists already (line %u)", name,
						  f->blocks[i].line);
					free(name);
					goto fail;
				}
			}
			nb.name = name;
			nb.serial = serial;
			PUSH(f->blocks, f->nblocks, nb);
			cur = &f->blocks[f->nblocks - 1];
		} else if (!cur && (d = fixture_of(q, le, &n)) >= 0) {
			struct block nb;

			for (size_t i = 0; i < f->nblocks; i++) {
				if (f->blocks[i].kind == (enum block_kind)d) {
					lex_error(&lx, q, "a %.*s block exists already (line %u)", (int)n, q,
						  f->blocks[i].line);
					goto fail;
				}
			}
			block_init(&nb, (enum block_kind)d, lx.line);
			nb.name = xstrndup(q, n);
			PUSH(f->blocks, f->nblocks, nb);
			cur = &f->blocks[f->nblocks - 1];
		} else if (word_is(q, le, "run_background") || word_is(q, le, "control")) {
			if (parse_sub(&lx, cur, &sub, q[0] == 'c', q, q + (q[0] == 'c' ? 7 : 14)))
				goto fail;
		} else if (word_is(q, le, "stop")) {
			if (parse_stop(&lx, cur, sub, q))
				goto fail;
		} else if ((d = act_of(q, le)) >= 0) {
			if (parse_act(&lx, sub, d, q))
				goto fail;
		} else if ((d = directive_of(q, le, &n)) >= 0) {
			if (parse_directive(&lx, b, d, q + n))
				goto fail;
			if (d == D_RUN && b == cur && cur->kind == B_TEST) {
				struct step st = { S_RUN, 0, lx.line };

				PUSH(cur->steps, cur->nsteps, st);
			}
		} else {
			keep_line(f, b, lx.line, p, le);
			depth = paren_delta(p, le);
			if (depth < 0)
				depth = 0;
		}
		p = le < end ? le + 1 : end;
	}
	if (cur) {
		const struct block *open = sub ? sub : cur;
		const char *ls = line_at(f, open->line);

		lx.line = open->line;
		lx.line_start = ls;
		lex_error(&lx, skip_ws(ls, end), "block '%s' is not closed with '}' before the end of the file",
			  open->name);
		goto fail;
	}
	return 0;
fail:
	snprintf(error, cap, "%s", lx.error);
	return -1;
}

static void free_block(struct block *b)
{
	mockshim_session_destroy(b->compiled);
	for (size_t i = 0; i < b->nsubs; i++)
		free_block(&b->subs[i]);
	free(b->subs);
	free(b->steps);
	for (size_t i = 0; i < b->nacts; i++) {
		free(b->acts[i].text);
		free(b->acts[i].stmt);
	}
	free(b->acts);
	free(b->name);
	free(b->stmts);
	free(b->pending);
	for (size_t i = 0; i < b->nruns; i++) {
		free(b->runs[i].stmts);
		for (char **w = b->runs[i].argv; w && *w; w++)
			free(*w);
		free(b->runs[i].argv);
	}
	free(b->runs);
	free(b->stdin_data);
	free(b->stdin_file);
	for (size_t i = 0; i < b->nenv; i++)
		free(b->env[i]);
	free(b->env);
	free(b->cwd);
	for (size_t i = 0; i < b->nchecks; i++) {
		free(b->checks[i].path);
		free(b->checks[i].text);
	}
	free(b->checks);
}

void ms_tf_free(struct file *f)
{
	if (!f)
		return;
	free_block(&f->global);
	for (size_t i = 0; i < f->nblocks; i++)
		free_block(&f->blocks[i]);
	free(f->blocks);
	free(f->path);
	free(f->dir);
	free(f->text);
	free(f);
}

#define TESTFILE_MAX (64 << 20)

struct file *ms_tf_load(const char *path, char *error, size_t cap)
{
	struct file *f = calloc(1, sizeof(*f));
	FILE *in;
	char *slash;
	struct strbuf text = { NULL, 0 };
	char chunk[4096];
	size_t got;

	if (!f)
		return NULL;
	in = fopen(path, "re");
	if (!in) {
		snprintf(error, cap, "%s: cannot read: %s\n", path, strerror(errno));
		free(f);
		return NULL;
	}
	while ((got = fread(chunk, 1, sizeof(chunk), in)) > 0) {
		if (memchr(chunk, '\0', got)) {
			text.len = (size_t)-1;
			break;
		}
		if (text.len + got > TESTFILE_MAX) {
			/* a runaway file (a device, a log) must not take the memory */
			snprintf(error, cap, "%s: a test file is at most %d MiB: this one is larger\n",
				 path, TESTFILE_MAX >> 20);
			fclose(in);
			free(text.s);
			free(f);
			return NULL;
		}
		text.s = xrealloc(text.s, text.len + got + 1);
		memcpy(text.s + text.len, chunk, got);
		text.len += got;
		text.s[text.len] = '\0';
	}
	if (ferror(in) || text.len == (size_t)-1) {
		snprintf(error, cap, "%s: cannot read it as text\n", path);
		fclose(in);
		free(text.s);
		free(f);
		return NULL;
	}
	fclose(in);
	f->path = xstrndup(path, strlen(path));
	f->text = text.s ? text.s : xstrndup("", 0);
	f->len = text.len;
	f->dir = realpath(path, NULL);
	slash = f->dir ? strrchr(f->dir, '/') : NULL;
	if (slash)
		*slash = '\0';
	if (parse_file(f, error, cap))
		return f; /* the caller sees error[0] */
	return f;
}

