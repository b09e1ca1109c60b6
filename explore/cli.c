/* SPDX-License-Identifier: MIT */
/* explore's command line: options, the functions and their errors. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "catalog/catalog.h"
#include "impl.h"

const char *const ex_outcome_names[EX_NOUTCOMES] = {
	"crash", "sanitizer", "hang", "silent", "abort", "exit", "handled", "unreached",
};

static void usage(FILE *out)
{
	fputs("usage: mockrun explore [OPTIONS] [--] PROGRAM [ARGS...]\n"
	      "       mockrun explore --merge DIR... -o DIR\n"
	      "       mockrun explore --power-loss SPEC --check CMD --workdir DIR -- PROGRAM [ARGS...]\n"
	      "Fails each call site of the chosen functions in a run of its own, one\n"
	      "error at a time, and reports the runs that crash, hang or swallow the error.\n"
	      "\n"
	      "  --fns FN,...            what to fail: catalog names or groups @alloc @file\n"
	      "                          @stdio @net @process @time (default\n"
	      "                          @alloc,@file,@net,@process)\n"
	      "  --errnos WHAT           default (the row's error), all (the errors its man\n"
	      "                          page lists), or E1,E2,...\n"
	      "  -e, -f, -m              statements (or a module) in force in every run\n"
	      "  --oracle KIND,...       crash,sanitizer,hang,silent (default); abort, exit\n"
	      "  --files GLOB            files compared with the clean run (repeatable)\n"
	      "  --site-skip GLOB        sites pass over these objects' frames too (mockrun's)\n"
	      "  --workdir DIR           each run in a fresh copy of DIR (runs in parallel);\n"
	      "                          without it, one at a time in this directory\n"
	      "  --persistent            fail every call from the site, not only its first\n"
	      "  --timeout SECS          per run (default 10 x the clean run, at least 5)\n"
	      "  -j, --jobs N            runs at once, with --workdir (default: the CPUs)\n"
	      "  --shard K/N             the K-th of N shares of the work list\n"
	      "  --max-runs N            stop after N runs (rerun to go on)\n"
	      "  --max-time D            stop starting runs after D (90, 30s, 5m, 1h)\n"
	      "  --seed N                the seed of probability= in every run\n"
	      "  -o, --output DIR        findings, explore.json, index.html (default\n"
	      "                          ./mockshim-explore); rerun with it to resume\n"
	      "  --merge DIR...          merge shards' directories into -o DIR\n"
	      "  -h, --help              this text\n"
	      "\n"
	      "Exit status: 0 no finding, 1 findings, 125 an error, 130 interrupted.\n"
	      "Example: mockrun explore --fns malloc -- jq . in.json\n",
	      out);
}

enum {
	O_FNS = 256, O_ERRNOS, O_ORACLE, O_FILES, O_WORKDIR, O_PERSISTENT, O_TIMEOUT, O_SHARD,
	O_MAX_RUNS, O_MAX_TIME, O_SEED, O_MERGE, O_SITE_SKIP,
};

static const struct option opts[] = {
	{ "fns", required_argument, NULL, O_FNS },
	{ "errnos", required_argument, NULL, O_ERRNOS },
	{ "eval", required_argument, NULL, 'e' },
	{ "file", required_argument, NULL, 'f' },
	{ "module", required_argument, NULL, 'm' },
	{ "oracle", required_argument, NULL, O_ORACLE },
	{ "files", required_argument, NULL, O_FILES },
	{ "workdir", required_argument, NULL, O_WORKDIR },
	{ "persistent", no_argument, NULL, O_PERSISTENT },
	{ "timeout", required_argument, NULL, O_TIMEOUT },
	{ "jobs", required_argument, NULL, 'j' },
	{ "shard", required_argument, NULL, O_SHARD },
	{ "max-runs", required_argument, NULL, O_MAX_RUNS },
	{ "max-time", required_argument, NULL, O_MAX_TIME },
	{ "seed", required_argument, NULL, O_SEED },
	{ "output", required_argument, NULL, 'o' },
	{ "merge", no_argument, NULL, O_MERGE },
	{ "site-skip", required_argument, NULL, O_SITE_SKIP },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static const struct {
	const char *name, *category;
} groups[] = {
	{ "@alloc", "memory" }, { "@file", "file" },	 { "@stdio", "stdio" },
	{ "@net", "network" },	{ "@process", "process" }, { "@time", "time" },
};

static int add_fn(struct ex *x, const char *name)
{
	for (size_t i = 0; i < x->nfns; i++)
		if (strcmp(x->fns[i], name) == 0)
			return 0;
	x->fns = ex_xrealloc(x->fns, (x->nfns + 1) * sizeof(*x->fns));
	x->fns[x->nfns++] = ex_strdup(name);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* --fns: names and groups to the sorted list of catalog functions that
 * can fail */
