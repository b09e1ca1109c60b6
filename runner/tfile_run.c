/* SPDX-License-Identifier: MIT */
/*
 * mockrun -t: one run of a block of a test file and what is made of it
 * (tfile.h): its session compiled, the program run in its directory and
 * environment, the test's checks, the report and the exit described, and
 * results passed across processes.  testfile.c (tests, fixtures, the -j
 * pool) and tfile_bg.c (backgrounds) both run through it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mockshim/driver.h"
#include "session.h"
#include "catalog/catalog.h"
#include "report/report.h"
#include "session.h"
#include "expand.h"
#include "testfile.h"

#include "tfile.h"
#include "symbols.h"

static int rm_entry(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

void ms_tf_rm_tree(const char *dir)
{
	nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

const char *ms_tf_cur_tmp;
volatile sig_atomic_t ms_tf_stop_sig;

/*
 * SIGINT, SIGTERM or SIGHUP to mockrun -t: the pool starts no more tests
 * and passes the signal on to each worker; a worker starts no more runs
 * (one the signal reached through its session, driver_signal, counts);
 * teardowns run, directories and the unfinished -o file go, and mockrun
 * ends by the signal (128+N).
 */
void ms_tf_on_stop(int sig)
{
	if (!ms_tf_stop_sig)
		ms_tf_stop_sig = sig;
}

/* ${DIR}, ${TMP}, env() variables, MOCKSHIM_SUITE_DIR and mockrun's own
 * environment (expand.c) */
const char *ms_tf_cur_suite_dir;

struct layers {
	const struct block *b, *global;
};

static const char *env_var(void *ctx, const char *name, size_t n, int *literal)
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
	*literal = 1;
	if (n == 18 && memcmp(name, "MOCKSHIM_SUITE_DIR", n) == 0 && ms_tf_cur_suite_dir)
		return ms_tf_cur_suite_dir;
	for (char **e = environ; *e; e++)
		if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
			return *e + n + 1;
	return NULL;
}

char *ms_tf_expand(const struct file *f, const struct block *global, const struct block *b,
		    const char *s)
{
	struct layers ls = { b, global };
	char *r = ms_expand(s, f->dir, ms_tf_cur_tmp, env_var, &ls);

	if (!r) {
		fprintf(stderr, "mockrun: out of memory\n");
		exit(125);
	}
	return r;
}

static char **make_env(const struct file *f, const struct block *global, const struct block *b,
		       const char *suite_dir)
{
	char **env = NULL;
	size_t n = 0;
	const struct block *layers[2] = { global, b };

	ms_tf_cur_suite_dir = suite_dir;
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
			PUSH(env, n, ms_tf_expand(f, global, b, kv));
		}
	}
	PUSH(env, n, NULL);
	return env;
}

/*
 * A session with the modules and the statements that block b runs with
 * (the file's own too if global), or NULL with the error in details
 * (NULL: on stderr).  Compiled once, when the file is loaded
 * (load_files keeps it in b->compiled), and again only for what has
 * none (a background, whose control blocks are checked apart).
 */
struct mockshim_session *ms_tf_compile(const struct file *f, const struct block *b, int global,
				       const struct testfile_opts *o, struct strbuf *details)
{
	struct mockshim_session *s = mockshim_session_create();
	struct strbuf err = { NULL, 0 };

	if (!s) {
		sb_printf(details ? details : &err, "out of memory\n");
		goto fail;
	}
	for (int m = 0; m < o->nmodules; m++) {
		if (mockshim_session_add_module(s, o->modules[m]) < 0) {
			sb_printf(details ? details : &err, "-m %s", mockshim_session_error(s));
			goto fail;
		}
	}
	for (int k = 0; k < o->nsite_skip; k++) {
		if (ms_session_add_site_skip(s, o->site_skip[k]) < 0) {
			sb_printf(details ? details : &err, "--site-skip %s", mockshim_session_error(s));
			goto fail;
		}
	}
	/* at="NAME": the names of the program the block runs first */
	if (b->nruns && b->runs[0].argv && b->runs[0].argv[0]) {
		/* as it will run: ${DIR}/prog is the file's directory's */
		const struct block *g = b->kind == B_TEST || b->kind == B_SETUP || b->kind == B_TEARDOWN ||
						b->kind == B_BACKGROUND
						? &f->global : NULL;
		char *prog = ms_tf_expand(f, g, b, b->runs[0].argv[0]);
		int r = ms_session_set_at_program(s, prog);

		free(prog);
		if (r < 0) {
			sb_printf(details ? details : &err, "out of memory\n");
			goto fail;
		}
	}
	/* ...by the call sites' symbolizer, which shows the report's sites */
	ms_symbols_session(s);
	/* --sites: the tests' runs count their sites (not the fixtures') */
	if (o->sites && b->kind == B_TEST)
		ms_session_set_sites(s, MS_SITES_CAP);
	if ((b->kind == B_BACKGROUND && mockshim_session_set_control(s, 1, NULL) < 0) ||
	    (global && f->global.stmts &&
	     mockshim_session_add(s, f->path, f->global.stmts, strlen(f->global.stmts)) < 0) ||
	    (b->stmts && mockshim_session_add(s, f->path, b->stmts, strlen(b->stmts)) < 0)) {
		sb_printf(details ? details : &err, "%s", mockshim_session_error(s));
		goto fail;
	}
	return s;
fail:
	if (err.s) {
		fputs(err.s, stderr);
		free(err.s);
	}
	mockshim_session_destroy(s);
	return NULL;
}

