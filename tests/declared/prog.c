/* SPDX-License-Identifier: MIT */
/*
 * decl_prog WHAT...: calls the library's functions and prints what they
 * gave, one line each.  Built four times: lazy binding, -z now, -fno-plt,
 * and as a non-PIE executable.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "decl.h"

/* defined by no library: a weak reference stays NULL */
extern int decl_absent(int x) __attribute__((weak));

static void *adder(void *arg)
{
	long sum = 0;

	for (int i = 0; i < 1000; i++)
		sum += decl_add(1, 1);
	*(long *)arg = sum;
	return NULL;
}

static int run(const char *what)
{
	if (strcmp(what, "add") == 0) {
		printf("add %d\n", decl_add(2, 3));
	} else if (strcmp(what, "scale") == 0) {
		printf("scale %g\n", decl_scale(1.5, 2, 0.25));
	} else if (strcmp(what, "many") == 0) {
		printf("many %ld\n", decl_many(1, 2, 3, 4, 5, 6, 0.01, 0.02, 0.03, 0.04, 0.05, 0.06,
					       0.07, 0.08));
	} else if (strcmp(what, "get") == 0) {
		struct rec r = { 0 };
		int rc = decl_get(4, &r);

		printf("get %d id=%d name=%s tag=%s v=%g\n", rc, r.id, r.name, r.tag ? r.tag : "(null)",
		       r.v);
	} else if (strcmp(what, "name") == 0) {
		const char *n = decl_name(1);

		printf("name %s\n", n ? n : "(null)");
	} else if (strcmp(what, "dup") == 0) {
		char *d = decl_dup("orig");

		printf("dup %s\n", d ? d : "(null)");
		free(d);
	} else if (strcmp(what, "ok") == 0) {
		int a = decl_ok(5), b = decl_ok(-5);

		printf("ok %d %d\n", a, b);
	} else if (strcmp(what, "note") == 0) {
		decl_note("hello");
		printf("noted\n");
	} else if (strcmp(what, "twice") == 0) {
		printf("twice %d\n", decl_twice(21));
	} else if (strcmp(what, "fail") == 0) {
		int rc;

		errno = 0;
		rc = decl_fail();
		printf("fail %d errno=%s\n", rc, errno ? strerror(errno) : "0");
	} else if (strcmp(what, "pointer") == 0) {
		/* through a function pointer taken in the program */
		int (*volatile f)(int, int) = decl_add;
		int a = f(2, 3), b = f(2, 3);

		printf("pointer %d %d%s\n", a, b, f == decl_add_ptr() ? "" : " (two addresses)");
	} else if (strcmp(what, "plugin") == 0) {
		const char *path = getenv("DECL_PLUGIN");
		void *h = dlopen(path ? path : "libdecl_plugin.so", RTLD_NOW);
		int (*p)(int);

		if (!h) {
			printf("plugin: %s\n", dlerror());
			return 1;
		}
		*(void **)&p = dlsym(h, "plugin_run");
		printf("plugin %d\n", p(1));
	} else if (strcmp(what, "dups") == 0 || strcmp(what, "reload") == 0) {
		/* dups: two RTLD_LOCAL plugins that each define dup_helper;
		 * reload: one, loaded, unloaded and loaded again elsewhere */
		const char *dir = getenv("DECL_DIR");
		char a[4096], b[4096];

		snprintf(a, sizeof(a), "%s/libdup_a.so", dir ? dir : ".");
		snprintf(b, sizeof(b), "%s/libdup_b.so", dir ? dir : ".");
		for (int round = 0; round < 2; round++) {
			void *ha = dlopen(a, RTLD_NOW | RTLD_LOCAL);
			void *hb = strcmp(what, "dups") == 0 ? dlopen(b, RTLD_NOW | RTLD_LOCAL) : NULL;
			int (*ra)(void), (*rb)(void) = NULL;
			Dl_info info;

			if (!ha || (strcmp(what, "dups") == 0 && !hb)) {
				printf("dlopen: %s\n", dlerror());
				return 1;
			}
			*(void **)&ra = dlsym(ha, "dup_run");
			if (hb)
				*(void **)&rb = dlsym(hb, "dup_run");
			printf("%s A:%d", what, ra());
			if (rb)
				printf(" B:%d", rb());
			printf("\n");
			fflush(stdout);
			if (strcmp(what, "dups") == 0)
				break;
			/* the next load must not come back at the same address */
			if (dladdr(*(void **)&ra, &info) && info.dli_fbase) {
				dlclose(ha);
				mmap(info.dli_fbase, 4096, PROT_NONE,
				     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
			}
		}
	} else if (strcmp(what, "weak") == 0) {
		printf("weak %s\n", decl_absent ? "present" : "absent");
	} else if (strcmp(what, "threads") == 0) {
		pthread_t t[4];
		long sums[4], total = 0;

		for (int i = 0; i < 4; i++)
			pthread_create(&t[i], NULL, adder, &sums[i]);
		for (int i = 0; i < 4; i++) {
			pthread_join(t[i], NULL);
			total += sums[i];
		}
		printf("threads %ld\n", total);
	} else if (strcmp(what, "fork") == 0) {
		pid_t pid = fork();

		if (pid == 0) {
			printf("child %d\n", decl_add(2, 3));
			fflush(stdout);
			_exit(0);
		}
		waitpid(pid, NULL, 0);
		printf("parent %d\n", decl_add(2, 3));
	} else {
		fprintf(stderr, "decl_prog: unknown %s\n", what);
		return 64;
	}
	return 0;
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (run(argv[i]))
			return 1;
	return 0;
}
