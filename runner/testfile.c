/* SPDX-License-Identifier: MIT */
/*
 * Test files (*.mock, DESIGN.md section 4): file-level statements apply to
 * every test; test "name" { ... } blocks hold statements, one `run`, and
 * checks; setup/teardown (each test) and setup_all/teardown_all (each
 * file) are CMocka's fixtures.  Every test runs in a fresh session and a
 * fresh temporary working directory, its results in TAP 14 (default),
 * JUnit or JSON.
 *
 * Statements keep their file positions: each session parses a copy of
 * the file in which every line that is not one of its statements is
 * blanked, so errors and reports name file:line:col of the real file.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <ftw.h>
#include <limits.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mockshim/driver.h"
#include "catalog.h"
#include "control.h"
#include "outfile.h"
#include "session.h"
#include "expand.h"
#include "jobs.h"
#include "report.h"
#include "spec.h"
#include "testfile.h"

enum block_kind {
	B_TEST, B_SETUP, B_TEARDOWN, B_SETUP_ALL, B_TEARDOWN_ALL,
	B_BACKGROUND,	/* run_background NAME { ... } in a test */
	B_CONTROL,	/* control NAME { ... } in a test */
};

enum check_kind { C_STDOUT, C_STDOUT_HAS, C_STDERR, C_STDERR_HAS, C_FILE_HAS };

struct check {
	enum check_kind kind;
	char *path;
	char *text;
	size_t len;
	uint32_t line;
};

struct run {
	char **argv;
	uint32_t line;
};

/* What a control block does to its background, in order: mockrun ctl's
 * -e, --wait-call, --advance-time, --set-time and --rate. */
enum act_kind { A_ADD, A_WAIT_CALL, A_ADVANCE, A_SET, A_RATE };

struct act {
	enum act_kind kind;
	uint32_t line;
	char *text;		/* A_ADD: the file with all but these lines blanked;
				 * else the value (a function, a time, a rate) */
	unsigned long n;	/* A_WAIT_CALL: calls */
};

/* A test with backgrounds runs in the order of its file. */
enum step_kind { S_START, S_CONTROL, S_RUN, S_STOP };

struct step {
	enum step_kind kind;
	size_t sub;		/* S_START, S_STOP: the background; S_CONTROL: the block */
	uint32_t line;
};

struct block {
	enum block_kind kind;
	char *name;
	uint32_t line;
	char *stmts;		/* the file with all but this block's statements blanked */
	int nstmts;
	struct run *runs;
	size_t nruns;
	char *stdin_data;
	size_t stdin_len;
	int has_stdin;
	char *stdin_file;	/* stdin_file("PATH"), expanded when it runs */
	uint32_t stdin_line;
	char **env;
	size_t nenv;
	char *cwd;
	int expect_exit;	/* -1: not given */
	int expect_signal;	/* 0: not given */
	uint32_t expect_line;
	struct check *checks;
	size_t nchecks;
	struct block *subs;	/* a test's run_background and control blocks */
	size_t nsubs;
	struct step *steps;	/* and what runs when, if it has one */
	size_t nsteps;
	size_t target;		/* control: its background, in the test's subs */
	struct act *acts;	/* control: what it does */
	size_t nacts;
	int add_open;		/* control: the last act takes more statement lines */
	uint32_t stopped;	/* background: the line of its stop, 0: none yet */
};

struct file {
	char *path;
	char *dir;
	char *text;
	size_t len;
	struct block global;	/* file-level statements and env */
	struct block *blocks;
	size_t nblocks;
};

struct result {
	int passed;
	int error;		/* a fixture failed: the test did not run, or its teardown failed */
	int skipped;
	char *details;		/* why it failed, and the mockshim report */
	char *out, *err;	/* what the program wrote */
	double seconds;
};

/* ---- small helpers ---- */

static void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q) {
		fprintf(stderr, "mockrun: out of memory\n");
		exit(125);
	}
	return q;
}

