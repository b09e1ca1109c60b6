/* SPDX-License-Identifier: MIT */
/* A handler returning doubles: mock_double(). */
#include <mockshim/handler.h>

MOCKSHIM_MOCK(double, ms_test_scale, int x)
{
	check_expected(x);
	return mock_double();
}
