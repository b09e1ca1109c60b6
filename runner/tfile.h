/* SPDX-License-Identifier: MIT */
/*
 * mockrun -t, inside: what a test file holds once parsed, and what its
 * parts (tfile_parse.c, tfile_run.c, testfile.c, tfile_bg.c,
 * tfile_report.c) share.
 * testfile.h is the one mockrun.c sees.
 */
#ifndef MS_TFILE_H
#define MS_TFILE_H

#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct mockshim_session;
struct mockshim_result;
struct testfile_opts;

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
	/* a test of several runs (each a step): the statements written
	 * since the run before, the expectations written after it */
	char *stmts;
	int expect_exit;	/* -1: not given */
	int expect_signal;	/* 0: not given */
	int expect_exit_not;	/* -1: not given */
	int expect_no_signal;
	uint32_t expect_line;
	uint32_t expect_power;	/* expect_power_loss(): its line, 0: none */
};

/* What a control block does to its background, in order: mockrun ctl's
 * -e, --wait-call, --advance-time, --set-time, --rate, --wait-held,
 * --release and --kill. */
enum act_kind { A_ADD, A_WAIT_CALL, A_ADVANCE, A_SET, A_RATE, A_WAIT_HELD, A_RELEASE, A_KILL_HELD };

struct act {
	enum act_kind kind;
	uint32_t line;
	char *text;		/* A_ADD: the file with all but these lines blanked;
				 * else the value (a function, a time, a rate) */
	unsigned long n;	/* A_WAIT_CALL: calls; A_KILL_HELD: the signal */
	char *stmt;		/* A_RELEASE: the statements added first, or NULL */
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
	char *pending;		/* a test: the same, since its last run (struct run's) */
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
	int expect_exit_not;	/* expect_exit_not(N): -1: not given */
	int expect_no_signal;	/* expect_no_signal(): exits by itself, any status */
	double timeout;		/* timeout(SECS): 0: the command line's */
	uint32_t expect_line;
	struct check *checks;
	size_t nchecks;
	struct block *subs;	/* a test's run_background and control blocks */
	size_t nsubs;
	struct step *steps;	/* and what runs when, if it has one */
	size_t nsteps;
	size_t target;		/* control: its background, in the test's subs */
	int serial;		/* a test: `serial test` (or the file's `serial`):
				 * runs alone under -j */
	struct act *acts;	/* control: what it does */
	size_t nacts;
	int add_open;		/* control: the last act takes more statement lines */
	uint32_t stopped;	/* background: the line of its stop, 0: none yet */
	struct mockshim_session *compiled;	/* its statements (a test's with the
						 * file's), compiled when the file was
						 * loaded; each run uses it (a worker
						 * its copy); NULL: compiled at the run */
};

struct file {
	char *path;
	char *dir;
	char *text;
	size_t len;
	struct block global;	/* file-level statements and env */
	struct block *blocks;
	size_t nblocks;
	uint32_t serial_line;	/* a file-level `serial`: its line, 0: none */
};

struct result {
	int passed;
	int error;		/* a fixture failed: the test did not run, or its teardown failed */
	int skipped;
	char *details;		/* why it failed, and the mockshim report */
	char *report;		/* --report html: its run's text report (the
				 * statements and their uses), or NULL */
	char *out, *err;	/* what the program wrote */
	double seconds;
	char *sites;		/* --sites: the test's sites file, or NULL */
};

struct entry {
	const struct file *f;
	const struct block *t;
	struct result r;
};

/* ---- small helpers ---- */

static inline void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q) {
		fprintf(stderr, "mockrun: out of memory\n");
		exit(125);
	}
	return q;
}

static inline char *xstrndup(const char *s, size_t n)
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

static inline void sb_printf(struct strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static inline void sb_printf(struct strbuf *b, const char *fmt, ...)
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

/* ---- tfile_parse.c ---- */

/* Reads and parses path; NULL, or a file with error[0] set, on an error
 * (FILE:LINE:COL and a caret in error). */
struct file *ms_tf_load(const char *path, char *error, size_t cap);
void ms_tf_free(struct file *f);

/* ---- tfile_run.c ---- */

/* The running test's (or suite's) directory: ${TMP} (testfile.c sets it). */
extern const char *ms_tf_cur_tmp;
/* the directory of the file's setup_all, $MOCKSHIM_SUITE_DIR, or NULL */
extern const char *ms_tf_cur_suite_dir;
/* The signal that stops mockrun -t, set by ms_tf_on_stop(), testfile.c's
 * handler, and by a run that a signal reached: no run starts after it. */
extern volatile sig_atomic_t ms_tf_stop_sig;
void ms_tf_on_stop(int sig);
/* s with ${DIR}, ${TMP} and the env() of block b and of global expanded. */
char *ms_tf_expand(const struct file *f, const struct block *global, const struct block *b,
		   const char *s);
/* A session with block b's statements (and the file's, if global) and
 * the modules, or NULL with the error in details (NULL: on stderr). */
struct mockshim_session *ms_tf_compile(const struct file *f, const struct block *b, int global,
				       const struct testfile_opts *o, struct strbuf *details);
/* The end of a session ms_tf_run_one() returned: a compiled block's
 * stays for its next run. */
void ms_tf_session_done(const struct block *b, struct mockshim_session *s);

/* Block b's run r in a session of its own (with a control socket at
 * control, if not NULL), run to its end: the session, or NULL with why
 * in details. */
struct mockshim_session *ms_tf_run_one(const struct file *f, const struct block *b, const struct run *r,
				       const char *dir, const char *suite_dir, const struct testfile_opts *o,
				       const char *control, struct mockshim_result *res,
				       struct strbuf *details);
/* The checks of test t on its run in session s: 1 if one failed, why in
 * details; what the program wrote in out. */
int ms_tf_check_run(const struct file *f, const struct block *t, const char *dir, struct mockshim_session *s,
		    const struct mockshim_result *r, struct result *out, struct strbuf *details);
void ms_tf_add_report(struct strbuf *details, struct mockshim_session *s);
/* A test of several runs: each a step, in order (tfile_run.c). */
int ms_tf_run_multi(const struct file *f, const struct block *t, const char *dir,
		    const char *suite_dir, const struct testfile_opts *o, struct result *out,
		    struct strbuf *details);
/* s's text report with every statement and its uses (malloc'd), or NULL. */
char *ms_tf_report_text(struct mockshim_session *s);
void ms_tf_describe_exit(struct strbuf *b, const struct mockshim_result *r);
void ms_tf_rm_tree(const char *dir);
/* Results across processes: a length and the bytes. */
void ms_tf_put_mem(int fd, const char *s, uint32_t n);
void ms_tf_put_field(int fd, const char *s);
char *ms_tf_get_field(int fd);

/* ---- tfile_bg.c ---- */

/* A test with backgrounds: its steps in the order of its file. */
int ms_tf_run_steps(const struct file *f, const struct block *t, const char *dir, const char *suite_dir,
		    const struct testfile_opts *o, struct result *out, struct strbuf *details);
/* A control block's statements as a request (lines and columns kept). */
char *ms_tf_act_text(const char *blanked);

/* ---- tfile_report.c ---- */

void ms_tf_write_tap(FILE *out, struct entry *e, size_t n, int version);
void ms_tf_write_junit(FILE *out, struct entry *e, size_t n, long long started);
void ms_tf_write_json(FILE *out, struct entry *e, size_t n);
void ms_tf_write_text(FILE *out, struct entry *e, size_t n, int color);
int ms_tf_write_html(FILE *out, struct entry *e, size_t n);

#endif
