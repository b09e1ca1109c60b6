/* SPDX-License-Identifier: MIT */
/*
 * The handler module: CMocka's __wrap_chef_cook, for an unmodified waiter.
 *	mockrun -m chef_mock.so -e '...' waiter hotdog
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <mockshim/handler.h>

MOCKSHIM_MOCK(int, chef_cook, const char *order, char **dish_out)
{
	const char *dish;

	check_expected_ptr(order);
	if (!mock_type(bool)) /* the chef knows the dish */
		return -1;
	if (!mock_type(bool)) /* the chef has the ingredients */
		return -2;
	dish = mock_ptr_type(const char *);
	*dish_out = dish ? strdup(dish) : NULL;
	return mock_type(int);
}
