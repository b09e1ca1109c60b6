/* SPDX-License-Identifier: MIT */
/*
 * mockrun minimize (DESIGN.md 7.6): a failing run's injected faults,
 * pinned by function, site and occurrence, cut down by delta debugging
 * (ddmin) to a set none of which can go with the outcome unchanged, and
 * written as a deterministic test file.  A client of mockrun, like
 * explore: its runs are mockrun processes, read through their JSON
 * reports (run.c) and their traces.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <regex.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "impl.h"

#define MIN_EXIT_NOT_FAILING 2	/* the run to minimize did not fail */

/* one injected fault: the k-th call of fn from site failed with err */
struct fault {
	char *fn, *site, *err;	/* err "" when the trace gave no errno */
	unsigned k;
};

/* what a run gave, as far as "the same" looks */
struct outcome {
	int sig, status, exited, timed_out;
	char *line;		/* the first stderr line that mentions an error, or "" */
};

struct mz {
	struct ex x;
	int same;		/* 's' signal, 'x' status, 'r' stderr=RE, 0 default */
	regex_t re;
	char *out, *outdir, *outbase;
	struct fault *faults;
	size_t nfaults;
	struct outcome want;
	unsigned runs;
	char *workroot;
};

static int merr(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int merr(const char *fmt, ...)
{
	va_list ap;

	fputs("mockrun minimize: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return EX_EXIT_ERROR;
}

static void usage(FILE *f)
{
	fputs("usage: mockrun minimize [--same signal|status|stderr=RE] -o FILE [OPTIONS] [--] PROGRAM [ARGS...]\n"
	      "Run PROGRAM once under mockrun with the statements given (random faults with\n"
	      "probability= and --seed, or many statements), pin each injected fault by\n"
	      "function, site and occurrence, remove faults by delta debugging while the\n"
	      "outcome stays the same, and write FILE: a deterministic test file that fails\n"
	      "now and passes once the program handles the faults left.\n"
	      "  -o FILE            the test file to write\n"
	      "  --same signal      the same: killed by the same signal\n"
	      "  --same status      the same: the same exit status (or signal)\n"
	      "  --same stderr=RE   the same: a line of stderr matches RE (extended regex)\n"
	      "                     (default: the same signal, or the same exit status and the\n"
	      "                     same first stderr line that mentions an error)\n"
	      "  -e STMT, -f FILE, -m MODULE, --seed N, --site-skip GLOB, --timeout S\n"
	      "                     as for mockrun, given to the first run\n"
	      "  --fns FN,...       the functions whose faults are pinned (default: those the\n"
	      "                     statements name)\n"
	      "Exit status: 0 written and reproduced 3 of 3, 1 written but flaky,\n"
	      "2 the run did not fail (exited 0, no signal), 125 an error.\n",
	      f);
}

static int is_ident(int c)
{
	return isalnum(c) || c == '_';
}

static void add_fn(struct ex *x, const char *s, size_t n)
{
	for (size_t i = 0; i < x->nfns; i++)
		if (strlen(x->fns[i]) == n && strncmp(x->fns[i], s, n) == 0)
			return;
	x->fns = ex_xrealloc(x->fns, (x->nfns + 1) * sizeof(*x->fns));
	x->fns[x->nfns++] = ex_strndup(s, n);
}

/* the functions statements name: the first argument of each will_...( */
static void fns_of(struct ex *x, const char *text)
{
	for (const char *p = strstr(text, "will_"); p; p = strstr(p + 1, "will_")) {
		const char *q = p, *b;

		if (p > text && is_ident((unsigned char)p[-1]))
			continue;
		while (is_ident((unsigned char)*q))
			q++;
		while (*q == ' ' || *q == '\t')
			q++;
		if (*q != '(')
			continue;
		for (q++; *q == ' ' || *q == '\t'; q++)
			;
		for (b = q; is_ident((unsigned char)*q); q++)
			;
		if (q > b)
			add_fn(x, b, (size_t)(q - b));
	}
}

static int cli(struct mz *m, int argc, char **argv)
{
	struct ex *x = &m->x;
	char *fns = NULL;
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int needs = !strcmp(a, "-o") || !strcmp(a, "--same") || !strcmp(a, "-e") || !strcmp(a, "-f") ||
			    !strcmp(a, "-m") || !strcmp(a, "--seed") || !strcmp(a, "--site-skip") ||
			    !strcmp(a, "--timeout") || !strcmp(a, "--fns") || !strcmp(a, "-t") || !strcmp(a, "--test");

		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 1;
		}
		if (a[0] != '-')
			break;
		if (needs && !v)
			return merr("%s needs a value (mockrun minimize --help)", a);
		if (!strcmp(a, "-o")) {
			m->out = argv[++i];
		} else if (!strcmp(a, "--same")) {
			i++;
			if (!strcmp(v, "signal"))
				m->same = 's';
			else if (!strcmp(v, "status"))
				m->same = 'x';
			else if (!strncmp(v, "stderr=", 7)) {
				int e = regcomp(&m->re, v + 7, REG_EXTENDED | REG_NOSUB | REG_NEWLINE);
				char buf[128];

				if (e) {
					regerror(e, &m->re, buf, sizeof(buf));
					return merr("--same %s: bad regular expression: %s", v, buf);
				}
				m->same = 'r';
			} else {
				return merr("--same %s: expected signal, status or stderr=RE", v);
			}
		} else if (!strcmp(a, "-e") || !strcmp(a, "-f") || !strcmp(a, "-m")) {
			i++;
			x->srcs = ex_xrealloc(x->srcs, (x->nsrcs + 1) * sizeof(*x->srcs));
			x->srcs[x->nsrcs].kind = a[1];
			x->srcs[x->nsrcs++].text = ex_strdup(v);
		} else if (!strcmp(a, "--seed")) {
			x->seed = argv[++i];
		} else if (!strcmp(a, "--site-skip")) {
			x->skips = ex_xrealloc(x->skips, (x->nskips + 1) * sizeof(*x->skips));
			x->skips[x->nskips++] = argv[++i];
		} else if (!strcmp(a, "--timeout")) {
			char *end;

			x->timeout = strtod(v, &end);
			if (*end || end == v || x->timeout <= 0)
				return merr("--timeout %s: expected seconds above 0", v);
			i++;
		} else if (!strcmp(a, "--fns")) {
			fns = argv[++i];
		} else if (!strcmp(a, "-t") || !strcmp(a, "--test")) {
			return merr("%s: minimizing a test file's test is not built yet: give its statements "
				    "with -e or -f and its program after --", a);
		} else {
			return merr("%s: unknown option (mockrun minimize --help)", a);
		}
	}
	if (!m->out)
		return merr("-o FILE is needed: the test file to write (mockrun minimize --help)");
	if (i >= argc)
		return merr("no program to run: mockrun minimize [OPTIONS] -o FILE -- PROGRAM [ARGS...]");
	if (!x->nsrcs)
		return merr("no statements: give the faults to inject with -e or -f "
			    "(e.g. -e 'will_fail(malloc, ENOMEM, probability=0.3)' --seed 1)");
	x->argv = argv + i;
	x->argc = argc - i;
	if (fns) {
		for (char *p = fns; *p;) {
			size_t n = strcspn(p, ",");

			if (n)
				add_fn(x, p, n);
			p += n + (p[n] == ',');
		}
	} else {
		for (size_t k = 0; k < x->nsrcs; k++) {
			char *t = x->srcs[k].kind == 'e' ? ex_strdup(x->srcs[k].text)
				: x->srcs[k].kind == 'f' ? ex_read_file(x->srcs[k].text, NULL) : NULL;

			if (x->srcs[k].kind == 'f' && !t)
				return merr("-f %s: %s", x->srcs[k].text, strerror(errno));
			if (t)
				fns_of(x, t);
			free(t);
		}
	}
	if (!x->nfns)
		return merr("the statements name no function to trace: give them with --fns FN,...");
	return 0;
}

