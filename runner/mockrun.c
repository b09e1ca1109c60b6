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

#include "mockshim/driver.h"
#include "jobs.h"
#include "testfile.h"

#define EXIT_MOCKRUN 125
#define EXIT_CANNOT_RUN 126
#define EXIT_NOT_FOUND 127
#define EXIT_TIMEOUT 124

static void usage(FILE *out)
{
	fputs("usage: mockrun [OPTIONS] [--] PROGRAM [ARGS...]\n"
	      "       mockrun [OPTIONS] -t FILE.mock...\n"
	      "Runs PROGRAM with libmockshim.so preloaded and the given statements armed,\n"
	      "waits for it and every process it starts, and reports.\n"
	      "\n"
	      "  -e, --eval STMTS          statements (repeatable; named -e#1, -e#2, ...)\n"
	      "  -f, --file SPEC           statements from a file (repeatable; - for stdin)\n"
	      "  -m, --module SO           load a handler module (repeatable)\n"
	      "      --report FMT          text (default, on stderr) | tap | json | junit | html\n"
	      "                            (on stdout; html: one self-contained page)\n"
	      "  -o, --output FILE         write the report there\n"
	      "  -t, --test FILE...        run test files (*.mock) instead of a program:\n"
	      "                            TAP on stdout, or --report junit|json|text\n"
	      "  -j, --jobs N              tests at once (default: the CPUs; 1 under meson\n"
	      "                            test or ctest, make's tokens under its jobserver)\n"
	      "      --shard K/N           the K-th of N disjoint shards of the tests\n"
	      "      --filter GLOB         only the tests whose name matches\n"
	      "      --list-tests          list the tests, run nothing\n"
	      "      --timeout SECS        kill the process tree after SECS (exit 124)\n"
	      "      --error-exitcode N    exit status when a check fails (default 123)\n"
	      "      --on-fail MODE        continue (default): the call goes on and the run\n"
	      "                            fails at the end; abort: SIGABRT in the program at\n"
	      "                            the first failed check (for a core dump or debugger)\n"
	      "      --trace[=FN,...]      a line per call of FN (default: the catalog but\n"
	      "                            the allocator), with arguments and result\n"
	      "      --trace-file FILE     write the trace there instead of stderr\n"
	      "      --trace-format FMT    text (default) | chrome: Trace Event Format JSON\n"
	      "                            in --trace-file (Perfetto, chrome://tracing)\n"
	      "      --record FILE         write a spec that replays the real calls of the\n"
	      "                            --record-fns FN,... (values, errno, outputs)\n"
	      "      --record-fns FN,...   the catalog functions to record\n"
	      "      --check               say, before the run, whether PROGRAM (static?\n"
	      "                            setuid?) and its libraries import what is mocked\n"
	      "      --list [FN]           the catalog, or one function's details\n"
	      "  -q, --quiet               report failures only\n"
	      "  -v, --verbose             report every consumed value\n"
	      "  -h, --help                this text\n"
	      "      --version             the version\n"
	      "\n"
	      "Exit status: the program's own when every check passed; 123 (or N) when a\n"
	      "check failed; 124 on timeout; 125 for mockrun's own errors; 126 when the\n"
	      "program cannot be run, 127 when it is not found; 128+N when it was killed\n"
	      "by signal N.\n"
	      "Example: mockrun -e 'will_fail(read, EIO)' cat /etc/hostname\n",
	      out);
}

enum {
	OPT_REPORT = 256,
	OPT_TIMEOUT,
	OPT_ERROR_EXITCODE,
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
	OPT_SHARD,
	OPT_TRACE_FORMAT,
};

/*
 * --record FILE: the spec is written to a new file beside FILE and
 * renamed over it once complete, so that a run that fails leaves FILE as
 * it was (or absent) and never half-written; FILE itself when it is not
 * a regular file (/dev/stdout, a pipe).  Opened before the run: a path
 * that cannot be written fails before anything runs.
 */
struct record_out {
	FILE *f;
	char *tmp;		/* the new file, NULL when writing FILE itself */
};

