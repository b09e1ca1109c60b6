/* SPDX-License-Identifier: MIT */
/* The handler module: greet_name() answers what the test queued. */
#include <mockshim/handler.h>

MOCKSHIM_MOCK(const char *, greet_name, const char *file)
{
	check_expected_ptr(file);
	return mock_ptr_type(const char *);
}
