/* SPDX-License-Identifier: MIT */
/* A handler that calls the real chef: MOCKSHIM_REAL, ld --wrap's __real_. */
#include <mockshim/handler.h>

MOCKSHIM_MOCK(int, chef_cook, const char *order, char **dish_out)
{
	(void)mock(); /* takes its turn, then the real kitchen answers */
	return MOCKSHIM_REAL(chef_cook)(order, dish_out);
}
