/* SPDX-License-Identifier: MIT */
/*
 * mockrun explore: the clean run, the work list, the runs, the findings
 * (DESIGN.md 7.2); resume from DIR's journal; --merge of shards.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "explore.h"
#include "impl.h"

static volatile int interrupted;

static void on_signal(int sig)
{
	interrupted = sig;
}

static void summary(const struct ex *x)
{
	size_t counts[EX_NOUTCOMES] = { 0 };
	char *rel = ex_relpath(x->startdir, x->outdir);

	for (size_t i = 0; i < x->nresults; i++)
		counts[x->results[i].outcome]++;
	fprintf(stderr, "mockrun explore: %zu site%s, %zu run%s of %zu (", x->nsites, x->nsites == 1 ? "" : "s",
		x->nresults, x->nresults == 1 ? "" : "s", x->nitems);
	for (int o = 0, n = 0; o < EX_NOUTCOMES; o++)
		if (counts[o])
			fprintf(stderr, "%s%zu %s", n++ ? ", " : "", counts[o], ex_outcome_names[o]);
	fprintf(stderr, "), %zu finding%s%s\n", x->nfindings, x->nfindings == 1 ? "" : "s",
		x->complete ? "" : "; unfinished: rerun with the same -o to go on");
	for (size_t k = 0; k < x->nfindings; k++) {
		const struct ex_result *r = &x->results[x->findings[k].first];

		fprintf(stderr, "  %s/%s: %s %s at %s", rel, x->findings[k].file, r->fn, r->err, r->site);
		if (r->crash_site[0])
			fprintf(stderr, ", died at %s", r->crash_site);
		if (x->findings[k].nruns > 1)
			fprintf(stderr, " (and %zu more site%s)", x->findings[k].nruns - 1,
				x->findings[k].nruns > 2 ? "s" : "");
		if (r->same < r->attempts)
			fprintf(stderr, " [flaky: %d of %d]", r->same, r->attempts);
		fputc('\n', stderr);
	}
	fprintf(stderr, "  %s/index.html, %s/explore.json\n", rel, rel);
	free(rel);
}

static int merge(struct ex *x, char **dirs, size_t n)
{
	char why[256];
	int rc;

	for (size_t i = 0; i < n; i++) {
		struct ex d = { 0 };

		rc = ex_meta_read(i ? &d : x, dirs[i], 0);
		if (rc == 1)
			return ex_error("--merge: %s holds no finished clean run (no meta)", dirs[i]);
		if (rc)
			return rc;
		if (i && ex_meta_same(x, &d, why, sizeof(why)))
			return ex_error("--merge: %s explored something else than %s: %s", dirs[i], dirs[0], why);
		if (i && (d.nsites != x->nsites))
			return ex_error("--merge: %s's clean run found %zu sites, %s's %zu: the program is not "
					"deterministic enough to shard",
					dirs[i], d.nsites, dirs[0], x->nsites);
		if (ex_journal_read(x, dirs[i]))
			return EX_EXIT_ERROR;
	}
	x->shard_k = x->shard_n = 1;
	x->oracles = 0;
	{
		/* the oracles, from the text the meta keeps */
		char *copy = ex_strdup(x->oracle_arg), *save = NULL;

		for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save))
			for (int o = 0; o < EX_NOUTCOMES; o++)
				if (strcmp(ex_outcome_names[o], w) == 0)
					x->oracles |= 1u << o;
		free(copy);
	}
	if (ex_expand_fns(x))
		return EX_EXIT_ERROR;
	if (ex_mkdirs(x->outdir))
		return ex_error("-o %s: %s", x->outdir, strerror(errno));
	ex_make_items(x);
	ex_sort_results(x);
	x->complete = x->nresults == x->nitems;
	/* the merged directory resumes as one unsharded exploration would */
	if (ex_meta_write(x))
		return EX_EXIT_ERROR;
	{
		char *j = ex_printf("%s/journal", x->outdir);

		unlink(j);
		free(j);
		for (size_t i = 0; i < x->nresults; i++)
			if (ex_journal_append(x, &x->results[i]))
				return EX_EXIT_ERROR;
	}
	ex_findings(x);
	if (ex_write_all(x))
		return EX_EXIT_ERROR;
	summary(x);
	return x->nfindings ? 1 : 0;
}

