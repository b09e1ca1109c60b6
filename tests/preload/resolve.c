/* SPDX-License-Identifier: MIT */
/*
 * Run with LD_PRELOAD=libmockshim.so and the catalog's symbols as
 * arguments: each must resolve to the shim, and libc must define the real
 * one that the shim will bind.  TAP, one point per symbol.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	int failed = 0;

	printf("TAP version 14\n1..%d\n", argc - 1);
	for (int i = 1; i < argc; i++) {
		void *p = dlsym(RTLD_DEFAULT, argv[i]);
		void *real = libc ? dlsym(libc, argv[i]) : NULL;
		Dl_info info;
		const char *obj = "(none)", *base;

		if (p && dladdr(p, &info) && info.dli_fname)
			obj = info.dli_fname;
		base = strrchr(obj, '/') ? strrchr(obj, '/') + 1 : obj;
		if (strcmp(base, "libmockshim.so") == 0 && real && real != p) {
			printf("ok %d - %s resolves to the shim, libc has the real one\n", i, argv[i]);
		} else {
			failed = 1;
			printf("not ok %d - %s\n# resolves into %s; real in libc: %p\n", i, argv[i],
			       obj, real);
		}
	}
	return failed;
}
