/* SPDX-License-Identifier: MIT */
/* libscale.so and scale: a double-returning function behind a PLT. */
double ms_test_scale(int x);

#ifdef SCALE_LIB
double ms_test_scale(int x)
{
	return x * 1.0;
}
#else
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	printf("%g\n", ms_test_scale(argc > 1 ? atoi(argv[1]) : 1));
	return 0;
}
#endif
