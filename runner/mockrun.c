/* SPDX-License-Identifier: MIT */
/* mockrun: run a program with mocked functions (DESIGN.md section 4). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "control.h"
#include "mockshim/driver.h"
#include "outfile.h"
#include "session.h"
#include "jobs.h"
#include "sites/sites.h"
#include "symbols.h"
#include "testfile.h"
#include "sitescmd.h"

#define EXIT_MOCKRUN 125
#define EXIT_CANNOT_RUN 126
#define EXIT_NOT_FOUND 127
#define EXIT_TIMEOUT 124

static void usage(FILE *out)
{
	fputs("usage: mockrun [OPTIONS] [--] PROGRAM [ARGS...]\n"
	      "       mockrun -t FILE.mock... [OPTIONS]\n"
	      "       mockrun ctl SOCKET ACTION...   (mockrun ctl --help)\n"
	      "       mockrun sites FILE... [OPTIONS] (mockrun sites --help)\n"
	      "       mockrun explore [OPTIONS] [--] PROGRAM [ARGS...]   (mockrun explore --help)\n"
	      "       mockrun minimize -o FILE [OPTIONS] [--] PROGRAM [ARGS...]   (mockrun minimize --help)\n"
	      "Runs PROGRAM with libmockshim.so preloaded and the given statements armed,\n"
	      "waits for it and every process it starts, and reports.\n"
	      "\n"
	      "  -e, --eval STMTS          statements (repeatable; named -e#1, -e#2, ...)\n"
	      "  -f, --file SPEC           statements from a file (repeatable; - for stdin)\n"
	      "  -m, --module SO           load a handler module (repeatable)\n"
	      "      --report FMT          text (default, on stderr) | tap | junit | json | html\n"
	      "                            (tap, junit, json and html need -o with a program)\n"
	      "  -o, --output FILE         write the report there (- for stdout)\n"
	      "      --tap-version N       13 (default) or 14\n"
	      "  -t, --test FILE...        run test files (*.mock) instead of a program:\n"
	      "                            TAP on stdout, or --report junit|json|text;\n"
	      "                            options and files in any order\n"
	      "  -j, --jobs N              tests at once (default: the CPUs; 1 under meson\n"
	      "                            test or ctest, make's tokens under its jobserver)\n"
	      "      --shard K/N           the K-th of N disjoint shards of the tests\n"
	      "      --filter GLOB         only the tests whose name matches\n"
	      "      --list-tests          list the tests, run nothing\n"
	      "      --timeout SECS        kill the process tree after SECS (exit 124)\n"
	      "      --error-exitcode N    exit status when a check fails (default 123)\n"
	      "      --seed N              the draws of probability= and of power_loss's\n"
	      "                            mode=torn|reorder (default: random, printed)\n"
	      "      --on-fail MODE        continue (default): the call goes on and the run\n"
	      "                            fails at the end; abort: SIGABRT in the program at\n"
	      "                            the first failed check (for a core dump or debugger)\n"
	      "      --trace[=FN,...]      a line per call of FN (default: the catalog but\n"
	      "                            the allocator, and declared functions), with\n"
	      "                            arguments, result and call site (symbolized:\n"
	      "                            \"jq+0x2b7c4 (jv_mem_alloc, jv_alloc.c:41)\");\n"
	      "                            SYS_NAME: a system call (its result only when\n"
	      "                            a statement answered it)\n"
	      "      --site-skip GLOB      a call's site (at=, the trace's \"at SITE\", the\n"
	      "                            report) passes over frames of objects matching\n"
	      "                            GLOB too, as it does the system libraries'\n"
	      "      --trace-file FILE     write the trace there instead of stderr (a new\n"
	      "                            file each run)\n"
	      "      --trace-format FMT    text (default) | chrome: Trace Event Format JSON\n"
	      "                            in --trace-file (Perfetto, chrome://tracing)\n"
	      "      --record FILE         write a spec that replays the real calls of the\n"
	      "                            --record-fns FN,... (values, errno, outputs)\n"
	      "      --record-fns FN,...   the catalog functions to record, or groups:\n"
	      "                            @net, @file, @stdio, @time, @process, ...\n",
	      out);
	fputs("      --sites FILE          error-site coverage: each site that called a\n"
	      "                            function a statement names, its calls, and which\n"
	      "                            statement (test) failed them (JSON; see mockrun\n"
	      "                            sites --help)\n"
	      "      --sites-baseline FILE a site FILE shows failed by a test that this\n"
	      "                            run's same test no longer reaches or fails: 123\n"
	      "      --check               say, before the run, whether PROGRAM (static?\n"
	      "                            setuid?) and its libraries import what is mocked\n"
	      "      --control [SOCKET]    serve mockrun ctl on a unix socket (0600, removed\n"
	      "                            at the end; no SOCKET, or an option next: one in\n"
	      "                            a private directory); the program gets\n"
	      "                            $MOCKSHIM_CONTROL; with will_hold(FN,\n"
	      "                            name=\"N\"), ctl --wait-held N, --release N\n"
	      "      --list [FN]           the catalog, or one function's details\n"
	      "  -q, --quiet               report failures only\n"
	      "  -v, --verbose             report every consumed value\n"
	      "  -h, --help                this text\n"
	      "      --version             the version, and the call sites' symbolizer\n"
	      "\n"
	      "Exit status: the program's own when every check passed; 123 (or N) when a\n"
	      "check failed; 124 on timeout; 125 for mockrun's own errors; 126 when the\n"
	      "program cannot be run, 127 when it is not found; 128+N when it was killed\n"
	      "by signal N (a will_signal kill point too).  With -t: 0 all passed, 1 a\n"
	      "test failed, 125 an error.  A report or file that cannot be written is\n"
	      "125, whatever the verdict.\n"
	      "power_loss(FN, paths=\"db/*\"): the power goes out before FN's call, the tree\n"
	      "dies, the files under db/ go back to their durable state (exit 0 then).\n"
	      "Example: mockrun -e 'will_fail(read, EIO)' cat /etc/hostname\n",
	      out);
}

enum {
	OPT_REPORT = 256,
	OPT_TIMEOUT,
	OPT_ERROR_EXITCODE,
	OPT_SEED,
	OPT_LIST,
	OPT_VERSION,
	OPT_ON_FAIL,
	OPT_FILTER,
	OPT_LIST_TESTS,
	OPT_TRACE,
	OPT_TRACE_FILE,
	OPT_CHECK,
	OPT_RECORD,
	OPT_RECORD_FNS,
	OPT_TAP_VERSION,
	OPT_SHARD,
	OPT_TRACE_FORMAT,
	OPT_CONTROL,
	OPT_SITE_SKIP,
	OPT_SITES,
	OPT_SITES_BASELINE,
};

static int parse_int(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

/* A report (or spec) made in memory, then written: a write error is the
 * file's, with its errno, not lost in stdio's buffer. */
