/* SPDX-License-Identifier: MIT */
/*
 * Test files (*.mock, DESIGN.md section 4): file-level statements apply to
 * every test; test "name" { ... } blocks hold statements, one `run`, and
 * checks; setup/teardown (each test) and setup_all/teardown_all (each
 * file) are CMocka's fixtures.  Every test runs in a fresh session and a
 * fresh temporary working directory, its results in TAP 14 (default),
 * JUnit or JSON.
 *
 * This file runs them: a test, its fixtures, the -j pool.  Reading a
 * file is tfile_parse.c's, backgrounds tfile_bg.c's, the results'
 * formats tfile_report.c's; tfile.h holds what they share.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <ftw.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mockshim/driver.h"
#include "catalog/catalog.h"
#include "outfile.h"
#include "report/report.h"
#include "session.h"
#include "expand.h"
#include "jobs.h"
#include "testfile.h"

#include "tfile.h"

/* ---- running ---- */

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

/* ${DIR}, ${TMP} and env() variables (expand.c) */
static const char *cur_tmp; /* the running test's (or suite's) directory */

/*
 * SIGINT, SIGTERM or SIGHUP to mockrun -t: the pool starts no more tests
 * and passes the signal on to each worker; a worker starts no more runs
 * (one the signal reached through its session, driver_signal, counts);
 * teardowns run, directories and the unfinished -o file go, and mockrun
 * ends by the signal (128+N).
 */
static volatile sig_atomic_t stop_sig;

static void on_stop(int sig)
{
	if (!stop_sig)
		stop_sig = sig;
}

static const int stop_sigs[] = { SIGINT, SIGTERM, SIGHUP };

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

	if (stop_sig) {
		sb_printf(details, "%s:%u: not run: mockrun was stopped by %s\n", f->path, r->line,
			  stop_sig == SIGINT ? "SIGINT" : stop_sig == SIGTERM ? "SIGTERM" : "SIGHUP");
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
			argv[i] = expand(f, g, b, r->argv[i]);
		argv[nw] = NULL;
		rc = mockshim_session_run(s, argv, env, res);
		if (rc == 0 && res->driver_signal)
			on_stop(res->driver_signal);
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

/* Fixture runs must exit 0 and pass their own checks. */
static int run_fixture(const struct file *f, const struct block *b, const char *dir,
		       const char *suite_dir, const struct testfile_opts *o, struct strbuf *details)
{
	for (size_t i = 0; b && i < b->nruns; i++) {
		struct mockshim_result res;
		struct mockshim_session *s = ms_tf_run_one(f, b, &b->runs[i], dir, suite_dir, o, NULL, &res, details);
		int ok;

		if (!s)
			return -1;
		ok = !res.exec_errno && res.exited && res.exit_status == 0 && !res.failures;
		if (!ok) {
			size_t n;
			const char *err = mockshim_session_output(s, 2, &n);

			sb_printf(details, "%s:%u: %s failed: %s ", f->path, b->runs[i].line, b->name,
				  b->runs[i].argv[0]);
			ms_tf_describe_exit(details, &res);
			sb_printf(details, "\n");
			if (n)
				sb_printf(details, "%s stderr: %.*s%s", b->name, (int)(n > 2000 ? 2000 : n),
					  err, err[n - 1] == '\n' ? "" : "\n");
			ms_tf_add_report(details, s);
		}
		ms_tf_session_done(b, s);
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
		failed |= ms_tf_run_steps(f, t, dir, suite_dir, o, out, &details);
	} else {
		s = ms_tf_run_one(f, t, &t->runs[0], dir, suite_dir, o, NULL, &res, &details);
		failed |= !s || ms_tf_check_run(f, t, dir, s, &res, out, &details);
	}
teardown:
	/* teardown runs even after a failure, in the same directory */
	if (run_fixture(f, find_block(f, B_TEARDOWN), dir, suite_dir, o, &details)) {
		failed = 1;
		out->error = 1;
	}
done:
	if (s)
		ms_tf_session_done(t, s);
	if (made_dir)
		ms_tf_rm_tree(tmpl);
	cur_tmp = NULL;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	out->seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	out->passed = !failed;
	out->details = details.s;
}


/* ---- the pool (-j) ---- */

static char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

/* Test k of e in a process of its own: its results come on *fd. */
static pid_t start_test(const struct entry *x, const char *suite_dir, const struct testfile_opts *o, int *fd)
{
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) != 0) {
		perror("mockrun: pipe");
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		perror("mockrun: fork");
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		struct result r;
		char flag[2] = { 0, 0 }, secs[32];

		close(p[0]);
		stop_sig = 0;
		run_test(x->f, x->t, suite_dir, o, &r);
		flag[0] = r.passed ? 'p' : r.error ? 'e' : 'f';
		snprintf(secs, sizeof(secs), "%.6f", r.seconds);
		ms_tf_put_field(p[1], flag);
		ms_tf_put_field(p[1], r.details);
		ms_tf_put_field(p[1], r.out);
		ms_tf_put_field(p[1], r.err);
		ms_tf_put_field(p[1], secs);
		_exit(0);
	}
	close(p[1]);
	*fd = p[0];
	return pid;
}

