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
 * file is tfile_parse.c's, one run and its checks tfile_run.c's,
 * backgrounds tfile_bg.c's, the results' formats tfile_report.c's;
 * tfile.h holds what they share.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
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
#include "outfile.h"
#include "report/report.h"
#include "session.h"
#include "jobs.h"
#include "testfile.h"

#include "tfile.h"
#include "sites/sites.h"

/* ---- running ---- */

static const int stop_sigs[] = { SIGINT, SIGTERM, SIGHUP };

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

/* "FILE::NAME": a test's name in sites files */
static char *sites_name(const struct file *f, const struct block *t)
{
	char *name;

	if (asprintf(&name, "%s::%s", f->path, t->name) < 0)
		return NULL;
	return name;
}

/* --sites: the sites file of test t's run (in its worker), or NULL. */
static char *test_sites(const struct file *f, const struct block *t, struct mockshim_session *s)
{
	struct ms_sites rows;
	char *name = sites_name(f, t), *text = NULL;
	size_t len = 0;
	FILE *m;

	if (!name || !s->view.spec || !s->view.state || s->view.tampered) {
		free(name);
		return NULL;
	}
	ms_sites_init(&rows);
	m = open_memstream(&text, &len);
	if (!m || ms_sites_from_state(&rows, s->view.spec, s->view.state, name) < 0 ||
	    ms_sites_write_json(&rows, m) < 0) {
		if (m)
			fclose(m);
		free(text);
		text = NULL;
	} else if (fclose(m) != 0) {
		free(text);
		text = NULL;
	}
	ms_sites_free(&rows);
	free(name);
	return text;
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
	ms_tf_cur_tmp = tmpl;
	ms_tf_cur_suite_dir = suite_dir;
	if (t->cwd) {
		char *cwd = ms_tf_expand(f, &f->global, t, t->cwd);

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
	} else if (t->nruns > 1 || t->runs[0].expect_power) {
		failed |= ms_tf_run_multi(f, t, dir, suite_dir, o, out, &details);
	} else {
		s = ms_tf_run_one(f, t, &t->runs[0], dir, suite_dir, o, NULL, &res, &details);
		failed |= !s || ms_tf_check_run(f, t, dir, s, &res, out, &details);
		/* the page's table of the test's statements */
		if (s && o->format == TESTFILE_HTML)
			out->report = ms_tf_report_text(s);
		if (s && o->sites)
			out->sites = test_sites(f, t, s);
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
	ms_tf_cur_tmp = NULL;
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
		ms_tf_stop_sig = 0;
		run_test(x->f, x->t, suite_dir, o, &r);
		flag[0] = r.passed ? 'p' : r.error ? 'e' : 'f';
		snprintf(secs, sizeof(secs), "%.6f", r.seconds);
		ms_tf_put_field(p[1], flag);
		ms_tf_put_field(p[1], r.details);
		ms_tf_put_field(p[1], r.out);
		ms_tf_put_field(p[1], r.err);
		ms_tf_put_field(p[1], secs);
		ms_tf_put_field(p[1], r.report);
		ms_tf_put_field(p[1], r.sites);
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
	x->r.report = secs ? ms_tf_get_field(fd) : NULL;
	if (x->r.report && !*x->r.report) {
		free(x->r.report);
		x->r.report = NULL;
	}
	x->r.sites = secs ? ms_tf_get_field(fd) : NULL;
	if (x->r.sites && !*x->r.sites) {
		free(x->r.sites);
		x->r.sites = NULL;
	}
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

/* A test that runs alone: `serial test`, or any test of a `serial` file. */
static int is_serial(const struct entry *x)
{
	return x->t->serial || x->f->serial_line;
}

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
	int jobs = o->jobs > 0 ? o->jobs : 1, rc = 0, forwarded = 0, alone = 0;
	pid_t *pids = xrealloc(NULL, n * sizeof(pid_t));
	int *fds = xrealloc(NULL, n * sizeof(int));
	struct pollfd *pfd = xrealloc(NULL, (size_t)jobs * sizeof(*pfd));
	size_t *pk = xrealloc(NULL, (size_t)jobs * sizeof(*pk));

	for (;;) {
		size_t np = 0;

		if (ms_tf_stop_sig && !forwarded) {
			for (size_t k = 0; k < next; k++)
				if (fds[k] >= 0)
					kill(pids[k], ms_tf_stop_sig);
			forwarded = 1;
		}
		while (!ms_tf_stop_sig && rc == 0 && running < (size_t)jobs && next < n &&
		       !alone) {
			size_t k = next;
			int fi;

			/* a serial test starts when no other runs, and none
			 * starts beside it (CTest's RUN_SERIAL) */
			if (is_serial(&e[k]) && running > 0)
				break;
			next++;

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
			alone = is_serial(&e[k]);
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
				if (is_serial(&e[pk[i]]))
					alone = 0;
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
		ms_tf_cur_tmp = su[i].dir;
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
			ms_tf_cur_tmp = su[i].dir;
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
	else if (o->format == TESTFILE_HTML && ms_tf_write_html(out, e, n) < 0)
		rc = 125;
	else
		ms_tf_write_tap(out, e, n, o->tap_version == 14 ? 14 : 13);
	if (fclose(out) != 0 || rc) {
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

/*
 * --sites FILE: the tests' sites files merged into one, written as every
 * output file is; then --sites-baseline.  125 (a file that cannot be
 * read or written, a test's file lost), 1 (the baseline), or 0.
 */
static int write_sites(struct entry *e, size_t n, const struct testfile_opts *o)
{
	struct ms_sites all, base;
	struct ms_outfile out = { .fd = -1 };
	char err[512], *text = NULL;
	size_t len = 0;
	FILE *m;
	int r, rc = 0;

	ms_sites_init(&all);
	for (size_t i = 0; i < n; i++) {
		if (!e[i].r.sites) {
			/* ran, and no sites came back: the count would be wrong */
			if (!e[i].r.error && !e[i].r.skipped && e[i].t->nsteps == 0)
				fprintf(stderr, "mockrun: --sites %s: %s: %s: no sites recorded\n", o->sites,
					e[i].f->path, e[i].t->name);
			continue;
		}
		if (ms_sites_read_json(&all, e[i].r.sites, strlen(e[i].r.sites), e[i].t->name, err,
				       sizeof(err)) < 0) {
			fprintf(stderr, "mockrun: --sites %s: %s\n", o->sites, err);
			rc = 125;
		}
	}
	if ((r = ms_out_open(&out, "--sites", o->sites)) < 0) {
		fprintf(stderr, "mockrun: --sites %s: %s\n", o->sites, strerror(-r));
		ms_sites_free(&all);
		return 125;
	}
	if (all.lost)
		fprintf(stderr, "mockrun: warning: --sites %s: %llu calls not counted: a sites table "
			"(%u slots) was full, or a process ended in the middle of a count\n", o->sites,
			(unsigned long long)all.lost, MS_SITES_CAP);
	m = open_memstream(&text, &len);
	r = m ? ms_sites_write_json(&all, m) : -ENOMEM;
	if (m && fclose(m) != 0 && r == 0)
		r = -ENOMEM;
	if (r == 0)
		r = ms_out_write(&out, text, len);
	free(text);
	if (r < 0 || rc || (r = ms_out_close(&out, 1)) < 0) {
		if (r < 0)
			fprintf(stderr, "mockrun: --sites %s: %s\n", o->sites, strerror(-r));
		ms_out_close(&out, 0);
		ms_sites_free(&all);
		return 125;
	}
	if (o->sites_baseline) {
		ms_sites_init(&base);
		if (ms_sites_read_file(&base, o->sites_baseline, err, sizeof(err)) < 0) {
			fprintf(stderr, "mockrun: --sites-baseline %s\n", err);
			rc = 125;
		} else if (ms_sites_baseline(&base, &all, o->sites_baseline, stderr)) {
			rc = 123;
		}
		ms_sites_free(&base);
	}
	ms_sites_free(&all);
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
		struct sigaction sa = { .sa_handler = ms_tf_on_stop }, old[3];

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
		if (ms_tf_stop_sig)
			rc = 128 + ms_tf_stop_sig;
		else if (write_results(e, n, o, started) == 125)
			rc = 125;
		if (!ms_tf_stop_sig && o->sites) {
			int sr = write_sites(e, n, o);

			/* the baseline's 123 wins over a failed test's 1 */
			rc = sr == 125 || rc == 125 ? 125 : sr ? sr : rc;
		}
		for (int i = 0; i < 3; i++)
			sigaction(stop_sigs[i], &old[i], NULL);
	}
	for (size_t i = 0; i < n; i++) {
		free(e[i].r.details);
		free(e[i].r.report);
		free(e[i].r.sites);
		free(e[i].r.out);
		free(e[i].r.err);
	}
	free(e);
	for (int i = 0; i < npaths && files[i]; i++)
		ms_tf_free(files[i]);
	free(files);
	return rc == 125 || rc == 123 || rc > 128 ? rc : failed || rc ? 1 : 0;
}
