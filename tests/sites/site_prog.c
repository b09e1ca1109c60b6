/* SPDX-License-Identifier: MIT */
/*
 * A program with known call sites, built with -g and without: the
 * symbolizer's tests find the return address of make_buffer's call of
 * malloc in its disassembly and check what the symbolizer says of it
 * against addr2line and nm.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) void note_size(size_t n);
__attribute__((noinline)) void *make_buffer(size_t n);
__attribute__((noinline)) void crash_here(volatile int *p);

size_t sizes;

__attribute__((noinline)) void note_size(size_t n)
{
	__asm__ volatile("" ::: "memory");
	sizes += n;
}

__attribute__((noinline)) void *make_buffer(size_t n)
{
	char *p;

	note_size(n); /* NOTE: a call whose return address is on the next line */
	p = malloc(n); /* SITE: the call the tests look for */

	if (p)
		memset(p, 'x', n);
	return p;
}

/* "crash": a SIGSEGV whose faulting instruction is the first of its
 * function (a return address there would be the previous function's) */
__attribute__((noinline)) void crash_here(volatile int *p)
{
	*p = 1; /* CRASH: the faulting store */
}

int main(int argc, char **argv)
{
	char *b;

	if (argc > 1 && strcmp(argv[1], "crash") == 0)
		crash_here(NULL);
	b = make_buffer((size_t)argc * 16);

	if (!b) {
		fprintf(stderr, "%s: out of memory\n", argv[0]);
		return 1;
	}
	printf("%c\n", b[0]);
	free(b);
	return 0;
}
