/* SPDX-License-Identifier: MIT */
/*
 * cmocka interop: a cmocka test program that runs real programs under
 * mocks through the C driver API (include/mockshim/driver.h) and asserts
 * on what happened.  MOCKSHIM_LIBRARY names the shim to preload.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "mockshim/driver.h"

static int setup(void **state)
{
	struct mockshim_session *s = mockshim_session_create();

	if (!s)
		return -1;
	mockshim_session_set_capture(s, 1);
	mockshim_session_set_stdin(s, "", 0);
	*state = s;
	return 0;
}

/* test_live_from_another_thread's run, while it is on: a failed check
 * ends it (its program waits for this file) before the session goes */
static pthread_t live_thread;
static int live_on;
static char live_go[64];

static int teardown(void **state)
{
	if (live_on) {
		fclose(fopen(live_go, "w"));
		pthread_join(live_thread, NULL);
		unlink(live_go);
		live_on = 0;
	}
	mockshim_session_destroy(*state);
	return 0;
}

static void test_mocked_euid(void **state)
{
	struct mockshim_session *s = *state;
	char *argv[] = { "id", "-u", NULL };
	struct mockshim_result r;
	size_t n;

	assert_int_equal(mockshim_session_add(s, "test", "will_return(geteuid, 4242)", (size_t)-1), 0);
	assert_int_equal(mockshim_session_run(s, argv, NULL, &r), 0);
	assert_true(r.exited);
	assert_int_equal(r.exit_status, 0);
	assert_int_equal(r.failures, 0);
	assert_int_equal(r.processes, 1);
	assert_string_equal(mockshim_session_output(s, 1, &n), "4242\n");
	assert_int_equal(n, 5);
}

static void test_failure_is_counted_and_reported(void **state)
{
	struct mockshim_session *s = *state;
	char *argv[] = { "cat", "/etc/hostname", NULL };
	struct mockshim_result r;
	char *text = NULL;
	size_t len = 0;
	FILE *m;

	assert_int_equal(mockshim_session_add(s, "spec.mock",
					      "will_fail(read, EIO)\n"
					      "expect_string(open, pathname, \"/etc/passwd\")",
					      (size_t)-1),
			 0);
	assert_int_equal(mockshim_session_run(s, argv, NULL, &r), 0);
	assert_int_equal(r.exit_status, 1);
	assert_int_equal(r.failures, 1);
	assert_int_equal(r.leftovers, 0);
	assert_int_equal(r.consumed, 2);
	assert_non_null(strstr(mockshim_session_output(s, 2, NULL), "Input/output error"));
	m = open_memstream(&text, &len);
	assert_non_null(m);
	assert_int_equal(mockshim_session_report(s, m, MOCKSHIM_REPORT_TEXT), 0);
	fclose(m);
	assert_non_null(strstr(text, "spec.mock:2:1: error: open() call 1 in cat["));
	assert_non_null(strstr(text, "expected \"/etc/passwd\", got \"/etc/hostname\""));
	free(text);
}

static void test_leftovers_and_junit(void **state)
{
	struct mockshim_session *s = *state;
	char *argv[] = { "true", NULL };
	struct mockshim_result r;
	char *text = NULL;
	size_t len = 0;
	FILE *m;

	assert_int_equal(mockshim_session_add(s, "x.mock", "will_return(geteuid, 1)\nexpect_any(read, fd)",
					      (size_t)-1),
			 0);
	assert_int_equal(mockshim_session_run(s, argv, NULL, &r), 0);
	assert_int_equal(r.leftovers, 2);
	assert_int_equal(r.failures, 2);
	assert_int_equal(r.consumed, 0);
	m = open_memstream(&text, &len);
	assert_non_null(m);
	assert_int_equal(mockshim_session_report(s, m, MOCKSHIM_REPORT_JUNIT), 0);
	fclose(m);
	assert_non_null(strstr(text, "<testsuite name=\"true\" tests=\"3\" failures=\"2\""));
	/* the statement's own testcase fails, with the headline as the message */
	assert_non_null(strstr(text, "<testcase classname=\"x.mock\" name=\"1:1: will_return(geteuid, 1)\" "
				     "time=\"0.000\"><failure message=\""
				     "geteuid() has remaining non-returned values (0 of 1 used)\">"
				     "x.mock:1:1: error: geteuid() has remaining non-returned values"));
	free(text);
}

static void test_bad_statement(void **state)
{
	struct mockshim_session *s = *state;

	assert_int_equal(mockshim_session_add(s, "-e#1", "will_fail(raed)", (size_t)-1), -EINVAL);
	assert_non_null(strstr(mockshim_session_error(s), "-e#1:1:11: error: unknown function 'raed'"));
	assert_non_null(strstr(mockshim_session_error(s), "    will_fail(raed)\n              ^\n"));
}