/* The results of the test whose worker writes on fd. */
static void collect_test(struct entry *x, int fd, pid_t pid)
{
	char *flag = ms_tf_get_field(fd), *secs;

	x->r.passed = flag && flag[0] == 'p';
	x->r.error = !flag || flag[0] == 'e';
	x->r.details = flag ? ms_tf_get_field(fd) : NULL;
	x->r.out = flag ? ms_tf_get_field(fd) : NULL;
	x->r.err = flag ? ms_tf_get_field(fd) : NULL;
	secs = flag ? ms_tf_get_field(fd) : NULL;
	x->r.seconds = secs ? strtod(secs, NULL) : 0;
	if (!flag)
		x->r.details = xstrdup("the test's worker died\n");
	free(flag);
	free(secs);
	close(fd);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

/* A file's setup_all and teardown_all run in dir, which its tests see as
 * MOCKSHIM_SUITE_DIR; a failed setup_all (ok 0, why) fails its tests. */
struct suite {
	char *dir;
	int ok;
	char *why;
};

/*
 * Runs the n tests of e, o->jobs at a time, and collects each as soon as
 * it is done, whichever that is (the results stay in the files' order).
 * -1 when a worker could not be started: no more start, and those that
 * run are waited for, so that the teardowns run and nothing is left.
 */
static int run_pool(struct entry *e, size_t n, struct file **files, int npaths,
		    const struct suite *suites, const struct testfile_opts *o)
{
	size_t next = 0, running = 0;
	int jobs = o->jobs > 0 ? o->jobs : 1, rc = 0, forwarded = 0;
	pid_t *pids = xrealloc(NULL, n * sizeof(pid_t));
	int *fds = xrealloc(NULL, n * sizeof(int));
	struct pollfd *pfd = xrealloc(NULL, (size_t)jobs * sizeof(*pfd));
	size_t *pk = xrealloc(NULL, (size_t)jobs * sizeof(*pk));

	for (;;) {
		size_t np = 0;

		if (stop_sig && !forwarded) {
			for (size_t k = 0; k < next; k++)
				if (fds[k] >= 0)
					kill(pids[k], stop_sig);
			forwarded = 1;
		}
		while (!stop_sig && rc == 0 && running < (size_t)jobs && next < n) {
			size_t k = next++;
			int fi;

			fds[k] = -1;
			for (fi = 0; fi < npaths && files[fi] != e[k].f; fi++)
				;
			if (!suites[fi].ok) {
				struct strbuf d = { NULL, 0 };

				sb_printf(&d, "the test did not run: setup_all failed\n%s",
					  suites[fi].why ? suites[fi].why : "");
				e[k].r.details = d.s;
				e[k].r.passed = 0;
				e[k].r.error = 1;
				continue;
			}
			pids[k] = start_test(&e[k], suites[fi].dir, o, &fds[k]);
			if (pids[k] < 0) {
				e[k].r.details = xstrdup("the test did not run: no worker\n");
				e[k].r.error = 1;
				rc = -1;
				break;
			}
			running++;
		}
		for (size_t k = 0; k < next; k++) {
			if (fds[k] >= 0) {
				pfd[np] = (struct pollfd){ .fd = fds[k], .events = POLLIN };
				pk[np++] = k;
			}
		}
		if (np == 0)
			break;
		if (poll(pfd, np, -1) < 0) {
			if (errno == EINTR)
				continue;
			perror("mockrun: poll");
			rc = -1;
			pfd[0].revents = POLLIN; /* then one at a time, blocking */
		}
		for (size_t i = 0; i < np; i++) {
			if (pfd[i].revents) {
				collect_test(&e[pk[i]], fds[pk[i]], pids[pk[i]]);
				fds[pk[i]] = -1;
				running--;
			}
		}
	}
	for (size_t k = next; k < n; k++) {
		e[k].r.details = xstrdup("the test did not run: mockrun stopped\n");
		e[k].r.error = 1;
	}
	free(pids);
	free(fds);
	free(pfd);
	free(pk);
	return rc;
}

/* ---- the entry point ---- */


/* A test's backgrounds, and what its control blocks add to each, as
 * mockrun ctl would check it: 0, or -1 with the error printed. */
static int check_subs(const struct file *f, const struct block *t, const struct testfile_opts *o)
{
	for (size_t i = 0; i < t->nsubs; i++) {
		const struct block *bg = &t->subs[i];
		struct mockshim_session *s;

		if (bg->kind != B_BACKGROUND)
			continue;
		if (!(s = ms_tf_compile(f, bg, 1, o, NULL)))
			return -1;
		for (size_t k = i + 1; k < t->nsubs; k++) {
			const struct block *c = &t->subs[k];

			for (size_t a = 0; c->kind == B_CONTROL && c->target == i && a < c->nacts; a++) {
				char msg[2048], *text;
				int r;

				if (c->acts[a].kind != A_ADD)
					continue;
				text = ms_tf_act_text(c->acts[a].text);
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


/* Whether --filter selects test name: the name as it is, or as TAP and
 * --list-tests write it (a line break as \x0a), which is what CMake's
 * mockshim_add_tests reads. */
static int selected(const char *glob, const char *name)
{
	char *shown = NULL;
	size_t len = 0;
	FILE *m;
	int r;

	if (!glob || fnmatch(glob, name, 0) == 0)
		return 1;
	if (!strpbrk(name, "#\\\n\r\t") || !(m = open_memstream(&shown, &len)))
		return 0;
	ms_tap_text(m, name);
	r = fclose(m) == 0 && fnmatch(glob, shown, 0) == 0;
	free(shown);
	return r;
}

/* Every file parsed, statements included, before anything runs; the
 * tests that --filter and --shard select into *e.  0, or 125 with the
 * error printed. */
static int load_files(char *const *paths, int npaths, const struct testfile_opts *o,
		      struct file **files, struct entry **e, size_t *n)
{
	char error[2048];

	for (int i = 0; i < npaths; i++) {
		error[0] = '\0';
		files[i] = ms_tf_load(paths[i], error, sizeof(error));
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
			if (!o->list) {
				if (!(s = ms_tf_compile(files[i], b, b->kind == B_TEST, o, NULL)))
					return 125;
				files[i]->blocks[k].compiled = s;
				if (check_subs(files[i], b, o))
					return 125;
			}
			if (b->kind == B_TEST && selected(o->filter, b->name) &&
			    (!o->shard_n || ms_shard_of(paths[i], b->name, o->shard_n) == o->shard_k - 1)) {
				struct entry x = { files[i], b, { 0 } };

				PUSH(*e, *n, x);
			}
		}
	}
	return 0;
}

/* Each file's setup_all, in a directory of its own. */
static struct suite *suites_up(struct file **files, int npaths, const struct testfile_opts *o)
{
	struct suite *su = xrealloc(NULL, (size_t)npaths * sizeof(*su));
	const char *tmp = getenv("TMPDIR");

	for (int i = 0; i < npaths; i++) {
		char tmpl[PATH_MAX];
		struct strbuf why = { NULL, 0 };

		snprintf(tmpl, sizeof(tmpl), "%s/mockshim-suite-XXXXXX", tmp && *tmp ? tmp : "/tmp");
		su[i].dir = mkdtemp(tmpl) ? xstrndup(tmpl, strlen(tmpl)) : NULL;
		cur_tmp = su[i].dir;
		su[i].ok = su[i].dir && run_fixture(files[i], find_block(files[i], B_SETUP_ALL), su[i].dir,
						    su[i].dir, o, &why) == 0;
		su[i].why = why.s;
	}
	return su;
}

/* Each file's teardown_all, then its directory goes: 0, or 1 when a
 * teardown_all failed (said on stderr). */
static int suites_down(struct suite *su, struct file **files, char *const *paths, int npaths,
		       const struct testfile_opts *o)
{
	int rc = 0;

	for (int i = 0; i < npaths; i++) {
		struct strbuf why = { NULL, 0 };

		if (su[i].dir) {
			cur_tmp = su[i].dir;
			if (run_fixture(files[i], find_block(files[i], B_TEARDOWN_ALL), su[i].dir,
					su[i].dir, o, &why)) {
				fprintf(stderr, "mockrun: %s: teardown_all failed\n%s", paths[i],
					why.s ? why.s : "");
				rc = 1;
			}
			ms_tf_rm_tree(su[i].dir);
		}
		free(why.s);
		free(su[i].dir);
		free(su[i].why);
	}
	free(su);
	return rc;
}

/* The results in the format asked, made in memory, then written: a
 * failed write is the file's error (125), not lost in a buffer. */
static int write_results(struct entry *e, size_t n, const struct testfile_opts *o,
			 long long started)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	int rc = 0;

	if (!out) {
		fprintf(stderr, "mockrun: out of memory\n");
		return 125;
	}
	if (o->format == TESTFILE_JUNIT)
		ms_tf_write_junit(out, e, n, started);
	else if (o->format == TESTFILE_JSON)
		ms_tf_write_json(out, e, n);
	else if (o->format == TESTFILE_TEXT)
		ms_tf_write_text(out, e, n, o->color);
	else
		ms_tf_write_tap(out, e, n, o->tap_version == 14 ? 14 : 13);
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
	return rc;
}

int ms_run_test_files(char *const *paths, int npaths, const struct testfile_opts *o)
{
	struct file **files = memset(xrealloc(NULL, (size_t)npaths * sizeof(*files)), 0,
				     (size_t)npaths * sizeof(*files));
	struct entry *e = NULL;
	struct suite *su;
	size_t n = 0, failed = 0;
	long long started = (long long)time(NULL);
	int rc = load_files(paths, npaths, o, files, &e, &n);

	/* a name per line: escaped as in TAP */
	for (size_t i = 0; rc == 0 && o->list && i < n; i++) {
		printf("%s: ", e[i].f->path);
		ms_tap_text(stdout, e[i].t->name);
		putchar('\n');
	}
	if (rc == 0 && !o->list) {
		struct sigaction sa = { .sa_handler = on_stop }, old[3];

		/* no SA_RESTART: the pool's poll returns */
		sigemptyset(&sa.sa_mask);
		for (int i = 0; i < 3; i++)
			sigaction(stop_sigs[i], &sa, &old[i]);
		/* the tests, -j at a time, each in a process of its own */
		su = suites_up(files, npaths, o);
		rc = run_pool(e, n, files, npaths, su, o) < 0 ? 125 : 0;
		rc = suites_down(su, files, paths, npaths, o) && rc == 0 ? 1 : rc;
		for (size_t i = 0; i < n; i++)
			failed += !e[i].r.passed;
		if (stop_sig)
			rc = 128 + stop_sig;
		else if (write_results(e, n, o, started) == 125)
			rc = 125;
		for (int i = 0; i < 3; i++)
			sigaction(stop_sigs[i], &old[i], NULL);
	}
	for (size_t i = 0; i < n; i++) {
		free(e[i].r.details);
		free(e[i].r.out);
		free(e[i].r.err);
	}
	free(e);
	for (int i = 0; i < npaths && files[i]; i++)
		ms_tf_free(files[i]);
	free(files);
	return rc == 125 || rc > 128 ? rc : failed || rc ? 1 : 0;
}
