/* SPDX-License-Identifier: MIT */
/* The handler module: count_lines() answers what the test queued. */
#include <stdio.h>

#include <mockshim/handler.h>

MOCKSHIM_MOCK(long, count_lines, FILE *in)
{
	return mock_type(long);
}
