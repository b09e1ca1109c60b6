/* SPDX-License-Identifier: MIT */
#ifndef COUNT_H
#define COUNT_H
#include <stdio.h>
/* The lines of IN, or -1 on a read error. */
long count_lines(FILE *in);
#endif