void ms_tf_session_done(const struct block *b, struct mockshim_session *s)
{
	if (s != b->compiled)
		mockshim_session_destroy(s);
}

/*
 * One run under a session of the file-level statements (for tests) and
 * the block's own.  Returns the session, or NULL with why in details.
 */
struct mockshim_session *ms_tf_run_one(const struct file *f, const struct block *b,
					const struct run *r, const char *dir, const char *suite_dir,
					const struct testfile_opts *o, const char *control,
					struct mockshim_result *res, struct strbuf *details)
{
	struct mockshim_session *s;
	char **env;
	int rc;

	if (ms_tf_stop_sig) {
		sb_printf(details, "%s:%u: not run: mockrun was stopped by %s\n", f->path, r->line,
			  ms_tf_stop_sig == SIGINT    ? "SIGINT"
			  : ms_tf_stop_sig == SIGTERM ? "SIGTERM"
						      : "SIGHUP");
		return NULL;
	}
	s = b->compiled ? b->compiled : ms_tf_compile(f, b, b->kind == B_TEST, o, details);
	if (!s)
		return NULL;
	if (o->shim)
		mockshim_session_set_shim(s, o->shim);
	if (control && mockshim_session_set_control(s, 1, control) < 0) {
		sb_printf(details, "out of memory\n");
		ms_tf_session_done(b, s);
		return NULL;
	}
	mockshim_session_set_timeout(s, b->timeout > 0 ? b->timeout : o->timeout);
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
			char *path = ms_tf_expand(f, g, b, b->stdin_file), *full = NULL, *data = NULL;
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
				ms_tf_session_done(b, s);
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
			argv[i] = ms_tf_expand(f, g, b, r->argv[i]);
		argv[nw] = NULL;
		/* the objects the test's sites can name: its program, found
		 * from its working directory */
		if (argv[0][0] != '/' && strchr(argv[0], '/')) {
			char *prog;

			if (asprintf(&prog, "%s/%s", dir, argv[0]) >= 0) {
				ms_symbols_program(prog);
				free(prog);
			}
		} else {
			ms_symbols_program(argv[0]);
		}
		rc = mockshim_session_run(s, argv, env, res);
		if (rc == 0 && res->driver_signal)
			ms_tf_on_stop(res->driver_signal);
		for (size_t i = 0; i < nw; i++)
			free(argv[i]);
		free(argv);
	}
	free(env);
	if (rc < 0) {
		sb_printf(details, "%s:%u: cannot run %s: %s", f->path, r->line, r->argv[0],
			  mockshim_session_error(s)[0] ? mockshim_session_error(s) : strerror(-rc));
		ms_tf_session_done(b, s);
		return NULL;
	}
	return s;
}

void ms_tf_add_report(struct strbuf *details, struct mockshim_session *s)
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

char *ms_tf_report_text(struct mockshim_session *s)
{
	char *rep = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&rep, &len);

	if (!m)
		return NULL;
	mockshim_session_set_verbosity(s, MOCKSHIM_NORMAL);
	mockshim_session_report(s, m, MOCKSHIM_REPORT_TEXT);
	if (fclose(m) != 0) {
		free(rep);
		return NULL;
	}
	return rep;
}