static int record_open(struct record_out *r, const char *path)
{
	struct stat st;
	const char *slash = strrchr(path, '/');
	int fd;

	r->tmp = NULL;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		r->f = fopen(path, "we");
		return r->f ? 0 : -errno;
	}
	if (asprintf(&r->tmp, "%.*s.%s.XXXXXX", slash ? (int)(slash - path + 1) : 0, path,
		     slash ? slash + 1 : path) < 0) {
		r->tmp = NULL;
		return -ENOMEM;
	}
	fd = mkostemp(r->tmp, O_CLOEXEC);
	if (fd < 0 || !(r->f = fdopen(fd, "w"))) {
		int e = errno;

		if (fd >= 0) {
			close(fd);
			unlink(r->tmp);
		}
		free(r->tmp);
		r->tmp = NULL;
		return -e;
	}
	{
		/* mkostemp made it 0600: the mode fopen would give it */
		mode_t um = umask(0);

		umask(um);
		fchmod(fd, 0666 & ~um);
	}
	return 0;
}

/* Done: 0 or -errno; the new file becomes FILE, or is removed (ok 0). */
static int record_close(struct record_out *r, const char *path, int ok)
{
	int e = 0;

	if (!r->f)
		return 0;
	if (fclose(r->f) != 0)
		e = -errno;
	r->f = NULL;
	if (r->tmp) {
		if (ok && !e && rename(r->tmp, path) != 0)
			e = -errno;
		if (!ok || e)
			unlink(r->tmp);
		free(r->tmp);
		r->tmp = NULL;
	}
	return e;
}

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

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "eval", required_argument, NULL, 'e' },
		{ "file", required_argument, NULL, 'f' },
		{ "report", required_argument, NULL, OPT_REPORT },
		{ "output", required_argument, NULL, 'o' },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "error-exitcode", required_argument, NULL, OPT_ERROR_EXITCODE },
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
		{ "test", required_argument, NULL, 't' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "filter", required_argument, NULL, OPT_FILTER },
		{ "list-tests", no_argument, NULL, OPT_LIST_TESTS },
		{ "shard", required_argument, NULL, OPT_SHARD },
		{ "trace-format", required_argument, NULL, OPT_TRACE_FORMAT },
		{ NULL, 0, NULL, 0 },
	};
	struct mockshim_session *s = mockshim_session_create();
	struct mockshim_result res;
	const char *output = NULL;
	int format = MOCKSHIM_REPORT_TEXT, verbosity = MOCKSHIM_NORMAL, neval = 0, c, r, rc;
	long error_exitcode = 123;
	FILE *out;
	char **tests = NULL;
	int ntests = 0, report_given = 0;
	double timeout = 0;
	struct testfile_opts topts = { .jobs = 0 };
	struct {
		int eval;
		const char *arg;
	} *srcs = NULL;
	int nsrcs = 0, nmods = 0, trace = 0, check = 0, chrome = 0;
	char *trace_raw = NULL;	/* --trace-format chrome: the shims' timed lines */
	struct record_out trace_out = { NULL, NULL };
	const char *trace_fns = NULL, *trace_file = NULL, *record = NULL, *record_fns = NULL;
	struct record_out record_out = { NULL, NULL };
	char **mods = NULL;

	if (!s) {
		fprintf(stderr, "mockrun: out of memory\n");
		return EXIT_MOCKRUN;
	}
	while ((c = getopt_long(argc, argv, "+e:f:o:qvhm:t:j:", opts, NULL)) != -1) {
		long v;

		switch (c) {
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
				fprintf(stderr, "mockrun: --report: unknown format '%s' (text, tap, json, junit, html)\n",
					optarg);
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
			tests = realloc(tests, (size_t)(ntests + 1) * sizeof(*tests));
			if (!tests)
				goto fail;
			tests[ntests++] = optarg;
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
			usage(stderr);
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
	if (chrome) {
		/* the shims append timed lines to a file beside FILE; it
		 * becomes FILE's JSON after the run (opened now: a path that
		 * cannot be written fails before anything runs) */
		int fd, e;

		if ((e = record_open(&trace_out, trace_file)) < 0) {
			fprintf(stderr, "mockrun: --trace-file %s: %s\n", trace_file, strerror(-e));
			goto fail;
		}
		if (asprintf(&trace_raw, "%s.raw.XXXXXX", trace_file) < 0 ||
		    (fd = mkostemp(trace_raw, O_CLOEXEC)) < 0) {
			fprintf(stderr, "mockrun: --trace-file %s: %s\n", trace_file, strerror(errno));
			free(trace_raw);
			trace_raw = NULL;
			goto fail;
		}
		close(fd);
		mockshim_session_set_trace_timed(s, 1);
	}
	if ((trace || trace_file) &&
	    mockshim_session_set_trace(s, trace_fns, chrome ? trace_raw : trace_file) < 0) {
		fputs("mockrun: ", stderr);
		fputs(mockshim_session_error(s), stderr);
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
	if (ntests || topts.list) {
		/* -t FILE...: the files, then the arguments after the options */
		for (int i = optind; i < argc; i++) {
			tests = realloc(tests, (size_t)(ntests + 1) * sizeof(*tests));
			if (!tests)
				goto fail;
			tests[ntests++] = argv[i];
		}
		if (!ntests) {
			fprintf(stderr, "mockrun: --list-tests needs test files (-t FILE...)\n");
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
		if (format == MOCKSHIM_REPORT_HTML) {
			fprintf(stderr, "mockrun: --report html reports one program, not test files (-t)\n");
			goto fail;
		}
		topts.format = format == MOCKSHIM_REPORT_JUNIT ? TESTFILE_JUNIT
			       : format == MOCKSHIM_REPORT_JSON ? TESTFILE_JSON
			       : format == MOCKSHIM_REPORT_TEXT && report_given ? TESTFILE_TEXT
										: TESTFILE_TAP;
		topts.color = topts.format == TESTFILE_TEXT && !output && isatty(STDOUT_FILENO) &&
			      !getenv("NO_COLOR");
		topts.output = output;
		topts.timeout = timeout;
		if (!topts.jobs)
			topts.jobs = ms_default_jobs();
		topts.modules = mods;
		topts.nmodules = nmods;
		mockshim_session_destroy(s);
		rc = ms_run_test_files(tests, ntests, &topts);
		free(tests);
		free(srcs);
		free(mods);
		return rc;
	}
	if (optind >= argc) {
		fprintf(stderr, "mockrun: no program given\n");
		usage(stderr);
		goto fail;
	}
	mockshim_session_set_verbosity(s, verbosity);
	/* opened before the run: a path that cannot be written fails now */
	if (record && (r = record_open(&record_out, record)) < 0) {
		fprintf(stderr, "mockrun: --record %s: %s\n", record, strerror(-r));
		goto fail;
	}
	if (check) {
		/* what the program can see, then the run */
		mockshim_session_check(s, argv[optind], NULL, stderr);
	} else {
		char warn[2048];

		if (mockshim_check_program(argv[optind], NULL, warn, sizeof(warn)) > 0)
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
		record_close(&record_out, record, 0);
		mockshim_session_destroy(s);
		return res.exec_errno == ENOENT || res.exec_errno == ENOTDIR ? EXIT_NOT_FOUND
									  : EXIT_CANNOT_RUN;
	}
	out = output ? fopen(output, "we") : format == MOCKSHIM_REPORT_TEXT ? stderr : stdout;
	if (!out) {
		fprintf(stderr, "mockrun: -o %s: %s\n", output, strerror(errno));
		goto fail;
	}
	mockshim_session_report(s, out, format);
	if (output && fclose(out) != 0) {
		fprintf(stderr, "mockrun: -o %s: %s\n", output, strerror(errno));
		goto fail;
	}
	if (trace_out.f) {
		FILE *raw = fopen(trace_raw, "re");
		int w = raw ? mockshim_trace_chrome(raw, trace_out.f) : -errno, cl;

		if (raw)
			fclose(raw);
		unlink(trace_raw);
		cl = record_close(&trace_out, trace_file, w == 0);
		if (w < 0 || cl < 0) {
			fprintf(stderr, "mockrun: --trace-file %s: %s\n", trace_file, strerror(-(w < 0 ? w : cl)));
			goto fail;
		}
	}
	if (record_out.f) {
		int w = mockshim_session_write_record(s, record_out.f), cl;

		cl = record_close(&record_out, record, w == 0);
		if (w < 0 || cl < 0) {
			fprintf(stderr, "mockrun: --record %s: %s\n", record, strerror(-(w < 0 ? w : cl)));
			goto fail;
		}
	}
	if (res.timed_out)
		rc = EXIT_TIMEOUT;
	else if (res.signal)
		rc = 128 + res.signal;
	else if (res.driver_signal)
		rc = 128 + res.driver_signal;
	else if (res.failures)
		rc = (int)error_exitcode;
	else
		rc = res.exit_status;
	mockshim_session_destroy(s);
	free(srcs);
	free(mods);
	free(trace_raw);
	return rc;

spec_error:
	fputs(mockshim_session_error(s), stderr);
fail:
	/* nothing recorded: no half-written spec, FILE as it was */
	record_close(&record_out, record, 0);
	record_close(&trace_out, trace_file, 0);
	if (trace_raw)
		unlink(trace_raw);
	free(trace_raw);
	mockshim_session_destroy(s);
	free(tests);
	free(srcs);
	free(mods);
	return EXIT_MOCKRUN;
}