struct membuf {
	char *text;
	size_t len;
	FILE *f;
};

static int membuf_open(struct membuf *m)
{
	m->text = NULL;
	m->len = 0;
	m->f = open_memstream(&m->text, &m->len);
	return m->f ? 0 : -ENOMEM;
}

static int membuf_close(struct membuf *m)
{
	int r = fclose(m->f) == 0 ? 0 : -ENOMEM;

	m->f = NULL;
	return r;
}

/* "mockrun: -o FILE: reason" */
static void out_error(const struct ms_outfile *o, int err)
{
	fprintf(stderr, "mockrun: %s %s: %s\n", o->opt, o->path, strerror(err));
}

static const struct option opts[] = {
	{ "eval", required_argument, NULL, 'e' },
	{ "file", required_argument, NULL, 'f' },
	{ "report", required_argument, NULL, OPT_REPORT },
	{ "output", required_argument, NULL, 'o' },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "error-exitcode", required_argument, NULL, OPT_ERROR_EXITCODE },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "list", no_argument, NULL, OPT_LIST },
	{ "quiet", no_argument, NULL, 'q' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ "module", required_argument, NULL, 'm' },
	{ "trace", optional_argument, NULL, OPT_TRACE },
	{ "trace-file", required_argument, NULL, OPT_TRACE_FILE },
	{ "record", required_argument, NULL, OPT_RECORD },
	{ "record-fns", required_argument, NULL, OPT_RECORD_FNS },
	{ "on-fail", required_argument, NULL, OPT_ON_FAIL },
	{ "check", no_argument, NULL, OPT_CHECK },
	{ "test", optional_argument, NULL, 't' },
	{ "jobs", required_argument, NULL, 'j' },
	{ "filter", required_argument, NULL, OPT_FILTER },
	{ "list-tests", no_argument, NULL, OPT_LIST_TESTS },
	{ "tap-version", required_argument, NULL, OPT_TAP_VERSION },
	{ "shard", required_argument, NULL, OPT_SHARD },
	{ "trace-format", required_argument, NULL, OPT_TRACE_FORMAT },
	{ "control", optional_argument, NULL, OPT_CONTROL },
	{ "site-skip", required_argument, NULL, OPT_SITE_SKIP },
	{ "sites", required_argument, NULL, OPT_SITES },
	{ "sites-baseline", required_argument, NULL, OPT_SITES_BASELINE },
	{ NULL, 0, NULL, 0 },
};
/* program mode: the first word that is not an option is the program ("+",
 * as env and timeout); -t mode: every non-option word is a test file ("-"
 * returns them in order, as operands) */
static const char program_opts[] = "+e:f:o:qvhm:t::j:", test_opts[] = "-e:f:o:qvhm:t::j:";

/* What the command line asked for. */
struct cli {
	const char *output, *report_name;
	int format, verbosity, report_given, testing;
	long error_exitcode, tap_version;
	double timeout;
	char **tests;			/* test files, in -t mode */
	int ntests;
	struct {
		int eval;
		const char *arg;
	} *srcs;			/* -e and -f in order, added once every -m is loaded */
	int nsrcs, neval;
	char **mods;
	int nmods;
	int trace, check, chrome, control;
	const char *control_at, *trace_fns, *trace_file, *record, *record_fns;
	const char *sites, *sites_baseline;	/* --sites FILE, --sites-baseline FILE */
	const char *program;		/* program mode: PROGRAM */
	char **site_skip;		/* --site-skip, for -t's sessions */
	int nsite_skip;
	struct testfile_opts topts;
};

/* How an option ends the command: it goes on, fails (125), or has done
 * what was asked (--help, --version, --list: 0). */
enum { GO_ON, FAILED, DONE };

/* -t (or --list-tests) anywhere before "--": test-file mode, in which
 * options and files may be interleaved.  A first pass that only looks. */
static int test_mode(int argc, char **argv)
{
	int c, found = 0, saved = opterr;

	opterr = 0;
	while ((c = getopt_long(argc, argv, program_opts, opts, NULL)) != -1)
		found |= c == 't' || c == OPT_LIST_TESTS;
	opterr = saved;
	optind = 0; /* glibc: start again, from scratch */
	return found;
}

static int push_test(struct cli *c, char *path)
{
	char **t = realloc(c->tests, (size_t)(c->ntests + 1) * sizeof(*t));

	if (!t)
		return FAILED;
	c->tests = t;
	c->tests[c->ntests++] = path;
	return GO_ON;
}

static int report_option(struct cli *c, const char *arg)
{
	static const struct {
		const char *name;
		int format;
	} formats[] = {
		{ "text", MOCKSHIM_REPORT_TEXT }, { "tap", MOCKSHIM_REPORT_TAP },
		{ "json", MOCKSHIM_REPORT_JSON }, { "junit", MOCKSHIM_REPORT_JUNIT },
		{ "html", MOCKSHIM_REPORT_HTML },
	};

	c->report_given = 1;
	c->report_name = arg;
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		if (strcmp(arg, formats[i].name) == 0) {
			c->format = formats[i].format;
			return GO_ON;
		}
	}
	fprintf(stderr, "mockrun: --report: unknown format '%s' (text, tap, junit, json, html)\n", arg);
	return FAILED;
}

