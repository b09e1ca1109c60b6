/* SPDX-License-Identifier: MIT */
/*
 * The runs: each a mockrun process with the run's statement, its report
 * in JSON and its output in files; the clean run and its trace (the work
 * list); the outcome of a run (DESIGN.md 7.2); the pool of -j runs, with
 * the confirmation of each finding.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "impl.h"

/* ---- one run ---- */

char *ex_statement(const struct ex *x, const char *fn, const char *site, const char *err)
{
	char *e = err[0] ? ex_printf(", %s", err) : ex_strdup("");
	char *s;

	if (x->count_mode) {
		unsigned long k = strtoul(site + 1, NULL, 10);
		char *before = k > 1 ? ex_printf("will_call_real(%s, %lu); ", fn, k - 1) : ex_strdup("");

		s = x->persistent && err[0] ? ex_printf("%swill_fail_count(%s%s, -1)", before, fn, e)
					    : ex_printf("%swill_fail(%s%s)", before, fn, e);
		free(before);
	} else {
		s = x->persistent && err[0] ? ex_printf("will_fail_count(%s%s, -1, at=\"%s\")", fn, e, site)
					    : ex_printf("will_fail(%s%s, at=\"%s\")", fn, e, site);
	}
	free(e);
	return s;
}

/* the program's path as a run starts it: a relative path with a slash is
 * this directory's, wherever the run starts */
static char *program_path(const struct ex *x)
{
	if (strchr(x->argv[0], '/') && x->argv[0][0] != '/')
		return ex_printf("%s/%s", x->startdir, x->argv[0]);
	return ex_strdup(x->argv[0]);
}

static pid_t spawn(const struct ex *x, const char *rundir, const char *cwd, const char *stmt, int trace)
{
	char **av = ex_xrealloc(NULL, (size_t)(x->argc + 2 * x->nsrcs + 2 * x->nskips + 20) * sizeof(*av));
	char *report = ex_printf("%s/report.json", rundir), *out = ex_printf("%s/stdout", rundir),
	     *err = ex_printf("%s/stderr", rundir), *tracef = ex_printf("%s/trace", rundir), *tfns = NULL,
	     *tmo = NULL, *prog = program_path(x);
	int n = 0;
	pid_t pid;

	av[n++] = x->mockrun;
	av[n++] = "--report";
	av[n++] = "json";
	av[n++] = "-o";
	av[n++] = report;
	if (x->timeout > 0) {
		tmo = ex_printf("%.3f", x->timeout);
		av[n++] = "--timeout";
		av[n++] = tmo;
	}
	if (x->seed) {
		av[n++] = "--seed";
		av[n++] = x->seed;
	}
	for (size_t i = 0; i < x->nskips; i++) {
		av[n++] = "--site-skip";
		av[n++] = x->skips[i];
	}
	for (size_t i = 0; i < x->nsrcs; i++) {
		av[n++] = x->srcs[i].kind == 'e' ? "-e" : x->srcs[i].kind == 'f' ? "-f" : "-m";
		av[n++] = x->srcs[i].text;
	}
	if (stmt) {
		av[n++] = "-e";
		av[n++] = (char *)stmt;
	}
	if (trace) {
		size_t len = 9;

		for (size_t i = 0; i < x->nfns; i++)
			len += strlen(x->fns[i]) + 1;
		tfns = ex_xrealloc(NULL, len);
		strcpy(tfns, "--trace=");
		for (size_t i = 0; i < x->nfns; i++) {
			if (i)
				strcat(tfns, ",");
			strcat(tfns, x->fns[i]);
		}
		av[n++] = tfns;
		av[n++] = "--trace-file";
		av[n++] = tracef;
	}
	av[n++] = "--";
	av[n++] = prog;
	for (int i = 1; i < x->argc; i++)
		av[n++] = x->argv[i];
	av[n] = NULL;
	pid = fork();
	if (pid == 0) {
		int in = open("/dev/null", O_RDONLY), o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644),
		    e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (in < 0 || o < 0 || e < 0 || dup2(in, 0) < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0)
			_exit(125);
		if (chdir(cwd)) {
			dprintf(2, "%s: %s: %s\n", ex_name, cwd, strerror(errno));
			_exit(125);
		}
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		execv(x->mockrun, av);
		dprintf(2, "%s: %s: %s\n", ex_name, x->mockrun, strerror(errno));
		_exit(125);
	}
	free(report);
	free(out);
	free(err);
	free(tracef);
	free(tfns);
	free(tmo);
	free(prog);
	free(av);
	return pid;
}

