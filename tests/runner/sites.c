/* SPDX-License-Identifier: MIT */
/*
 * Call sites (DESIGN.md 7.1): a program with known places that call
 * malloc, for at= and the trace's sites.
 *   sites two     malloc from first_site(), then from second_site();
 *                 prints "first ok|NULL", "second ok|NULL"
 *   sites strdup  strdup (whose malloc is libc's call on the program's
 *                 behalf), then a malloc of the program's own
 *   sites crash   an unchecked malloc (first_site) written through in
 *                 unchecked_store(): a NULL dereference when it failed
 *   sites handler the same, with a SIGSEGV handler of the program's own,
 *                 which says "handler ran" and exits 3
 *   sites abort   abort() from in_abort()
 *   sites wrapped (sites_wrapped only) malloc through libsitewrap.so's
 *                 wrap_alloc, from main
 *   sites alternate  strdup from two places of one function, in turn, at
 *                 the same depth of the stack (the shim's cache of
 *                 unwound sites must tell them apart)
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* gcc: noipa (never folded into another function, -fipa-icf, nor
 * inlined); clang has no noipa and folds no identical functions at -O2 */
#if defined(__clang__)
#define MS_NOIPA __attribute__((noinline))
#else
#define MS_NOIPA __attribute__((noipa))
#endif

/* noipa: two functions, never folded into one (-fipa-icf) nor inlined */
MS_NOIPA static void *first_site(size_t n)
{
	void *p = malloc(n);

	__asm__ volatile("" ::: "memory");
	return p;
}

MS_NOIPA static void *second_site(size_t n)
{
	char *p = malloc(n);

	if (p)
		p[0] = 'x';
	__asm__ volatile("" ::: "memory");
	return p;
}

/* the crash site: the store through what malloc returned */
MS_NOIPA static void unchecked_store(char *p)
{
	p[8] = 'x';
	__asm__ volatile("" ::: "memory");
}

MS_NOIPA static void in_abort(void)
{
	abort();
}

static void own_handler(int sig)
{
	static const char msg[] = "handler ran\n";

	(void)sig;
	if (write(1, msg, sizeof(msg) - 1) < 0)
		_exit(4);
	_exit(3);
}

#ifdef WRAPPED
void *wrap_alloc(size_t n);
#endif

/* strdup from two call sites, never merged into one nor unrolled into
 * more (clang makes one call of two in a function's branches, and six of
 * a loop's) */
MS_NOIPA static char *dup_odd(void)
{
	char *s = strdup("odd");

	__asm__ volatile("" ::: "memory"); /* no tail call: this frame stays */
	return s;
}

MS_NOIPA static char *dup_even(void)
{
	char *s = strdup("even");

	__asm__ volatile("" ::: "memory"); /* no tail call: this frame stays */
	return s;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "two";

	if (!strcmp(mode, "two")) {
		void *a = first_site(100), *b = second_site(200);

		printf("first %s\nsecond %s\n", a ? "ok" : "NULL", b ? "ok" : "NULL");
		free(a);
		free(b);
		return 0;
	}
	if (!strcmp(mode, "strdup")) {
		char *s = strdup(argc > 2 ? argv[2] : "a string");
		void *p = first_site(300);

		printf("strdup %s\nfirst %s\n", s ? "ok" : "NULL", p ? "ok" : "NULL");
		free(s);
		free(p);
		return 0;
	}
	if (!strcmp(mode, "crash") || !strcmp(mode, "handler")) {
		char *p;

		if (mode[0] == 'h')
			signal(SIGSEGV, own_handler);
		p = first_site(64);
		unchecked_store(p);
		printf("stored\n");
		free(p);
		return 0;
	}
#ifdef WRAPPED
	if (!strcmp(mode, "wrapped")) {
		void *p = wrap_alloc(50);

		printf("wrapped %s\n", p ? "ok" : "NULL");
		free(p);
		return 0;
	}
#endif
	if (!strcmp(mode, "alternate")) {
		for (int i = 0; i < 6; i++) {
			char *s = i % 2 ? dup_odd() : dup_even();

			__asm__ volatile("" ::: "memory");
			free(s);
		}
		return 0;
	}
	if (!strcmp(mode, "abort")) {
		in_abort();
		return 0;
	}
	fprintf(stderr, "sites: unknown mode %s\n", mode);
	return 2;
}