/* The options that set a number. */
static int number_option(struct mockshim_session *s, struct cli *c, int opt, const char *arg)
{
	char *end;
	long v;

	switch (opt) {
	case OPT_TAP_VERSION:
		if (parse_int(arg, 13, 14, &c->tap_version) == 0)
			return GO_ON;
		fprintf(stderr, "mockrun: --tap-version: '%s' is not 13 or 14\n", arg);
		return FAILED;
	case OPT_TIMEOUT:
		errno = 0;
		c->timeout = strtod(arg, &end);
		if (!errno && end != arg && !*end && c->timeout > 0 &&
		    mockshim_session_set_timeout(s, c->timeout) == 0)
			return GO_ON;
		fprintf(stderr, "mockrun: --timeout: '%s' is not a positive number of seconds\n", arg);
		return FAILED;
	case OPT_SEED: {
		unsigned long long seed;

		errno = 0;
		seed = strtoull(arg, &end, 0);
		if (errno || end == arg || *end || arg[0] == '-') {
			fprintf(stderr, "mockrun: --seed: '%s' is not a number in 0..2^64-1\n", arg);
			return FAILED;
		}
		mockshim_session_set_seed(s, (uint64_t)seed);
		return GO_ON;
	}
	case OPT_ERROR_EXITCODE:
		if (parse_int(arg, 0, 255, &c->error_exitcode) == 0)
			return GO_ON;
		fprintf(stderr, "mockrun: --error-exitcode: '%s' is not in 0..255\n", arg);
		return FAILED;
	case 'j':
		if (parse_int(arg, 1, 1024, &v) == 0) {
			c->topts.jobs = (int)v;
			return GO_ON;
		}
		fprintf(stderr, "mockrun: -j: '%s' is not in 1..1024\n", arg);
		return FAILED;
	default: { /* OPT_SHARD */
		int k, n, used = 0;

		if (sscanf(arg, "%d/%d%n", &k, &n, &used) != 2 || arg[used] || n < 1 || n > 100000 ||
		    k < 1 || k > n) {
			fprintf(stderr, "mockrun: --shard: '%s' is not K/N with 1 <= K <= N\n", arg);
			return FAILED;
		}
		c->topts.shard_k = k;
		c->topts.shard_n = n;
		return GO_ON;
	}
	}
}

/* The options that name a mode, a file or a function. */
static int word_option(struct mockshim_session *s, struct cli *c, int opt, char *arg, int argc,
		       char **argv)
{
	switch (opt) {
	case 'm': {
		char **m;

		if (mockshim_session_add_module(s, arg) < 0) {
			fprintf(stderr, "mockrun: -m %s", mockshim_session_error(s));
			return FAILED;
		}
		m = realloc(c->mods, (size_t)(c->nmods + 1) * sizeof(*m));
		if (!m)
			return FAILED;
		c->mods = m;
		c->mods[c->nmods++] = arg;
		return GO_ON;
	}
	case OPT_LIST: {
		const char *fn = optind < argc && argv[optind][0] != '-' ? argv[optind++] : NULL;

		if (mockshim_catalog_list(stdout, fn) < 0) {
			fprintf(stderr, "mockrun: --list: '%s' is not in the catalog\n", fn);
			return FAILED;
		}
		return DONE;
	}
	case OPT_ON_FAIL:
		if (strcmp(arg, "continue") == 0 || strcmp(arg, "abort") == 0) {
			mockshim_session_set_abort_on_fail(s, arg[0] == 'a');
			return GO_ON;
		}
		fprintf(stderr, "mockrun: --on-fail: '%s' is not continue or abort\n", arg);
		return FAILED;
	case OPT_TRACE_FORMAT:
		if (strcmp(arg, "chrome") == 0 || strcmp(arg, "text") == 0) {
			c->chrome = arg[0] == 'c';
			return GO_ON;
		}
		fprintf(stderr, "mockrun: --trace-format: '%s' is not text or chrome\n", arg);
		return FAILED;
	default: /* OPT_CONTROL */
		/* --control=SOCKET, --control SOCKET, or none when an option
		 * (or --) comes next */
		c->control = 1;
		c->control_at = arg ? arg : optind < argc && argv[optind][0] != '-' ? argv[optind++] : NULL;
		if (c->control_at && !*c->control_at) {
			fprintf(stderr, "mockrun: --control: an empty path\n");
			return FAILED;
		}
		return GO_ON;
	}
}

/*
 * What was wrong with the option getopt_long() just refused (opterr is
 * 0: the C libraries word this differently, and mockrun links either),
 * in glibc's words: the argument it stopped at is argv[optind - 1].
 */
static void option_error(int argc, char **argv)
{
	const char *arg = optind > 0 && optind <= argc ? argv[optind - 1] : "", *o;
	size_t len;
	int n = 0, exact = -1;

	if (strncmp(arg, "--", 2) != 0 || !arg[2]) {
		o = optopt > 0 && optopt < 128 ? strchr(program_opts + 1, optopt) : NULL;
		if (o && o[1] == ':' && o[2] != ':')
			fprintf(stderr, "mockrun: option requires an argument -- '%c'\n", optopt);
		else if (optopt > ' ' && optopt < 127)
			fprintf(stderr, "mockrun: invalid option -- '%c'\n", optopt);
		else
			fprintf(stderr, "mockrun: unrecognized option '%s'\n", arg);
		return;
	}
	len = strcspn(arg + 2, "=");
	for (int i = 0; opts[i].name; i++)
		if (strncmp(opts[i].name, arg + 2, len) == 0) {
			n++;
			if (strlen(opts[i].name) == len)
				exact = i;
		}
	if (exact < 0 && n > 1)
		fprintf(stderr, "mockrun: option '%s' is ambiguous\n", arg);
	else if (exact < 0 && n == 0)
		fprintf(stderr, "mockrun: unrecognized option '%s'\n", arg);
	else if (arg[2 + len] == '=')
		fprintf(stderr, "mockrun: option '--%.*s' doesn't allow an argument\n", (int)len, arg + 2);
	else
		fprintf(stderr, "mockrun: option '%s' requires an argument\n", arg);
}

