/* SPDX-License-Identifier: MIT */
/*
 * mockrun explore --power-loss (DESIGN.md 7.3, its end): every (function,
 * site) of the clean run that power tracking covers is a crash point; a
 * run of its own cuts the power at each of its calls from the site (the
 * first MAX_CALLS: power_loss(FN, K, SPEC, at="SITE")), drop, and torn for
 * writes) in a fresh copy of --workdir, then CHECK runs (sh -c) there after the
 * rollback. A crash point's site where CHECK fails is a finding (one per site),
 * written as a test file of two runs.  Runs one at a time; no journal.
 */
#include "impl.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* libmockshim/power.c's tracked functions that change a file or a name */
static const char *const pfns[] = {
	"write",    "pwrite",	 "writev", "ftruncate", "truncate",  "open",	  "openat", "creat",	"rename",
	"renameat", "renameat2", "link",   "linkat",	"symlink",   "symlinkat", "unlink", "unlinkat", "mkdir",
	"mkdirat",  "rmdir",	 "fsync",  "fdatasync", "fallocate", "fwrite",	  "fflush", "fclose",	NULL,
};

static int is_write(const char *fn)
{
	return !strcmp(fn, "write") || !strcmp(fn, "pwrite") || !strcmp(fn, "writev") || !strcmp(fn, "fwrite");
}

struct point {
	char *fn, *site;
	unsigned calls; /* in the clean run, at most MAX_CALLS tried */
};

#define MAX_CALLS 100

struct pfinding {
	char *fn, *site, *mode, *file;
	unsigned k;
	int status;
};

struct pex {
	char *spec, *check, *workdir, *outdir, *startdir, *mockrun;
	char **argv;
	int argc;
	struct point *pts;
	size_t npts, nruns;
	struct pfinding *fds;
	size_t nfds;
};

static int wait_st(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return st;
}

/* PROGRAM's path as a run starts it (a relative one with a slash is the
 * start directory's) */
static char *prog_path(const struct pex *p)
{
	if (strchr(p->argv[0], '/') && p->argv[0][0] != '/')
		return ex_printf("%s/%s", p->startdir, p->argv[0]);
	return ex_strdup(p->argv[0]);
}

/* mockrun [-e STMT | --trace] -- PROGRAM in cwd; its wait status */
static int mockrun(const struct pex *p, const char *rundir, const char *cwd, const char *stmt, int trace)
{
	char **av = ex_xrealloc(NULL, (size_t)(p->argc + 16) * sizeof(*av));
	char *report = ex_printf("%s/report.json", rundir), *out = ex_printf("%s/stdout", rundir),
	     *err = ex_printf("%s/stderr", rundir), *tracef = ex_printf("%s/trace", rundir), *tfns = NULL,
	     *prog = prog_path(p);
	int n = 0, st;
	pid_t pid;

	av[n++] = p->mockrun;
	av[n++] = "--report";
	av[n++] = "json";
	av[n++] = "-o";
	av[n++] = report;
	if (stmt) {
		av[n++] = "-e";
		av[n++] = (char *)stmt;
	}
	if (trace) {
		size_t len = 9;

		for (size_t i = 0; pfns[i]; i++)
			len += strlen(pfns[i]) + 1;
		tfns = ex_xrealloc(NULL, len);
		strcpy(tfns, "--trace=");
		for (size_t i = 0; pfns[i]; i++) {
			if (i)
				strcat(tfns, ",");
			strcat(tfns, pfns[i]);
		}
		av[n++] = tfns;
		av[n++] = "--trace-file";
		av[n++] = tracef;
	}
	av[n++] = "--";
	av[n++] = prog;
	for (int i = 1; i < p->argc; i++)
		av[n++] = p->argv[i];
	av[n] = NULL;
	pid = fork();
	if (pid == 0) {
		int in = open("/dev/null", O_RDONLY), o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644),
		    e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (in < 0 || o < 0 || e < 0 || dup2(in, 0) < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0 || chdir(cwd))
			_exit(125);
		execv(p->mockrun, av);
		_exit(125);
	}
	st = pid < 0 ? -1 : wait_st(pid);
	free(av);
	free(report);
	free(out);
	free(err);
	free(tracef);
	free(tfns);
	free(prog);
	return st;
}

