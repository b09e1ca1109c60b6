/* SPDX-License-Identifier: MIT */
/* The kitchen of CMocka's chef/waiter example. */
#ifndef CHEF_H
#define CHEF_H

/* Opens the kitchen: says so on stderr (the tests see that it stays real). */
int chef_init(void);
/* Cooks order into a malloc'd *dish_out: 0, -1 (unknown dish), -2 (no ingredients). */
int chef_cook(const char *order, char **dish_out);
const char *chef_strerror(int error);

#endif