/* One option of getopt's; what it asks is in c (or s) afterwards. */
static int one_option(struct mockshim_session *s, struct cli *c, int opt, int argc, char **argv)
{
	switch (opt) {
	case 1: /* a test file, in -t mode */
		return push_test(c, optarg);
	case 't':
		/* a mode switch; -tFILE and --test=FILE name a file too */
		return optarg ? push_test(c, optarg) : GO_ON;
	case 'e':
	case 'f': {
		/* parsed after every -m is loaded: statements may name the
		 * functions of any module */
		void *n = realloc(c->srcs, (size_t)(c->nsrcs + 1) * sizeof(*c->srcs));

		if (!n)
			return FAILED;
		c->srcs = n;
		c->srcs[c->nsrcs].eval = opt == 'e';
		c->srcs[c->nsrcs++].arg = optarg;
		c->neval += opt == 'e';
		return GO_ON;
	}
	case OPT_REPORT:
		return report_option(c, optarg);
	case OPT_TAP_VERSION:
	case OPT_TIMEOUT:
	case OPT_SEED:
	case OPT_ERROR_EXITCODE:
	case 'j':
	case OPT_SHARD:
		return number_option(s, c, opt, optarg);
	case 'm':
	case OPT_LIST:
	case OPT_ON_FAIL:
	case OPT_TRACE_FORMAT:
	case OPT_CONTROL:
		return word_option(s, c, opt, optarg, argc, argv);
	case 'o':
		c->output = optarg;
		return GO_ON;
	case 'q':
	case 'v':
		c->verbosity = opt == 'q' ? MOCKSHIM_QUIET : MOCKSHIM_VERBOSE;
		return GO_ON;
	case 'h':
		usage(stdout);
		return DONE;
	case OPT_VERSION: {
		/* and the call sites' symbolizer it would start, or why none */
		char *helper = ms_sym_find_helper();

		printf("mockrun (mockshim) %s\nsymbolizer: %s\n", MS_VERSION,
		       helper ? helper : "none (call sites are shown as OBJECT+0xOFFSET)");
		free(helper);
		return DONE;
	}
	case OPT_FILTER:
		c->topts.filter = optarg;
		return GO_ON;
	case OPT_TRACE:
		c->trace = 1;
		c->trace_fns = optarg;
		return GO_ON;
	case OPT_TRACE_FILE:
		c->trace_file = optarg;
		return GO_ON;
	case OPT_SITE_SKIP: {
		int r = ms_session_add_site_skip(s, optarg);
		char **v;

		if (r < 0) {
			fprintf(stderr, "mockrun: %s", r == -ENOMEM ? "out of memory\n" : mockshim_session_error(s));
			return FAILED;
		}
		v = realloc(c->site_skip, (size_t)(c->nsite_skip + 1) * sizeof(*v));
		if (!v)
			return FAILED;
		v[c->nsite_skip++] = optarg;
		c->site_skip = v;
		c->topts.site_skip = v;
		c->topts.nsite_skip = c->nsite_skip;
		return GO_ON;
	}
	case OPT_CHECK:
		c->check = 1;
		return GO_ON;
	case OPT_LIST_TESTS:
		c->topts.list = 1;
		return GO_ON;
	case OPT_RECORD:
		c->record = optarg;
		return GO_ON;
	case OPT_RECORD_FNS:
		c->record_fns = optarg;
		return GO_ON;
	case OPT_SITES:
		c->sites = optarg;
		c->topts.sites = optarg;
		return GO_ON;
	case OPT_SITES_BASELINE:
		c->sites_baseline = optarg;
		c->topts.sites_baseline = optarg;
		return GO_ON;
	default:
		/* which option; the whole help would bury it */
		option_error(argc, argv);
		fprintf(stderr, "mockrun: see mockrun --help\n");
		return FAILED;
	}
}

/* The options, then what they need of each other, then the statements
 * of -e and -f in order. */
static int read_command_line(struct mockshim_session *s, struct cli *c, int argc, char **argv)
{
	int opt, r;

	c->testing = test_mode(argc, argv);
	opterr = 0;	/* option_error() says what is wrong */
	while ((opt = getopt_long(argc, argv, c->testing ? test_opts : program_opts, opts, NULL)) != -1)
		if ((r = one_option(s, c, opt, argc, argv)) != GO_ON)
			return r;
	if (c->record_fns && !c->record) {
		fprintf(stderr, "mockrun: --record-fns goes with --record FILE\n");
		return FAILED;
	}
	if (c->sites_baseline && !c->sites) {
		fprintf(stderr, "mockrun: --sites-baseline goes with --sites FILE\n");
		return FAILED;
	}
	if (c->sites)
		ms_session_set_sites(s, MS_SITES_CAP);
	if (c->record && mockshim_session_set_record(s, c->record_fns) < 0) {
		fprintf(stderr, "mockrun: %s", mockshim_session_error(s));
		return FAILED;
	}
	if (c->chrome && (!c->trace_file || c->ntests || c->topts.list)) {
		fprintf(stderr, "mockrun: --trace-format chrome needs --trace-file FILE and one program\n");
		return FAILED;
	}
	/* at="NAME" is looked up in the program (program mode) */
	if (!c->testing && optind < argc && ms_session_set_at_program(s, argv[optind]) < 0)
		return FAILED;
	/* ...by the call sites' symbolizer, which shows the report's sites */
	ms_symbols_session(s);
	for (int i = 0, e = 0; i < c->nsrcs; i++) {
		char name[32];

		if (c->srcs[i].eval) {
			snprintf(name, sizeof(name), "-e#%d", ++e);
			r = mockshim_session_add(s, name, c->srcs[i].arg, (size_t)-1);
		} else {
			r = mockshim_session_add_file(s, c->srcs[i].arg);
		}
		if (r < 0) {
			fputs(mockshim_session_error(s), stderr);
			return FAILED;
		}
	}
	/* the functions are checked now (declared ones are known once the
	 * statements are in), the file is opened with the others */
	if ((c->trace || c->trace_file) && mockshim_session_set_trace(s, c->trace_fns, NULL) < 0) {
		fputs("mockrun: ", stderr);
		fputs(mockshim_session_error(s), stderr);
		return FAILED;
	}
	return GO_ON;
}