/* ---- outcomes ---- */

static const char *const error_words[] = {
	"error", "fail", "cannot", "can't", "unable", "denied", "abort", "assert", "fatal", "panic", NULL,
};

/* the first line of stderr that mentions an error (mockrun's own lines aside) */
static char *error_line(const char *s)
{
	for (const char *b = s; b && *b;) {
		const char *e = strchr(b, '\n');
		size_t n = e ? (size_t)(e - b) : strlen(b);
		char *line = ex_strndup(b, n);

		if (strncmp(line, "mockrun", 7) != 0)
			for (int i = 0; error_words[i]; i++)
				if (strcasestr(line, error_words[i]))
					return line;
		free(line);
		b = e ? e + 1 : NULL;
	}
	return ex_strdup("");
}

static void outcome_of(const char *report, const char *err, struct outcome *o)
{
	const char *p;

	o->exited = strstr(report, "\"exited\":true") != NULL;
	o->timed_out = strstr(report, "\"timed_out\":true") != NULL;
	p = strstr(report, "\"exit_status\":");
	o->status = p ? atoi(p + 14) : 0;
	p = strstr(report, "\"signal\":");
	o->sig = p ? atoi(p + 9) : 0;
	o->line = error_line(err);
}

static int same(const struct mz *m, const struct outcome *o, const char *err)
{
	const struct outcome *w = &m->want;

	if (o->timed_out != w->timed_out)
		return 0;
	switch (m->same) {
	case 's':
		return o->sig == w->sig;
	case 'x':
		return o->sig == w->sig && o->exited == w->exited && o->status == w->status;
	case 'r':
		return regexec(&m->re, err, 0, NULL, 0) == 0;
	default:
		if (w->sig)
			return o->sig == w->sig;
		return o->exited && o->status == w->status && strcmp(o->line, w->line) == 0;
	}
}

