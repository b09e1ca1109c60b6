/* SPDX-License-Identifier: MIT */
/* A library between the program and malloc, for --site-skip (sites.sh). */
#include <stdlib.h>

/* gcc: noipa (never folded into another function, -fipa-icf, nor
 * inlined); clang has no noipa and folds no identical functions at -O2 */
#if defined(__clang__)
#define MS_NOIPA __attribute__((noinline))
#else
#define MS_NOIPA __attribute__((noipa))
#endif

void *wrap_alloc(size_t n);

MS_NOIPA void *wrap_alloc(size_t n)
{
	void *p = malloc(n);

	__asm__ volatile("" ::: "memory");
	return p;
}