/* -t FILE...: the test files, -j at a time; the exit status. */
static int run_test_files(struct cli *c, int argc, char **argv)
{
	struct ms_outfile out_o = { .fd = -1 };
	const char *no = c->neval ? "-e goes in the test files with -t"
			 : c->record ? "--record runs one program, not test files (-t)"
			 : c->trace || c->trace_file ? "--trace runs one program, not test files (-t)"
			 : c->control ? "--control runs one program, not test files (-t)"
				      : NULL;
	int r, rc;

	/* whatever came after "--" are files too */
	for (int i = optind; i < argc; i++)
		if (push_test(c, argv[i]) != GO_ON)
			return EXIT_MOCKRUN;
	if (!c->ntests) {
		fprintf(stderr, "mockrun: %s needs test files (-t FILE...)\n",
			c->topts.list ? "--list-tests" : "-t");
		return EXIT_MOCKRUN;
	}
	if (no) {
		fprintf(stderr, "mockrun: %s\n", no);
		return EXIT_MOCKRUN;
	}
	c->topts.format = c->format == MOCKSHIM_REPORT_JUNIT ? TESTFILE_JUNIT
			  : c->format == MOCKSHIM_REPORT_JSON ? TESTFILE_JSON
			  : c->format == MOCKSHIM_REPORT_HTML ? TESTFILE_HTML
			  : c->format == MOCKSHIM_REPORT_TEXT && c->report_given ? TESTFILE_TEXT
										   : TESTFILE_TAP;
	c->topts.tap_version = (int)c->tap_version;
	c->topts.color = c->topts.format == TESTFILE_TEXT && (!c->output || strcmp(c->output, "-") == 0) &&
			 isatty(STDOUT_FILENO) && !getenv("NO_COLOR");
	if (c->output && !c->topts.list && (r = ms_out_open(&out_o, "-o", c->output)) < 0) {
		out_error(&out_o, -r);
		return EXIT_MOCKRUN;
	}
	c->topts.output = out_o.fd >= 0 ? &out_o : NULL;
	c->topts.timeout = c->timeout;
	if (!c->topts.jobs)
		c->topts.jobs = ms_default_jobs();
	c->topts.modules = c->mods;
	c->topts.nmodules = c->nmods;
	rc = ms_run_test_files(c->tests, c->ntests, &c->topts);
	/* 128+N: stopped by signal N, with nothing written */
	if (c->topts.output && ms_out_close(&out_o, rc != 125 && rc <= 128) < 0 && rc != 125 &&
	    rc <= 128) {
		out_error(&out_o, out_o.error);
		rc = EXIT_MOCKRUN;
	}
	if (rc > 128) {
		/* ended by the signal, as a shell expects of an interrupted command */
		signal(rc - 128, SIG_DFL);
		raise(rc - 128);
	}
	return rc;
}

/* The files of a run, each opened before it and written after it. */
struct outputs {
	struct ms_outfile out, record, trace, sites;
	char *trace_raw;	/* --trace-format chrome: the shims' timed lines */
	int raw_fd;		/* its descriptor, -1 */
	int raw_named;		/* it has a name of its own, to unlink */
};

/* What the options of one program need of each other. */
static int check_program_options(const struct cli *c)
{
	if (c->format != MOCKSHIM_REPORT_TEXT && !c->output) {
		/* a machine reads it: the program's own stdout must not mix in */
		fprintf(stderr,
			"mockrun: --report %s needs -o FILE (or -o - for stdout): the program's "
			"output would mix with it\n",
			c->report_name);
		return FAILED;
	}
	if (c->record && ((c->output && ms_out_same(c->record, c->output)) ||
			  (c->trace_file && ms_out_same(c->record, c->trace_file)))) {
		fprintf(stderr, "mockrun: --record %s: the same file as %s\n", c->record,
			c->output && ms_out_same(c->record, c->output) ? "-o" : "--trace-file");
		return FAILED;
	}
	if (c->output && c->trace_file && ms_out_same(c->output, c->trace_file)) {
		fprintf(stderr, "mockrun: -o %s: the same file as --trace-file\n", c->output);
		return FAILED;
	}
	return GO_ON;
}

/* Every file is opened before the run: a path that cannot be written
 * fails now, with nothing run. */