int ex_expand_fns(struct ex *x)
{
	char *list = ex_strdup(x->fns_arg), *save = NULL;

	ms_catalog_init();
	for (char *w = strtok_r(list, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		while (*w == ' ')
			w++;
		if (w[0] == '@') {
			size_t g;

			for (g = 0; g < sizeof(groups) / sizeof(groups[0]); g++)
				if (strcmp(groups[g].name, w) == 0)
					break;
			if (g == sizeof(groups) / sizeof(groups[0])) {
				int err = ex_error("--fns: no group %s (groups: @alloc @file @stdio @net @process @time)",
						w);

				free(list);
				return err;
			}
			for (unsigned id = 0; id < MS_FN_COUNT; id++) {
				const struct ms_fn_meta *m = ms_catalog_get(id);

				if (m && m->group && strcmp(m->group, groups[g].category) == 0 &&
				    m->fail_kind != MS_FK_NEVER && !m->declared && !m->handler)
					add_fn(x, m->name);
			}
			continue;
		}
		{
			int id = ms_catalog_find(w, strlen(w));
			const struct ms_fn_meta *m = id >= 0 ? ms_catalog_get((unsigned)id) : NULL;

			if (!m && strncmp(w, "SYS_", 4) == 0 && ms_syscall_find(w, strlen(w))) {
				add_fn(x, w);
				continue;
			}
			if (!m) {
				int err = ex_error("--fns: '%s' is neither a catalog function (mockrun --list) nor a "
						"group (@alloc @file @stdio @net @process @time)", w);

				free(list);
				return err;
			}
			if (m->fail_kind == MS_FK_NEVER) {
				int err = ex_error("--fns: %s cannot fail (its catalog row has no failure)", w);

				free(list);
				return err;
			}
			add_fn(x, m->name);
		}
	}
	free(list);
	if (!x->nfns)
		return ex_error("--fns: no function");
	qsort(x->fns, x->nfns, sizeof(*x->fns), cmp_str);
	return 0;
}

/* The errors to try for fn: a list of names ("" is the row's failure
 * without an errno). */
int ex_errnos_of(const struct ex *x, const char *fn, char ***out, size_t *n)
{
	const char *list = NULL;
	char *copy, *save = NULL;

	*out = NULL;
	*n = 0;
	if (strcmp(x->errnos_arg, "all") == 0)
		list = ms_catalog_errnos(fn);
	else if (strcmp(x->errnos_arg, "default") != 0)
		list = x->errnos_arg;
	if (!list) {
		int id = ms_catalog_find(fn, strlen(fn));
		const struct ms_fn_meta *m = id >= 0 ? ms_catalog_get((unsigned)id) : NULL;

		*out = ex_xrealloc(NULL, sizeof(**out));
		(*out)[(*n)++] = ex_strdup(m ? ex_errno_name(m->fail_errno) : "");
		return 0;
	}
	copy = ex_strdup(list);
	for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		*out = ex_xrealloc(*out, (*n + 1) * sizeof(**out));
		(*out)[(*n)++] = ex_strdup(w);
	}
	free(copy);
	return 0;
}

/* sites in order: "#12" (a call count) numerically, others as strings */
int ex_site_cmp(const char *a, const char *b)
{
	if (a[0] == '#' && b[0] == '#') {
		unsigned long x = strtoul(a + 1, NULL, 10), y = strtoul(b + 1, NULL, 10);

		return x < y ? -1 : x > y;
	}
	return strcmp(a, b);
}

