/* SPDX-License-Identifier: MIT */
/*
 * mockrun sites FILE... [--untested] [--fns FN,...] [-o MERGED]
 * [--html OUT] [--format text|json|markdown]: sites files (--sites) read
 * and merged, the table and the error-site coverage printed (DESIGN.md
 * 7.5).  Files are written as every output file is: a new file renamed
 * over the old once complete.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "outfile.h"
#include "sitescmd.h"
#include "sites/sites.h"

static void usage(FILE *out)
{
	fputs("usage: mockrun sites FILE... [OPTIONS]\n"
	      "Reads sites files (mockrun --sites FILE), merges them, and prints each\n"
	      "site that called a function a statement names (site, function, calls,\n"
	      "the tests that failed it, outcomes) and the error-site coverage: sites\n"
	      "failed by some test / sites reached, per function and overall.\n"
	      "\n"
	      "      --untested            only the reached sites no test failed, most\n"
	      "                            called first\n"
	      "      --fns FN,...          only these functions\n"
	      "      --format FMT          text (default) | json | markdown\n"
	      "  -o, --output MERGED       write the merged sites file there (a sites file\n"
	      "                            as --sites writes: shards merge to one run's)\n"
	      "      --html OUT            a self-contained HTML page of the table\n"
	      "  -q, --quiet               print nothing on stdout (with -o or --html)\n"
	      "  -h, --help                this text\n"
	      "Exit status: 0, or 125 when a file cannot be read or written.\n",
	      out);
}

static int write_file(const char *opt, const char *path, struct ms_sites *s, int html,
		      const char *fns, int untested)
{
	struct ms_outfile o = { .fd = -1 };
	char *text = NULL;
	size_t len = 0;
	FILE *m;
	int r;

	if ((r = ms_out_open(&o, opt, path)) < 0) {
		fprintf(stderr, "mockrun sites: %s %s: %s\n", opt, path, strerror(-r));
		return -1;
	}
	m = open_memstream(&text, &len);
	r = !m ? -ENOMEM : html ? ms_sites_html(s, m, fns, untested) : ms_sites_write_json(s, m);
	if (m && fclose(m) != 0 && r == 0)
		r = -ENOMEM;
	if (r == 0)
		r = ms_out_write(&o, text, len);
	free(text);
	if (r < 0) {
		ms_out_close(&o, 0);
		fprintf(stderr, "mockrun sites: %s %s: %s\n", opt, path, strerror(-r));
		return -1;
	}
	if ((r = ms_out_close(&o, 1)) < 0) {
		fprintf(stderr, "mockrun sites: %s %s: %s\n", opt, path, strerror(-r));
		return -1;
	}
	return 0;
}

int ms_sites_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "untested", no_argument, NULL, 'u' }, { "fns", required_argument, NULL, 'F' },
		{ "format", required_argument, NULL, 'T' }, { "output", required_argument, NULL, 'o' },
		{ "html", required_argument, NULL, 'H' }, { "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	const char *fns = NULL, *output = NULL, *html = NULL;
	int untested = 0, format = MS_SITES_TEXT, quiet = 0, opt, rc = 0, nfiles = 0;
	struct ms_sites s;
	char err[512];

	optind = 0;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "-o:qh", opts, NULL)) != -1) {
		switch (opt) {
		case 1:
			nfiles++;
			break;
		case 'u':
			untested = 1;
			break;
		case 'F':
			fns = optarg;
			break;
		case 'T':
			if (strcmp(optarg, "text") == 0)
				format = MS_SITES_TEXT;
			else if (strcmp(optarg, "json") == 0)
				format = MS_SITES_JSON;
			else if (strcmp(optarg, "markdown") == 0)
				format = MS_SITES_MARKDOWN;
			else {
				fprintf(stderr, "mockrun sites: --format: unknown format '%s' (text, json, "
						"markdown)\n", optarg);
				return 125;
			}
			break;
		case 'o':
			output = optarg;
			break;
		case 'H':
			html = optarg;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			fprintf(stderr, "mockrun sites: %s: %s (see mockrun sites --help)\n",
				argv[optind - 1], optopt ? "needs a value" : "unknown option");
			return 125;
		}
	}
	if (!nfiles) {
		fprintf(stderr, "mockrun sites: no sites file given (see mockrun sites --help)\n");
		return 125;
	}
	ms_sites_init(&s);
	/* the files: every word that is not an option ("-" reorders them to the end) */
	optind = 0;
	while ((opt = getopt_long(argc, argv, "-o:qh", opts, NULL)) != -1) {
		if (opt != 1)
			continue;
		if (ms_sites_read_file(&s, optarg, err, sizeof(err)) < 0) {
			fprintf(stderr, "mockrun sites: %s\n", err);
			ms_sites_free(&s);
			return 125;
		}
	}
	if (output && write_file("-o", output, &s, 0, NULL, 0) < 0)
		rc = 125;
	if (html && write_file("--html", html, &s, 1, fns, untested) < 0)
		rc = 125;
	if (!quiet && ms_sites_print(&s, stdout, format, fns, untested) < 0) {
		fprintf(stderr, "mockrun sites: out of memory\n");
		rc = 125;
	}
	if (fflush(stdout) != 0 && rc == 0) {
		perror("mockrun sites: stdout");
		rc = 125;
	}
	ms_sites_free(&s);
	return rc;
}