static int open_outputs(struct mockshim_session *s, const struct cli *c, struct outputs *o)
{
	int r, fd;

	if (c->output && (r = ms_out_open(&o->out, "-o", c->output)) < 0) {
		out_error(&o->out, -r);
		return FAILED;
	}
	if (c->record && (r = ms_out_open(&o->record, "--record", c->record)) < 0) {
		out_error(&o->record, -r);
		return FAILED;
	}
	if (c->sites && (r = ms_out_open(&o->sites, "--sites", c->sites)) < 0) {
		out_error(&o->sites, -r);
		return FAILED;
	}
	if (!c->trace_file) {
		char relay[64];

		/* on stderr, through mockrun, which adds each site's symbols */
		if (c->trace && ms_symbols_relay_start(relay, sizeof(relay)) == 0 &&
		    mockshim_session_set_trace(s, c->trace_fns, relay) < 0) {
			fprintf(stderr, "mockrun: --trace: %s\n", strerror(ENOMEM));
			return FAILED;
		}
		return GO_ON;
	}
	/* the shims append to it by name, unless mockrun writes it (chrome) */
	o->trace.shared = !c->chrome;
	if ((r = ms_out_open(&o->trace, "--trace-file", c->trace_file)) < 0) {
		out_error(&o->trace, -r);
		return FAILED;
	}
	if (c->chrome) {
		/* the shims append timed lines to a file beside FILE, which
		 * becomes FILE's JSON after the run */
		fd = ms_out_scratch(c->trace_file, &o->trace_raw, &o->raw_named);
		if (fd < 0) {
			fprintf(stderr, "mockrun: --trace-file %s: %s\n", c->trace_file, strerror(-fd));
			return FAILED;
		}
		/* an unnamed one lives as long as this descriptor */
		if (o->raw_named)
			close(fd);
		else
			o->raw_fd = fd;
		mockshim_session_set_trace_timed(s, 1);
	}
	/* the processes of the tree append to it (the new file when there
	 * is one, renamed into place after the run) */
	if (mockshim_session_set_trace(s, c->trace_fns,
				       c->chrome ? o->trace_raw : ms_out_target(&o->trace)) < 0) {
		fprintf(stderr, "mockrun: --trace-file %s: %s\n", c->trace_file, strerror(ENOMEM));
		return FAILED;
	}
	return GO_ON;
}

/* The chrome trace's timed lines, read or not needed: gone. */
static void drop_raw(struct outputs *o)
{
	if (o->trace_raw && o->raw_named)
		unlink(o->trace_raw);
	if (o->raw_fd >= 0)
		close(o->raw_fd);
	o->raw_fd = -1;
	free(o->trace_raw);
	o->trace_raw = NULL;
}

/* Nothing written: no half-written file, each FILE as it was. */
static void drop_outputs(struct outputs *o)
{
	ms_out_close(&o->out, 0);
	ms_out_close(&o->record, 0);
	ms_out_close(&o->trace, 0);
	ms_out_close(&o->sites, 0);
	drop_raw(o);
}

/*
 * The exit status of a run.  A tampered state gives no verdict: 125,
 * whatever the program did.  After a signal mockrun forwarded, the status
 * is still the program's own (128+N only if the signal killed it), as
 * timeout(1).
 */
static int verdict(const struct mockshim_result *res, long error_exitcode)
{
	if (res->tampered)
		return EXIT_MOCKRUN;
	if (res->timed_out)
		return EXIT_TIMEOUT;
	if (res->signal)
		return 128 + res->signal;
	if (res->failures)
		return (int)error_exitcode;
	return res->exit_status;
}

/* Made in memory by fill (0 or -errno), then written to o; a lost file
 * is lost evidence: 125 wins over the verdict. */
static int write_output(struct ms_outfile *o, int (*fill)(void *, FILE *), void *arg, int rc)
{
	struct membuf mb;
	int w = membuf_open(&mb);

	if (w == 0) {
		w = fill(arg, mb.f);
		if (membuf_close(&mb) < 0 && w == 0)
			w = -ENOMEM;
	}
	if (w < 0)
		o->error = -w;
	else
		ms_out_write(o, mb.text, mb.len);
	free(mb.text);
	if (ms_out_close(o, 1) < 0) {
		out_error(o, o->error);
		return EXIT_MOCKRUN;
	}
	return rc;
}

struct report_arg {
	struct mockshim_session *s;
	int format;
};

static int fill_report(void *arg, FILE *f)
{
	const struct report_arg *a = arg;

	return mockshim_session_report(a->s, f, a->format) < 0 ? -ENOMEM : 0;
}

static int fill_record(void *arg, FILE *f)
{
	return mockshim_session_write_record(arg, f);
}

/* The trace is complete once every process exited: the timed lines
 * become Chrome's JSON. */
static int fill_chrome(void *arg, FILE *f)
{
	FILE *raw = fopen(arg, "re");
	int r = raw ? (mockshim_trace_chrome(raw, f) < 0 ? -ENOMEM : 0) : -errno;

	if (raw)
		fclose(raw);
	return r;
}

/* The report on stderr, which is unbuffered: made in memory and written
 * at once, not one write per line after the program's exit. */
static void report_to_stderr(struct mockshim_session *s, int format)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	int r;

	if (!m) {
		mockshim_session_report(s, stderr, format);
		return;
	}
	r = mockshim_session_report(s, m, format);
	if (fclose(m) == 0 && r == 0)
		fwrite(text, 1, len, stderr);
	else
		mockshim_session_report(s, stderr, format); /* no memory: line by line */
	free(text);
}

/* --trace-file lines the processes could not write (a full disk, a
 * file size limit): the trace is lost evidence, as a failed write of
 * mockrun's own; 125, and an earlier file stays as it was.  Lines lost
 * because the program closed the descriptor (EBADF: closefrom, a
 * daemon's close loop) are an honest program's doing: a warning. */
static int trace_incomplete(struct mockshim_session *s, struct outputs *o)
{
	int why, fd, unopened = ms_session_trace_open_errno(s);
	uint32_t lost = ms_session_trace_lost(s, &why), badf = ms_session_trace_badf(s, &fd);

	if (badf)
		fprintf(stderr,
			"mockrun: warning: %s %s: the program closed the trace's descriptor %d (%s): "
			"%u trace line%s lost\n",
			o->trace.opt, o->trace.path, fd, strerror(EBADF), badf, badf == 1 ? "" : "s");
	if (!lost)
		return 0;
	if (unopened) {
		/* counted once per process in lost: all of its lines */
		fprintf(stderr,
			"mockrun: %s %s: a process cannot open the trace file: %s: its trace lines lost\n",
			o->trace.opt, o->trace.path, strerror(unopened));
		if (why == unopened)
			goto out; /* no write failed before it */
	}
	fprintf(stderr, "mockrun: %s %s: %s: %u trace line%s lost\n", o->trace.opt, o->trace.path,
		why > 0 ? strerror(why)
			: why == MS_TRACE_SHORT ? "a line was written in part" : "not written",
		lost, lost == 1 ? "" : "s");
out:
	ms_out_close(&o->trace, 0);
	if (o->trace_raw)
		unlink(o->trace_raw);
	return 1;
}