static void test_stdin_cwd_env(void **state)
{
	struct mockshim_session *s = *state;
	char *argv[] = { "sh", "-c", "cat; pwd; echo $K", NULL };
	char *envp[] = { "K=v", "PATH=/usr/bin:/bin", NULL };
	struct mockshim_result r;

	assert_int_equal(mockshim_session_set_stdin(s, "in\n", 3), 0);
	assert_int_equal(mockshim_session_set_cwd(s, "/"), 0);
	assert_int_equal(mockshim_session_run(s, argv, envp, &r), 0);
	assert_int_equal(r.exit_status, 0);
	assert_string_equal(mockshim_session_output(s, 1, NULL), "in\n/\nv\n");
}

static void test_missing_program(void **state)
{
	struct mockshim_session *s = *state;
	char *argv[] = { "/nonexistent/program", NULL };
	struct mockshim_result r;

	assert_int_equal(mockshim_session_run(s, argv, NULL, &r), 0);
	assert_int_equal(r.exec_errno, ENOENT);
}

/* A run with control, and another thread that adds a reply and moves
 * the clock while it runs (the driver API's side of mockrun ctl). */
struct bg {
	struct mockshim_session *s;
	struct mockshim_result r;
	int rc;
};

static void *run_bg(void *p)
{
	struct bg *b = p;
	char *argv[] = { "sh", "-c",
			 "date +%Y; while [ ! -e live.go ]; do sleep 0.02; done; date +%Y; "
			 "head -c 4 /etc/hostname",
			 NULL };

	b->rc = mockshim_session_run(b->s, argv, NULL, &b->r);
	return NULL;
}

/* A run on one thread while another takes the process's SIGCHLD (here
 * in sigwaitinfo(), as a host that reaps its own children would): the
 * run must still see its program end.  The program closes its output
 * first, so only the child's exit can end the run; each run is given
 * 10 s before the test calls it hung. */
struct reaper {
	pthread_t thread;
	struct mockshim_session *s;
	char *const *argv;
	struct mockshim_result r;
	int rc, done;
	pthread_mutex_t lock;
	pthread_cond_t cond;
};

