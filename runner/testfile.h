/* SPDX-License-Identifier: MIT */
/* mockrun -t: test files. */
#ifndef MS_TESTFILE_H
#define MS_TESTFILE_H

struct ms_outfile;

enum testfile_format { TESTFILE_TAP, TESTFILE_JUNIT, TESTFILE_JSON, TESTFILE_TEXT, TESTFILE_HTML };

struct testfile_opts {
	int jobs;		/* tests at once */
	const char *filter;	/* fnmatch glob on test names, or NULL */
	int list;		/* --list-tests: print, run nothing */
	int format;		/* enum testfile_format */
	int color;		/* text: ANSI colours */
	struct ms_outfile *output;	/* -o FILE (opened), or NULL: stdout */
	int tap_version;	/* 13 (default) or 14 */
	const char *shim;	/* libmockshim.so, or NULL: found by the driver */
	double timeout;		/* per run, 0: none */
	char *const *modules;	/* -m: handler modules for every session */
	int nmodules;
	int shard_k, shard_n;	/* --shard K/N, n 0: all */
	char *const *site_skip;	/* --site-skip globs for every session */
	int nsite_skip;
	const char *sites;	/* --sites FILE: the tests' sites, merged, or NULL */
	const char *sites_baseline;	/* --sites-baseline FILE, or NULL */
};

/* Parses every file (125 on an error, before anything runs), runs the
 * tests, writes the results: 0 when all passed, 1 otherwise. */
int ms_run_test_files(char *const *paths, int npaths, const struct testfile_opts *o);

#endif