int ms_explore_main(int argc, char **argv)
{
	struct ex x = { 0 };
	char cwd[PATH_MAX], **dirs = NULL, why[256];
	size_t ndirs = 0;
	struct sigaction sa;
	double t0 = ex_now();
	int rc;

	if (argc >= 1 && strcmp(argv[0], "minimize") == 0)
		return ex_minimize_main(argc, argv);
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (strncmp(argv[i], "--power-loss", 12) == 0)
			return ex_power_main(argc, argv);
	if (!getcwd(cwd, sizeof(cwd)))
		return ex_error("getcwd: %s", strerror(errno));
	x.startdir = ex_strdup(cwd);
	x.mockrun = getenv("MOCKSHIM_MOCKRUN") ? getenv("MOCKSHIM_MOCKRUN") : "mockrun";
	rc = ex_cli(&x, argc, argv, &dirs, &ndirs);
	if (rc)
		return rc == 1 ? 0 : rc;
	if (dirs)
		return merge(&x, dirs, ndirs);
	if (ex_mkdirs(x.outdir))
		return ex_error("-o %s: %s", x.outdir, strerror(errno));
	x.progress = isatty(2);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART: waitpid returns */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	{
		/* resume: the same exploration in DIR goes on */
		struct ex old = { 0 };

		old.timeout_given = 1;
		rc = ex_meta_read(&old, x.outdir, 1);
		if (rc == EX_EXIT_ERROR)
			return rc;
		if (rc == 0 && ex_meta_same(&old, &x, why, sizeof(why)))
			return ex_error("-o %s holds another exploration (%s): give another -o, or remove it",
					x.outdir, why);
		if (rc == 0 && (old.shard_k != x.shard_k || old.shard_n != x.shard_n))
			return ex_error("-o %s holds shard %ld/%ld, not %ld/%ld", x.outdir, old.shard_k, old.shard_n,
					x.shard_k, x.shard_n);
		if (rc == 0) {
			/* its clean run and sites; the rest is the command line's */
			struct ex m = { 0 };

			m.timeout_given = x.timeout_given;
			m.timeout = x.timeout;
			ex_meta_read(&m, x.outdir, 0);
			x.count_mode = m.count_mode;
			x.clean_exited = m.clean_exited;
			x.clean_status = m.clean_status;
			x.clean_sig = m.clean_sig;
			x.clean_secs = m.clean_secs;
			x.nondet_stdout = m.nondet_stdout;
			x.nondet_files = m.nondet_files;
			x.clean_stdout_hash = m.clean_stdout_hash;
			x.clean_files_hash = m.clean_files_hash;
			x.timeout = m.timeout;
			x.sites = m.sites;
			x.nsites = m.nsites;
			{
				char *e = ex_printf("%s/clean/stderr", x.outdir);

				x.clean_stderr = ex_read_file(e, NULL);
				free(e);
			}
			fprintf(stderr, "mockrun explore: resuming in %s\n", x.outdir);
		} else {
			char *j = ex_printf("%s/journal", x.outdir);

			unlink(j);
			free(j);
			if ((rc = ex_clean(&x)) || (rc = ex_meta_write(&x)))
				return rc;
		}
	}
	if (interrupted)
		return EX_EXIT_INTERRUPTED;
	ex_make_items(&x);
	if (ex_journal_read(&x, x.outdir))
		return EX_EXIT_ERROR;
	if (x.count_mode && x.nsites)
		fprintf(stderr, "mockrun explore: note: the trace names no call sites: each run fails the k-th "
				"call of a function instead (%zu runs)\n",
			x.nitems);
	rc = ex_run_all(&x, &interrupted);
	ex_sort_results(&x);
	ex_findings(&x);
	x.seconds = ex_now() - t0;
	if (ex_write_all(&x) || rc)
		return EX_EXIT_ERROR;
	summary(&x);
	if (interrupted) {
		fprintf(stderr, "mockrun explore: interrupted; rerun with the same -o to go on\n");
		return EX_EXIT_INTERRUPTED;
	}
	return x.nfindings ? 1 : 0;
}
