// SPDX-License-Identifier: MIT
// handler.h and driver.h compile as C++ (-Werror).
#include <mockshim/handler.h>
#include <mockshim/driver.h>

MOCKSHIM_MOCK(int, mockshim_header_probe_cxx, const char *s, int n)
{
	check_expected(n);
	check_expected_ptr(s);
	function_called();
	if (mock_type(int))
		return MOCKSHIM_REAL(mockshim_header_probe_cxx)(s, n);
	return static_cast<int>(mock());
}
