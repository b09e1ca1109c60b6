/* SPDX-License-Identifier: MIT */
/*
 * DIR/meta (what was explored: the command line and the clean run) and
 * DIR/journal (a line per finished run, appended with one write each):
 * all an exploration's results are made from, so that a rerun resumes
 * where the last stopped and --merge reads shards as one.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "impl.h"

#define META_MAGIC "mockshim-explore\t1"

static void put(FILE *f, const char *key, const char *v)
{
	char *e = ex_escape_tab(v ? v : "");

	fprintf(f, "%s\t%s\n", key, e);
	free(e);
}

int ex_meta_write(const struct ex *x)
{
	char *text = NULL, *path;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int r;

	fprintf(f, "%s\n", META_MAGIC);
	for (int i = 0; i < x->argc; i++)
		put(f, "arg", x->argv[i]);
	for (size_t i = 0; i < x->nsrcs; i++) {
		char k[8] = "src-";

		k[4] = x->srcs[i].kind;
		k[5] = '\0';
		put(f, k, x->srcs[i].text);
	}
	put(f, "fns", x->fns_arg);
	put(f, "errnos", x->errnos_arg);
	put(f, "oracle", x->oracle_arg);
	for (size_t i = 0; i < x->nfiles; i++)
		put(f, "files", x->files[i]);
	for (size_t i = 0; i < x->nskips; i++)
		put(f, "skip", x->skips[i]);
	if (x->workdir)
		put(f, "workdir", x->workdir);
	fprintf(f, "persistent\t%d\n", x->persistent);
	if (x->seed)
		put(f, "seed", x->seed);
	put(f, "startdir", x->startdir);
	fprintf(f, "shard\t%ld/%ld\n", x->shard_k, x->shard_n);
	fprintf(f, "mode\t%s\n", x->count_mode ? "count" : "site");
	fprintf(f, "clean\t%d\t%d\t%d\t%.3f\n", x->clean_exited, x->clean_status, x->clean_sig, x->clean_secs);
	fprintf(f, "nondet\t%d\t%d\n", x->nondet_stdout, x->nondet_files);
	fprintf(f, "hash\t%016" PRIx64 "\t%016" PRIx64 "\n", x->clean_stdout_hash, x->clean_files_hash);
	fprintf(f, "timeout\t%.3f\n", x->timeout);
	for (size_t i = 0; i < x->nsites; i++) {
		char *a = ex_escape_tab(x->sites[i].fn), *b = ex_escape_tab(x->sites[i].site),
		     *c = ex_escape_tab(x->sites[i].symbol);

		fprintf(f, "site\t%s\t%s\t%u\t%s\n", a, b, x->sites[i].calls, c);
		free(a);
		free(b);
		free(c);
	}
	fprintf(f, "end\n");
	fclose(f);
	path = ex_printf("%s/meta", x->outdir);
	r = ex_write_file(path, text, len);
	if (r)
		ex_error("%s: %s", path, strerror(-r));
	free(path);
	free(text);
	return r ? EX_EXIT_ERROR : 0;
}

/* the fields of a tab-separated line, unescaped, in place of *n */
static char **fields(char *line, size_t *n)
{
	char **v = NULL;

	*n = 0;
	/* by hand, not strtok: empty fields count */
	for (char *p = line; p;) {
		char *tab = strchr(p, '\t');

		if (tab)
			*tab = '\0';
		v = ex_xrealloc(v, (*n + 1) * sizeof(*v));
		v[(*n)++] = ex_unescape_tab(p);
		p = tab ? tab + 1 : NULL;
	}
	return v;
}

