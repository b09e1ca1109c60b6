/* SPDX-License-Identifier: MIT */
/* What a setuid program would act on: the real uid it is told. */
#include <stdio.h>
#include <unistd.h>

int main(void)
{
	printf("uid %u\n", (unsigned)getuid());
	return 0;
}