static int parse_long(const char *opt, const char *s, long lo, long hi, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return ex_error("%s: '%s' is not a number from %ld to %ld", opt, s, lo, hi);
	*out = v;
	return 0;
}

/* "90", "30s", "5m", "1h", "1h30m" */
static int parse_duration(const char *opt, const char *s, double *out)
{
	const char *p = s;
	double total = 0;

	if (!*p)
		return ex_error("%s: empty duration", opt);
	while (*p) {
		char *end;
		double v = strtod(p, &end);

		if (end == p || v < 0)
			return ex_error("%s: '%s' is not a duration (90, 30s, 5m, 1h, 1h30m)", opt, s);
		p = end;
		switch (*p) {
		case 'h': v *= 3600; p++; break;
		case 'm': v *= 60; p++; break;
		case 's': p++; break;
		case '\0': break;
		default: return ex_error("%s: '%s' is not a duration (90, 30s, 5m, 1h, 1h30m)", opt, s);
		}
		total += v;
	}
	if (!(total > 0))
		return ex_error("%s: '%s' is no time", opt, s);
	*out = total;
	return 0;
}

static int parse_oracles(struct ex *x)
{
	char *copy = ex_strdup(x->oracle_arg), *save = NULL;

	x->oracles = 0;
	for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		int o;

		for (o = 0; o <= EX_EXITED; o++)
			if (strcmp(ex_outcome_names[o], w) == 0)
				break;
		if (o > EX_EXITED) {
			int err = ex_error("--oracle: no oracle '%s' (crash, sanitizer, hang, silent, abort, exit)",
					w);

			free(copy);
			return err;
		}
		x->oracles |= 1u << o;
	}
	free(copy);
	if (!x->oracles)
		return ex_error("--oracle: no oracle");
	return 0;
}

static char *absolute(const char *p)
{
	char cwd[PATH_MAX];

	if (p[0] == '/')
		return ex_strdup(p);
	if (!getcwd(cwd, sizeof(cwd)))
		return ex_strdup(p);
	return strcmp(p, ".") == 0 ? ex_strdup(cwd) : ex_printf("%s/%s", cwd, p);
}

/* 0: go on; 1: done (--help); 125: error.  With --merge, *merge gets the
 * directories. */
