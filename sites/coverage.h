/* SPDX-License-Identifier: MIT */
/*
 * Error-site coverage (DESIGN.md 7.5): the rows of a sites file, read
 * from a run's state (the shim's sites table), from sites files, merged,
 * written and printed.  A row is one (function, site, test, statement,
 * outcome) with its calls; merging adds the calls of equal keys, so that
 * files of shards give exactly what one run gives.  mockrun's code only:
 * stdio and malloc.
 */
#ifndef MS_SITES_COVERAGE_H
#define MS_SITES_COVERAGE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define MS_SITES_VERSION 1

struct ms_sites_row {
	char *fn;	/* the function */
	char *site;	/* "OBJ+0xHEX" */
	char *test;	/* the test ("FILE::NAME") or the program's basename */
	char *stmt;	/* "SRC:LINE" of the statement that took the calls, "": none */
	char *text;	/* the statement as written, "": none */
	char *outcome;	/* "failed ENAME", "returned V", "real" */
	uint64_t calls;
};

struct ms_sites {
	struct ms_sites_row *rows;
	size_t n, cap;
	char **tests;	/* the tests (runs) that ran, whatever they reached */
	size_t ntests, tcap;
	uint64_t lost;	/* calls a full sites table could not count */
};

enum ms_sites_format { MS_SITES_TEXT, MS_SITES_JSON, MS_SITES_MARKDOWN };

void ms_sites_init(struct ms_sites *s);
void ms_sites_free(struct ms_sites *s);
/* Copies of the strings; 0 or -ENOMEM. */
int ms_sites_add(struct ms_sites *s, const struct ms_sites_row *r);
int ms_sites_add_test(struct ms_sites *s, const char *test);
/* Sorted (function, site by object and offset, test, statement,
 * outcome), equal keys added up, the tests sorted and unique. */
void ms_sites_normalize(struct ms_sites *s);
/* Whether an outcome failed the call (an errno). */
int ms_sites_failed(const char *outcome);

/* The rows of a run: the sites table of the state of channel spec (a
 * struct ms_chan_hdr), audited, under test name test.  0 or -ENOMEM. */
int ms_sites_from_state(struct ms_sites *s, const void *spec, const void *state, const char *test);

/* The sites file (doc/sites.schema.json): normalized first.  0 or -errno. */
int ms_sites_write_json(struct ms_sites *s, FILE *f);
/* Adds the rows and tests of a sites file's text (name: for messages);
 * 0, or -1 with "NAME:LINE:COL: why" in err. */
int ms_sites_read_json(struct ms_sites *s, const char *text, size_t len, const char *name,
		       char *err, size_t errcap);
/* The same, from a file. */
int ms_sites_read_file(struct ms_sites *s, const char *path, char *err, size_t errcap);

/*
 * Symbols for the table's sites (DESIGN.md 7.1: "OBJ+0xOFF (FUNC,
 * FILE:LINE)"): fills out with what follows the site, as the report's
 * ms_report_symbolizer does, and returns its length (0: nothing found).
 * mockrun sets it when a symbolizer is at hand (the sites-sym client);
 * NULL (the default): sites are printed raw.  The sites file itself
 * always holds raw sites, so that files diff and merge as they are.
 */
typedef int (*ms_sites_symbolizer)(void *ctx, const char *object, uint64_t offset, char *out,
				   size_t cap);
void ms_sites_set_symbolizer(ms_sites_symbolizer fn, void *ctx);

/* The table and the coverage (fns: "FN,FN" or NULL for all; untested:
 * only the reached sites no test failed, most-called first).  0 or -errno. */
int ms_sites_print(struct ms_sites *s, FILE *f, int format, const char *fns, int untested);
/* The same as a self-contained HTML page. */
int ms_sites_html(struct ms_sites *s, FILE *f, const char *fns, int untested);

/* --sites-baseline: every (function, site, test) the baseline shows
 * failed and that now's same test (one that ran) no longer reaches or no
 * longer fails, said on err as "mockrun: ..."; the number of them. */
unsigned ms_sites_baseline(struct ms_sites *base, struct ms_sites *now, const char *base_name,
			   FILE *err);

#endif