/* sh -c CHECK in cwd; its exit status (128+N for a signal), -1 */
static int run_check(const struct pex *p, const char *rundir, const char *cwd)
{
	char *out = ex_printf("%s/check.out", rundir);
	int st;
	pid_t pid = fork();

	if (pid == 0) {
		int in = open("/dev/null", O_RDONLY), o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (in < 0 || o < 0 || dup2(in, 0) < 0 || dup2(o, 1) < 0 || dup2(o, 2) < 0 || chdir(cwd))
			_exit(125);
		execl("/bin/sh", "sh", "-c", p->check, (char *)NULL);
		_exit(127);
	}
	free(out);
	st = pid < 0 ? -1 : wait_st(pid);
	if (st < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* the trace's (function, site)s in order of first call, each once */
static int read_points(struct pex *p, const char *path)
{
	char *t = ex_read_file(path, NULL), *save = NULL;

	if (!t)
		return ex_error("the clean run's trace %s: %s", path, strerror(errno));
	for (char *line = strtok_r(t, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *c = strstr(line, ": "), *paren, *at = NULL, *site, *end;
		size_t i;

		if (!c)
			continue;
		c += 2;
		paren = strchr(c, '(');
		if (!paren || paren == c)
			continue;
		*paren = '\0';
		for (i = 0; pfns[i]; i++)
			if (!strcmp(pfns[i], c))
				break;
		if (!pfns[i])
			continue;
		for (char *q = strstr(paren + 1, " at "); q; q = strstr(q + 1, " at "))
			at = q;
		if (!at)
			continue;
		site = at + 4;
		end = site + strcspn(site, " ");
		*end = '\0';
		if (!strstr(site, "+0x"))
			continue;
		for (i = 0; i < p->npts; i++)
			if (!strcmp(p->pts[i].fn, c) && !strcmp(p->pts[i].site, site))
				break;
		if (i < p->npts) {
			p->pts[i].calls++;
			continue;
		}
		p->pts = ex_xrealloc(p->pts, (p->npts + 1) * sizeof(*p->pts));
		p->pts[p->npts].fn = ex_strdup(c);
		p->pts[p->npts].calls = 1;
		p->pts[p->npts++].site = ex_strdup(site);
	}
	free(t);
	return 0;
}

/* the K-th call of FN from SITE */
static char *statement(const struct pex *p, const char *fn, unsigned k, const char *site, const char *mode)
{
	if (mode)
		return ex_printf("power_loss(%s, %u, %s, mode=%s, at=\"%s\")", fn, k, p->spec, mode, site);
	return ex_printf("power_loss(%s, %u, %s, at=\"%s\")", fn, k, p->spec, site);
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static void html_str(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else if (*s == '&')
			fputs("&amp;", f);
		else if (*s == '"')
			fputs("&quot;", f);
		else
			fputc(*s, f);
	}
}

static int write_finding(const struct pex *p, struct pfinding *fd, size_t num)
{
	char *path, *rel, *prog = prog_path(p), *stmt = statement(p, fd->fn, fd->k, fd->site, fd->mode);
	FILE *f;

	fd->file = ex_printf("%04zu-power-%s.mock", num, fd->fn);
	path = ex_printf("%s/%s", p->outdir, fd->file);
	f = fopen(path, "w");
	if (!f) {
		int rc = ex_error("%s: %s", path, strerror(errno));

		free(path);
		return rc;
	}
	fprintf(f,
		"# Found by mockrun explore --power-loss: after a power cut at %s "
		"from %s (%s),\n",
		fd->fn, fd->site, fd->mode ? fd->mode : "drop");
	fprintf(f,
		"# the check exits %d.  It passes once the program is "
		"crash-consistent.\n",
		fd->status);
	fprintf(f, "# Reproduce: mockrun -t %s/%s\n", p->outdir, fd->file);
	rel = ex_relpath(p->outdir, p->workdir);
	fprintf(f, "setup {\n\trun cp -a ");
	ex_put_quoted(f, rel, 1);
	fprintf(f, "/. .\n}\n");
	free(rel);
	fprintf(f, "test \"%04zu power loss at %s from %s, then the check fails\" {\n", num, fd->fn, fd->site);
	fprintf(f, "\t%s\n\trun ", stmt);
	if (strchr(p->argv[0], '/')) {
		rel = ex_relpath(p->outdir, prog);
		ex_put_quoted(f, p->argv[0][0] == '/' ? prog : rel, p->argv[0][0] != '/');
		free(rel);
	} else {
		ex_put_quoted(f, p->argv[0], 0);
	}
	for (int i = 1; i < p->argc; i++) {
		fputc(' ', f);
		ex_put_quoted(f, p->argv[i], 0);
	}
	fprintf(f, "\n\texpect_power_loss()\n\trun sh -c ");
	ex_put_quoted(f, p->check, 0);
	fprintf(f, "\n\texpect_exit(0)\n}\n");
	free(stmt);
	free(prog);
	free(path);
	return fclose(f) ? ex_error("%s: write error", fd->file) : 0;
}

static int write_summary(const struct pex *p)
{
	char *path = ex_printf("%s/explore.json", p->outdir);
	FILE *f = fopen(path, "w");

	free(path);
	if (!f)
		return ex_error("%s/explore.json: %s", p->outdir, strerror(errno));
	fprintf(f, "{\n  \"method\": \"power-loss\",\n  \"power_loss\": ");
	json_str(f, p->spec);
	fprintf(f, ",\n  \"check\": ");
	json_str(f, p->check);
	fprintf(f, ",\n  \"crash_points\": [");
	for (size_t i = 0; i < p->npts; i++) {
		fprintf(f, "%s\n    {\"function\": ", i ? "," : "");
		json_str(f, p->pts[i].fn);
		fprintf(f, ", \"site\": ");
		json_str(f, p->pts[i].site);
		fprintf(f, ", \"calls\": %u}", p->pts[i].calls);
	}
	fprintf(f,
		"\n  ],\n  \"summary\": {\"runs\": %zu, \"findings\": %zu},\n  "
		"\"findings\": [",
		p->nruns, p->nfds);
	for (size_t i = 0; i < p->nfds; i++) {
		fprintf(f, "%s\n    {\"outcome\": \"power-loss\", \"function\": ", i ? "," : "");
		json_str(f, p->fds[i].fn);
		fprintf(f, ", \"site\": ");
		json_str(f, p->fds[i].site);
		fprintf(f, ", \"mode\": \"%s\", \"check_status\": %d, \"file\": ",
			p->fds[i].mode ? p->fds[i].mode : "drop", p->fds[i].status);
		json_str(f, p->fds[i].file);
		fprintf(f, ", \"call\": %u", p->fds[i].k);
		fputc('}', f);
	}
	fprintf(f, "\n  ]\n}\n");
	if (fclose(f))
		return ex_error("explore.json: write error");
	path = ex_printf("%s/index.html", p->outdir);
	f = fopen(path, "w");
	free(path);
	if (!f)
		return ex_error("%s/index.html: %s", p->outdir, strerror(errno));
	fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>mockrun "
	      "explore</title></head>"
	      "<body>\n<h1>mockrun explore --power-loss</h1>\n<p>",
	      f);
	fprintf(f, "%zu crash points, %zu runs, %zu findings; check: <code>", p->npts, p->nruns, p->nfds);
	html_str(f, p->check);
	fputs("</code></p>\n<table><tr><th>finding</th><th>function</th><th>site</"
	      "th><th>mode</th>"
	      "<th>check exit</th></tr>\n",
	      f);
	for (size_t i = 0; i < p->nfds; i++) {
		fputs("<tr><td><a href=\"", f);
		html_str(f, p->fds[i].file);
		fputs("\">", f);
		html_str(f, p->fds[i].file);
		fputs("</a></td><td>", f);
		html_str(f, p->fds[i].fn);
		fputs("</td><td>", f);
		html_str(f, p->fds[i].site);
		fprintf(f, "</td><td>%s</td><td>%d</td></tr>\n", p->fds[i].mode ? p->fds[i].mode : "drop",
			p->fds[i].status);
	}
	fputs("</table>\n</body></html>\n", f);
	return fclose(f) ? ex_error("index.html: write error") : 0;
}

static void usage(FILE *out)
{
	fputs("usage: mockrun explore --power-loss 'paths=\"GLOB\"[, mode=...]' "
	      "--check CMD --workdir DIR\n"
	      "                       [-o DIR] -- PROGRAM [ARGS...]\n"
	      "Each call of the clean run that power tracking covers is a crash "
	      "point: a run cuts the\n"
	      "power at it (drop, and torn for writes) in a fresh copy of DIR, then "
	      "CMD (sh -c) runs\n"
	      "there; where CMD fails, a test file (one per site).  Exit 1 with "
	      "findings.\n",
	      out);
}

int ex_power_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"power-loss", required_argument, NULL, 'P'},
		{"check", required_argument, NULL, 'C'},
		{"workdir", required_argument, NULL, 'W'},
		{"output", required_argument, NULL, 'o'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct pex p = {0};
	char cwd[PATH_MAX], *out = "mockshim-explore", *dir, *wd;
	int c, st;

	if (!getcwd(cwd, sizeof(cwd)))
		return ex_error("getcwd: %s", strerror(errno));
	p.startdir = ex_strdup(cwd);
	p.mockrun = getenv("MOCKSHIM_MOCKRUN") ? getenv("MOCKSHIM_MOCKRUN") : "mockrun";
	optind = 1;
	while ((c = getopt_long(argc, argv, "+o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'P':
			p.spec = optarg;
			break;
		case 'C':
			p.check = optarg;
			break;
		case 'W':
			p.workdir = optarg[0] == '/' ? ex_strdup(optarg) : ex_printf("%s/%s", cwd, optarg);
			if (access(p.workdir, R_OK | X_OK))
				return ex_error("--workdir %s: %s", optarg, strerror(errno));
			break;
		case 'o':
			out = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return ex_error("--power-loss takes --check, --workdir, -o only (mockrun explore "
					"--power-loss SPEC --check CMD --workdir DIR -- PROGRAM)");
		}
	}
	if (!p.spec || !strstr(p.spec, "paths="))
		return ex_error("--power-loss '%s': needs paths=\"GLOB\" (--power-loss "
				"'paths=\"db/*\"')",
				p.spec ? p.spec : "");
	if (!p.check)
		return ex_error("--power-loss needs --check CMD: what tells a consistent "
				"state after a cut");
	if (!p.workdir)
		return ex_error("--power-loss needs --workdir DIR: each run cuts the power "
				"in a fresh copy of it");
	if (optind >= argc)
		return ex_error("no program to explore (mockrun explore --power-loss ... "
				"-- PROGRAM [ARGS...])");
	p.argc = argc - optind;
	p.argv = argv + optind;
	p.outdir = out[0] == '/' ? ex_strdup(out) : ex_printf("%s/%s", cwd, out);
	dir = ex_printf("%s/runs/clean", p.outdir);
	wd = ex_printf("%s/wd", dir);
	ex_rm_rf(dir);
	if (ex_mkdirs(wd) || ex_copy_tree(p.workdir, wd))
		return ex_error("cannot copy --workdir %s to %s", p.workdir, wd);
	st = mockrun(&p, dir, wd, NULL, 1);
	if (st < 0 || !WIFEXITED(st) || WEXITSTATUS(st) == 125)
		return ex_error("the clean run failed: see %s/stderr", dir);
	if (read_points(&p, ex_printf("%s/trace", dir)))
		return EX_EXIT_ERROR;
	fprintf(stderr, "%s: %zu crash points\n", ex_name, p.npts);
	for (size_t i = 0; i < p.npts; i++) {
		const char *modes[2] = {NULL, "torn"};
		int nmodes = strstr(p.spec, "mode=") || !is_write(p.pts[i].fn) ? 1 : 2;

		for (unsigned k = 1; k <= p.pts[i].calls && k <= MAX_CALLS; k++) {
			for (int m = 0; m < nmodes; m++) {
				char *rd = ex_printf("%s/runs/%04zu", p.outdir, ++p.nruns), *w = ex_printf("%s/wd", rd),
				     *stmt = statement(&p, p.pts[i].fn, k, p.pts[i].site, modes[m]);
				int rc;

				ex_rm_rf(rd);
				if (ex_mkdirs(w) || ex_copy_tree(p.workdir, w))
					return ex_error("cannot copy --workdir %s to %s", p.workdir, w);
				st = mockrun(&p, rd, w, stmt, 0);
				if (st < 0 || (WIFEXITED(st) && WEXITSTATUS(st) == 125))
					return ex_error("run %s failed: see %s/stderr", stmt, rd);
				rc = run_check(&p, rd, w);
				if (rc != 0) {
					size_t f;

					for (f = 0; f < p.nfds; f++)
						if (!strcmp(p.fds[f].site, p.pts[i].site))
							break;
					if (f == p.nfds) {
						p.fds = ex_xrealloc(p.fds, (p.nfds + 1) * sizeof(*p.fds));
						p.fds[p.nfds] = (struct pfinding){
							p.pts[i].fn, p.pts[i].site, (char *)modes[m], NULL, k, rc};
						if (write_finding(&p, &p.fds[p.nfds], p.nfds + 1))
							return EX_EXIT_ERROR;
						p.nfds++;
					}
				}
				free(stmt);
				free(w);
				free(rd);
			}
		}
	}
	if (write_summary(&p))
		return EX_EXIT_ERROR;
	fprintf(stderr, "%s: %zu runs, %zu findings in %s\n", ex_name, p.nruns, p.nfds, p.outdir);
	return p.nfds ? 1 : 0;
}
