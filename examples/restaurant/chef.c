/* SPDX-License-Identifier: MIT */
/* libchef.so: a stub kitchen that knows no dish, as in CMocka's example. */
#include <stdio.h>

#include "chef.h"

int chef_init(void)
{
	fputs("chef: kitchen open\n", stderr);
	return 0;
}

int chef_cook(const char *order, char **dish_out)
{
	(void)order;
	*dish_out = NULL;
	return -1;
}

const char *chef_strerror(int error)
{
	switch (error) {
	case 0:
		return "success";
	case -1:
		return "unknown dish";
	case -2:
		return "out of ingredients";
	}
	return "unknown error";
}
