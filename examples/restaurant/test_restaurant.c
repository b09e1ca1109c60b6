/* SPDX-License-Identifier: MIT */
/*
 * CMocka's chef/waiter tests as a cmocka program: the unmodified waiter
 * runs under the handler module through the driver API (driver.h).
 * WAITER and CHEF_MOCK are the paths meson passes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "mockshim/driver.h"

struct run {
	struct mockshim_session *s;
	struct mockshim_result r;
	const char *out, *err;
};

static void order(struct run *run, const char *statements)
{
	char *argv[] = { WAITER, "hotdog", NULL };

	run->s = mockshim_session_create();
	assert_non_null(run->s);
	assert_int_equal(mockshim_session_add_module(run->s, CHEF_MOCK), 0);
	if (mockshim_session_add(run->s, "test", statements, (size_t)-1) < 0)
		fail_msg("%s", mockshim_session_error(run->s));
	mockshim_session_set_capture(run->s, 1);
	mockshim_session_set_stdin(run->s, "", 0);
	assert_int_equal(mockshim_session_run(run->s, argv, NULL, &run->r), 0);
	run->out = mockshim_session_output(run->s, 1, NULL);
	run->err = mockshim_session_output(run->s, 2, NULL);
	/* chef_init stays real in every case */
	assert_non_null(strstr(run->err, "chef: kitchen open\n"));
}

static void test_order_hotdog(void **state)
{
	struct run run;

	(void)state;
	order(&run, "expect_string(chef_cook, order, \"hotdog\")\n"
		    "will_return(chef_cook, true); will_return(chef_cook, true)\n"
		    "will_return(chef_cook, \"hotdog\"); will_return(chef_cook, 0)");
	assert_int_equal(run.r.exit_status, 0);
	assert_int_equal(run.r.failures, 0);
	assert_string_equal(run.out, "hotdog\n");
	mockshim_session_destroy(run.s);
}

static void test_unknown_dish(void **state)
{
	struct run run;

	(void)state;
	order(&run, "expect_any(chef_cook, order); will_return(chef_cook, false)");
	assert_int_equal(run.r.exit_status, 1);
	assert_int_equal(run.r.failures, 0);
	assert_non_null(strstr(run.err, "Chef couldn't cook hotdog: unknown dish"));
	mockshim_session_destroy(run.s);
}

static void test_no_ingredients(void **state)
{
	struct run run;

	(void)state;
	order(&run, "expect_any(chef_cook, order)\n"
		    "will_return(chef_cook, true); will_return(chef_cook, false)");
	assert_int_equal(run.r.exit_status, 1);
	assert_int_equal(run.r.failures, 0);
	assert_non_null(strstr(run.err, "Chef couldn't cook hotdog: out of ingredients"));
	mockshim_session_destroy(run.s);
}

static void test_bad_dish(void **state)
{
	struct run run;

	(void)state;
	order(&run, "expect_string(chef_cook, order, \"hotdog\")\n"
		    "will_return(chef_cook, true); will_return(chef_cook, true)\n"
		    "will_return(chef_cook, \"burger\"); will_return(chef_cook, 0)");
	assert_int_equal(run.r.exit_status, 2);
	assert_int_equal(run.r.failures, 0);
	assert_string_equal(run.out, "(null)\n");
	mockshim_session_destroy(run.s);
}

static void test_expectation_failure_is_reported(void **state)
{
	struct run run;
	char *text = NULL;
	size_t len = 0;
	FILE *m;

	(void)state;
	order(&run, "expect_string(chef_cook, order, \"pizza\")\n"
		    "will_return(chef_cook, false)");
	assert_int_equal(run.r.failures, 1);
	m = open_memstream(&text, &len);
	assert_non_null(m);
	mockshim_session_report(run.s, m, MOCKSHIM_REPORT_TEXT);
	fclose(m);
	assert_non_null(strstr(text, "test:1:1: error: chef_cook() in waiter["));
	assert_non_null(strstr(text, "parameter order: expected \"pizza\", got \"hotdog\""));
	free(text);
	mockshim_session_destroy(run.s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_hotdog),
		cmocka_unit_test(test_unknown_dish),
		cmocka_unit_test(test_no_ingredients),
		cmocka_unit_test(test_bad_dish),
		cmocka_unit_test(test_expectation_failure_is_reported),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
