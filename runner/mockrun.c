/* SPDX-License-Identifier: MIT */
/* mockrun: run a program with mocked functions (DESIGN.md section 4). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
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
#include "testfile.h"

#define EXIT_MOCKRUN 125
#define EXIT_CANNOT_RUN 126
#define EXIT_NOT_FOUND 127
#define EXIT_TIMEOUT 124

static void usage(FILE *out)
{
	fputs("usage: mockrun [OPTIONS] [--] PROGRAM [ARGS...]\n"
	      "       mockrun -t FILE.mock... [OPTIONS]\n"
	      "       mockrun ctl SOCKET ACTION...   (mockrun ctl --help)\n"
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
	      "      --seed N              the draws of probability= (default: random, printed)\n"
	      "      --on-fail MODE        continue (default): the call goes on and the run\n"
	      "                            fails at the end; abort: SIGABRT in the program at\n"
	      "                            the first failed check (for a core dump or debugger)\n"
	      "      --trace[=FN,...]      a line per call of FN (default: the catalog but\n"
	      "                            the allocator, and declared functions), with\n"
	      "                            arguments and result\n"
	      "      --trace-file FILE     write the trace there instead of stderr (a new\n"
	      "                            file each run)\n"
	      "      --trace-format FMT    text (default) | chrome: Trace Event Format JSON\n"
	      "                            in --trace-file (Perfetto, chrome://tracing)\n"
	      "      --record FILE         write a spec that replays the real calls of the\n"
	      "                            --record-fns FN,... (values, errno, outputs)\n"
	      "      --record-fns FN,...   the catalog functions to record\n"
	      "      --check               say, before the run, whether PROGRAM (static?\n"
	      "                            setuid?) and its libraries import what is mocked\n"
	      "      --control [SOCKET]    serve mockrun ctl on a unix socket (0600, removed\n"
	      "                            at the end; no SOCKET, or an option next: one in\n"
	      "                            a private directory); the program gets\n"
	      "                            $MOCKSHIM_CONTROL\n"
	      "      --list [FN]           the catalog, or one function's details\n"
	      "  -q, --quiet               report failures only\n"
	      "  -v, --verbose             report every consumed value\n"
	      "  -h, --help                this text\n"
	      "      --version             the version\n"
	      "\n"
	      "Exit status: the program's own when every check passed; 123 (or N) when a\n"
	      "check failed; 124 on timeout; 125 for mockrun's own errors; 126 when the\n"
	      "program cannot be run, 127 when it is not found; 128+N when it was killed\n"
	      "by signal N.  With -t: 0 all passed, 1 a test failed, 125 an error.  A\n"
	      "report or file that cannot be written is 125, whatever the verdict.\n"
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

/* -t (or --list-tests) anywhere before "--": test-file mode, in which
 * options and files may be interleaved.  A first pass that only looks. */
static int test_mode(int argc, char **argv, const char *optstring, const struct option *opts)
{
	int c, found = 0, saved = opterr;

	opterr = 0;
	while ((c = getopt_long(argc, argv, optstring, opts, NULL)) != -1)
		found |= c == 't' || c == OPT_LIST_TESTS;
	opterr = saved;
	optind = 0; /* glibc: start again, from scratch */
	return found;
}

