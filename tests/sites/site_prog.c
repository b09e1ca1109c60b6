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

int main(int argc, char **argv)
{
	char *b = make_buffer((size_t)argc * 16);

	if (!b) {
		fprintf(stderr, "%s: out of memory\n", argv[0]);
		return 1;
	}
	printf("%c\n", b[0]);
	free(b);
	return 0;
}
