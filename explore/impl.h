/* SPDX-License-Identifier: MIT */
/* explore/'s inside: the exploration's state, shared by its files. */
#ifndef MS_EXPLORE_IMPL_H
#define MS_EXPLORE_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define EX_EXIT_ERROR 125
#define EX_EXIT_INTERRUPTED 130
#define EX_CONFIRM 3		/* a finding's runs: the first and two more */

/* outcomes, in DESIGN.md 7.2's order */
enum ex_outcome {
	EX_CRASH, EX_SANITIZER, EX_HANG, EX_SILENT, EX_ABORT, EX_EXITED, EX_HANDLED, EX_UNREACHED,
	EX_NOUTCOMES
};
extern const char *const ex_outcome_names[EX_NOUTCOMES];

/* a statement source given to every run: -e text, -f file, -m module */
struct ex_src {
	char kind;		/* 'e', 'f', 'm' */
	char *text;
};

/* one (function, site) of the clean run */
struct ex_site {
	char *fn, *site;
	char *symbol;		/* what the trace said after the site: "(main, p.c:20)" or "" */
	unsigned calls;
};

/* one run of the work list: a (site, error) */
struct ex_item {
	size_t id;		/* 1-based, in the sorted work list of every shard */
	size_t site;		/* index in ex.sites */
	char *err;		/* "ENOMEM", or "" for the row's failure without errno */
};

/* what a finished run gave (a journal line) */
struct ex_result {
	size_t id;
	char *fn, *site, *err;
	int outcome;
	int exited, status, sig;
	char *crash_site;	/* "" unknown */
	char *stack;		/* comma-separated sites, "" none */
	char *message;		/* the line of stderr that told a crash (glibc's, an
				 * assertion's, a sanitizer's), or "" */
	int same, attempts;	/* confirmation: same outcome in `same` of `attempts` */
	double secs;
};

struct ex_finding {
	size_t first;		/* index in ex.results of its first run */
	size_t *runs;		/* indices in ex.results */
	size_t nruns;
	char *file;		/* "0001-crash-malloc.mock" */
};

struct ex {
	/* what the command line gave (stored in DIR/meta, checked on resume) */
	char **argv;
	int argc;
	struct ex_src *srcs;
	size_t nsrcs;
	char **fns;		/* the functions, groups expanded */
	size_t nfns;
	char *fns_arg, *errnos_arg, *oracle_arg;
	char **files;		/* --files globs */
	size_t nfiles;
	char **skips;		/* --site-skip globs, given to every run */
	size_t nskips;
	char *workdir;		/* absolute, or NULL */
	int persistent;
	unsigned oracles;	/* 1 << outcome */
	char *seed;		/* --seed as given, or NULL */
	/* of this invocation only */
	char *outdir;		/* absolute */
	char *startdir;		/* absolute: where explore started */
	char *mockrun;
	double timeout;		/* per run, seconds */
	int timeout_given;
	long jobs, max_runs;
	double max_time;
	long shard_k, shard_n;
	int progress;
	/* the clean run */
	int count_mode;		/* the trace has no sites: the k-th call instead */
	int clean_exited, clean_status, clean_sig;
	double clean_secs;
	int nondet_stdout, nondet_files;
	uint64_t clean_stdout_hash, clean_files_hash;
	char *clean_stderr;
	struct ex_site *sites;
	size_t nsites;
	struct ex_item *items;
	size_t nitems;
	/* the runs done (journal), sorted by id once complete */
	struct ex_result *results;
	size_t nresults;
	int complete;
	struct ex_finding *findings;
	size_t nfindings;
	double seconds;		/* this invocation's wall time */
};

/* util.c */
extern const char *ex_name;
void *ex_xrealloc(void *p, size_t n);
char *ex_strdup(const char *s);
char *ex_strndup(const char *s, size_t n);
char *ex_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int ex_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *ex_read_file(const char *path, size_t *len);
int ex_write_file(const char *path, const char *data, size_t len);
uint64_t ex_hash(const void *p, size_t n, uint64_t h);
double ex_now(void);
char *ex_escape_tab(const char *s);
char *ex_unescape_tab(const char *s);
int ex_mkdirs(const char *path);
int ex_rm_rf(const char *path);
int ex_copy_tree(const char *from, const char *to);
char *ex_relpath(const char *from_dir, const char *to);
const char *ex_errno_name(int e);
int ex_errno_known(const char *name);

/* cli.c */
int ex_cli(struct ex *x, int argc, char **argv, char ***merge, size_t *nmerge);
int ex_expand_fns(struct ex *x);
int ex_errnos_of(const struct ex *x, const char *fn, char ***out, size_t *n);
int ex_site_cmp(const char *a, const char *b);

/* run.c */
int ex_clean(struct ex *x);
int ex_run_all(struct ex *x, volatile int *interrupted);
char *ex_statement(const struct ex *x, const char *fn, const char *site, const char *err);
int ex_run_once(const struct ex *x, const char *rundir, const char *stmt, int trace, char **report, char **err,
		size_t *errlen);

/* store.c */
int ex_meta_write(const struct ex *x);
int ex_meta_read(struct ex *x, const char *dir, int config_only);
int ex_meta_same(const struct ex *a, const struct ex *b, char *why, size_t cap);
int ex_journal_append(const struct ex *x, const struct ex_result *r);
int ex_journal_read(struct ex *x, const char *dir);
void ex_make_items(struct ex *x);
void ex_sort_results(struct ex *x);

/* write.c */
void ex_findings(struct ex *x);
int ex_write_all(struct ex *x);
void ex_put_quoted(FILE *f, const char *s, int keep_dir);
void ex_put_reproduce(FILE *f, const struct ex *x, const char *who, const char *outdir,
		      const char *file);

/* minimize.c: mockrun minimize (DESIGN.md 7.6) */
int ex_minimize_main(int argc, char **argv);

/* power.c: mockrun explore --power-loss (DESIGN.md 7.3, its end) */
int ex_power_main(int argc, char **argv);

#endif
