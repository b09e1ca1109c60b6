/* SPDX-License-Identifier: MIT */
/* countlines [FILE]: the number of lines of FILE (or stdin). */
#include <stdio.h>
#include <string.h>

#include "count.h"

int main(int argc, char **argv)
{
	FILE *in = argc > 1 && strcmp(argv[1], "-") ? fopen(argv[1], "r") : stdin;
	long n;

	if (!in) {
		perror(argv[1]);
		return 1;
	}
	n = count_lines(in);
	if (n < 0) {
		fprintf(stderr, "countlines: read error\n");
		return 1;
	}
	printf("%ld lines\n", n);
	return 0;
}
