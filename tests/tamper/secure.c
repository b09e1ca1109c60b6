/* SPDX-License-Identifier: MIT */
/* What a setuid program would act on: the real uid it is told; with
 * "euid", the effective uid it runs as (is the bit honored here?). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "euid") == 0) {
		printf("euid %u\n", (unsigned)geteuid());
		return 0;
	}
	printf("uid %u\n", (unsigned)getuid());
	return 0;
}