void ms_tf_describe_exit(struct strbuf *b, const struct mockshim_result *r)
{
	if (r->exec_errno)
		sb_printf(b, "could not be started (%s)", strerror(r->exec_errno));
	else if (r->timed_out)
		sb_printf(b, "timed out");
	else if (r->signal)
		sb_printf(b, "was killed by SIG%s", ms_signal_abbrev(r->signal) ? ms_signal_abbrev(r->signal) : "?");
	else
		sb_printf(b, "exited with status %d", r->exit_status);
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

void ms_tf_put_mem(int fd, const char *s, uint32_t n)
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

void ms_tf_put_field(int fd, const char *s)
{
	ms_tf_put_mem(fd, s, s ? (uint32_t)strlen(s) : 0);
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

char *ms_tf_get_field(int fd)
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

int ms_tf_check_run(const struct file *f, const struct block *t, const char *dir,
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
				  ms_signal_abbrev(t->expect_signal) ? ms_signal_abbrev(t->expect_signal) : "?");
			ms_tf_describe_exit(details, r);
			sb_printf(details, "\n");
			failed = 1;
		}
	} else if (t->expect_no_signal || t->expect_exit_not >= 0) {
		/* the program ends by itself: no signal, no timeout (and, with
		 * expect_exit_not(N), a status other than N) */
		if (r->exec_errno || !r->exited || r->exit_status == t->expect_exit_not) {
			if (t->expect_exit_not >= 0)
				sb_printf(details, "%s:%u: expected an exit status other than %d, but %s ",
					  f->path, t->expect_line, t->expect_exit_not, t->runs[0].argv[0]);
			else
				sb_printf(details, "%s:%u: expected %s to exit by itself, but it ", f->path,
					  t->expect_line, t->runs[0].argv[0]);
			ms_tf_describe_exit(details, r);
			sb_printf(details, "\n");
			failed = 1;
		}
	} else {
		int want = t->expect_exit < 0 ? 0 : t->expect_exit;

		if (r->exec_errno || !r->exited || r->exit_status != want) {
			sb_printf(details, "%s:%u: expected exit status %d, but %s ", f->path,
				  t->expect_exit < 0 ? t->runs[0].line : t->expect_line, want,
				  t->runs[0].argv[0]);
			ms_tf_describe_exit(details, r);
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
		ms_tf_add_report(details, s);
	}
	return failed;
}

/*
 * A test of several runs, in order, in one directory: run k with the
 * file's statements and those written above it (since run k - 1), then
 * the expectations written below it; the files it leaves are the next
 * run's (after a power_loss: what survived, so the next run is the
 * recovery).  The first step that fails stops the test, named.
 */
int ms_tf_run_multi(const struct file *f, const struct block *t, const char *dir,
		    const char *suite_dir, const struct testfile_opts *o, struct result *out,
		    struct strbuf *details)
{
	for (size_t k = 0; k < t->nruns; k++) {
		const struct run *r = &t->runs[k];
		uint32_t hi = k + 1 < t->nruns ? t->runs[k + 1].line : UINT32_MAX;
		struct block step = *t;
		struct check *checks = xrealloc(NULL, t->nchecks * sizeof(*checks));
		struct mockshim_result res;
		struct mockshim_session *s;
		struct strbuf why = { NULL, 0 };
		int failed;

		step.stmts = r->stmts;
		step.compiled = NULL;
		step.runs = (struct run *)r;
		step.nruns = 1;
		step.expect_exit = r->expect_exit;
		step.expect_signal = r->expect_signal;
		step.expect_exit_not = r->expect_exit_not;
		step.expect_no_signal = r->expect_no_signal;
		step.expect_line = r->expect_line;
		step.nchecks = 0;
		for (size_t i = 0; i < t->nchecks; i++)
			if (t->checks[i].line > r->line && t->checks[i].line < hi)
				checks[step.nchecks++] = t->checks[i];
		step.checks = checks;
		free(out->out);
		free(out->err);
		out->out = out->err = NULL;
		s = ms_tf_run_one(f, &step, r, dir, suite_dir, o, NULL, &res, &why);
		failed = !s || ms_tf_check_run(f, &step, dir, s, &res, out, &why);
		if (s && r->expect_power && !ms_power_was_cut(s)) {
			sb_printf(&why, "%s:%u: expected the power to go out (a power_loss taking its "
					"turn), but %s ", f->path, r->expect_power, r->argv[0]);
			ms_tf_describe_exit(&why, &res);
			sb_printf(&why, "\n");
			failed = 1;
		}
		if (s && o->format == TESTFILE_HTML && k + 1 == t->nruns) {
			free(out->report);
			out->report = ms_tf_report_text(s);
		}
		if (s)
			ms_tf_session_done(&step, s);
		free(checks);
		if (failed) {
			sb_printf(details, "%s:%u: step %zu of %zu (run %s) failed\n%s", f->path, r->line,
				  k + 1, t->nruns, r->argv[0], why.s ? why.s : "");
			free(why.s);
			return 1;
		}
		free(why.s);
	}
	return 0;
}