int ex_cli(struct ex *x, int argc, char **argv, char ***merge, size_t *nmerge)
{
	long n;
	int c, r;
	const char *out = "mockshim-explore";

	x->fns_arg = ex_strdup("@alloc,@file,@net,@process");
	x->errnos_arg = ex_strdup("default");
	x->oracle_arg = ex_strdup("crash,sanitizer,hang,silent");
	x->jobs = 0;
	*merge = NULL;
	*nmerge = 0;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			break;
		if (strcmp(argv[i], "--merge") != 0)
			continue;
		/* mockrun explore --merge DIR... -o DIR */
		for (int k = 1; k < argc; k++) {
			if (k == i)
				continue;
			if (strcmp(argv[k], "-o") == 0 || strcmp(argv[k], "--output") == 0) {
				if (++k == argc)
					return ex_error("%s needs a directory", argv[k - 1]);
				out = argv[k];
			} else if (strncmp(argv[k], "--output=", 9) == 0) {
				out = argv[k] + 9;
			} else if (argv[k][0] == '-') {
				return ex_error("--merge takes directories and -o DIR only, not %s", argv[k]);
			} else {
				*merge = ex_xrealloc(*merge, (*nmerge + 1) * sizeof(**merge));
				(*merge)[(*nmerge)++] = absolute(argv[k]);
			}
		}
		if (!*nmerge)
			return ex_error("--merge needs the shards' directories");
		x->outdir = absolute(out);
		return 0;
	}
	optind = 1;
	while ((c = getopt_long(argc, argv, "+e:f:m:j:o:ht", opts, NULL)) != -1) {
		switch (c) {
		case 'e':
		case 'f':
		case 'm':
			x->srcs = ex_xrealloc(x->srcs, (x->nsrcs + 1) * sizeof(*x->srcs));
			x->srcs[x->nsrcs].kind = (char)c;
			x->srcs[x->nsrcs++].text = c == 'e' ? ex_strdup(optarg) : absolute(optarg);
			break;
		case O_FNS:
			free(x->fns_arg);
			x->fns_arg = ex_strdup(optarg);
			break;
		case O_ERRNOS:
			free(x->errnos_arg);
			x->errnos_arg = ex_strdup(optarg);
			if (strcmp(optarg, "default") && strcmp(optarg, "all")) {
				char *copy = ex_strdup(optarg), *save = NULL;

				for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save))
					if (!ex_errno_known(w)) {
						r = ex_error("--errnos: '%s' is not an errno name (ENOENT, EIO, ...), "
							     "nor default or all", w);
						free(copy);
						return r;
					}
				free(copy);
			}
			break;
		case O_ORACLE:
			free(x->oracle_arg);
			x->oracle_arg = ex_strdup(optarg);
			break;
		case O_FILES:
			x->files = ex_xrealloc(x->files, (x->nfiles + 1) * sizeof(*x->files));
			x->files[x->nfiles++] = ex_strdup(optarg);
			break;
		case O_SITE_SKIP:
			x->skips = ex_xrealloc(x->skips, (x->nskips + 1) * sizeof(*x->skips));
			x->skips[x->nskips++] = ex_strdup(optarg);
			break;
		case O_WORKDIR:
			free(x->workdir);
			x->workdir = absolute(optarg);
			if (access(x->workdir, R_OK | X_OK))
				return ex_error("--workdir %s: %s", optarg, strerror(errno));
			break;
		case O_PERSISTENT:
			x->persistent = 1;
			break;
		case O_TIMEOUT: {
			double t;

			if (parse_duration("--timeout", optarg, &t))
				return EX_EXIT_ERROR;
			x->timeout = t;
			x->timeout_given = 1;
			break;
		}
		case 'j':
			if (parse_long("-j", optarg, 1, 1024, &x->jobs))
				return EX_EXIT_ERROR;
			break;
		case O_SHARD: {
			char *slash = strchr(optarg, '/');

			if (!slash)
				return ex_error("--shard: '%s' is not K/N (1/4: the first of 4)", optarg);
			*slash = '\0';
			r = parse_long("--shard K", optarg, 1, 100000, &x->shard_k) ||
			    parse_long("--shard N", slash + 1, 1, 100000, &x->shard_n);
			*slash = '/';
			if (r)
				return EX_EXIT_ERROR;
			if (x->shard_k > x->shard_n)
				return ex_error("--shard %s: K is above N", optarg);
			break;
		}
		case O_MAX_RUNS:
			if (parse_long("--max-runs", optarg, 1, LONG_MAX, &x->max_runs))
				return EX_EXIT_ERROR;
			break;
		case O_MAX_TIME:
			if (parse_duration("--max-time", optarg, &x->max_time))
				return EX_EXIT_ERROR;
			break;
		case O_SEED:
			if (parse_long("--seed", optarg, 0, LONG_MAX, &n))
				return EX_EXIT_ERROR;
			x->seed = ex_strdup(optarg);
			break;
		case 'o':
			out = optarg;
			break;
		case 't':
			return ex_error("-t: exploring test files is not built yet; explore the test's "
					"run command (mockrun explore [OPTIONS] -- PROGRAM ARGS)");
		case 'h':
			usage(stdout);
			return 1;
		default:
			fputs("Try 'mockrun explore --help'.\n", stderr);
			return EX_EXIT_ERROR;
		}
	}
	if (optind >= argc)
		return ex_error("no program to explore (mockrun explore [OPTIONS] -- PROGRAM [ARGS...])");
	x->argc = argc - optind;
	x->argv = argv + optind;
	if (parse_oracles(x) || ex_expand_fns(x))
		return EX_EXIT_ERROR;
	if (x->jobs > 1 && !x->workdir)
		return ex_error("-j %ld: runs share this directory without --workdir, so they go one at a "
				"time; give --workdir DIR to run them in parallel",
				x->jobs);
	if (!x->jobs)
		x->jobs = x->workdir ? sysconf(_SC_NPROCESSORS_ONLN) : 1;
	if (x->jobs < 1)
		x->jobs = 1;
	if (!x->shard_n)
		x->shard_k = x->shard_n = 1;
	x->outdir = absolute(out);
	return 0;
}
