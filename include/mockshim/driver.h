/* SPDX-License-Identifier: MIT */
/**
 * @file driver.h
 * The mockshim driver: compile statements into a session, run a program
 * under it with libmockshim.so preloaded, and report what happened.
 * mockrun is a thin command-line front end to this API.
 *
 * Functions return 0 or a negative errno; *_create returns NULL on failure;
 * *_destroy accepts NULL.
 *
 * @code
 * struct mockshim_session *s = mockshim_session_create();
 * char *argv[] = { "cat", "/etc/hostname", NULL };
 * struct mockshim_result res;
 *
 * if (mockshim_session_add(s, "-e#1", "will_fail(read, EIO)", (size_t)-1) < 0)
 *	fputs(mockshim_session_error(s), stderr);
 * else if (mockshim_session_run(s, argv, NULL, &res) == 0)
 *	mockshim_session_report(s, stderr, MOCKSHIM_REPORT_TEXT);
 * mockshim_session_destroy(s);
 * @endcode
 */
#ifndef MOCKSHIM_DRIVER_H
#define MOCKSHIM_DRIVER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "mockshim/result.h"

#ifdef __cplusplus
extern "C" {
#endif

struct mockshim_session;

/** Creates an empty session; NULL when out of memory. */
struct mockshim_session *mockshim_session_create(void);
/** Destroys a session; leaves no file behind. Accepts NULL. */
void mockshim_session_destroy(struct mockshim_session *s);

/**
 * Parses statements (DESIGN.md section 3) named @p src in reports.
 * @p len may be (size_t)-1 for a NUL-terminated text.  On -EINVAL,
 * mockshim_session_error() gives "SRC:LINE:COL: error: ..." with the line
 * and a caret; nothing from @p text is kept.
 */
int mockshim_session_add(struct mockshim_session *s, const char *src, const char *text,
			 size_t len);
/** Reads statements from a file ("-": standard input). */
int mockshim_session_add_file(struct mockshim_session *s, const char *path);
/** The last error message, or "". */
const char *mockshim_session_error(const struct mockshim_session *s);

/**
 * Loads a handler module (a shared object built with MOCKSHIM_MOCK,
 * include/mockshim/handler.h): its functions can then be named by
 * statements, and it is preloaded after libmockshim.so.  Statements may
 * also say `module "path.so"` (relative to their file).
 */
int mockshim_session_add_module(struct mockshim_session *s, const char *path);

/**
 * Traces the calls of @p fns ("open,read"; NULL: every catalog function
 * but the allocator), a line each, to @p path (appended; NULL: the
 * program's stderr).  -EINVAL (error set) for a name not in the catalog.
 */
int mockshim_session_set_trace(struct mockshim_session *s, const char *fns, const char *path);

/**
 * Records the real calls of the catalog functions in @p fns (comma
 * separated) in the runs that follow: their values, errno and outputs.
 * -EINVAL (error set) for a name not in the catalog, or a function whose
 * results a spec cannot give back (one that returns a pointer).
 */
int mockshim_session_set_record(struct mockshim_session *s, const char *fns);
/**
 * Writes the statements that replay the last run's recorded calls to
 * @p out: a will_return for each call, in call order, scoped to its
 * program with in=.  0, -EINVAL when nothing was recorded, -EIO.
 */
int mockshim_session_write_record(struct mockshim_session *s, FILE *out);

/** Uses @p path as libmockshim.so instead of the one found next to the driver. */
int mockshim_session_set_shim(struct mockshim_session *s, const char *path);
/** Runs the program in @p dir (NULL: the driver's working directory). */
int mockshim_session_set_cwd(struct mockshim_session *s, const char *dir);
/** Feeds @p len bytes to the program's standard input through a pipe
 * (@p data NULL: the driver's own stdin). */
int mockshim_session_set_stdin(struct mockshim_session *s, const void *data, size_t len);
/** With @p on, captures the program's stdout and stderr through pipes. */
void mockshim_session_set_capture(struct mockshim_session *s, int on);
/** What the last run wrote on fd 1 or 2 (captured), NUL-terminated. */
const char *mockshim_session_output(const struct mockshim_session *s, int fd, size_t *len);
/** Kills the process tree after @p seconds (0: never). */
int mockshim_session_set_timeout(struct mockshim_session *s, double seconds);
/** Each run serves live control (mockrun ctl) on a unix socket at @p path
 * (0600, removed when the run ends, whatever ends it), or with @p path
 * NULL in a private directory under $TMPDIR; the program gets its path in
 * $MOCKSHIM_CONTROL.  @p on 0 turns it off.  Every catalog function but
 * the allocator's is then armed to count its calls (--wait-call). */
int mockshim_session_set_control(struct mockshim_session *s, int on, const char *path);
/** During a run with control, the socket's path (for another thread);
 * NULL before the socket is made and after the run.  From another thread
 * during such a run, mockshim_session_add() and _add_file() add replies
 * to the running program, as mockrun ctl -e does (mockrun(1), LIVE
 * CONTROL); they count for this run only. */
const char *mockshim_session_control_path(const struct mockshim_session *s);
/** During a run with control, from another thread: the calls of catalog
 * function @p fn (and its variants, accept4 for accept) the whole tree
 * made so far; -1 when no run with control is in progress, or @p fn is
 * not counted (the allocator's) or not in the catalog. */
long long mockshim_session_calls(struct mockshim_session *s, const char *fn);
/** During a run with control, from another thread: moves every fake_time
 * clock, as mockrun ctl does: @p how "advance-time" (@p value "+1h"),
 * "set-time" ("2031-01-01 00:00:00") or "rate" ("10").  0, or -EINVAL
 * (a bad value, a date outside 1677-09-21 .. 2262-04-11) or -ERANGE (an
 * advance past an end of that range: nothing moved), with the reason in
 * mockshim_session_error(). */
int mockshim_session_move_time(struct mockshim_session *s, const char *how, const char *value);
/** During a run with control, from another thread: waits until a thread
 * is held at will_hold(..., name="@p name") (mockrun(1), HOLD POINTS),
 * at most @p timeout seconds, without polling.  Returns how many threads
 * are held there (> 0), 0 at the timeout, -ENOENT when no will_hold has
 * that name, -ESRCH when no run with control is in progress.  Each held
 * thread's line ("pid P tid T (COMM): CALL at SITE [hold NAME]\n") goes
 * into @p buf (@p cap bytes; NULL: not wanted), as ctl --wait-held
 * prints it.
 * @code
 * if (mockshim_session_wait_held(s, "log-sync", 30, who, sizeof(who)) > 0)
 *	mockshim_session_release(s, "log-sync", "will_fail(fsync, EIO)");
 * @endcode */
int mockshim_session_wait_held(struct mockshim_session *s, const char *name, double timeout,
			       char *buf, size_t cap);
/** During a run with control, from another thread: lets every thread held
 * at @p name go on; @p stmts (NULL: none) are added first, as
 * mockshim_session_add() adds them live, so the held call takes them.
 * How many threads were let go, or -ENOENT (no hold so named), -ESRCH
 * (none held there now), or the error of adding @p stmts (the reason in
 * mockshim_session_error(), nothing released). */
int mockshim_session_release(struct mockshim_session *s, const char *name, const char *stmts);
/** During a run with control, from another thread: sends @p sig to the
 * process of every thread held at @p name (it is then no failure of the
 * run): how many, or -EINVAL, -ENOENT, -ESRCH as above. */
int mockshim_session_kill_held(struct mockshim_session *s, const char *name, int sig);
/** With @p on, the program gets SIGABRT at its first failed check. */
void mockshim_session_set_abort_on_fail(struct mockshim_session *s, int on);
/** With @p on, each trace line starts with "@START END TID PPID " (ns of
 * CLOCK_MONOTONIC), the input of mockshim_trace_chrome(). */
void mockshim_session_set_trace_timed(struct mockshim_session *s, int on);
/** Turns a timed trace (@p in) into the Trace Event Format JSON that
 * Perfetto and chrome://tracing open (@p out): a track per process and
 * thread named exe[pid], a slice per call with its arguments and result
 * (mocked ones name their statement), flows from parent to child and
 * across exec.  0 or -errno. */
int mockshim_trace_chrome(FILE *in, FILE *out);
/** Sets how much the text report says. */
void mockshim_session_set_verbosity(struct mockshim_session *s, int verbosity);
/** The seed of probability= draws (default: a random one, which the
 * report prints): the same seed replays the same outcomes. */
void mockshim_session_set_seed(struct mockshim_session *s, uint64_t seed);

/**
 * Runs argv (searched in PATH) with envp (NULL: the driver's environment)
 * under the session and waits for it and every process it started.
 * Forwards SIGINT, SIGTERM and SIGHUP to the program's process group.
 * Returns 0 when the result is filled (the program may still have failed
 * to start: see exec_errno), or a negative errno.
 */
int mockshim_session_run(struct mockshim_session *s, char *const argv[], char *const envp[],
			 struct mockshim_result *result);

/** Writes the report of the last run. */
int mockshim_session_report(struct mockshim_session *s, FILE *out, int format);

/**
 * What the loader will do with @p program (found in envp's PATH, NULL:
 * the driver's environment): writes a line per reason it cannot be
 * mocked (statically linked, setuid/setgid for us) into @p buf, and
 * returns how many.
 */
int mockshim_check_program(const char *program, char *const envp[], char *buf, size_t cap);

/**
 * What mockrun --check prints: mockshim_check_program()'s reasons, then,
 * for each catalog function the statements name, whether @p program or
 * one of the libraries it loads imports it (a function nothing imports
 * can only be mocked in programs it starts).  Returns the problems found.
 */
int mockshim_session_check(const struct mockshim_session *s, const char *program,
			   char *const envp[], FILE *out);

/** Writes the catalog (fn NULL), or one function's details, to out.
 * Returns -ENOENT for an unknown function. */
int mockshim_catalog_list(FILE *out, const char *fn);

#ifdef __cplusplus
}
#endif

#endif
