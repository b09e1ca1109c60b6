/* SPDX-License-Identifier: MIT */
/* A library between the program and malloc, for --site-skip (sites.sh). */
#include <stdlib.h>

void *wrap_alloc(size_t n);

__attribute__((noipa)) void *wrap_alloc(size_t n)
{
	void *p = malloc(n);

	__asm__ volatile("" ::: "memory");
	return p;
}
