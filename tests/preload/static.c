/* SPDX-License-Identifier: MIT */
/* Linked statically: LD_PRELOAD cannot reach it. Prints getuid(). */
#include <stdio.h>
#include <unistd.h>

int main(void)
{
	printf("%u\n", getuid());
	return 0;
}