static void *run_and_signal(void *p)
{
	struct reaper *w = p;

	w->rc = mockshim_session_run(w->s, w->argv, NULL, &w->r);
	pthread_mutex_lock(&w->lock);
	w->done = 1;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

static void test_sigchld_taken_by_another_thread(void **state)
{
	char *argv[] = { "sh", "-c", "exec >&- 2>&-; sleep 0.05", NULL };
	sigset_t chld, old;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	pthread_sigmask(SIG_BLOCK, &chld, &old);
	for (int i = 0; i < 20; i++) {
		struct reaper w = { .s = *state, .argv = argv,
				    .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };
		struct timespec end, zero = { 0, 0 };
		int hung = 0;

		clock_gettime(CLOCK_REALTIME, &end);
		end.tv_sec += 10;
		assert_int_equal(pthread_create(&w.thread, NULL, run_and_signal, &w), 0);
		pthread_mutex_lock(&w.lock);
		while (!w.done && !hung) {
			struct timespec tick = { 0, 10000000 };

			pthread_mutex_unlock(&w.lock);
			/* this thread takes every SIGCHLD it can */
			sigtimedwait(&chld, NULL, &tick);
			pthread_mutex_lock(&w.lock);
			if (!w.done && pthread_cond_timedwait(&w.cond, &w.lock, &zero) == ETIMEDOUT) {
				struct timespec t;

				clock_gettime(CLOCK_REALTIME, &t);
				hung = t.tv_sec > end.tv_sec;
			}
		}
		pthread_mutex_unlock(&w.lock);
		if (hung) {
			pthread_sigmask(SIG_SETMASK, &old, NULL);
			fail_msg("run %d: mockshim_session_run() still waits 10 s after its program ended", i);
		}
		assert_int_equal(pthread_join(w.thread, NULL), 0);
		assert_int_equal(w.rc, 0);
		assert_true(w.r.exited);
		assert_int_equal(w.r.exit_status, 0);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static void test_live_from_another_thread(void **state)
{
	struct mockshim_session *s = *state;
	struct bg b = { .s = s };
	char dir[] = "/tmp/mockshim-live.XXXXXX", go[64], *text = NULL;
	struct timespec pause = { 0, 20000000 };
	const char *out;
	size_t len = 0;
	FILE *m;
	int i;

	assert_non_null(mkdtemp(dir));
	assert_int_equal(mockshim_session_set_cwd(s, dir), 0);
	assert_int_equal(mockshim_session_add(s, "spec", "fake_time(\"2030-06-01 00:00:00\")", (size_t)-1), 0);
	assert_int_equal(mockshim_session_set_control(s, 1, NULL), 0);
	/* not running: nothing to count or move */
	assert_int_equal(mockshim_session_calls(s, "clock_nanosleep"), -1);
	assert_int_equal(mockshim_session_move_time(s, "advance-time", "+1h"), -EINVAL);
	snprintf(go, sizeof(go), "%s/live.go", dir);
	memcpy(live_go, go, sizeof(go));
	assert_int_equal(pthread_create(&live_thread, NULL, run_bg, &b), 0);
	live_on = 1;
	/* 20 s for sh to start and sleep (an emulated or loaded machine) */
	for (i = 0; i < 1000 && mockshim_session_calls(s, "nanosleep") < 1; i++)
		nanosleep(&pause, NULL);
	assert_true(i < 1000);
	assert_non_null(mockshim_session_control_path(s));
	assert_int_equal(mockshim_session_calls(s, "malloc"), -1);
	assert_int_equal(mockshim_session_add(s, "api", "will_fail(read, EIO, in=\"head\")", (size_t)-1), 0);
	assert_int_equal(mockshim_session_add(s, "api", "expect_any(read, fd)", (size_t)-1), -EINVAL);
	assert_non_null(strstr(mockshim_session_error(s), "cannot be added to a running program"));
	assert_int_equal(mockshim_session_move_time(s, "set-time", "2031-01-01"), 0);
	assert_int_equal(mockshim_session_move_time(s, "advance-time", "2031-01-01"), -EINVAL);
	fclose(fopen(go, "w"));
	live_on = 0;
	assert_int_equal(pthread_join(live_thread, NULL), 0);
	assert_int_equal(b.rc, 0);
	assert_int_equal(b.r.exit_status, 1);
	out = mockshim_session_output(s, 1, NULL);
	assert_string_equal(out, "2030\n2031\n");
	assert_non_null(strstr(mockshim_session_output(s, 2, NULL), "Input/output error"));
	m = open_memstream(&text, &len);
	assert_non_null(m);
	assert_int_equal(mockshim_session_report(s, m, MOCKSHIM_REPORT_TEXT), 0);
	fclose(m);
	assert_non_null(strstr(text, "api:1:1: will_fail(read, EIO, in=\"head\"): 1 of 1 used, by head["));
	assert_non_null(strstr(text, "moved 1 time by mockrun ctl"));
	free(text);
	unlink(go);
	rmdir(dir);
}

static void *run_sync(void *p)
{
	struct bg *b = p;
	char *argv[] = { "sync", "/etc/hostname", NULL };

	b->rc = mockshim_session_run(b->s, argv, NULL, &b->r);
	return NULL;
}

/* mockshim_session_wait_held(), _release() and _kill_held(): what ctl
 * --wait-held, --release -e and --kill do, from a driver's thread. */
static void test_hold_from_another_thread(void **state)
{
	struct mockshim_session *s = *state;
	struct bg b = { .s = s };
	char who[2048];
	pthread_t t;

	assert_int_equal(mockshim_session_add(s, "spec", "will_hold(fsync, name=\"h\")", (size_t)-1), 0);
	assert_int_equal(mockshim_session_set_control(s, 1, NULL), 0);
	/* not running */
	assert_int_equal(mockshim_session_wait_held(s, "h", 0, who, sizeof(who)), -ESRCH);
	assert_int_equal(pthread_create(&t, NULL, run_sync, &b), 0);
	for (int i = 0; i < 1000 && mockshim_session_wait_held(s, "h", 0, NULL, 0) == -ESRCH; i++) {
		struct timespec pause = { 0, 20000000 };

		nanosleep(&pause, NULL);
	}
	assert_int_equal(mockshim_session_wait_held(s, "h", 30, who, sizeof(who)), 1);
	assert_non_null(strstr(who, "(sync): fsync("));
	assert_non_null(strstr(who, "[hold h]"));
	assert_int_equal(mockshim_session_wait_held(s, "other", 1, NULL, 0), -ENOENT);
	assert_int_equal(mockshim_session_release(s, "h", "will_fail(fsync, EIO)"), 1);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(b.rc, 0);
	assert_int_equal(b.r.exit_status, 1);
	assert_non_null(strstr(mockshim_session_output(s, 2, NULL), "Input/output error"));
	/* kill_held: the run ends by the signal, with no failure */
	b.rc = -1;
	assert_int_equal(pthread_create(&t, NULL, run_sync, &b), 0);
	for (int i = 0; i < 1000 && mockshim_session_wait_held(s, "h", 0, NULL, 0) <= 0; i++) {
		struct timespec pause = { 0, 20000000 };

		nanosleep(&pause, NULL);
	}
	assert_int_equal(mockshim_session_kill_held(s, "h", SIGKILL), 1);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(b.rc, 0);
	assert_int_equal(b.r.signal, SIGKILL);
	assert_int_equal(b.r.failures, 0);
}

static void test_destroy_null(void **state)
{
	(void)state;
	mockshim_session_destroy(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_mocked_euid, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failure_is_counted_and_reported, setup, teardown),
		cmocka_unit_test_setup_teardown(test_leftovers_and_junit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_statement, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stdin_cwd_env, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_program, setup, teardown),
		cmocka_unit_test_setup_teardown(test_live_from_another_thread, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sigchld_taken_by_another_thread, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hold_from_another_thread, setup, teardown),
		cmocka_unit_test(test_destroy_null),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