static void describe(const struct outcome *o, char *buf, size_t cap)
{
	if (o->timed_out)
		snprintf(buf, cap, "timed out");
	else if (o->sig)
		snprintf(buf, cap, "killed by SIG%s", sigabbrev_np(o->sig) ? sigabbrev_np(o->sig) : "?");
	else
		snprintf(buf, cap, "exited %d%s%s%s", o->status, o->line[0] ? " saying \"" : "", o->line,
			 o->line[0] ? "\"" : "");
}

/* ---- the first run's trace: the faults ---- */

static int read_faults(struct mz *m, const char *path)
{
	char *t = ex_read_file(path, NULL), *save = NULL;
	struct { char *fn, *site; unsigned n; } *seen = NULL;
	size_t nseen = 0;

	if (!t)
		return merr("the first run's trace %s: %s", path, strerror(errno));
	for (char *line = strtok_r(t, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *c = strstr(line, ": "), *paren, *at = NULL, *site, *mocked, *eq, *err = NULL;
		size_t i, s;

		if (!c)
			continue;
		c += 2;
		paren = strchr(c, '(');
		if (!paren || paren == c)
			continue;
		*paren = '\0';
		for (i = 0; i < m->x.nfns && strcmp(m->x.fns[i], c); i++)
			;
		if (i == m->x.nfns)
			continue;
		for (char *p = strstr(paren + 1, " at "); p; p = strstr(p + 1, " at "))
			at = p;
		if (!at)
			continue;
		site = at + 4;
		site[strcspn(site, " ")] = '\0';
		if (!strstr(site, "+0x"))
			continue;
		for (s = 0; s < nseen && (strcmp(seen[s].fn, c) || strcmp(seen[s].site, site)); s++)
			;
		if (s == nseen) {
			seen = ex_xrealloc(seen, (nseen + 1) * sizeof(*seen));
			seen[nseen].fn = ex_strdup(c);
			seen[nseen].site = ex_strdup(site);
			seen[nseen++].n = 0;
		}
		seen[s].n++;
		mocked = strstr(paren + 1, " (mocked: ");
		if (!mocked || mocked > at)
			continue;
		/* "= RET [ERRNO] (mocked: ...)": the word before, if an errno */
		*mocked = '\0';
		eq = strrchr(paren + 1, ' ');
		if (eq && eq[1] == 'E' && ex_errno_known(eq + 1))
			err = eq + 1;
		m->faults = ex_xrealloc(m->faults, (m->nfaults + 1) * sizeof(*m->faults));
		m->faults[m->nfaults].fn = ex_strdup(c);
		m->faults[m->nfaults].site = ex_strdup(site);
		m->faults[m->nfaults].err = ex_strdup(err ? err : "");
		m->faults[m->nfaults++].k = seen[s].n;
	}
	for (size_t s = 0; s < nseen; s++) {
		free(seen[s].fn);
		free(seen[s].site);
	}
	free(seen);
	free(t);
	return 0;
}

/* ---- pinned statements ---- */

/* the statements of the faults sel[0..n): per (function, site) in order,
 * the real calls before each fault, then the fault */
static char **pin(const struct mz *m, const size_t *sel, size_t n, size_t *nout)
{
	char **out = NULL;
	char *done = calloc(n + 1, 1);

	*nout = 0;
	for (size_t a = 0; a < n; a++) {
		unsigned prev = 0;

		if (done[a])
			continue;
		for (size_t b = a; b < n; b++) {
			const struct fault *f = &m->faults[sel[b]], *g = &m->faults[sel[a]];
			char *e;

			if (done[b] || strcmp(f->fn, g->fn) || strcmp(f->site, g->site))
				continue;
			done[b] = 1;
			out = ex_xrealloc(out, (*nout + 2) * sizeof(*out));
			if (f->k > prev + 1)
				out[(*nout)++] = ex_printf("will_call_real(%s, %u, at=\"%s\")", f->fn, f->k - prev - 1,
							   f->site);
			e = f->err[0] ? ex_printf(", %s", f->err) : ex_strdup("");
			out[(*nout)++] = ex_printf("will_fail(%s%s, at=\"%s\")", f->fn, e, f->site);
			free(e);
			prev = f->k;
		}
	}
	free(done);
	return out;
}

static char *joined(char **st, size_t n)
{
	char *s = ex_strdup("");

	for (size_t i = 0; i < n; i++) {
		char *t = ex_printf("%s%s%s", s, i ? "; " : "", st[i]);

		free(s);
		s = t;
	}
	return s;
}

/* a run with the faults sel[0..n) pinned and nothing else: 1 same, 0 not,
 * -1 error */
static int try(struct mz *m, const size_t *sel, size_t n, struct outcome *got)
{
	size_t ns;
	char **st = pin(m, sel, n, &ns), *stmt = joined(st, ns), *report = NULL, *err = NULL, *dir;
	struct ex x = m->x;
	size_t errlen;
	struct outcome o;
	int rc, r;

	/* the pinned faults alone (and the -m modules): no seed, no other statement */
	x.srcs = ex_xrealloc(NULL, (m->x.nsrcs + 1) * sizeof(*x.srcs));
	x.nsrcs = 0;
	x.seed = NULL;
	for (size_t i = 0; i < m->x.nsrcs; i++)
		if (m->x.srcs[i].kind == 'm')
			x.srcs[x.nsrcs++] = m->x.srcs[i];
	m->runs++;
	dir = ex_printf("%s/run-%u", m->workroot, m->runs);
	rc = ex_run_once(&x, dir, ns ? stmt : NULL, 0, &report, &err, &errlen);
	ex_rm_rf(dir);
	free(dir);
	for (size_t i = 0; i < ns; i++)
		free(st[i]);
	free(st);
	free(stmt);
	free(x.srcs);
	if (rc)
		return -1;
	outcome_of(report, err, &o);
	r = same(m, &o, err);
	if (got)
		*got = o;
	else
		free(o.line);
	free(report);
	free(err);
	return r;
}

/* ddmin over the faults: sel shrinks to a set none of whose faults can go */
static int ddmin(struct mz *m, size_t **selp, size_t *np)
{
	size_t *sel = *selp, n = *np, parts = 2;
	size_t *sub = ex_xrealloc(NULL, (n + 1) * sizeof(*sub));

	while (n >= 2) {
		int cut = 0;

		if (parts > n)
			parts = n;
		/* each part alone, then each complement */
		for (int comp = 0; comp < 2 && !cut; comp++) {
			for (size_t p = 0; p < parts && !cut; p++) {
				size_t lo = n * p / parts, hi = n * (p + 1) / parts, k = 0;
				int r;

				for (size_t i = 0; i < n; i++)
					if ((i >= lo && i < hi) != comp)
						sub[k++] = sel[i];
				if (comp == 1 && parts == 2)
					break;	/* with 2 parts the complements are the parts */
				r = try(m, sub, k, NULL);
				if (r < 0) {
					free(sub);
					return -1;
				}
				if (r) {
					memcpy(sel, sub, k * sizeof(*sel));
					n = k;
					parts = comp ? (parts > 2 ? parts - 1 : 2) : 2;
					cut = 1;
				}
			}
		}
		if (cut)
			continue;
		if (parts >= n)
			break;
		parts = parts * 2 > n ? n : parts * 2;
	}
	free(sub);
	*np = n;
	return 0;
}

/* ---- the test file ---- */

static int write_file(struct mz *m, const size_t *sel, size_t n, int argc, char **argv)
{
	struct ex *x = &m->x;
	char *text = NULL, desc[512], *rel;
	size_t len = 0, ns;
	char **st = pin(m, sel, n, &ns);
	FILE *f = open_memstream(&text, &len);
	int rc;

	describe(&m->want, desc, sizeof(desc));
	fprintf(f, "# Made by mockrun minimize from:\n#   mockrun");
	for (int i = 0; i < argc; i++) {
		if (argv[i][0] && !argv[i][strspn(argv[i], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
						      "0123456789_./=:,+-")]) {
			fprintf(f, " %s", argv[i]);
			continue;
		}
		fputs(" '", f);
		for (const char *p = argv[i]; *p; p++)
			if (*p == '\'')
				fputs("'\\''", f);
			else if (*p == '\n')
				fputs("\\n", f);
			else
				fputc(*p, f);
		fputc('\'', f);
	}
	fprintf(f, "\n# %zu injected fault%s of %zu left after %u runs; the program was %s.\n", n, n == 1 ? "" : "s",
		m->nfaults, m->runs, desc);
	fprintf(f, "# It fails while the program %s, and passes once it handles the fault%s.\n",
		m->want.sig ? "is killed" : m->want.timed_out ? "hangs" : "fails that way", n == 1 ? "" : "s");
	ex_put_reproduce(f, x, "minimize", m->outdir, m->outbase);
	fprintf(f, "test \"minimized: %s\" {\n", desc[0] == 'e' ? "exit status" : desc);
	if (x->timeout > 0)
		fprintf(f, "\ttimeout(%.0f)\n", x->timeout < 1 ? 1 : x->timeout + 0.5);
	rel = ex_relpath(m->outdir, x->startdir);
	fprintf(f, "\tcwd(");
	ex_put_quoted(f, rel, 0);
	fprintf(f, ")\n");
	free(rel);
	for (size_t i = 0; i < ns; i++) {
		fprintf(f, "\t%s\n", st[i]);
		free(st[i]);
	}
	free(st);
	fprintf(f, "\trun ");
	if (strchr(x->argv[0], '/') && x->argv[0][0] != '/') {
		const char *p0 = x->argv[0];
		char *abs;

		while (p0[0] == '.' && p0[1] == '/')
			p0 += 2;
		abs = ex_printf("%s/%s", x->startdir, p0);
		rel = ex_relpath(m->outdir, abs);
		ex_put_quoted(f, rel, 1);
		free(rel);
		free(abs);
	} else {
		ex_put_quoted(f, x->argv[0], 0);
	}
	for (int i = 1; i < x->argc; i++) {
		fputc(' ', f);
		ex_put_quoted(f, x->argv[i], 0);
	}
	fputc('\n', f);
	if (m->want.sig || m->want.timed_out)
		fprintf(f, "\texpect_no_signal()\n");
	else
		fprintf(f, "\texpect_exit_not(%d)\n", m->want.status);
	fprintf(f, "}\n");
	fclose(f);
	rc = ex_write_file(m->out, text, len);
	free(text);
	if (rc)
		return merr("-o %s: %s", m->out, strerror(-rc));
	return 0;
}

/* ---- main ---- */

int ex_minimize_main(int argc, char **argv)
{
	struct mz m = { 0 };
	struct ex *x = &m.x;
	char cwd[PATH_MAX], *report = NULL, *err = NULL, *tp, *slash, *absout, desc[512];
	size_t errlen, *sel, n;
	int rc, ok = 0;
	unsigned first_runs;

	if (!getcwd(cwd, sizeof(cwd)))
		return merr("getcwd: %s", strerror(errno));
	ex_name = "mockrun minimize";
	x->startdir = ex_strdup(cwd);
	x->mockrun = getenv("MOCKSHIM_MOCKRUN") ? getenv("MOCKSHIM_MOCKRUN") : "mockrun";
	rc = cli(&m, argc, argv);
	if (rc)
		return rc == 1 ? 0 : rc;
	absout = m.out[0] == '/' ? ex_strdup(m.out) : ex_printf("%s/%s", cwd, m.out);
	slash = strrchr(absout, '/');
	m.outbase = ex_strdup(slash + 1);
	m.outdir = ex_strndup(absout, (size_t)(slash - absout));
	if (!m.outbase[0])
		return merr("-o %s: a file name is needed", m.out);
	if (access(m.outdir, W_OK))
		return merr("-o %s: %s: %s", m.out, m.outdir, strerror(errno));
	{
		char tmpl[] = "/tmp/mockrun-minimize.XXXXXX";

		if (!mkdtemp(tmpl))
			return merr("mkdtemp: %s", strerror(errno));
		m.workroot = ex_strdup(tmpl);
	}
	/* (1) the run as given, traced */
	m.runs = 1;
	tp = ex_printf("%s/first", m.workroot);
	rc = ex_run_once(x, tp, NULL, 1, &report, &err, &errlen);
	if (rc)
		goto out;
	outcome_of(report, err, &m.want);
	describe(&m.want, desc, sizeof(desc));
	if (strstr(report, "\"exec_errno\":") && atoi(strstr(report, "\"exec_errno\":") + 13)) {
		rc = merr("the run could not start %s", x->argv[0]);
		goto out;
	}
	if (m.want.exited && m.want.status == 0 && !m.want.timed_out) {
		fprintf(stderr, "mockrun minimize: the run did not fail (%s exited 0, no signal): nothing to "
				"minimize; try another --seed or more faults\n", x->argv[0]);
		rc = MIN_EXIT_NOT_FAILING;
		goto out;
	}
	{
		char *trace = ex_printf("%s/trace", tp);

		rc = read_faults(&m, trace);
		free(trace);
		if (rc)
			goto out;
	}
	fprintf(stderr, "mockrun minimize: the run was %s after %zu injected fault%s\n", desc, m.nfaults,
		m.nfaults == 1 ? "" : "s");
	if (!m.nfaults) {
		rc = merr("no injected fault of %s in the trace: the run fails without them", "the statements");
		goto out;
	}
	sel = ex_xrealloc(NULL, m.nfaults * sizeof(*sel));
	for (size_t i = 0; i < m.nfaults; i++)
		sel[i] = i;
	n = m.nfaults;
	/* (2) pinned, all of them: the outcome must come back */
	rc = try(&m, sel, n, NULL);
	if (rc <= 0) {
		rc = rc < 0 ? EX_EXIT_ERROR
			    : merr("the %zu faults pinned by site and occurrence do not give the outcome again: "
				   "the program is not deterministic enough to minimize", n);
		goto out;
	}
	/* without any: then the faults are not the cause */
	rc = try(&m, sel, 0, NULL);
	if (rc) {
		rc = rc < 0 ? EX_EXIT_ERROR : merr("the program is %s with no fault injected: nothing to minimize", desc);
		goto out;
	}
	/* (3) ddmin */
	if (ddmin(&m, &sel, &n)) {
		rc = EX_EXIT_ERROR;
		goto out;
	}
	first_runs = m.runs;
	/* (4) the file */
	rc = write_file(&m, sel, n, argc, argv);
	if (rc)
		goto out;
	/* (5) confirmed 3 times */
	for (int i = 0; i < EX_CONFIRM; i++) {
		int r = try(&m, sel, n, NULL);

		if (r < 0) {
			rc = EX_EXIT_ERROR;
			goto out;
		}
		ok += r;
	}
	fprintf(stderr, "mockrun minimize: %zu of %zu fault%s left after %u runs; confirmed %d of %d%s; wrote %s\n", n,
		m.nfaults, m.nfaults == 1 ? "" : "s", first_runs, ok, EX_CONFIRM, ok < EX_CONFIRM ? " (flaky)" : "",
		m.out);
	for (size_t i = 0; i < n; i++) {
		const struct fault *f = &m.faults[sel[i]];

		fprintf(stderr, "  %s%s%s at %s, call %u from there\n", f->fn, f->err[0] ? " " : "", f->err, f->site,
			f->k);
	}
	rc = ok == EX_CONFIRM ? 0 : 1;
out:
	free(tp);
	free(report);
	free(err);
	ex_rm_rf(m.workroot);
	return rc;
}
