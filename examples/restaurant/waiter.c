/* SPDX-License-Identifier: MIT */
/*
 * waiter ORDER: takes the order to the chef and serves the dish.  Linked
 * normally against libchef.so: no --wrap, no test hooks.
 * Exit 0 and the dish on stdout; 1 when the chef could not cook; 2 when
 * the chef cooked another dish (sent back: the dish is NULL).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chef.h"

static int waiter_process(const char *order, char **dish)
{
	int rv = chef_cook(order, dish);

	if (rv != 0) {
		fprintf(stderr, "Chef couldn't cook %s: %s\n", order, chef_strerror(rv));
		return -1;
	}
	/* is it the dish we ordered? */
	if (strcmp(order, *dish) != 0) {
		free(*dish);
		*dish = NULL;
		return -2;
	}
	return 0;
}

int main(int argc, char **argv)
{
	char *dish = NULL;
	int rv;

	if (argc != 2) {
		fprintf(stderr, "usage: waiter ORDER\n");
		return 64;
	}
	chef_init();
	rv = waiter_process(argv[1], &dish);
	printf("%s\n", dish ? dish : "(null)");
	free(dish);
	return rv == 0 ? 0 : rv == -1 ? 1 : 2;
}