struct sites_arg {
	struct mockshim_session *s;
	struct ms_sites *rows;
};

static int fill_sites(void *arg, FILE *f)
{
	return ms_sites_write_json(arg, f);
}

/* --sites: the run's sites table, under the program's basename as the
 * test's name; then --sites-baseline.  A tampered state writes none. */
static int write_sites(struct mockshim_session *s, const struct cli *c, struct outputs *o, int rc)
{
	struct ms_sites rows, base;
	const char *prog = c->program ? strrchr(c->program, '/') : NULL;
	char err[512];
	int r;

	ms_sites_init(&rows);
	prog = prog ? prog + 1 : c->program ? c->program : "program";
	if (!s->view.spec || !s->view.state || s->view.tampered) {
		ms_out_close(&o->sites, 0);
		return rc;
	}
	r = ms_sites_from_state(&rows, s->view.spec, s->view.state, prog);
	if (r < 0) {
		o->sites.error = -r;
		ms_out_close(&o->sites, 0);
		out_error(&o->sites, -r);
		ms_sites_free(&rows);
		return EXIT_MOCKRUN;
	}
	if (rows.lost)
		fprintf(stderr, "mockrun: warning: --sites %s: %llu calls not counted: the sites table "
			"(%u slots) was full, or a process ended in the middle of a count\n", c->sites,
			(unsigned long long)rows.lost, MS_SITES_CAP);
	rc = write_output(&o->sites, fill_sites, &rows, rc);
	if (c->sites_baseline && rc != EXIT_MOCKRUN) {
		ms_sites_init(&base);
		if (ms_sites_read_file(&base, c->sites_baseline, err, sizeof(err)) < 0) {
			fprintf(stderr, "mockrun: --sites-baseline %s\n", err);
			rc = EXIT_MOCKRUN;
		} else if (ms_sites_baseline(&base, &rows, c->sites_baseline, stderr) && rc == 0) {
			rc = (int)c->error_exitcode;
		}
		ms_sites_free(&base);
	}
	ms_sites_free(&rows);
	return rc;
}

/* After the run: the trace, the report, the record; the exit status. */
static int write_outputs(struct mockshim_session *s, const struct cli *c, struct outputs *o, int rc)
{
	struct report_arg ra = { s, c->format };
	int r;

	if (o->trace.fd >= 0 && trace_incomplete(s, o))
		rc = EXIT_MOCKRUN;
	else if (o->trace.fd >= 0 && !c->chrome && (o->trace.tmp || o->trace.unnamed) &&
		 (r = ms_symbols_rewrite_trace(o->trace.fd)) < 0) {
		/* each site symbolized, in the new file before it is renamed */
		out_error(&o->trace, -r);
		ms_out_close(&o->trace, 0);
		rc = EXIT_MOCKRUN;
	}
	else if (o->trace.fd >= 0 && c->chrome)
		rc = write_output(&o->trace, fill_chrome, o->trace_raw, rc);
	else if (o->trace.fd >= 0 && ms_out_close(&o->trace, 1) < 0) {
		out_error(&o->trace, o->trace.error);
		rc = EXIT_MOCKRUN;
	}
	if (ra.format == MOCKSHIM_REPORT_TAP && c->tap_version == 14)
		ra.format = MOCKSHIM_REPORT_TAP14;
	if (o->out.fd >= 0)
		rc = write_output(&o->out, fill_report, &ra, rc);
	else
		report_to_stderr(s, ra.format);
	if (o->record.fd >= 0)
		rc = write_output(&o->record, fill_record, s, rc);
	if (o->sites.fd >= 0)
		rc = write_sites(s, c, o, rc);
	drop_raw(o);
	return rc;
}

/* ms_check_program()'s warnings, once the program has started */
struct warn_at {
	struct mockshim_session *s;
	const char *program;
};

static void warn_program(void *arg)
{
	const struct warn_at *w = arg;
	char warn[2048];

	if (ms_check_program(w->program, NULL, ms_session_check_flags(w->s), warn, sizeof(warn)) <= 0)
		return;
	/* -q: the warnings only (a note says the SYS_ statements reach it) */
	for (char *line = warn, *nl; *line; line = nl) {
		nl = strchr(line, '\n');
		nl = nl ? nl + 1 : line + strlen(line);
		if (w->s->verbosity >= MOCKSHIM_NORMAL || strncmp(line, "note:", 5) != 0)
			fprintf(stderr, "mockrun: %.*s", (int)(nl - line), line);
	}
}