/* ---- reading a run's report ---- */

static const char *json_after(const char *j, const char *key)
{
	const char *p = j ? strstr(j, key) : NULL;

	return p ? p + strlen(key) : NULL;
}

static long json_long(const char *j, const char *key, long dflt)
{
	const char *p = json_after(j, key);

	return p ? strtol(p, NULL, 10) : dflt;
}

/* a JSON string at p (after its opening quote), unescaped enough for sites */
static char *json_str(const char *p)
{
	const char *e = p;

	while (*e && *e != '"')
		e += e[0] == '\\' && e[1] ? 2 : 1;
	return ex_strndup(p, (size_t)(e - p));
}

struct outcome_in {
	char *report, *err;
	size_t errlen;
	uint64_t out_hash, files_hash;
};

static const char *const crash_marks[] = {
	"Assertion `", "assertion failed", "Assertion failed", "double free", "free(): ", "malloc(): ",
	"realloc(): ", "corrupted ", "munmap_chunk(): ", "malloc_consolidate(): ", "stack smashing detected",
	"buffer overflow detected", "AddressSanitizer", "UndefinedBehaviorSanitizer", NULL,
};
static const char *const sanitizer_marks[] = {
	"ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "ERROR: ThreadSanitizer", "ERROR: MemorySanitizer",
	"runtime error: ", "== Invalid read", "== Invalid write", "== Invalid free",
	"== Conditional jump or move depends", "== Syscall param", "== Mismatched free", NULL,
};

static int has_mark(const char *s, size_t n, const char *const *marks)
{
	for (size_t i = 0; s && marks[i]; i++)
		if (memmem(s, n, marks[i], strlen(marks[i])))
			return 1;
	return 0;
}

/* the first line of s that has a mark, at most 200 bytes */
static char *mark_line(const char *s, size_t n, const char *const *marks)
{
	for (size_t i = 0; s && marks[i]; i++) {
		const char *m = memmem(s, n, marks[i], strlen(marks[i])), *b, *e;

		if (!m)
			continue;
		for (b = m; b > s && b[-1] != '\n'; b--)
			;
		e = memchr(m, '\n', n - (size_t)(m - s));
		if (!e)
			e = s + n;
		return ex_strndup(b, (size_t)(e - b) > 200 ? 200 : (size_t)(e - b));
	}
	return ex_strdup("");
}

static int is_crash_signal(int sig)
{
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE;
}

