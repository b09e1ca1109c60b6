/* SPDX-License-Identifier: MIT */
/* greet [FILE]: "hello, NAME" with the name from FILE. */
#include <stdio.h>

#include "greet.h"

int main(int argc, char **argv)
{
	if (printf("hello, %s\n", greet_name(argc > 1 ? argv[1] : NULL)) < 0 || fflush(stdout) != 0) {
		perror("greet");
		return 1;
	}
	return 0;
}