static char *xstrndup(const char *s, size_t n)
{
	char *d = xrealloc(NULL, n + 1);

	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

#define PUSH(arr, n, v)                                              \
	do {                                                         \
		(arr) = xrealloc((arr), ((n) + 1) * sizeof(*(arr))); \
		(arr)[(n)++] = (v);                                  \
	} while (0)

struct strbuf {
	char *s;
	size_t len;
};

static void sb_printf(struct strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void sb_printf(struct strbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	b->s = xrealloc(b->s, b->len + (size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

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

/* Shell-like words: quotes, backslashes, no expansion, no shell. */
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
				sb_printf(&w, "%.*s", (int)(q - p - 1), p + 1);
				p = q + 1;
			} else if (*p == '"') {
				const char *q = p + 1;

				for (; q < lx->end && *q != '"'; q++) {
					if (*q == '\\' && q + 1 < lx->end && strchr("\"\\$`", q[1]))
						q++;
					sb_printf(&w, "%c", *q);
				}
				if (q >= lx->end) {
					free(w.s);
					return lex_error(lx, p, "unterminated double quote");
				}
				p = q + 1;
			} else if (*p == '\\' && p + 1 < lx->end) {
				sb_printf(&w, "%c", p[1]);
				p += 2;
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
	D_STDIN_FILE,
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
					    "wait_call, advance_time, set_time, rate)", directives[d]);
	if (b->kind != B_TEST) {
		if (d != D_RUN && d != D_STDIN && d != D_STDIN_FILE && d != D_ENV)
			return lex_error(lx, lx->p, "%s is not allowed in a %s (only run, stdin, stdin_file, env)",
					 directives[d], b->kind == B_BACKGROUND ? "run_background block" : "fixture");
	}
	switch (d) {
	case D_RUN: {
		struct run r = { NULL, lx->line };

		if (b == &lx->f->global)
			return lex_error(lx, lx->p, "run belongs in a test or fixture block");
		if ((b->kind == B_TEST || b->kind == B_BACKGROUND) && b->nruns)
			return lex_error(lx, lx->p, "a %s has one run (declared at line %u)",
					 b->kind == B_TEST ? "test" : "run_background block", b->runs[0].line);
		if (lex_words(lx, args, &r.argv))
			return -1;
		PUSH(b->runs, b->nruns, r);
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
			struct act a = { A_ADD, line, NULL, 0 };

			PUSH(b->acts, b->nacts, a);
			b->add_open = 1;
		}
		keep_into(f, &b->acts[b->nacts - 1].text, ls, le);
		return;
	}
	keep_into(f, &b->stmts, ls, le);
	b->nstmts++;
}

static void block_init(struct block *b, enum block_kind k, uint32_t line)
{
	memset(b, 0, sizeof(*b));
	b->kind = k;
	b->line = line;
	b->expect_exit = -1;
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
};

static int act_of(const char *p, const char *e)
{
	for (int k = A_WAIT_CALL; k <= A_RATE; k++)
		if (word_is(p, e, act_words[k]))
			return k;
	return -1;
}

/* wait_call(FN[, N]), advance_time("OFFSET"), set_time("WHEN"), rate(R)
 * in control block c, checked as mockrun ctl checks them. */
static int parse_act(struct lexer *lx, struct block *c, int k, const char *p)
{
	struct act a = { (enum act_kind)k, lx->line, NULL, 1 };
	const char *s;

	if (!c || c->kind != B_CONTROL)
		return lex_error(lx, p, "%s belongs in a control block", act_words[k]);
	p = skip_ws(p + strlen(act_words[k]), lx->end);
	if (p >= lx->end || *p != '(')
		return lex_error(lx, p, "expected '('");
	p = s = skip_ws(p + 1, lx->end);
	if (k == A_WAIT_CALL) {
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
		int d;

		le = le ? le : end;
		lx.line_start = p;
		lx.end = le;
		q = lx.p = skip_ws(p, le);
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
	for (size_t i = 0; i < b->nsubs; i++)
		free_block(&b->subs[i]);
	free(b->subs);
	free(b->steps);
	for (size_t i = 0; i < b->nacts; i++)
		free(b->acts[i].text);
	free(b->acts);
	free(b->name);
	free(b->stmts);
	for (size_t i = 0; i < b->nruns; i++) {
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

static void free_file(struct file *f)
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

static struct file *load_file(const char *path, char *error, size_t cap)
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

/* ---- running ---- */

static int rm_entry(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

static void rm_tree(const char *dir)
{
	nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* ${DIR}, ${TMP} and env() variables (expand.c) */
static const char *cur_tmp; /* the running test's (or suite's) directory */

struct layers {
	const struct block *b, *global;
};

static const char *env_var(void *ctx, const char *name, size_t n)
{
	const struct layers *ls = ctx;
	const struct block *layer[2] = { ls->b, ls->global };

	for (int l = 0; l < 2; l++) {
		for (size_t i = 0; layer[l] && i < layer[l]->nenv; i++) {
			const char *kv = layer[l]->env[layer[l]->nenv - 1 - i];

			if (strncmp(kv, name, n) == 0 && kv[n] == '=')
				return kv + n + 1;
		}
	}
	return NULL;
}

static char *expand(const struct file *f, const struct block *global, const struct block *b,
		    const char *s)
{
	struct layers ls = { b, global };
	char *r = ms_expand(s, f->dir, cur_tmp, env_var, &ls);

	if (!r) {
		fprintf(stderr, "mockrun: out of memory\n");
		exit(125);
	}
	return r;
}

static char **make_env(const struct file *f, const struct block *global, const struct block *b,
		       const char *suite_dir)
{
	extern char **environ;
	char **env = NULL;
	size_t n = 0;
	const struct block *layers[2] = { global, b };

	for (char **e = environ; *e; e++)
		PUSH(env, n, *e);
	if (suite_dir) {
		char *v = NULL;

		if (asprintf(&v, "MOCKSHIM_SUITE_DIR=%s", suite_dir) >= 0)
			PUSH(env, n, v); /* leaks one string per run: fine in mockrun */
	}
	for (int l = 0; l < 2; l++) {
		if (!layers[l])
			continue;
		for (size_t i = 0; i < layers[l]->nenv; i++) {
			const char *kv = layers[l]->env[i];
			size_t k = (size_t)(strchr(kv, '=') - kv);

			for (size_t j = 0; j < n; j++) {
				if (strncmp(env[j], kv, k + 1) == 0) {
					env[j] = env[--n];
					break;
				}
			}
			/* leaks one string per run, as above */
			PUSH(env, n, expand(f, global, b, kv));
		}
	}
	PUSH(env, n, NULL);
	return env;
}

/*
 * One run under a session of the file-level statements (for tests) and
 * the block's own.  Returns the session, or NULL with why in details.
 */
static struct mockshim_session *run_one(const struct file *f, const struct block *b,
					const struct run *r, const char *dir, const char *suite_dir,
					const struct testfile_opts *o, const char *control,
					struct mockshim_result *res, struct strbuf *details)
{
	struct mockshim_session *s = mockshim_session_create();
	char **env;
	int rc;

	if (!s) {
		sb_printf(details, "out of memory\n");
		return NULL;
	}
	for (int i = 0; i < o->nmodules; i++) {
		if (mockshim_session_add_module(s, o->modules[i]) < 0) {
			sb_printf(details, "-m %s", mockshim_session_error(s));
			mockshim_session_destroy(s);
			return NULL;
		}
	}
	if ((b->kind == B_TEST && f->global.stmts &&
	     mockshim_session_add(s, f->path, f->global.stmts, strlen(f->global.stmts)) < 0) ||
	    (b->stmts && mockshim_session_add(s, f->path, b->stmts, strlen(b->stmts)) < 0)) {
		sb_printf(details, "%s", mockshim_session_error(s));
		mockshim_session_destroy(s);
		return NULL;
	}
	if (o->shim)
		mockshim_session_set_shim(s, o->shim);
	if (control && mockshim_session_set_control(s, 1, control) < 0) {
		sb_printf(details, "out of memory\n");
		mockshim_session_destroy(s);
		return NULL;
	}
	mockshim_session_set_timeout(s, o->timeout);
	mockshim_session_set_cwd(s, dir);
	mockshim_session_set_capture(s, 1);
	{
		const struct block *g = b->kind == B_TEST || b->kind == B_SETUP || b->kind == B_TEARDOWN ||
						b->kind == B_BACKGROUND
						? &f->global : NULL;
		size_t nw = 0;
		char **argv;

		if (b->stdin_file) {
			/* relative to the working directory, as run's paths are */
			char *path = expand(f, g, b, b->stdin_file), *full = NULL, *data = NULL;
			size_t len = 0;
			int e;

			if (path[0] != '/' && asprintf(&full, "%s/%s", dir, path) < 0)
				full = NULL;
			e = ms_read_whole(full ? full : path, &data, &len);
			if (e < 0) {
				sb_printf(details, "%s:%u: stdin_file %s: cannot read: %s\n", f->path,
					  b->stdin_line, path, strerror(-e));
				free(path);
				free(full);
				mockshim_session_destroy(s);
				return NULL;
			}
			mockshim_session_set_stdin(s, data, len);
			free(data);
			free(path);
			free(full);
		} else {
			mockshim_session_set_stdin(s, b->has_stdin ? b->stdin_data : "",
						   b->has_stdin ? b->stdin_len : 0);
		}
		env = make_env(f, g, b, suite_dir);
		while (r->argv[nw])
			nw++;
		argv = xrealloc(NULL, (nw + 1) * sizeof(*argv));
		for (size_t i = 0; i < nw; i++)
			argv[i] = expand(f, g, b, r->argv[i]);
		argv[nw] = NULL;
		rc = mockshim_session_run(s, argv, env, res);
		for (size_t i = 0; i < nw; i++)
			free(argv[i]);
		free(argv);
	}
	free(env);
	if (rc < 0) {
		sb_printf(details, "%s:%u: cannot run %s: %s", f->path, r->line, r->argv[0],
			  mockshim_session_error(s)[0] ? mockshim_session_error(s) : strerror(-rc));
		mockshim_session_destroy(s);
		return NULL;
	}
	return s;
}

static void add_report(struct strbuf *details, struct mockshim_session *s)
{
	char *rep = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&rep, &len);

	if (!m)
		return;
	mockshim_session_set_verbosity(s, MOCKSHIM_QUIET);
	mockshim_session_report(s, m, MOCKSHIM_REPORT_TEXT);
	fclose(m);
	if (len)
		sb_printf(details, "%s", rep);
	free(rep);
}

static void describe_exit(struct strbuf *b, const struct mockshim_result *r)
{
	if (r->exec_errno)
		sb_printf(b, "could not be started (%s)", strerror(r->exec_errno));
	else if (r->timed_out)
		sb_printf(b, "timed out");
	else if (r->signal)
		sb_printf(b, "was killed by SIG%s", sigabbrev_np(r->signal) ? sigabbrev_np(r->signal) : "?");
	else
		sb_printf(b, "exited with status %d", r->exit_status);
}

/* Fixture runs must exit 0 and pass their own checks. */
static int run_fixture(const struct file *f, const struct block *b, const char *dir,
		       const char *suite_dir, const struct testfile_opts *o, struct strbuf *details)
{
	for (size_t i = 0; b && i < b->nruns; i++) {
		struct mockshim_result res;
		struct mockshim_session *s = run_one(f, b, &b->runs[i], dir, suite_dir, o, NULL, &res, details);
		int ok;

		if (!s)
			return -1;
		ok = !res.exec_errno && res.exited && res.exit_status == 0 && !res.failures;
		if (!ok) {
			size_t n;
			const char *err = mockshim_session_output(s, 2, &n);

			sb_printf(details, "%s:%u: %s failed: %s ", f->path, b->runs[i].line, b->name,
				  b->runs[i].argv[0]);
			describe_exit(details, &res);
			sb_printf(details, "\n");
			if (n)
				sb_printf(details, "%s stderr: %.*s%s", b->name, (int)(n > 2000 ? 2000 : n),
					  err, err[n - 1] == '\n' ? "" : "\n");
			add_report(details, s);
		}
		mockshim_session_destroy(s);
		if (!ok)
			return -1;
	}
	return 0;
}

static const struct block *find_block(const struct file *f, enum block_kind k)
{
	for (size_t i = 0; i < f->nblocks; i++)
		if (f->blocks[i].kind == k)
			return &f->blocks[i];
	return NULL;
}

static void quote(struct strbuf *b, const char *s, size_t n)
{
	sb_printf(b, "\"");
	for (size_t i = 0; i < n && i < 400; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '\n')
			sb_printf(b, "\\n");
		else if (c == '"' || c == '\\')
			sb_printf(b, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			sb_printf(b, "\\x%02x", c);
		else
			sb_printf(b, "%c", c);
	}
	sb_printf(b, n > 400 ? "\"... (%zu bytes)" : "\"", n);
}

/* ---- results across processes (-j) ---- */

static void put_mem(int fd, const char *s, uint32_t n)
{
	if (write(fd, &n, sizeof(n)) != (ssize_t)sizeof(n))
		return;
	for (uint32_t off = 0; off < n;) {
		ssize_t k = write(fd, s + off, n - off);

		if (k <= 0)
			return;
		off += (uint32_t)k;
	}
}

static void put_field(int fd, const char *s)
{
	put_mem(fd, s, s ? (uint32_t)strlen(s) : 0);
}

static int read_all(int fd, void *buf, size_t n)
{
	for (size_t off = 0; off < n;) {
		ssize_t k = read(fd, (char *)buf + off, n - off);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		off += (size_t)k;
	}
	return 0;
}

static char *get_field(int fd)
{
	uint32_t n;
	char *s;

	if (read_all(fd, &n, sizeof(n)))
		return NULL;
	s = xrealloc(NULL, (size_t)n + 1);
	if (read_all(fd, s, n)) {
		free(s);
		return NULL;
	}
	s[n] = '\0';
	return s;
}

/* The checks of test t on its run in session s: 1 if one failed, why in
 * details; what the program wrote in out. */
static int check_run(const struct file *f, const struct block *t, const char *dir,
		     struct mockshim_session *s, const struct mockshim_result *r, struct result *out,
		     struct strbuf *details)
{
	int failed = 0;
	size_t on, en;
	const char *so = mockshim_session_output(s, 1, &on), *se = mockshim_session_output(s, 2, &en);

	out->out = xstrndup(so, on);
	out->err = xstrndup(se, en);
	if (t->expect_signal) {
		if (r->signal != t->expect_signal) {
			sb_printf(details, "%s:%u: expected the program to be killed by SIG%s, but it ",
				  f->path, t->expect_line,
				  sigabbrev_np(t->expect_signal) ? sigabbrev_np(t->expect_signal) : "?");
			describe_exit(details, r);
			sb_printf(details, "\n");
			failed = 1;
		}
	} else {
		int want = t->expect_exit < 0 ? 0 : t->expect_exit;

		if (r->exec_errno || !r->exited || r->exit_status != want) {
			sb_printf(details, "%s:%u: expected exit status %d, but %s ", f->path,
				  t->expect_exit < 0 ? t->runs[0].line : t->expect_line, want,
				  t->runs[0].argv[0]);
			describe_exit(details, r);
			sb_printf(details, "\n");
			failed = 1;
		}
	}
	for (size_t i = 0; i < t->nchecks; i++) {
		const struct check *c = &t->checks[i];
		const char *got = c->kind <= C_STDOUT_HAS ? so : se;
		size_t gn = c->kind <= C_STDOUT_HAS ? on : en;
		const char *what = c->kind <= C_STDOUT_HAS ? "stdout" : "stderr";
		int ok;
		char *fdata = NULL;

		if (c->kind == C_FILE_HAS) {
			char path[PATH_MAX * 2];
			FILE *in;
			struct strbuf fb = { NULL, 0 };
			char chunk[4096];
			size_t k;

			snprintf(path, sizeof(path), "%s%s%s", c->path[0] == '/' ? "" : dir,
				 c->path[0] == '/' ? "" : "/", c->path);
			in = fopen(path, "re");
			if (!in) {
				sb_printf(details, "%s:%u: expected %s to contain ", f->path, c->line,
					  c->path);
				quote(details, c->text, c->len);
				sb_printf(details, ", but it cannot be read: %s\n", strerror(errno));
				failed = 1;
				continue;
			}
			while ((k = fread(chunk, 1, sizeof(chunk), in)) > 0)
				sb_printf(&fb, "%.*s", (int)k, chunk);
			fclose(in);
			fdata = fb.s ? fb.s : xstrndup("", 0);
			got = fdata;
			gn = fb.len;
			what = c->path;
		}
		if (c->kind == C_STDOUT || c->kind == C_STDERR)
			ok = gn == c->len && memcmp(got, c->text, gn) == 0;
		else
			ok = memmem(got, gn, c->text, c->len) != NULL;
		if (!ok) {
			sb_printf(details, "%s:%u: expected %s %s ", f->path, c->line, what,
				  c->kind == C_STDOUT || c->kind == C_STDERR ? "to be" : "to contain");
			quote(details, c->text, c->len);
			sb_printf(details, ", got ");
			quote(details, got, gn);
			sb_printf(details, "\n");
			failed = 1;
		}
		free(fdata);
	}
	if (r->failures) {
		failed = 1;
		add_report(details, s);
	}
	return failed;
}

/* ---- backgrounds: run_background, control, stop ---- */

/* A background's process: it runs the block's session with a control
 * socket and, when the session is over, writes how it ended. */
struct bg {
	pid_t pid;		/* 0: not started */
	int fd;			/* its results; -1: collected */
	char sock[PATH_MAX];
};

/* The background's session ended (its results are waiting). */
static int bg_ended(const struct bg *g)
{
	struct pollfd p = { .fd = g->fd, .events = POLLIN };

	return g->fd >= 0 && poll(&p, 1, 0) > 0;
}

/* A child that dies with the test's worker, a pipe from it in fd[0];
 * 0 in the child (fd[1] its end). */
static pid_t fork_helper(int fd[2])
{
	pid_t parent = getpid(), pid;

	if (pipe2(fd, O_CLOEXEC) != 0)
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return -1;
	}
	if (pid == 0) {
		close(fd[0]);
		/* a session forwards the SIGTERM to its program */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent)
			_exit(1);
		return 0;
	}
	close(fd[1]);
	return pid;
}

/* mockrun ctl argv[0] ACTIONS... in a child: its exit status, what it
 * wrote in out. */
static int ctl_run(char **argv, int argc, struct strbuf *out)
{
	int fd[2], st = 0;
	pid_t pid = fork_helper(fd);
	char buf[4096];
	ssize_t k;

	if (pid < 0) {
		sb_printf(out, "cannot fork: %s\n", strerror(errno));
		return 125;
	}
	if (pid == 0) {
		if (dup2(fd[1], 1) < 0 || dup2(fd[1], 2) < 0)
			_exit(125);
		_exit(ms_ctl_main(argc, argv));
	}
	while ((k = read(fd[0], buf, sizeof(buf))) > 0 || (k < 0 && errno == EINTR))
		if (k > 0)
			sb_printf(out, "%.*s", (int)k, buf);
	close(fd[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 125;
}

static int start_bg(const struct file *f, const struct block *b, const char *dir, const char *suite_dir,
		    const struct testfile_opts *o, const char *ctl_dir, struct bg *g)
{
	int fd[2];

	g->fd = -1;
	if ((size_t)snprintf(g->sock, sizeof(g->sock), "%s/%s", ctl_dir, b->name) >= sizeof(g->sock)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	g->pid = fork_helper(fd);
	if (g->pid < 0) {
		g->pid = 0;
		return -1;
	}
	if (g->pid == 0) {
		struct strbuf d = { NULL, 0 }, ex = { NULL, 0 };
		struct mockshim_result res;
		struct mockshim_session *s = run_one(f, b, &b->runs[0], dir, suite_dir, o, g->sock, &res, &d);
		const char *err;
		size_t n;

		if (!s) {
			put_field(fd[1], "n");
			put_field(fd[1], d.s);
			_exit(0);
		}
		describe_exit(&ex, &res);
		put_field(fd[1], !res.exec_errno && res.exited && res.exit_status == 0 ? "z" : "x");
		put_field(fd[1], ex.s);
		if (res.failures)
			add_report(&d, s);
		put_field(fd[1], d.s);
		err = mockshim_session_output(s, 2, &n);
		/* the end of what it wrote, which holds no NUL of its own */
		put_mem(fd[1], n > 2000 ? err + n - 2000 : err, (uint32_t)(n > 2000 ? 2000 : n));
		_exit(0);
	}
	g->fd = fd[0];
	return 0;
}

/* Until the background's socket takes connections: 0, or -1 if its
 * session ended first or after timeout seconds. */
static int wait_bg(const struct bg *g, double timeout)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (strlen(g->sock) >= sizeof(a.sun_path))
		timeout = 0; /* the session ends at once, and says why */
	else
		strcpy(a.sun_path, g->sock);
	for (;;) {
		struct timespec pause = { 0, 5000000 };
		int fd;

		if (bg_ended(g))
			return -1;
		fd = a.sun_path[0] ? socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0) : -1;
		if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0) {
			close(fd);
			return 0;
		}
		if (fd >= 0)
			close(fd);
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 > timeout + 1)
			return -1;
		nanosleep(&pause, NULL);
	}
}

/* Stops background b (at its stop, line, or at the end of the test) and
 * judges it: 1 if it failed, why in details.  A background fails if it
 * could not start, ended before its stop other than with status 0, or
 * its mock checks failed; how it ends when stopped is not judged. */
static int stop_bg(const struct file *f, const struct block *b, struct bg *g, uint32_t line,
		   struct strbuf *details)
{
	char *flag, *ex = NULL, *why = NULL, *err = NULL;
	int ended, failed = 0, st;

	if (!g->pid || g->fd < 0)
		return 0;
	ended = bg_ended(g);
	if (!ended) {
		char *argv[] = { g->sock, (char *)"--stop", NULL };
		struct strbuf out = { NULL, 0 };

		if (ctl_run(argv, 2, &out) != 0) {
			/* the socket is gone once the run is over: it
			 * ended by itself and its results come soon; else
			 * its session ends the program at a SIGTERM */
			struct pollfd p = { .fd = g->fd, .events = POLLIN };

			ended = 1;
			if (poll(&p, 1, 10000) <= 0)
				kill(g->pid, SIGTERM);
		}
		free(out.s);
	}
	flag = get_field(g->fd);
	if (flag && flag[0] != 'n') {
		ex = get_field(g->fd);
		why = get_field(g->fd);
		err = get_field(g->fd);
	} else if (flag) {
		why = get_field(g->fd);
	}
	close(g->fd);
	g->fd = -1;
	while (waitpid(g->pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!flag) {
		sb_printf(details, "%s:%u: run_background %s: its worker died\n", f->path, b->line, b->name);
		failed = 1;
	} else if (flag[0] == 'n') {
		sb_printf(details, "%s:%u: run_background %s: %s%s", f->path, b->line, b->name,
			  why ? why : "", why && *why && why[strlen(why) - 1] == '\n' ? "" : "\n");
		failed = 1;
	} else {
		if (ended && flag[0] != 'z') {
			if (line == b->line)
				sb_printf(details, "%s:%u: run_background %s: %s %s before the test's end\n",
					  f->path, b->line, b->name, b->runs[0].argv[0], ex ? ex : "ended");
			else
				sb_printf(details, "%s:%u: run_background %s: %s %s before its stop at line %u\n",
					  f->path, b->line, b->name, b->runs[0].argv[0], ex ? ex : "ended", line);
			failed = 1;
		}
		if (why && *why) {
			sb_printf(details, "%s:%u: run_background %s: its mock checks failed\n%s", f->path,
				  b->line, b->name, why);
			failed = 1;
		}
		if (failed && err && *err)
			sb_printf(details, "run_background %s stderr%s:\n%s%s", b->name,
				  strlen(err) >= 2000 ? " (the end)" : "", err,
				  err[strlen(err) - 1] == '\n' ? "" : "\n");
	}
	free(flag);
	free(ex);
	free(why);
	free(err);
	return failed;
}

/* A control block's statements as a request: the blank lines before
 * them kept as newlines only, so lines and columns stay the file's. */
static char *act_text(const char *blanked)
{
	const char *p = blanked, *ls = blanked, *e;
	struct strbuf b = { NULL, 0 };

	while (*p == ' ' || *p == '\n') {
		if (*p == '\n') {
			sb_printf(&b, "\n");
			ls = p + 1;
		}
		p++;
	}
	e = p + strlen(p);
	while (e > p && (e[-1] == ' ' || e[-1] == '\n'))
		e--;
	sb_printf(&b, "%.*s\n", (int)(e - ls), ls);
	return b.s;
}

/* Control block c's acts on background g, in order, through mockrun
 * ctl: 1 if one failed, why in details. */
static int run_control(const struct file *f, const struct block *c, struct bg *g,
		       const struct testfile_opts *o, struct strbuf *details)
{
	char timeout[32];

	snprintf(timeout, sizeof(timeout), "%g", o->timeout > 0 ? o->timeout : 30.0);
	for (size_t i = 0; i < c->nacts; i++) {
		const struct act *a = &c->acts[i];
		char count[24], *text = NULL, *argv[8];
		struct strbuf out = { NULL, 0 };
		int argc = 0, rc;

		argv[argc++] = g->sock;
		switch (a->kind) {
		case A_ADD:
			text = act_text(a->text);
			argv[argc++] = (char *)"--source";
			argv[argc++] = f->path;
			argv[argc++] = (char *)"-e";
			argv[argc++] = text;
			break;
		case A_WAIT_CALL:
			snprintf(count, sizeof(count), "%lu", a->n);
			argv[argc++] = (char *)"--wait-call";
			argv[argc++] = a->text;
			argv[argc++] = count;
			argv[argc++] = (char *)"--timeout";
			argv[argc++] = timeout;
			break;
		case A_ADVANCE:
		case A_SET:
		case A_RATE:
			argv[argc++] = (char *)(a->kind == A_ADVANCE ? "--advance-time"
						: a->kind == A_SET ? "--set-time" : "--rate");
			argv[argc++] = a->text;
			break;
		}
		argv[argc] = NULL;
		rc = ctl_run(argv, argc, &out);
		free(text);
		if (rc != 0) {
			const char *m = out.s ? out.s : "";

			if (strncmp(m, "mockrun ctl: ", 13) == 0)
				m += 13;
			sb_printf(details, "%s:%u: control %s: %s%s%s", f->path, a->line, c->name,
				  bg_ended(g) ? "(its run_background had ended) " : "", m,
				  *m && m[strlen(m) - 1] == '\n' ? "" : "\n");
			free(out.s);
			return 1;
		}
		free(out.s);
	}
	return 0;
}

/* The test's own run, in a child: a session waits for every child of
 * its process, and the backgrounds are children of this one. */
static int run_fg(const struct file *f, const struct block *t, const char *dir, const char *suite_dir,
		  const struct testfile_opts *o, struct result *out, struct strbuf *details)
{
	int fd[2], st;
	pid_t pid = fork_helper(fd);
	char *flag, *d;

	if (pid < 0) {
		sb_printf(details, "cannot fork: %s\n", strerror(errno));
		return 1;
	}
	if (pid == 0) {
		struct strbuf why = { NULL, 0 };
		struct mockshim_result res;
		struct result r;
		struct mockshim_session *s;
		int failed;

		memset(&r, 0, sizeof(r));
		s = run_one(f, t, &t->runs[0], dir, suite_dir, o, NULL, &res, &why);
		failed = !s || check_run(f, t, dir, s, &res, &r, &why);
		put_field(fd[1], failed ? "f" : "p");
		put_field(fd[1], why.s);
		put_field(fd[1], r.out);
		put_field(fd[1], r.err);
		_exit(0);
	}
	flag = get_field(fd[0]);
	d = flag ? get_field(fd[0]) : NULL;
	out->out = flag ? get_field(fd[0]) : NULL;
	out->err = flag ? get_field(fd[0]) : NULL;
	close(fd[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (d && *d)
		sb_printf(details, "%s", d);
	if (!flag)
		sb_printf(details, "%s:%u: the run's worker died\n", f->path, t->runs[0].line);
	free(d);
	st = !flag || flag[0] != 'p';
	free(flag);
	return st;
}

/* A test with backgrounds: its steps in the order of the file, then
 * every background not stopped yet (after a failure too). */
static int run_steps(const struct file *f, const struct block *t, const char *dir, const char *suite_dir,
		     const struct testfile_opts *o, struct result *out, struct strbuf *details)
{
	struct bg *g = xrealloc(NULL, t->nsubs * sizeof(*g));
	const char *tmp = getenv("TMPDIR");
	double wait_s = o->timeout > 0 ? o->timeout : 30.0;
	char ctl_dir[PATH_MAX];
	int failed = 0;

	memset(g, 0, t->nsubs * sizeof(*g));
	/* the sockets out of the test's directory, which its programs see */
	snprintf(ctl_dir, sizeof(ctl_dir), "%s/mockshim-ctl-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(ctl_dir)) {
		sb_printf(details, "cannot make a directory for the control sockets: %s\n", strerror(errno));
		free(g);
		return 1;
	}
	for (size_t i = 0; i < t->nsteps && !failed; i++) {
		const struct step *st = &t->steps[i];
		const struct block *b = &t->subs[st->sub];

		switch (st->kind) {
		case S_START:
			if (start_bg(f, b, dir, suite_dir, o, ctl_dir, &g[st->sub]) < 0) {
				sb_printf(details, "%s:%u: run_background %s: cannot fork: %s\n", f->path,
					  b->line, b->name, strerror(errno));
				failed = 1;
			} else if (wait_bg(&g[st->sub], wait_s) < 0) {
				if (!bg_ended(&g[st->sub]))
					sb_printf(details, "%s:%u: run_background %s: its control socket "
							   "took no connection in %g s\n", f->path, b->line,
						  b->name, wait_s);
				stop_bg(f, b, &g[st->sub], b->line, details);
				failed = 1;
			}
			break;
		case S_CONTROL:
			failed |= run_control(f, b, &g[b->target], o, details);
			break;
		case S_RUN:
			failed |= run_fg(f, t, dir, suite_dir, o, out, details);
			break;
		case S_STOP:
			failed |= stop_bg(f, b, &g[st->sub], st->line, details);
			break;
		}
	}
	for (size_t i = t->nsubs; i-- > 0;)
		if (t->subs[i].kind == B_BACKGROUND)
			failed |= stop_bg(f, &t->subs[i], &g[i], t->subs[i].line, details);
	rm_tree(ctl_dir);
	free(g);
	return failed;
}

static void run_test(const struct file *f, const struct block *t, const char *suite_dir,
		     const struct testfile_opts *o, struct result *out)
{
	struct strbuf details = { NULL, 0 };
	char tmpl[PATH_MAX], dir[PATH_MAX];
	const char *tmp = getenv("TMPDIR");
	struct mockshim_session *s = NULL;
	struct mockshim_result res;
	struct timespec t0, t1;
	int failed = 0, made_dir = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	memset(out, 0, sizeof(*out));
	/* the test's own directory, ${TMP}, even when cwd() names another */
	snprintf(tmpl, sizeof(tmpl), "%s/mockshim-test-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(tmpl)) {
		sb_printf(&details, "cannot make a working directory: %s\n", strerror(errno));
		failed = 1;
		goto done;
	}
	made_dir = 1;
	cur_tmp = tmpl;
	if (t->cwd) {
		char *cwd = expand(f, &f->global, t, t->cwd);

		if (cwd[0] == '/' || !f->dir)
			snprintf(dir, sizeof(dir), "%s", cwd);
		else
			snprintf(dir, sizeof(dir), "%s/%s", f->dir, cwd);
		free(cwd);
	} else {
		snprintf(dir, sizeof(dir), "%s", tmpl);
	}
	if (run_fixture(f, find_block(f, B_SETUP), dir, suite_dir, o, &details)) {
		/* first, as the headline a CI system shows */
		struct strbuf why = { NULL, 0 };

		sb_printf(&why, "the test did not run: its setup failed\n%s", details.s ? details.s : "");
		free(details.s);
		details = why;
		failed = 1;
		out->error = 1;
		goto teardown;
	}
	if (t->nsteps && t->nsubs) {
		failed |= run_steps(f, t, dir, suite_dir, o, out, &details);
	} else {
		s = run_one(f, t, &t->runs[0], dir, suite_dir, o, NULL, &res, &details);
		failed |= !s || check_run(f, t, dir, s, &res, out, &details);
	}
teardown:
	/* teardown runs even after a failure, in the same directory */
	if (run_fixture(f, find_block(f, B_TEARDOWN), dir, suite_dir, o, &details)) {
		failed = 1;
		out->error = 1;
	}
done:
	mockshim_session_destroy(s);
	if (made_dir)
		rm_tree(tmpl);
	cur_tmp = NULL;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	out->seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	out->passed = !failed;
	out->details = details.s;
}

/* ---- output ---- */

struct entry {
	const struct file *f;
	const struct block *t;
	struct result r;
};

#define TAIL_LINES 20

/* The last TAIL_LINES lines of what a program wrote. */
static const char *tail_of(const char *text, size_t *lines)
{
	size_t n = strlen(text), k = 0;
	const char *p = text + n;

	if (n && p[-1] == '\n')
		p--;
	while (p > text) {
		if (p[-1] == '\n' && ++k == TAIL_LINES)
			break;
		p--;
	}
	*lines = k;
	return p;
}

/* The tail of a failed test's stdout or stderr, a line each with
 * prefix, escaped (ms_safe_text): what a program wrote reaches a
 * terminal or a YAML block. */
static void put_tail(FILE *out, const char *what, const char *text, const char *head,
		     const char *prefix)
{
	size_t skipped;
	const char *p;

	if (!text || !*text)
		return;
	p = tail_of(text, &skipped);
	if (*what)
		fprintf(out, "%s%s%s:\n", head, what, p > text ? " (the last 20 lines)" : "");
	while (*p) {
		size_t n = strcspn(p, "\n");
		char *line = xstrndup(p, n);

		fputs(prefix, out);
		ms_safe_text(out, line);
		fputc('\n', out);
		free(line);
		p += n + (p[n] == '\n');
	}
}

static void write_tap(FILE *out, struct entry *e, size_t n, int version)
{
	fprintf(out, "TAP version %d\n1..%zu\n", version, n);
	for (size_t i = 0; i < n; i++) {
		fprintf(out, "%s %zu - ", e[i].r.passed ? "ok" : "not ok", i + 1);
		ms_tap_text(out, e[i].f->path);
		fputs(": ", out);
		ms_tap_text(out, e[i].t->name);
		fputc('\n', out);
		if (!e[i].r.passed) {
			const char *d = e[i].r.details ? e[i].r.details : "";

			char *at = NULL;

			if (asprintf(&at, "%s:%u", e[i].f->path, e[i].t->line) < 0)
				at = NULL;
			fputs("  ---\n  at: ", out);
			ms_json_text(out, at ? at : e[i].f->path);
			free(at);
			fputs("\n  message: |\n", out);
			while (*d) {
				size_t k = strcspn(d, "\n");
				char *line = xstrndup(d, k);

				fputs("    ", out);
				ms_safe_text(out, line);
				fputc('\n', out);
				free(line);
				d += k + (d[k] == '\n');
			}
			if (e[i].r.out && *e[i].r.out) {
				fputs("  stdout: |\n", out);
				put_tail(out, "", e[i].r.out, "", "    ");
			}
			if (e[i].r.err && *e[i].r.err) {
				fputs("  stderr: |\n", out);
				put_tail(out, "", e[i].r.err, "", "    ");
			}
			fprintf(out, "  ...\n");
		}
	}
}

static void write_junit(FILE *out, struct entry *e, size_t n, long long started)
{
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n");
	for (size_t i = 0; i < n;) {
		size_t j = i, failures = 0, errors = 0;
		double secs = 0;

		while (j < n && e[j].f == e[i].f) {
			failures += !e[j].r.passed && !e[j].r.error;
			errors += e[j].r.error;
			secs += e[j].r.seconds;
			j++;
		}
		fprintf(out, "  <testsuite name=\"");
		ms_junit_classname(out, e[i].f->path);
		fprintf(out, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"0\" time=\"%.3f\"",
			j - i, failures, errors, secs);
		ms_junit_when_where(out, started);
		fputs(">\n", out);
		for (size_t k = i; k < j; k++) {
			fprintf(out, "    <testcase classname=\"");
			ms_junit_classname(out, e[k].f->path);
			fprintf(out, "\" name=\"");
			ms_xml_text(out, e[k].t->name);
			fprintf(out, "\" time=\"%.3f\">\n", e[k].r.seconds);
			if (!e[k].r.passed) {
				/* the first line is the headline a CI system shows;
				 * a fixture's failure is an error, not the test's */
				const char *d = e[k].r.details ? e[k].r.details : "the test failed\n";
				char *first = xstrndup(d, strcspn(d, "\n"));
				const char *tag = e[k].r.error ? "error" : "failure";

				fprintf(out, "      <%s message=\"", tag);
				ms_xml_text(out, first);
				fprintf(out, "\">");
				ms_xml_text(out, d);
				fprintf(out, "</%s>\n", tag);
				free(first);
			}
			fprintf(out, "      <system-out>");
			ms_xml_text(out, e[k].r.out);
			fprintf(out, "</system-out>\n      <system-err>");
			ms_xml_text(out, e[k].r.err);
			fprintf(out, "</system-err>\n    </testcase>\n");
		}
		fprintf(out, "  </testsuite>\n");
		i = j;
	}
	fprintf(out, "</testsuites>\n");
}

static void write_json(FILE *out, struct entry *e, size_t n)
{
	size_t failed = 0;

	for (size_t i = 0; i < n; i++)
		failed += !e[i].r.passed;
	fprintf(out, "{\"failure_count\":%zu,\"tests\":[", failed);
	for (size_t i = 0; i < n; i++) {
		fprintf(out, "%s{\"file\":", i ? "," : "");
		ms_json_text(out, e[i].f->path);
		fprintf(out, ",\"name\":");
		ms_json_text(out, e[i].t->name);
		fprintf(out, ",\"line\":%u,\"passed\":%s,\"error\":%s,\"seconds\":%.3f,\"details\":",
			e[i].t->line, e[i].r.passed ? "true" : "false", e[i].r.error ? "true" : "false",
			e[i].r.seconds);
		ms_json_text(out, e[i].r.details ? e[i].r.details : "");
		fprintf(out, ",\"stdout\":");
		ms_json_text(out, e[i].r.out ? e[i].r.out : "");
		fprintf(out, ",\"stderr\":");
		ms_json_text(out, e[i].r.err ? e[i].r.err : "");
		fputc('}', out);
	}
	fprintf(out, "]}\n");
}

static void write_text(FILE *out, struct entry *e, size_t n, int color)
{
	size_t failed = 0;
	const char *red = color ? "\033[31m" : "", *green = color ? "\033[32m" : "",
		   *off = color ? "\033[0m" : "";

	for (size_t i = 0; i < n; i++) {
		failed += !e[i].r.passed;
		fprintf(out, "%s%s%s ", e[i].r.passed ? green : red, e[i].r.passed ? "PASS" : "FAIL", off);
		ms_safe_text(out, e[i].f->path);
		fputs(": ", out);
		ms_safe_text(out, e[i].t->name);
		fprintf(out, " (%.2fs)\n", e[i].r.seconds);
		if (!e[i].r.passed && e[i].r.details) {
			const char *d = e[i].r.details;

			while (*d) {
				size_t k = strcspn(d, "\n");
				char *line = xstrndup(d, k);

				ms_safe_text(out, line);
				fputc('\n', out);
				free(line);
				d += k + (d[k] == '\n');
			}
		}
		if (!e[i].r.passed) {
			put_tail(out, "stdout", e[i].r.out, "  ", "  | ");
			put_tail(out, "stderr", e[i].r.err, "  ", "  | ");
		}
	}
	fprintf(out, "%zu passed, %zu failed\n", n - failed, failed);
}

/* ---- the entry point ---- */

/* A session with the modules and the statements that block b runs with
 * (the file's own too if global), or NULL, the error printed. */
static struct mockshim_session *check_block(const struct file *f, const struct block *b, int global,
					    const struct testfile_opts *o)
{
	struct mockshim_session *s = mockshim_session_create();

	if (!s)
		return NULL;
	for (int m = 0; m < o->nmodules; m++) {
		if (mockshim_session_add_module(s, o->modules[m]) < 0) {
			fprintf(stderr, "mockrun: -m %s", mockshim_session_error(s));
			goto fail;
		}
	}
	if (b->kind == B_BACKGROUND && mockshim_session_set_control(s, 1, NULL) < 0)
		goto fail;
	if ((global && f->global.stmts &&
	     mockshim_session_add(s, f->path, f->global.stmts, strlen(f->global.stmts)) < 0) ||
	    (b->stmts && mockshim_session_add(s, f->path, b->stmts, strlen(b->stmts)) < 0)) {
		fputs(mockshim_session_error(s), stderr);
		goto fail;
	}
	return s;
fail:
	mockshim_session_destroy(s);
	return NULL;
}

/* A test's backgrounds, and what its control blocks add to each, as
 * mockrun ctl would check it: 0, or -1 with the error printed. */
static int check_subs(const struct file *f, const struct block *t, const struct testfile_opts *o)
{
	for (size_t i = 0; i < t->nsubs; i++) {
		const struct block *bg = &t->subs[i];
		struct mockshim_session *s;

		if (bg->kind != B_BACKGROUND)
			continue;
		if (!(s = check_block(f, bg, 1, o)))
			return -1;
		for (size_t k = i + 1; k < t->nsubs; k++) {
			const struct block *c = &t->subs[k];

			for (size_t a = 0; c->kind == B_CONTROL && c->target == i && a < c->nacts; a++) {
				char msg[2048], *text;
				int r;

				if (c->acts[a].kind != A_ADD)
					continue;
				text = act_text(c->acts[a].text);
				r = ms_session_check_live(s, f->path, text, strlen(text), msg, sizeof(msg));
				free(text);
				if (r < 0) {
					fputs(msg, stderr);
					mockshim_session_destroy(s);
					return -1;
				}
			}
		}
		mockshim_session_destroy(s);
	}
	return 0;
}


int ms_run_test_files(char *const *paths, int npaths, const struct testfile_opts *o)
{
	struct file **files = xrealloc(NULL, (size_t)npaths * sizeof(*files));
	struct entry *e = NULL;
	size_t n = 0, failed = 0;
	char error[2048];
	int rc = 0;
	long long started = (long long)time(NULL);

	/* Everything is parsed, statements included, before anything runs. */
	for (int i = 0; i < npaths; i++) {
		error[0] = '\0';
		files[i] = load_file(paths[i], error, sizeof(error));
		if (!files[i] || error[0]) {
			fputs(error, stderr);
			return 125;
		}
		for (size_t k = 0; k < files[i]->nblocks; k++) {
			const struct block *b = &files[i]->blocks[k];
			struct mockshim_session *s;

			/* --list-tests names the tests without compiling their
			 * statements: a build system lists them before the
			 * handler modules they name are built */
			if (o->list)
				goto listed;
			if (!(s = check_block(files[i], b, b->kind == B_TEST, o)))
				return 125;
			mockshim_session_destroy(s);
			if (check_subs(files[i], b, o))
				return 125;
listed:
			if (b->kind == B_TEST && (!o->filter || fnmatch(o->filter, b->name, 0) == 0) &&
			    (!o->shard_n || ms_shard_of(paths[i], b->name, o->shard_n) == o->shard_k - 1)) {
				struct entry x = { files[i], b, { 0 } };

				PUSH(e, n, x);
			}
		}
	}
	if (o->list) {
		for (size_t i = 0; i < n; i++)
			printf("%s: %s\n", e[i].f->path, e[i].t->name);
		return 0;
	}

	/* setup_all per file, in a directory the file's tests see as
	 * MOCKSHIM_SUITE_DIR */
	char **suite_dirs = xrealloc(NULL, (size_t)npaths * sizeof(char *));
	int *suite_ok = xrealloc(NULL, (size_t)npaths * sizeof(int));
	char **suite_why = xrealloc(NULL, (size_t)npaths * sizeof(char *));

	for (int i = 0; i < npaths; i++) {
		char tmpl[PATH_MAX];
		const char *tmp = getenv("TMPDIR");
		struct strbuf why = { NULL, 0 };

		snprintf(tmpl, sizeof(tmpl), "%s/mockshim-suite-XXXXXX", tmp && *tmp ? tmp : "/tmp");
		suite_dirs[i] = mkdtemp(tmpl) ? xstrndup(tmpl, strlen(tmpl)) : NULL;
		cur_tmp = suite_dirs[i];
		suite_ok[i] = suite_dirs[i] &&
			      run_fixture(files[i], find_block(files[i], B_SETUP_ALL), suite_dirs[i],
					  suite_dirs[i], o, &why) == 0;
		suite_why[i] = why.s;
	}

	/* The tests, -j at a time, each in a process of its own. */
	{
		size_t next = 0, done = 0, running = 0;
		int jobs = o->jobs > 0 ? o->jobs : 1;
		pid_t *pids = xrealloc(NULL, n * sizeof(pid_t));
		int *fds = xrealloc(NULL, n * sizeof(int));

		while (done < n) {
			while (running < (size_t)jobs && next < n) {
				int fd[2], fi;
				size_t k = next++;

				for (fi = 0; fi < npaths && files[fi] != e[k].f; fi++)
					;
				if (!suite_ok[fi]) {
					struct strbuf d = { NULL, 0 };

					sb_printf(&d, "the test did not run: setup_all failed\n%s",
						  suite_why[fi] ? suite_why[fi] : "");
					e[k].r.details = d.s;
					e[k].r.passed = 0;
					e[k].r.error = 1;
					pids[k] = 0;
					fds[k] = -1;
					done++;
					continue;
				}
				if (pipe2(fd, O_CLOEXEC) != 0) {
					perror("mockrun: pipe");
					return 125;
				}
				fflush(NULL);
				pids[k] = fork();
				if (pids[k] < 0) {
					perror("mockrun: fork");
					return 125;
				}
				if (pids[k] == 0) {
					struct result r;
					char flag[2] = { 0, 0 };

					close(fd[0]);
					run_test(e[k].f, e[k].t, suite_dirs[fi], o, &r);
					flag[0] = r.passed ? 'p' : r.error ? 'e' : 'f';
					put_field(fd[1], flag);
					put_field(fd[1], r.details);
					put_field(fd[1], r.out);
					put_field(fd[1], r.err);
					{
						char secs[32];

						snprintf(secs, sizeof(secs), "%.6f", r.seconds);
						put_field(fd[1], secs);
					}
					_exit(0);
				}
				close(fd[1]);
				fds[k] = fd[0];
				running++;
			}
			/* collect the oldest running test (results stay in order) */
			for (size_t k = 0; k < next; k++) {
				char *flag, *secs;

				if (fds[k] < 0)
					continue;
				flag = get_field(fds[k]);
				e[k].r.passed = flag && flag[0] == 'p';
				e[k].r.error = !flag || flag[0] == 'e';
				e[k].r.details = flag ? get_field(fds[k]) : NULL;
				e[k].r.out = flag ? get_field(fds[k]) : NULL;
				e[k].r.err = flag ? get_field(fds[k]) : NULL;
				secs = flag ? get_field(fds[k]) : NULL;
				e[k].r.seconds = secs ? strtod(secs, NULL) : 0;
				if (!flag)
					e[k].r.details = xstrndup("the test's worker died\n", 23);
				free(flag);
				free(secs);
				close(fds[k]);
				fds[k] = -1;
				waitpid(pids[k], NULL, 0);
				running--;
				done++;
				break;
			}
		}
		free(pids);
		free(fds);
	}

	for (int i = 0; i < npaths; i++) {
		struct strbuf why = { NULL, 0 };

		if (suite_dirs[i]) {
			cur_tmp = suite_dirs[i];
			if (run_fixture(files[i], find_block(files[i], B_TEARDOWN_ALL), suite_dirs[i],
					suite_dirs[i], o, &why)) {
				fprintf(stderr, "mockrun: %s: teardown_all failed\n%s", paths[i],
					why.s ? why.s : "");
				rc = 1;
			}
			rm_tree(suite_dirs[i]);
		}
		free(why.s);
	}

	for (size_t i = 0; i < n; i++)
		failed += !e[i].r.passed;
	{
		/* made in memory, then written: a failed write is the file's
		 * error (125), not lost in a buffer */
		char *text = NULL;
		size_t len = 0;
		FILE *out = open_memstream(&text, &len);

		if (!out) {
			fprintf(stderr, "mockrun: out of memory\n");
			return 125;
		}
		if (o->format == TESTFILE_JUNIT)
			write_junit(out, e, n, started);
		else if (o->format == TESTFILE_JSON)
			write_json(out, e, n);
		else if (o->format == TESTFILE_TEXT)
			write_text(out, e, n, o->color);
		else
			write_tap(out, e, n, o->tap_version == 14 ? 14 : 13);
		if (fclose(out) != 0) {
			fprintf(stderr, "mockrun: out of memory\n");
			free(text);
			return 125;
		}
		if (o->output) {
			if (ms_out_write(o->output, text, len) < 0) {
				fprintf(stderr, "mockrun: -o %s: %s\n", o->output->path,
					strerror(o->output->error));
				rc = 125;
			}
		} else if (fwrite(text, 1, len, stdout) != len || fflush(stdout) != 0) {
			fprintf(stderr, "mockrun: stdout: %s\n", strerror(errno));
			rc = 125;
		}
		free(text);
	}
	for (size_t i = 0; i < n; i++) {
		free(e[i].r.details);
		free(e[i].r.out);
		free(e[i].r.err);
	}
	free(e);
	for (int i = 0; i < npaths; i++) {
		free(suite_dirs[i]);
		free(suite_why[i]);
		free_file(files[i]);
	}
	free(suite_dirs);
	free(suite_ok);
	free(suite_why);
	free(files);
	return rc == 125 ? 125 : failed || rc ? 1 : 0;
}