/* PROGRAM ARGS...: run it, report; the exit status. */
static int run_program(struct mockshim_session *s, struct cli *c, int argc, char **argv)
{
	struct outputs o = { { .fd = -1 }, { .fd = -1 }, { .fd = -1 }, { .fd = -1 }, NULL, -1, 0 };
	struct mockshim_result res;
	struct warn_at warn_at;
	int r;

	if (optind >= argc) {
		fprintf(stderr, "mockrun: no program given (see mockrun --help)\n");
		return EXIT_MOCKRUN;
	}
	c->program = argv[optind];
	if ((c->control && mockshim_session_set_control(s, 1, c->control_at) < 0) ||
	    check_program_options(c) != GO_ON)
		return EXIT_MOCKRUN;
	mockshim_session_set_verbosity(s, c->verbosity);
	/* the objects its sites can name */
	ms_symbols_program(argv[optind]);
	if (open_outputs(s, c, &o) != GO_ON) {
		drop_outputs(&o);
		return EXIT_MOCKRUN;
	}
	if (c->check) {
		/* what the program can see, then the run */
		mockshim_session_check(s, argv[optind], NULL, stderr);
	} else {
		/* what the loader will not let the shim reach, said while the
		 * program loads (a static one is running by then) */
		warn_at.s = s;
		warn_at.program = argv[optind];
		ms_session_on_started(s, warn_program, &warn_at);
	}
	/* one run: the session may drop the parser's arrays once the
	 * channel is made */
	ms_session_set_once(s);
	/* mockrun's handlers are signalfd reads and SIG_IGN (run.c) */
	ms_session_set_no_handlers(s);
	r = mockshim_session_run(s, argv + optind, NULL, &res);
	ms_symbols_relay_stop();
	if (r < 0) {
		fprintf(stderr, "mockrun: %s%s", mockshim_session_error(s)[0] ? "" : strerror(-r),
			mockshim_session_error(s)[0] ? mockshim_session_error(s) : "\n");
		drop_outputs(&o);
		return EXIT_MOCKRUN;
	}
	if (res.exec_errno) {
		fprintf(stderr, "mockrun: %s: %s\n", argv[optind], strerror(res.exec_errno));
		drop_outputs(&o);
		return res.exec_errno == ENOENT || res.exec_errno == ENOTDIR ? EXIT_NOT_FOUND
									  : EXIT_CANNOT_RUN;
	}
	return write_outputs(s, c, &o, verdict(&res, c->error_exitcode));
}

/*
 * mockrun explore ...: the mockrun-explore program (explore/, a client of
 * mockrun), found beside this mockrun: the build tree's explore/, the
 * installed libexecdir/mockshim (where mockrun was installed, or the
 * prefix's), or $MOCKSHIM_EXPLORE.  It gets this mockrun's path in
 * $MOCKSHIM_MOCKRUN, for its runs.
 */
static int run_explore(char **argv)
{
	char self[PATH_MAX], path[PATH_MAX + 64];
	const char *env = getenv("MOCKSHIM_EXPLORE");
	const char *rel[] = { "/../explore/", "/../" MS_LIBEXECDIR_REL "/mockshim/", NULL };
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (n <= 0) {
		fprintf(stderr, "mockrun: /proc/self/exe: %s\n", strerror(errno));
		return EXIT_MOCKRUN;
	}
	self[n] = '\0';
	setenv("MOCKSHIM_MOCKRUN", self, 1);
	if (env && *env) {
		execv(env, argv);
		fprintf(stderr, "mockrun: MOCKSHIM_EXPLORE=%s: %s\n", env, strerror(errno));
		return EXIT_MOCKRUN;
	}
	slash = strrchr(self, '/');
	*slash = '\0';
	for (int i = 0; rel[i]; i++) {
		snprintf(path, sizeof(path), "%s%smockrun-explore", self, rel[i]);
		if (access(path, X_OK) == 0)
			execv(path, argv);
	}
	snprintf(path, sizeof(path), "%s/mockshim/mockrun-explore", MS_LIBEXECDIR);
	execv(path, argv);
	fprintf(stderr, "mockrun: explore: cannot run %s: %s (set MOCKSHIM_EXPLORE)\n", path, strerror(errno));
	return EXIT_MOCKRUN;
}

/* program mode's session, not freed before the exit (volatile: a store
 * never read back is not optimized away) */
static struct mockshim_session *volatile left_to_exit;

int main(int argc, char **argv)
{
	struct mockshim_session *s;
	struct cli c = { .format = MOCKSHIM_REPORT_TEXT, .verbosity = MOCKSHIM_NORMAL,
			 .error_exitcode = 123, .tap_version = 13 };
	int rc;

	/* mockrun ctl ...; a program named ctl runs as mockrun -- ctl */
	if (argc >= 2 && strcmp(argv[1], "ctl") == 0)
		return ms_ctl_main(argc - 2, argv + 2);
	if (argc >= 2 && strcmp(argv[1], "sites") == 0)
		return ms_sites_main(argc - 1, argv + 1);
	/* mockrun explore ...; a program named explore runs as mockrun -- explore */
	if (argc >= 2 && strcmp(argv[1], "explore") == 0)
		return run_explore(argv + 1);
	/* mockrun minimize ...: in mockrun-explore too (explore/minimize.c) */
	if (argc >= 2 && strcmp(argv[1], "minimize") == 0)
		return run_explore(argv + 1);
	/* a fixed threshold, set before the first malloc: large blocks (a
	 * spec's arrays, the channel's copy, the state's) stay mmap'd zero
	 * pages after a free, instead of coming back from the heap memset by
	 * calloc.  Above the parser's statement (300 kB, one per parse) and
	 * the top of the heap kept after it is freed: a short spec's run
	 * maps and unmaps nothing for it. */
#ifdef M_MMAP_THRESHOLD
	mallopt(M_MMAP_THRESHOLD, 512 << 10);
	mallopt(M_TRIM_THRESHOLD, 1 << 20);
#endif
	s = mockshim_session_create();
	if (!s) {
		fprintf(stderr, "mockrun: out of memory\n");
		return EXIT_MOCKRUN;
	}
	switch (read_command_line(s, &c, argc, argv)) {
	case DONE:
		rc = 0;
		break;
	case FAILED:
		rc = EXIT_MOCKRUN;
		break;
	default:
		if (c.testing) {
			/* the test files make sessions of their own */
			mockshim_session_destroy(s);
			s = NULL;
			rc = run_test_files(&c, argc, argv);
		} else {
			rc = run_program(s, &c, argc, argv);
			/* its memory goes with the exit, as the state's mapping
			 * does (run.c, end_run()): freeing the report's copy of
			 * the state (2 MiB, its own mapping) would flush another
			 * CPU's TLB; reachable from here for leak checkers */
			left_to_exit = s;
			s = NULL;
		}
	}
	mockshim_session_destroy(s);
	free(c.tests);
	free(c.srcs);
	free(c.mods);
	return rc;
}