int main(int argc, char **argv)
{
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
		{ NULL, 0, NULL, 0 },
	};
	/* program mode: the first word that is not an option is the program
	 * ("+", as env and timeout); -t mode: every non-option word is a test
	 * file ("-" returns them in order, as operands) */
	static const char program_opts[] = "+e:f:o:qvhm:t::j:", test_opts[] = "-e:f:o:qvhm:t::j:";
	struct mockshim_session *s = mockshim_session_create();
	struct mockshim_result res;
	const char *output = NULL, *report_name = NULL;
	int format = MOCKSHIM_REPORT_TEXT, verbosity = MOCKSHIM_NORMAL, neval = 0, c, r, rc;
	long error_exitcode = 123, tap_version = 13;
	char **tests = NULL;
	int ntests = 0, report_given = 0, testing;
	double timeout = 0;
	struct testfile_opts topts = { .jobs = 0 };
	struct {
		int eval;
		const char *arg;
	} *srcs = NULL;
	int nsrcs = 0, nmods = 0, trace = 0, check = 0, chrome = 0, control = 0;
	const char *control_at = NULL;
	char *trace_raw = NULL;	/* --trace-format chrome: the shims' timed lines */
	const char *trace_fns = NULL, *trace_file = NULL, *record = NULL, *record_fns = NULL;
	struct ms_outfile out_o = { .fd = -1 }, record_o = { .fd = -1 }, trace_o = { .fd = -1 };
	struct membuf mb = { NULL, 0, NULL };
	char **mods = NULL;

	if (!s) {
		fprintf(stderr, "mockrun: out of memory\n");
		return EXIT_MOCKRUN;
	}
	/* mockrun ctl ...; a program named ctl runs as mockrun -- ctl */
	if (argc >= 2 && strcmp(argv[1], "ctl") == 0) {
		mockshim_session_destroy(s);
		return ms_ctl_main(argc - 2, argv + 2);
	}
	testing = test_mode(argc, argv, program_opts, opts);
	while ((c = getopt_long(argc, argv, testing ? test_opts : program_opts, opts, NULL)) != -1) {
		long v;

		switch (c) {
		case 1: /* a test file, in -t mode */
			tests = realloc(tests, (size_t)(ntests + 1) * sizeof(*tests));
			if (!tests)
				goto fail;
			tests[ntests++] = optarg;
			break;
		case 'e':
		case 'f':
			/* parsed after every -m is loaded: statements may name
			 * the functions of any module */
			srcs = realloc(srcs, (size_t)(nsrcs + 1) * sizeof(*srcs));
			if (!srcs)
				goto fail;
			srcs[nsrcs].eval = c == 'e';
			srcs[nsrcs++].arg = optarg;
			neval += c == 'e';
			break;
		case 'm':
			if (mockshim_session_add_module(s, optarg) < 0) {
				fprintf(stderr, "mockrun: -m %s", mockshim_session_error(s));
				goto fail;
			}
			mods = realloc(mods, (size_t)(nmods + 1) * sizeof(*mods));
			if (!mods)
				goto fail;
			mods[nmods++] = optarg;
			break;
		case OPT_REPORT:
			report_given = 1;
			report_name = optarg;
			if (strcmp(optarg, "text") == 0) {
				format = MOCKSHIM_REPORT_TEXT;
			} else if (strcmp(optarg, "tap") == 0) {
				format = MOCKSHIM_REPORT_TAP;
			} else if (strcmp(optarg, "json") == 0) {
				format = MOCKSHIM_REPORT_JSON;
			} else if (strcmp(optarg, "junit") == 0) {
				format = MOCKSHIM_REPORT_JUNIT;
			} else if (strcmp(optarg, "html") == 0) {
				format = MOCKSHIM_REPORT_HTML;
			} else {
				fprintf(stderr,
					"mockrun: --report: unknown format '%s' (text, tap, junit, json, html)\n",
					optarg);
				goto fail;
			}
			break;
		case OPT_TAP_VERSION:
			if (parse_int(optarg, 13, 14, &tap_version) < 0) {
				fprintf(stderr, "mockrun: --tap-version: '%s' is not 13 or 14\n", optarg);
				goto fail;
			}
			break;
		case 'o':
			output = optarg;
			break;
		case OPT_TIMEOUT: {
			char *end;
			double t;

			errno = 0;
			t = strtod(optarg, &end);
			timeout = t;
			if (errno || end == optarg || *end || mockshim_session_set_timeout(s, t) < 0 || t <= 0) {
				fprintf(stderr, "mockrun: --timeout: '%s' is not a positive number of seconds\n",
					optarg);
				goto fail;
			}
			break;
		}
		case OPT_SEED: {
			char *end;
			unsigned long long seed;

			errno = 0;
			seed = strtoull(optarg, &end, 0);
			if (errno || end == optarg || *end || optarg[0] == '-') {
				fprintf(stderr, "mockrun: --seed: '%s' is not a number in 0..2^64-1\n",
					optarg);
				goto fail;
			}
			mockshim_session_set_seed(s, (uint64_t)seed);
			break;
		}
		case OPT_ERROR_EXITCODE:
			if (parse_int(optarg, 0, 255, &v) < 0) {
				fprintf(stderr, "mockrun: --error-exitcode: '%s' is not in 0..255\n", optarg);
				goto fail;
			}
			error_exitcode = v;
			break;
		case OPT_LIST: {
			const char *fn = optind < argc && argv[optind][0] != '-' ? argv[optind++] : NULL;

			if (mockshim_catalog_list(stdout, fn) < 0) {
				fprintf(stderr, "mockrun: --list: '%s' is not in the catalog\n", fn);
				goto fail;
			}
			mockshim_session_destroy(s);
			return 0;
		}
		case OPT_ON_FAIL:
			if (strcmp(optarg, "continue") == 0) {
				mockshim_session_set_abort_on_fail(s, 0);
			} else if (strcmp(optarg, "abort") == 0) {
				mockshim_session_set_abort_on_fail(s, 1);
			} else {
				fprintf(stderr, "mockrun: --on-fail: '%s' is not continue or abort\n", optarg);
				goto fail;
			}
			break;
		case 'q':
			verbosity = MOCKSHIM_QUIET;
			break;
		case 'v':
			verbosity = MOCKSHIM_VERBOSE;
			break;
		case 'h':
			usage(stdout);
			mockshim_session_destroy(s);
			return 0;
		case OPT_VERSION:
			printf("mockrun (mockshim) %s\n", MS_VERSION);
			mockshim_session_destroy(s);
			return 0;
		case 't':
			/* a mode switch; -tFILE and --test=FILE name a file too */
			if (optarg) {
				tests = realloc(tests, (size_t)(ntests + 1) * sizeof(*tests));
				if (!tests)
					goto fail;
				tests[ntests++] = optarg;
			}
			break;
		case 'j':
			if (parse_int(optarg, 1, 1024, &v) < 0) {
				fprintf(stderr, "mockrun: -j: '%s' is not in 1..1024\n", optarg);
				goto fail;
			}
			topts.jobs = (int)v;
			break;
		case OPT_FILTER:
			topts.filter = optarg;
			break;
		case OPT_TRACE:
			trace = 1;
			trace_fns = optarg;
			break;
		case OPT_TRACE_FILE:
			trace_file = optarg;
			break;
		case OPT_TRACE_FORMAT:
			if (strcmp(optarg, "chrome") == 0) {
				chrome = 1;
			} else if (strcmp(optarg, "text") == 0) {
				chrome = 0;
			} else {
				fprintf(stderr, "mockrun: --trace-format: '%s' is not text or chrome\n", optarg);
				goto fail;
			}
			break;
		case OPT_CHECK:
			check = 1;
			break;
		case OPT_CONTROL:
			/* --control=SOCKET, --control SOCKET, or none when an
			 * option (or --) comes next */
			control = 1;
			control_at = optarg ? optarg
				     : optind < argc && argv[optind][0] != '-' ? argv[optind++] : NULL;
			if (control_at && !*control_at) {
				fprintf(stderr, "mockrun: --control: an empty path\n");
				goto fail;
			}
			break;
		case OPT_LIST_TESTS:
			topts.list = 1;
			break;
		case OPT_RECORD:
			record = optarg;
			break;
		case OPT_RECORD_FNS:
			record_fns = optarg;
			break;
		case OPT_SHARD: {
			int k, n, used = 0;

			if (sscanf(optarg, "%d/%d%n", &k, &n, &used) != 2 || optarg[used] || n < 1 ||
			    n > 100000 || k < 1 || k > n) {
				fprintf(stderr, "mockrun: --shard: '%s' is not K/N with 1 <= K <= N\n", optarg);
				goto fail;
			}
			topts.shard_k = k;
			topts.shard_n = n;
			break;
		}
		default:
			/* getopt said which option; the whole help would bury it */
			fprintf(stderr, "mockrun: see mockrun --help\n");
			goto fail;
		}
	}
	if (record_fns && !record) {
		fprintf(stderr, "mockrun: --record-fns goes with --record FILE\n");
		goto fail;
	}
	if (record && mockshim_session_set_record(s, record_fns) < 0) {
		fprintf(stderr, "mockrun: %s", mockshim_session_error(s));
		goto fail;
	}
	if (chrome && (!trace_file || ntests || topts.list)) {
		fprintf(stderr, "mockrun: --trace-format chrome needs --trace-file FILE and one program\n");
		goto fail;
	}
	for (int i = 0, e = 0; i < nsrcs; i++) {
		char name[32];

		if (srcs[i].eval) {
			snprintf(name, sizeof(name), "-e#%d", ++e);
			if (mockshim_session_add(s, name, srcs[i].arg, (size_t)-1) < 0)
				goto spec_error;
		} else if (mockshim_session_add_file(s, srcs[i].arg) < 0) {
			goto spec_error;
		}
	}
	/* the functions are checked now (declared ones are known once the
	 * statements are in), the file is opened below */
	if ((trace || trace_file) && mockshim_session_set_trace(s, trace_fns, NULL) < 0) {
		fputs("mockrun: ", stderr);
		fputs(mockshim_session_error(s), stderr);
		goto fail;
	}
	if (testing) {
		/* -t FILE...: whatever came after "--" are files too */
		for (int i = optind; i < argc; i++) {
			tests = realloc(tests, (size_t)(ntests + 1) * sizeof(*tests));
			if (!tests)
				goto fail;
			tests[ntests++] = argv[i];
		}
		if (!ntests) {
			fprintf(stderr, "mockrun: %s needs test files (-t FILE...)\n",
				topts.list ? "--list-tests" : "-t");
			goto fail;
		}
		if (neval) {
			fprintf(stderr, "mockrun: -e goes in the test files with -t\n");
			goto fail;
		}
		if (record) {
			fprintf(stderr, "mockrun: --record runs one program, not test files (-t)\n");
			goto fail;
		}
		if (trace || trace_file) {
			fprintf(stderr, "mockrun: --trace runs one program, not test files (-t)\n");
			goto fail;
		}
		if (control) {
			fprintf(stderr, "mockrun: --control runs one program, not test files (-t)\n");
			goto fail;
		}
		if (format == MOCKSHIM_REPORT_HTML) {
			fprintf(stderr, "mockrun: --report html reports one program, not test files (-t)\n");
			goto fail;
		}
		topts.format = format == MOCKSHIM_REPORT_JUNIT ? TESTFILE_JUNIT
			       : format == MOCKSHIM_REPORT_JSON ? TESTFILE_JSON
			       : format == MOCKSHIM_REPORT_TEXT && report_given ? TESTFILE_TEXT
										: TESTFILE_TAP;
		topts.tap_version = (int)tap_version;
		topts.color = topts.format == TESTFILE_TEXT && (!output || strcmp(output, "-") == 0) &&
			      isatty(STDOUT_FILENO) && !getenv("NO_COLOR");
		if (output && !topts.list && (r = ms_out_open(&out_o, "-o", output)) < 0) {
			out_error(&out_o, -r);
			goto fail;
		}
		topts.output = out_o.fd >= 0 ? &out_o : NULL;
		topts.timeout = timeout;
		if (!topts.jobs)
			topts.jobs = ms_default_jobs();
		topts.modules = mods;
		topts.nmodules = nmods;
		mockshim_session_destroy(s);
		rc = ms_run_test_files(tests, ntests, &topts);
		if (topts.output && ms_out_close(&out_o, rc != 125) < 0 && rc != 125) {
			out_error(&out_o, out_o.error);
			rc = EXIT_MOCKRUN;
		}
		free(tests);
		free(srcs);
		free(mods);
		return rc;
	}
	if (optind >= argc) {
		fprintf(stderr, "mockrun: no program given (see mockrun --help)\n");
		goto fail;
	}
	if (control && mockshim_session_set_control(s, 1, control_at) < 0)
		goto fail;
	if (format != MOCKSHIM_REPORT_TEXT && !output) {
		/* a machine reads it: the program's own stdout must not mix in */
		fprintf(stderr,
			"mockrun: --report %s needs -o FILE (or -o - for stdout): the program's "
			"output would mix with it\n",
			report_name);
		goto fail;
	}
	if (record && ((output && ms_out_same(record, output)) ||
		       (trace_file && ms_out_same(record, trace_file)))) {
		fprintf(stderr, "mockrun: --record %s: the same file as %s\n", record,
			output && ms_out_same(record, output) ? "-o" : "--trace-file");
		goto fail;
	}
	if (output && trace_file && ms_out_same(output, trace_file)) {
		fprintf(stderr, "mockrun: -o %s: the same file as --trace-file\n", output);
		goto fail;
	}
	mockshim_session_set_verbosity(s, verbosity);
	/* every file is opened before the run: a path that cannot be written
	 * fails now, with nothing run */
	if (output && (r = ms_out_open(&out_o, "-o", output)) < 0) {
		out_error(&out_o, -r);
		goto fail;
	}
	if (record && (r = ms_out_open(&record_o, "--record", record)) < 0) {
		out_error(&record_o, -r);
		goto fail;
	}
	if (trace_file) {
		if ((r = ms_out_open(&trace_o, "--trace-file", trace_file)) < 0) {
			out_error(&trace_o, -r);
			goto fail;
		}
		if (chrome) {
			/* the shims append timed lines to a file beside FILE,
			 * which becomes FILE's JSON after the run */
			int fd;

			if (asprintf(&trace_raw, "%s.raw.XXXXXX", trace_file) < 0 ||
			    (fd = mkostemp(trace_raw, O_CLOEXEC)) < 0) {
				fprintf(stderr, "mockrun: --trace-file %s: %s\n", trace_file,
					strerror(errno));
				free(trace_raw);
				trace_raw = NULL;
				goto fail;
			}
			close(fd);
			mockshim_session_set_trace_timed(s, 1);
		}
		/* the processes of the tree append to it (the new file when
		 * there is one, renamed into place after the run) */
		if (mockshim_session_set_trace(s, trace_fns,
					       chrome ? trace_raw : ms_out_target(&trace_o)) < 0) {
			fprintf(stderr, "mockrun: --trace-file %s: %s\n", trace_file, strerror(ENOMEM));
			goto fail;
		}
	}
	if (check) {
		/* what the program can see, then the run */
		mockshim_session_check(s, argv[optind], NULL, stderr);
	} else {
		char warn[2048];

		if (ms_check_program(argv[optind], NULL, ms_session_has_syscalls(s), warn,
				     sizeof(warn)) > 0)
			fprintf(stderr, "mockrun: %s", warn);
	}
	r = mockshim_session_run(s, argv + optind, NULL, &res);
	if (r < 0) {
		fprintf(stderr, "mockrun: %s%s", mockshim_session_error(s)[0] ? "" : strerror(-r),
			mockshim_session_error(s)[0] ? mockshim_session_error(s) : "\n");
		goto fail;
	}
	if (res.exec_errno) {
		fprintf(stderr, "mockrun: %s: %s\n", argv[optind], strerror(res.exec_errno));
		ms_out_close(&out_o, 0);
		ms_out_close(&record_o, 0);
		ms_out_close(&trace_o, 0);
		mockshim_session_destroy(s);
		return res.exec_errno == ENOENT || res.exec_errno == ENOTDIR ? EXIT_NOT_FOUND
									  : EXIT_CANNOT_RUN;
	}
	/* A tampered state gives no verdict: 125, whatever the program did.
	 * After a signal mockrun forwarded, the status is still the
	 * program's own (128+N only if the signal killed it), as timeout(1). */
	if (res.tampered)
		rc = EXIT_MOCKRUN;
	else if (res.timed_out)
		rc = EXIT_TIMEOUT;
	else if (res.signal)
		rc = 128 + res.signal;
	else if (res.failures)
		rc = (int)error_exitcode;
	else
		rc = res.exit_status;

	/* The trace is complete once every process exited. */
	if (trace_o.fd >= 0 && chrome) {
		FILE *raw = fopen(trace_raw, "re");

		if (!raw || membuf_open(&mb) < 0 || mockshim_trace_chrome(raw, mb.f) < 0 ||
		    membuf_close(&mb) < 0)
			trace_o.error = raw ? ENOMEM : errno;
		else
			ms_out_write(&trace_o, mb.text, mb.len);
		if (raw)
			fclose(raw);
		free(mb.text);
		mb.text = NULL;
		unlink(trace_raw);
	}
	if (trace_o.fd >= 0 && ms_out_close(&trace_o, 1) < 0) {
		out_error(&trace_o, trace_o.error);
		rc = EXIT_MOCKRUN;
	}
	if (out_o.fd >= 0) {
		if (format == MOCKSHIM_REPORT_TAP && tap_version == 14)
			format = MOCKSHIM_REPORT_TAP14;
		if (membuf_open(&mb) < 0 || mockshim_session_report(s, mb.f, format) < 0 ||
		    membuf_close(&mb) < 0)
			out_o.error = ENOMEM;
		else
			ms_out_write(&out_o, mb.text, mb.len);
		free(mb.text);
		mb.text = NULL;
		/* a lost report is lost evidence: 125 wins over the verdict */
		if (ms_out_close(&out_o, 1) < 0) {
			out_error(&out_o, out_o.error);
			rc = EXIT_MOCKRUN;
		}
	} else {
		mockshim_session_report(s, stderr, format);
	}
	if (record_o.fd >= 0) {
		int w;

		if (membuf_open(&mb) < 0) {
			record_o.error = ENOMEM;
		} else {
			w = mockshim_session_write_record(s, mb.f);
			if (membuf_close(&mb) < 0 && w == 0)
				w = -ENOMEM;
			if (w < 0)
				record_o.error = -w;
			else
				ms_out_write(&record_o, mb.text, mb.len);
		}
		free(mb.text);
		mb.text = NULL;
		if (ms_out_close(&record_o, 1) < 0) {
			out_error(&record_o, record_o.error);
			rc = EXIT_MOCKRUN;
		}
	}
	mockshim_session_destroy(s);
	free(srcs);
	free(mods);
	free(trace_raw);
	return rc;

spec_error:
	fputs(mockshim_session_error(s), stderr);
fail:
	/* nothing written: no half-written file, each FILE as it was */
	ms_out_close(&out_o, 0);
	ms_out_close(&record_o, 0);
	ms_out_close(&trace_o, 0);
	if (trace_raw)
		unlink(trace_raw);
	free(trace_raw);
	mockshim_session_destroy(s);
	free(tests);
	free(srcs);
	free(mods);
	return EXIT_MOCKRUN;
}
