/* SPDX-License-Identifier: MIT */
/* handler.h and driver.h compile alone as C99 -pedantic (-Werror). */
#include <mockshim/handler.h>
#include <mockshim/driver.h>

MOCKSHIM_MOCK(int, mockshim_header_probe, const char *s, int n)
{
	check_expected(n);
	check_expected_ptr(s);
	function_called();
	if (mock_type(int))
		return MOCKSHIM_REAL(mockshim_header_probe)(s, n);
	return (int)mock();
}
