/* SPDX-License-Identifier: MIT */
/*
 * One check per catalog row, generated from the catalog itself.
 *
 *	rows spec	the statements: for each row, its failure (or, for a
 *			row that cannot fail, a value) and an expectation on
 *			its first parameter
 *	rows run	under mockrun -f that spec: calls every row's symbol
 *			once and prints "ROW ok" or "ROW: what went wrong"
 *	rows aliases-spec, rows aliases
 *			the same for every alias symbol, with no expectation
 *			(an alias's parameters are not the row's)
 *
 * Every statement has from="rows", so only the calls made here take a
 * turn.  The replies are mocked, so no real function runs with the made-up
 * arguments: the first parameter gets a known value, every other one the
 * address of a zeroed scratch page, at the same address in both runs.
 * After its reply, a row that takes no argument and is a system call
 * (getpid, getuid, ...) is called once more and must give what the kernel
 * says (the queue is used up: the real function runs).
 *
 * While the statements are armed this program calls no catalog function
 * of its own: it writes with syscall(SYS_write) and maps with SYS_mmap.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "catalog/catalog.h"

#define SCRATCH 0x5a5a0000ul
#define SCRATCH_SIZE 65536
#define INT_ARG 5
#define NEVER_VALUE 7

typedef long (*gen_fn)(long, long, long, long, long, long, long, long);

/* the rows that take no argument and have a system call to compare with */
static const struct {
	const char *name;
	long nr;
} syscalls[] = {
	{ "getpid", SYS_getpid }, { "getppid", SYS_getppid }, { "getuid", SYS_getuid },
	{ "geteuid", SYS_geteuid }, { "getgid", SYS_getgid }, { "getegid", SYS_getegid },
};

static void say(const char *s)
{
	size_t n = strlen(s);

	while (n) {
		long w = syscall(SYS_write, 1, s, n);

		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

static long first_arg(const struct ms_fn_meta *m)
{
	return m->params[0].type.tclass == MS_T_INT || m->params[0].type.tclass == MS_T_UINT
		       ? INT_ARG : (long)SCRATCH;
}

/* free stays real (its expectation lets it run): its argument is NULL */
static int is_free(const struct ms_fn_meta *m)
{
	return strcmp(m->name, "free") == 0;
}

static void print_spec(int aliases)
{
	for (unsigned i = 0; i < MS_FN_COUNT; i++) {
		const struct ms_fn_meta *m = ms_catalog_get(i);
		unsigned n = aliases ? m->naliases : 1;

		if (!n || is_free(m))
			continue;
		if (m->ret.tclass == MS_T_VOID)
			printf("will_return_count(%s, _, %u, from=\"rows\")\n", m->name, n);
		else if (m->fail_kind == MS_FK_NEVER)
			printf("will_return_count(%s, %d, %u, from=\"rows\")\n", m->name, NEVER_VALUE, n);
		else
			printf("will_fail_count(%s, %lld, %u, from=\"rows\")\n", m->name,
			       (long long)(m->fail_kind == MS_FK_RC ? m->fail_value : m->fail_errno), n);
		if (aliases || !m->nparams)
			continue;
		if (m->params[0].type.tclass == MS_T_STR)
			printf("expect_string(%s, %s, \"mockshim\", from=\"rows\")\n", m->name,
			       m->params[0].name);
		else
			printf("expect_value(%s, %s, %ld, from=\"rows\")\n", m->name, m->params[0].name,
			       first_arg(m));
	}
	if (!aliases)
		printf("expect_value(free, ptr, 0, from=\"rows\")\n");
}

/* v as the row's return type gives it back */
static int64_t as_ret(const struct ms_fn_meta *m, long v)
{
	if (m->ret.size == 4)
		return m->ret.tclass == MS_T_UINT ? (int64_t)(uint32_t)v : (int64_t)(int32_t)v;
	return v;
}

/* Calls sym as row m; "" when the reply is the row's, or what is wrong. */
static const char *call_row(const struct ms_fn_meta *m, const char *sym, int alias, char *why,
			    size_t cap)
{
	gen_fn f;
	void *p = dlsym(RTLD_DEFAULT, sym);
	/* an alias's parameters may come in another order than the row's
	 * (__overflow(stream, c) is putc's): every one is the scratch page */
	long a0 = m->nparams && !alias ? first_arg(m) : (long)SCRATCH, s = (long)SCRATCH;
	int64_t got, want;
	int err, want_err;

	if (!p) {
		snprintf(why, cap, "%s: not found", sym);
		return why;
	}
	memcpy(&f, &p, sizeof(f));
	errno = 4095;
	got = as_ret(m, f(a0, s, s, s, s, s, s, s));
	err = errno;
	if (m->ret.tclass == MS_T_VOID) {
		/* returns nothing: the reply skips the real call, errno stays */
		got = want = 0;
		want_err = 4095;
	} else if (m->fail_kind == MS_FK_NEVER) {
		want = NEVER_VALUE;
		want_err = 4095;
	} else {
		want = m->fail_value;
		want_err = m->fail_kind == MS_FK_ERRNO && m->fail_errno ? m->fail_errno : 4095;
	}
	if (got != want || err != want_err) {
		snprintf(why, cap, "%s returned %lld with errno %d, expected %lld with errno %d",
			 sym, (long long)got, err, (long long)want, want_err);
		return why;
	}
	/* no argument to make up: once more, now real, as the kernel says */
	for (size_t k = 0; k < sizeof(syscalls) / sizeof(syscalls[0]); k++) {
		int64_t a, b;

		if (strcmp(m->name, syscalls[k].name) != 0)
			continue;
		a = as_ret(m, f(0, 0, 0, 0, 0, 0, 0, 0));
		b = as_ret(m, syscall(syscalls[k].nr));
		if (a != b) {
			snprintf(why, cap, "%s unmocked returned %lld, the system call %lld", sym,
				 (long long)a, (long long)b);
			return why;
		}
	}
	return "";
}

static int run(int aliases)
{
	char line[512], why[400];
	void *scratch = (void *)syscall(SYS_mmap, SCRATCH, SCRATCH_SIZE, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0L);

	if (scratch != (void *)SCRATCH) {
		say("cannot map the scratch page\n");
		return 2;
	}
	memcpy(scratch, "mockshim", 9);
	for (unsigned i = 0; i < MS_FN_COUNT; i++) {
		const struct ms_fn_meta *m = ms_catalog_get(i);

		if (is_free(m)) {
			if (!aliases) {
				void (*fr)(void *) = NULL;
				void *p = dlsym(RTLD_DEFAULT, "free");

				memcpy(&fr, &p, sizeof(fr));
				fr(NULL);
				say("free ok\n");
			}
			continue;
		}
		for (unsigned k = 0; k < (aliases ? m->naliases : 1u); k++) {
			const char *sym = aliases ? m->aliases[k] : m->name;
			const char *w = call_row(m, sym, aliases, why, sizeof(why));

			/* the scratch page again, for the next row's strings */
			memset(scratch, 0, SCRATCH_SIZE);
			memcpy(scratch, "mockshim", 9);
			snprintf(line, sizeof(line), "%s%s%s\n", sym, *w ? ": " : " ok", w);
			say(line);
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";

	if (strcmp(cmd, "spec") == 0)
		print_spec(0);
	else if (strcmp(cmd, "aliases-spec") == 0)
		print_spec(1);
	else if (strcmp(cmd, "run") == 0)
		return run(0);
	else if (strcmp(cmd, "aliases") == 0)
		return run(1);
	else
		return fprintf(stderr, "usage: rows spec|run|aliases-spec|aliases\n"), 2;
	return 0;
}
