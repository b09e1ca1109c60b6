/* SPDX-License-Identifier: MIT */
/* A handler returning doubles: mock_double(). */
#include <mockshim/handler.h>

MOCKSHIM_MOCK(double, ms_test_scale, int x)
{
	check_expected(x);
	return mock_double();
}

/* expect_check's check function (CMocka's signature): value is a
 * multiple of data */
int ms_test_divides(uintmax_t value, uintmax_t data);
int ms_test_divides(uintmax_t value, uintmax_t data)
{
	return data && value % data == 0;
}