/* the outcome of a run whose report, stderr and output hashes are in */
static void classify(const struct ex *x, const struct outcome_in *in, struct ex_result *r)
{
	const char *j = in->report, *p;
	char key[32];
	long consumed = -1;
	int nsrc_e = 0;

	for (size_t i = 0; i < x->nsrcs; i++)
		nsrc_e += x->srcs[i].kind == 'e';
	r->exited = json_after(j, "\"exited\":true") != NULL;
	r->status = (int)json_long(j, "\"exit_status\":", 0);
	r->sig = (int)json_long(j, "\"signal\":", 0);
	p = json_after(j, "\"crash\":{\"site\":\"");
	r->crash_site = p ? json_str(p) : ex_strdup("");
	r->stack = ex_strdup("");
	p = p ? json_after(p, "\"stack\":[") : NULL;
	if (p) {
		char *st = NULL;

		while (*p == '"') {
			char *s = json_str(p + 1), *t = st ? ex_printf("%s,%s", st, s) : ex_strdup(s);

			free(st);
			st = t;
			p += strlen(s) + 2;
			free(s);
			if (*p == ',')
				p++;
		}
		if (st) {
			free(r->stack);
			r->stack = st;
		}
	}
	/* the run's own statement: the last of its -e */
	snprintf(key, sizeof(key), "\"source\":\"-e#%d\"", nsrc_e + 1);
	for (p = j ? strstr(j, key) : NULL; p; p = strstr(p + 1, key)) {
		const char *c = strstr(p, "\"consumed\":");

		if (c)
			consumed = strtol(c + 11, NULL, 10);
	}
	if (consumed == 0)
		r->outcome = EX_UNREACHED;
	else if (json_after(j, "\"timed_out\":true"))
		r->outcome = EX_HANG;
	else if (is_crash_signal(r->sig))
		r->outcome = EX_CRASH;
	else if (r->sig == SIGABRT)
		r->outcome = has_mark(in->err, in->errlen, crash_marks) ? EX_CRASH : EX_ABORT;
	else if (has_mark(in->err, in->errlen, sanitizer_marks) &&
		 !has_mark(x->clean_stderr, x->clean_stderr ? strlen(x->clean_stderr) : 0, sanitizer_marks))
		r->outcome = EX_SANITIZER;
	else if (r->exited && x->clean_exited && (r->status == 0 || r->status == x->clean_status) &&
		 ((!x->nondet_stdout && in->out_hash != x->clean_stdout_hash) ||
		  (x->nfiles && !x->nondet_files && in->files_hash != x->clean_files_hash)))
		r->outcome = EX_SILENT;
	else if ((x->oracles & (1u << EX_EXITED)) && r->exited && r->status != x->clean_status)
		r->outcome = EX_EXITED;
	else
		r->outcome = EX_HANDLED;
	r->message = r->outcome == EX_CRASH || r->outcome == EX_SANITIZER
			     ? mark_line(in->err, in->errlen, r->outcome == EX_CRASH ? crash_marks : sanitizer_marks)
			     : ex_strdup("");
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* --files in dir: their names and contents as one hash */
static uint64_t files_hash(const struct ex *x, const char *dir)
{
	uint64_t h = 0;

	for (size_t i = 0; i < x->nfiles; i++) {
		char *pat = ex_printf("%s/%s", dir, x->files[i]);
		glob_t g;

		h = ex_hash(x->files[i], strlen(x->files[i]) + 1, h);
		if (glob(pat, 0, NULL, &g) == 0) {
			qsort(g.gl_pathv, g.gl_pathc, sizeof(char *), cmp_str);
			for (size_t k = 0; k < g.gl_pathc; k++) {
				size_t len = 0;
				char *d = ex_read_file(g.gl_pathv[k], &len);
				const char *name = g.gl_pathv[k] + strlen(dir);

				h = ex_hash(name, strlen(name) + 1, h);
				h = ex_hash(&len, sizeof(len), h);
				if (d)
					h = ex_hash(d, len, h);
				free(d);
			}
			globfree(&g);
		}
		free(pat);
	}
	return h;
}

static uint64_t file_hash(const char *path)
{
	size_t len = 0;
	char *d = ex_read_file(path, &len);
	uint64_t h = ex_hash(d ? d : "", len, 0);

	free(d);
	return h;
}

/* what a run left: report, stderr, hashes; 125 when mockrun itself failed */
static int read_run(const struct ex *x, const char *rundir, const char *cwd, int status, struct outcome_in *in)
{
	char *rp = ex_printf("%s/report.json", rundir), *ep = ex_printf("%s/stderr", rundir),
	     *op = ex_printf("%s/stdout", rundir);

	in->report = ex_read_file(rp, NULL);
	in->err = ex_read_file(ep, &in->errlen);
	if (!in->err)
		in->errlen = 0;
	in->out_hash = file_hash(op);
	in->files_hash = files_hash(x, cwd);
	free(rp);
	free(op);
	free(ep);
	if (!in->report) {
		/* mockrun made no report: its own error, the statement's, or a
		 * program it cannot run; every run would say the same */
		const char *e = in->err ? in->err : "";
		int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);

		return ex_error("a run ended without a report (mockrun's exit status %d) in %s:\n%s", code,
				rundir, e);
	}
	return 0;
}

static void free_in(struct outcome_in *in)
{
	free(in->report);
	free(in->err);
}

/* ---- the clean run ---- */