static void free_fields(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* DIR/meta into x: the configuration (always) and, unless config_only,
 * the clean run.  0, 1 no meta or not complete, 125 unreadable. */
int ex_meta_read(struct ex *x, const char *dir, int config_only)
{
	char *path = ex_printf("%s/meta", dir), *text = ex_read_file(path, NULL), *save = NULL;
	int complete = 0;
	char **args = NULL;
	size_t nargs = 0;

	if (!text) {
		int e = errno;

		free(path);
		return e == ENOENT ? 1 : ex_error("%s/meta: %s", dir, strerror(e));
	}
	if (strncmp(text, META_MAGIC "\n", strlen(META_MAGIC) + 1) != 0) {
		free(text);
		ex_error("%s: not an explore directory's meta (made by another version?)", path);
		free(path);
		return EX_EXIT_ERROR;
	}
	free(path);
	for (char *line = strtok_r(text + strlen(META_MAGIC) + 1, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		size_t n;
		char **v = fields(line, &n);
		const char *k = v[0];

		if (strcmp(k, "end") == 0) {
			complete = 1;
		} else if (n < 2) {
			;
		} else if (strcmp(k, "arg") == 0) {
			args = ex_xrealloc(args, (nargs + 2) * sizeof(*args));
			args[nargs++] = ex_strdup(v[1]);
			args[nargs] = NULL;
		} else if (strncmp(k, "src-", 4) == 0) {
			x->srcs = ex_xrealloc(x->srcs, (x->nsrcs + 1) * sizeof(*x->srcs));
			x->srcs[x->nsrcs].kind = k[4];
			x->srcs[x->nsrcs++].text = ex_strdup(v[1]);
		} else if (strcmp(k, "fns") == 0) {
			free(x->fns_arg);
			x->fns_arg = ex_strdup(v[1]);
		} else if (strcmp(k, "errnos") == 0) {
			free(x->errnos_arg);
			x->errnos_arg = ex_strdup(v[1]);
		} else if (strcmp(k, "oracle") == 0) {
			free(x->oracle_arg);
			x->oracle_arg = ex_strdup(v[1]);
		} else if (strcmp(k, "files") == 0) {
			x->files = ex_xrealloc(x->files, (x->nfiles + 1) * sizeof(*x->files));
			x->files[x->nfiles++] = ex_strdup(v[1]);
		} else if (strcmp(k, "skip") == 0) {
			x->skips = ex_xrealloc(x->skips, (x->nskips + 1) * sizeof(*x->skips));
			x->skips[x->nskips++] = ex_strdup(v[1]);
		} else if (strcmp(k, "workdir") == 0) {
			x->workdir = ex_strdup(v[1]);
		} else if (strcmp(k, "persistent") == 0) {
			x->persistent = atoi(v[1]);
		} else if (strcmp(k, "seed") == 0) {
			x->seed = ex_strdup(v[1]);
		} else if (strcmp(k, "startdir") == 0) {
			if (!x->startdir)
				x->startdir = ex_strdup(v[1]);
		} else if (strcmp(k, "shard") == 0) {
			if (config_only)
				sscanf(v[1], "%ld/%ld", &x->shard_k, &x->shard_n);
		} else if (config_only) {
			;
		} else if (strcmp(k, "mode") == 0) {
			x->count_mode = strcmp(v[1], "count") == 0;
		} else if (strcmp(k, "clean") == 0 && n >= 5) {
			x->clean_exited = atoi(v[1]);
			x->clean_status = atoi(v[2]);
			x->clean_sig = atoi(v[3]);
			x->clean_secs = atof(v[4]);
		} else if (strcmp(k, "nondet") == 0 && n >= 3) {
			x->nondet_stdout = atoi(v[1]);
			x->nondet_files = atoi(v[2]);
		} else if (strcmp(k, "hash") == 0 && n >= 3) {
			x->clean_stdout_hash = strtoull(v[1], NULL, 16);
			x->clean_files_hash = strtoull(v[2], NULL, 16);
		} else if (strcmp(k, "timeout") == 0) {
			if (!x->timeout_given)
				x->timeout = atof(v[1]);
		} else if (strcmp(k, "site") == 0 && n >= 5) {
			x->sites = ex_xrealloc(x->sites, (x->nsites + 1) * sizeof(*x->sites));
			x->sites[x->nsites].fn = ex_strdup(v[1]);
			x->sites[x->nsites].site = ex_strdup(v[2]);
			x->sites[x->nsites].calls = (unsigned)strtoul(v[3], NULL, 10);
			x->sites[x->nsites++].symbol = ex_strdup(v[4]);
		}
		free_fields(v, n);
	}
	free(text);
	if (!x->argv) {
		x->argv = args;
		x->argc = (int)nargs;
	} else {
		x->argv = args ? args : x->argv;
		x->argc = args ? (int)nargs : x->argc;
	}
	return complete ? 0 : 1;
}

/* the same exploration?  0 yes; else why */
int ex_meta_same(const struct ex *a, const struct ex *b, char *why, size_t cap)
{
	if (a->argc != b->argc) {
		snprintf(why, cap, "another program or arguments");
		return 1;
	}
	for (int i = 0; i < a->argc; i++)
		if (strcmp(a->argv[i], b->argv[i])) {
			snprintf(why, cap, "another program or arguments (%s, not %s)", b->argv[i], a->argv[i]);
			return 1;
		}
	if (a->nsrcs != b->nsrcs) {
		snprintf(why, cap, "other -e/-f/-m");
		return 1;
	}
	for (size_t i = 0; i < a->nsrcs; i++)
		if (a->srcs[i].kind != b->srcs[i].kind || strcmp(a->srcs[i].text, b->srcs[i].text)) {
			snprintf(why, cap, "other -e/-f/-m (%s)", b->srcs[i].text);
			return 1;
		}
	if (strcmp(a->fns_arg, b->fns_arg) || strcmp(a->errnos_arg, b->errnos_arg) ||
	    strcmp(a->oracle_arg, b->oracle_arg)) {
		snprintf(why, cap, "other --fns, --errnos or --oracle (%s, %s, %s)", b->fns_arg, b->errnos_arg,
			 b->oracle_arg);
		return 1;
	}
	if (a->nfiles != b->nfiles || a->persistent != b->persistent || !a->workdir != !b->workdir ||
	    (a->workdir && strcmp(a->workdir, b->workdir)) || !a->seed != !b->seed ||
	    (a->seed && strcmp(a->seed, b->seed))) {
		snprintf(why, cap, "other --files, --persistent, --workdir or --seed");
		return 1;
	}
	for (size_t i = 0; i < a->nfiles; i++)
		if (strcmp(a->files[i], b->files[i])) {
			snprintf(why, cap, "other --files");
			return 1;
		}
	for (size_t i = 0; i < a->nskips && a->nskips == b->nskips; i++)
		if (strcmp(a->skips[i], b->skips[i])) {
			snprintf(why, cap, "other --site-skip");
			return 1;
		}
	if (a->nskips != b->nskips) {
		snprintf(why, cap, "other --site-skip");
		return 1;
	}
	return 0;
}

int ex_journal_append(const struct ex *x, const struct ex_result *r)
{
	char *path = ex_printf("%s/journal", x->outdir);
	char *fn = ex_escape_tab(r->fn), *site = ex_escape_tab(r->site), *err = ex_escape_tab(r->err),
	     *cs = ex_escape_tab(r->crash_site), *st = ex_escape_tab(r->stack), *msg = ex_escape_tab(r->message);
	char *line = ex_printf("run\t%zu\t%s\t%s\t%s\t%s\t%d\t%d\t%d\t%s\t%s\t%d\t%d\t%.3f\t%s\n", r->id, fn, site,
			       err, ex_outcome_names[r->outcome], r->exited, r->status, r->sig, cs, st,
			       r->same, r->attempts, r->secs, msg);
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644), rc = 0;
	size_t len = strlen(line);

	/* one write of the whole line: a kill between runs leaves whole lines
	 * (a torn last line, from a full disk, is skipped when read) */
	if (fd < 0 || write(fd, line, len) != (ssize_t)len)
		rc = ex_error("%s: %s", path, strerror(errno ? errno : EIO));
	if (fd >= 0)
		close(fd);
	free(path);
	free(line);
	free(fn);
	free(site);
	free(err);
	free(cs);
	free(st);
	free(msg);
	return rc;
}

/* DIR/journal's runs added to x->results (a run already there is kept) */
int ex_journal_read(struct ex *x, const char *dir)
{
	char *path = ex_printf("%s/journal", dir);
	size_t len;
	char *text = ex_read_file(path, &len), *p;

	if (!text) {
		int e = errno;

		free(path);
		return e == ENOENT ? 0 : ex_error("%s/journal: %s", dir, strerror(e));
	}
	free(path);
	for (p = text; p < text + len;) {
		char *nl = memchr(p, '\n', (size_t)(text + len - p));
		size_t n;
		char **v;
		int o, dup = 0;

		if (!nl)
			break;	/* torn */
		*nl = '\0';
		v = fields(p, &n);
		p = nl + 1;
		if (n != 15 || strcmp(v[0], "run")) {
			free_fields(v, n);
			continue;
		}
		for (o = 0; o < EX_NOUTCOMES; o++)
			if (strcmp(ex_outcome_names[o], v[5]) == 0)
				break;
		for (size_t i = 0; i < x->nresults; i++)
			if (x->results[i].id == strtoul(v[1], NULL, 10))
				dup = 1;
		if (o < EX_NOUTCOMES && !dup) {
			struct ex_result *r;

			x->results = ex_xrealloc(x->results, (x->nresults + 1) * sizeof(*x->results));
			r = &x->results[x->nresults++];
			r->id = strtoul(v[1], NULL, 10);
			r->fn = ex_strdup(v[2]);
			r->site = ex_strdup(v[3]);
			r->err = ex_strdup(v[4]);
			r->outcome = o;
			r->exited = atoi(v[6]);
			r->status = atoi(v[7]);
			r->sig = atoi(v[8]);
			r->crash_site = ex_strdup(v[9]);
			r->stack = ex_strdup(v[10]);
			r->same = atoi(v[11]);
			r->attempts = atoi(v[12]);
			r->secs = atof(v[13]);
			r->message = ex_strdup(v[14]);
		}
		free_fields(v, n);
	}
	free(text);
	return 0;
}

static int cmp_site(const void *a, const void *b)
{
	const struct ex_site *x = a, *y = b;
	int c = strcmp(x->fn, y->fn);

	return c ? c : ex_site_cmp(x->site, y->site);
}

/* the work list: every (site, error), sites in order; ids from 1 */
void ex_make_items(struct ex *x)
{
	qsort(x->sites, x->nsites, sizeof(*x->sites), cmp_site);
	x->items = NULL;
	x->nitems = 0;
	for (size_t s = 0; s < x->nsites; s++) {
		char **errs;
		size_t n;

		ex_errnos_of(x, x->sites[s].fn, &errs, &n);
		for (size_t e = 0; e < n; e++) {
			x->items = ex_xrealloc(x->items, (x->nitems + 1) * sizeof(*x->items));
			x->items[x->nitems].id = x->nitems + 1;
			x->items[x->nitems].site = s;
			x->items[x->nitems++].err = errs[e];
		}
		free(errs);
	}
}

static int cmp_result(const void *a, const void *b)
{
	const struct ex_result *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

void ex_sort_results(struct ex *x)
{
	qsort(x->results, x->nresults, sizeof(*x->results), cmp_result);
}