static int wait_pid(pid_t pid, int *st)
{
	while (waitpid(pid, st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return 0;
}

/* the trace's (function, site)s: "PID EXE: FN(ARGS) = RET at SITE [(SYMBOL)]" */
static int read_trace(struct ex *x, const char *path)
{
	size_t len;
	char *t = ex_read_file(path, &len), *save = NULL;
	int any_site = 0;

	if (!t)
		return ex_error("the clean run's trace %s: %s", path, strerror(errno));
	/* sites, or else each function's call count */
	for (int pass = 0; pass < 2; pass++) {
		char *copy = ex_strdup(t);

		save = NULL;
		for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			char *c = strstr(line, ": "), *paren, *at = NULL, *site = NULL, *sym = NULL, *end;
			size_t i;

			if (!c)
				continue;
			c += 2;
			paren = strchr(c, '(');
			if (!paren || paren == c)
				continue;
			*paren = '\0';
			for (i = 0; i < x->nfns; i++)
				if (strcmp(x->fns[i], c) == 0)
					break;
			if (i == x->nfns)
				continue;
			for (char *p = strstr(paren + 1, " at "); p; p = strstr(p + 1, " at "))
				at = p;
			if (at) {
				site = at + 4;
				end = site + strcspn(site, " ");
				if (!memmem(site, (size_t)(end - site), "+0x", 3))
					site = NULL;
				else {
					sym = *end ? end + 1 : end;
					*end = '\0';
				}
			}
			if (pass == 0) {
				any_site |= site != NULL;
				continue;
			}
			{
				char *key = NULL;
				size_t s;

				if (x->count_mode) {
					unsigned n = 0;

					for (s = 0; s < x->nsites; s++)
						n += strcmp(x->sites[s].fn, c) == 0;
					key = ex_printf("#%u", n + 1);
					s = x->nsites;
				} else {
					if (!site)
						continue;
					for (s = 0; s < x->nsites; s++)
						if (strcmp(x->sites[s].fn, c) == 0 && strcmp(x->sites[s].site, site) == 0)
							break;
				}
				if (s < x->nsites) {
					x->sites[s].calls++;
					continue;
				}
				x->sites = ex_xrealloc(x->sites, (x->nsites + 1) * sizeof(*x->sites));
				x->sites[x->nsites].fn = ex_strdup(c);
				x->sites[x->nsites].site = key ? key : ex_strdup(site);
				x->sites[x->nsites].symbol = ex_strdup(sym ? sym : "");
				x->sites[x->nsites++].calls = 1;
			}
		}
		free(copy);
		if (pass == 0)
			x->count_mode = !any_site;
	}
	free(t);
	return 0;
}

/* a fresh working directory for a run (a copy of --workdir), or this one */
static char *run_cwd(const struct ex *x, const char *rundir)
{
	char *w;

	if (!x->workdir)
		return ex_strdup(x->startdir);
	w = ex_printf("%s/work", rundir);
	ex_rm_rf(w);
	if (ex_copy_tree(x->workdir, w)) {
		ex_error("cannot copy --workdir %s to %s", x->workdir, w);
		free(w);
		return NULL;
	}
	return w;
}

int ex_clean(struct ex *x)
{
	uint64_t out[2], files[2];
	int st, rc = 0;

	for (int k = 0; k < 2 && !rc; k++) {
		char *dir = ex_printf("%s/clean%s", x->outdir, k ? "-2" : ""), *cwd;
		struct outcome_in in = { 0 };
		double t0 = ex_now();
		pid_t pid;

		ex_mkdirs(dir);
		cwd = run_cwd(x, dir);
		if (!cwd) {
			free(dir);
			return EX_EXIT_ERROR;
		}
		pid = spawn(x, dir, cwd, NULL, k == 0);
		if (pid < 0 || wait_pid(pid, &st)) {
			rc = ex_error("cannot run %s: %s", x->mockrun, strerror(errno));
		} else if (read_run(x, dir, cwd, st, &in)) {
			rc = EX_EXIT_ERROR;
		} else {
			out[k] = in.out_hash;
			files[k] = in.files_hash;
			if (k == 0) {
				x->clean_secs = ex_now() - t0;
				x->clean_exited = json_after(in.report, "\"exited\":true") != NULL;
				x->clean_status = (int)json_long(in.report, "\"exit_status\":", 0);
				x->clean_sig = (int)json_long(in.report, "\"signal\":", 0);
				x->clean_stderr = in.err;
				in.err = NULL;
				if (json_long(in.report, "\"exec_errno\":", 0))
					rc = ex_error("the clean run could not start %s (see %s/stderr)",
						      x->argv[0], dir);
				else {
					char *tp = ex_printf("%s/trace", dir);

					rc = read_trace(x, tp);
					free(tp);
				}
			}
		}
		free_in(&in);
		if (x->workdir)
			ex_rm_rf(cwd);
		free(cwd);
		free(dir);
	}
	if (rc)
		return rc;
	x->clean_stdout_hash = out[0];
	x->clean_files_hash = files[0];
	x->nondet_stdout = out[0] != out[1];
	x->nondet_files = files[0] != files[1];
	if (x->nondet_stdout)
		fprintf(stderr, "mockrun explore: note: two clean runs wrote different output: "
				"the silent oracle does not compare stdout\n");
	if (x->nondet_files)
		fprintf(stderr, "mockrun explore: note: two clean runs left different --files: "
				"the silent oracle does not compare them\n");
	if (!x->timeout_given) {
		x->timeout = x->clean_secs * 10;
		if (x->timeout < 5)
			x->timeout = 5;
	}
	return 0;
}

/* ---- the pool ---- */

struct job {
	pid_t pid;
	size_t item;		/* index in x->items */
	int attempt;
	char *rundir, *cwd;
	double start;
};

struct pending {
	size_t item;
	int attempt;
};

/* per item in flight: the first run's result and the confirmations */
struct track {
	struct ex_result r;
	int have, left;
};

static void progress(const struct ex *x, size_t done, size_t total, size_t findings, double t0)
{
	double el = ex_now() - t0, left = done ? el / (double)done * (double)(total - done) : 0;

	if (!x->progress)
		return;
	fprintf(stderr, "\rexplore: %zu/%zu runs, %zu finding%s, %s%.0f s left   ", done, total, findings,
		findings == 1 ? "" : "s", done ? "~" : "", left);
	fflush(stderr);
}

int ex_run_all(struct ex *x, volatile int *interrupted)
{
	struct job *jobs = ex_xrealloc(NULL, (size_t)x->jobs * sizeof(*jobs));
	/* confirmations go in front of the head: room for them below it */
	struct pending *q = ex_xrealloc(NULL, (x->nitems * (EX_CONFIRM + EX_CONFIRM) + 4) * sizeof(*q));
	struct track *tr = ex_xrealloc(NULL, (x->nitems + 1) * sizeof(*tr));
	size_t qh = x->nitems * EX_CONFIRM + 2, qt = qh, running = 0, done = 0, total = 0, findings = 0, started = 0;
	double t0 = ex_now();
	int rc = 0, stopped = 0;
	char *done_ids = ex_xrealloc(NULL, x->nitems + 1);

	memset(done_ids, 0, x->nitems + 1);
	memset(tr, 0, (x->nitems + 1) * sizeof(*tr));
	for (size_t i = 0; i < x->nresults; i++)
		if (x->results[i].id >= 1 && x->results[i].id <= x->nitems)
			done_ids[x->results[i].id - 1] = 1;
	for (size_t i = 0; i < x->nitems; i++) {
		if ((long)((x->items[i].id - 1) % (size_t)x->shard_n) != x->shard_k - 1)
			continue;
		total++;
		if (done_ids[i]) {
			done++;
			continue;
		}
		q[qt].item = i;
		q[qt++].attempt = 0;
	}
	for (size_t i = 0; i < x->nresults; i++)
		findings += (x->oracles >> x->results[i].outcome) & 1;
	for (long j = 0; j < x->jobs; j++)
		jobs[j].pid = 0;
	progress(x, done, total, findings, t0);
	while (!rc && !*interrupted && (running || qh < qt)) {
		int st;
		pid_t pid;

		/* start what fits; a confirmation goes first (it is at the head) */
		while (!stopped && qh < qt && running < (size_t)x->jobs) {
			struct pending p = q[qh];
			const struct ex_item *it = &x->items[p.item];
			const struct ex_site *s = &x->sites[it->site];
			char *stmt;
			long j;

			if (p.attempt == 0 && ((x->max_runs && (long)started >= x->max_runs) ||
					       (x->max_time > 0 && ex_now() - t0 >= x->max_time))) {
				stopped = 1;
				break;
			}
			qh++;
			for (j = 0; jobs[j].pid; j++)
				;
			jobs[j].item = p.item;
			jobs[j].attempt = p.attempt;
			jobs[j].rundir = ex_printf("%s/runs/%04zu%s%.0d", x->outdir, it->id, p.attempt ? "-" : "",
						   p.attempt);
			ex_mkdirs(jobs[j].rundir);
			jobs[j].cwd = run_cwd(x, jobs[j].rundir);
			if (!jobs[j].cwd) {
				rc = EX_EXIT_ERROR;
				break;
			}
			stmt = ex_statement(x, s->fn, s->site, it->err);
			jobs[j].start = ex_now();
			jobs[j].pid = spawn(x, jobs[j].rundir, jobs[j].cwd, stmt, 0);
			free(stmt);
			if (jobs[j].pid < 0) {
				rc = ex_error("fork: %s", strerror(errno));
				jobs[j].pid = 0;
				break;
			}
			running++;
			started += p.attempt == 0;
		}
		if (!running)
			break;
		pid = waitpid(-1, &st, 0);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			rc = ex_error("waitpid: %s", strerror(errno));
			break;
		}
		for (long j = 0; j < x->jobs; j++) {
			struct job *jb = &jobs[j];
			struct outcome_in in = { 0 };
			struct ex_result r = { 0 };
			struct track *t;
			const struct ex_item *it;

			if (jb->pid != pid)
				continue;
			jb->pid = 0;
			running--;
			it = &x->items[jb->item];
			t = &tr[jb->item];
			if (*interrupted) {
				;	/* a run Ctrl-C reached: not a result */
			} else if (read_run(x, jb->rundir, jb->cwd, st, &in)) {
				rc = EX_EXIT_ERROR;
			} else {
				r.id = it->id;
				r.fn = ex_strdup(x->sites[it->site].fn);
				r.site = ex_strdup(x->sites[it->site].site);
				r.err = ex_strdup(it->err);
				r.secs = ex_now() - jb->start;
				classify(x, &in, &r);
				if (jb->attempt == 0) {
					t->r = r;
					t->have = 1;
					t->r.same = 1;
					t->r.attempts = 1;
					if ((x->oracles >> r.outcome) & 1) {
						/* a finding: confirmed by EX_CONFIRM - 1 more runs */
						t->left = EX_CONFIRM - 1;
						for (int a = EX_CONFIRM - 1; a >= 1; a--) {
							q[--qh].item = jb->item;
							q[qh].attempt = a;
						}
					}
				} else {
					t->r.attempts++;
					t->r.same += r.outcome == t->r.outcome;
					t->left--;
					free(r.fn);
					free(r.site);
					free(r.err);
					free(r.crash_site);
					free(r.stack);
					free(r.message);
				}
				if (t->have && !t->left) {
					rc = ex_journal_append(x, &t->r);
					x->results = ex_xrealloc(x->results, (x->nresults + 1) * sizeof(*x->results));
					x->results[x->nresults++] = t->r;
					findings += (x->oracles >> t->r.outcome) & 1;
					done++;
					t->have = 0;
					progress(x, done, total, findings, t0);
				}
			}
			free_in(&in);
			if (x->workdir && jb->cwd)
				ex_rm_rf(jb->cwd);
			free(jb->cwd);
			free(jb->rundir);
			break;
		}
	}
	if (*interrupted || rc) {
		/* the runs in flight are lost: mockrun ends its tree on SIGTERM */
		for (long j = 0; j < x->jobs; j++)
			if (jobs[j].pid)
				kill(jobs[j].pid, SIGTERM);
		for (long j = 0; j < x->jobs; j++) {
			int st;

			if (!jobs[j].pid)
				continue;
			wait_pid(jobs[j].pid, &st);
			if (x->workdir && jobs[j].cwd)
				ex_rm_rf(jobs[j].cwd);
			free(jobs[j].cwd);
			free(jobs[j].rundir);
		}
	}
	if (x->progress)
		fputs("\n", stderr);
	x->complete = !rc && !*interrupted && done == total;
	free(jobs);
	free(q);
	free(tr);
	free(done_ids);
	return rc;
}

/* one run in rundir from startdir, waited for: its JSON report and stderr
 * (for minimize); 0, or 125 with the error said */
int ex_run_once(const struct ex *x, const char *rundir, const char *stmt, int trace, char **report, char **err,
		size_t *errlen)
{
	struct outcome_in in = { 0 };
	int st;
	pid_t pid;

	ex_mkdirs(rundir);
	pid = spawn(x, rundir, x->startdir, stmt, trace);
	if (pid < 0 || wait_pid(pid, &st))
		return ex_error("cannot run %s: %s", x->mockrun, strerror(errno));
	if (read_run(x, rundir, x->startdir, st, &in)) {
		free_in(&in);
		return EX_EXIT_ERROR;
	}
	*report = in.report;
	*err = in.err ? in.err : ex_strdup("");
	*errlen = in.err ? in.errlen : 0;
	return 0;
}
