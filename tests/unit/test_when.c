/* SPDX-License-Identifier: MIT */
/* when() (decide/when.c): a statement's conditions against a call's
 * arguments, on a channel built from statements' text: globs by their
 * shape (exact, prefix, suffix, infix, general), an fd's path, a socket
 * address, integers (comparisons, bits, sets) and what a call that a
 * condition does not hold for saw (struct ms_passby, the report's). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <cmocka.h>

#include "catalog/catalog.h"
#include "channel/channel.h"
#include "chan_text.h"
#include "decide/decide.h"
#include "lang/lang.h"

/* One statement's channel: its first rule's statement and conditions. */
struct one {
	struct ms_spec spec;
	struct ms_chan_hdr *h;
	const struct ms_stmt *s;
	const struct ms_cond *c;
};

static void one_open(struct one *o, const char *text)
{
	uint64_t size;
	const struct ms_rule *r;

	o->h = chan_from_text(&o->spec, text, 16, &size);
	assert_null(ms_channel_validate(o->h, size));
	assert_int_equal(o->h->nrules, 1);
	r = ms_chan_at(o->h, o->h->rules_off);
	o->s = &r->stmt;
	assert_true(o->s->ncond > 0);
	o->c = (const struct ms_cond *)ms_chan_at(o->h, o->h->conds_off) + o->s->cond_first;
}

static void one_close(struct one *o)
{
	ms_spec_fini(&o->spec);
	free(o->h);
}

/* Whether the conditions hold for a call of arguments a; when they do
 * not, what they saw is in *why. */
static int holds(const struct one *o, const uint64_t *a, struct ms_passby *why)
{
	memset(why, 0x5a, sizeof(*why));
	return ms_conds_hold(o->h, o->s, a, NULL, why);
}

/* ---- globs, by their shape ---- */

struct glob_case {
	const char *glob;
	unsigned form;		/* enum ms_glob_form the compiler gives it */
	const char *yes[3], *no[4];
};

static const struct glob_case globs[] = {
	{ "/etc/hosts", MS_GF_EXACT, { "/etc/hosts" },
	  { "/etc/hosts2", "/etc/host", "/etc/hostz", "" } },
	{ "/tmp/*", MS_GF_PREFIX, { "/tmp/x", "/tmp/", "/tmp/a/b" },
	  { "/tmp", "/var/tmp/x", "/tm", "" } },
	{ "*.log", MS_GF_SUFFIX, { "a.log", ".log", "/var/log/x.log" },
	  { "a.log.1", "log", "a.lo", "" } },
	{ "*cache*", MS_GF_INFIX, { "/var/cache/x", "cache", "acacheb" },
	  { "/var/cach/e", "cach", "ache", "" } },
	/* '*' matches '/' too; '?' one character */
	{ "/etc/*/x?.conf", MS_GF_ANY, { "/etc/a/x1.conf", "/etc/a/b/x2.conf" },
	  { "/etc/a/x12.conf", "/etc/x1.conf", "/etc/a/x1.conf~", "" } },
	{ "/srv/[ab]*", MS_GF_ANY, { "/srv/a", "/srv/b/c" }, { "/srv/c", "/srv/", "/srv", "" } },
};

static void test_glob_forms(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(globs) / sizeof(globs[0]); i++) {
		const struct glob_case *g = &globs[i];
		char text[128];
		struct ms_passby why;
		struct one o;
		uint64_t a[1];

		snprintf(text, sizeof(text), "will_fail(unlink, EACCES, when(pathname ~ \"%s\"))\n",
			 g->glob);
		one_open(&o, text);
		assert_int_equal(o.c->op, MS_C_GLOB);
		assert_int_equal(o.c->arg, MS_CA_STR);
		if (o.c->gform != g->form)
			fail_msg("\"%s\": form %u, expected %u", g->glob, o.c->gform, g->form);
		for (int k = 0; k < 3 && g->yes[k]; k++) {
			a[0] = (uint64_t)(uintptr_t)g->yes[k];
			if (!holds(&o, a, &why))
				fail_msg("\"%s\" does not match \"%s\"", g->glob, g->yes[k]);
		}
		for (int k = 0; k < 4 && g->no[k]; k++) {
			a[0] = (uint64_t)(uintptr_t)g->no[k];
			if (holds(&o, a, &why))
				fail_msg("\"%s\" matches \"%s\"", g->glob, g->no[k]);
			/* what it saw: the string, as text */
			assert_int_equal(why.param, 0);
			assert_int_equal(why.is_text, 1);
			assert_string_equal(why.text, g->no[k]);
		}
		one_close(&o);
	}
}

/* !~ is the negation, but a NULL string matches neither; == and != a
 * string compare the whole of it. */
static void test_glob_negated_null_and_exact(void **state)
{
	struct ms_passby why;
	struct one o;
	uint64_t a[1];

	(void)state;
	one_open(&o, "will_fail(unlink, EACCES, when(pathname !~ \"*.log\"))\n");
	assert_int_equal(o.c->op, MS_C_NOGLOB);
	a[0] = (uint64_t)(uintptr_t)"a.txt";
	assert_true(holds(&o, a, &why));
	a[0] = (uint64_t)(uintptr_t)"a.log";
	assert_false(holds(&o, a, &why));
	assert_string_equal(why.text, "a.log");
	a[0] = 0;
	assert_false(holds(&o, a, &why));
	one_close(&o);

	one_open(&o, "will_fail(unlink, EACCES, when(pathname ~ \"*\"))\n");
	a[0] = (uint64_t)(uintptr_t)"";
	assert_true(holds(&o, a, &why));
	a[0] = 0;
	assert_false(holds(&o, a, &why));
	one_close(&o);

	one_open(&o, "will_fail(unlink, EACCES, when(pathname == \"/etc/hosts\"))\n");
	assert_int_equal(o.c->op, MS_C_STREQ);
	a[0] = (uint64_t)(uintptr_t)"/etc/hosts";
	assert_true(holds(&o, a, &why));
	a[0] = (uint64_t)(uintptr_t)"/etc/hosts.d";
	assert_false(holds(&o, a, &why));
	a[0] = 0;
	assert_false(holds(&o, a, &why));
	one_close(&o);

	one_open(&o, "will_fail(unlink, EACCES, when(pathname == NULL))\n");
	a[0] = 0;
	assert_true(holds(&o, a, &why));
	a[0] = (uint64_t)(uintptr_t)"x";
	assert_false(holds(&o, a, &why));
	assert_int_equal(why.is_text, 0);
	one_close(&o);
}

/* A string is read up to MS_STRING_BOUND bytes, across pages: a suffix
 * glob sees the end of a string that crosses a page boundary. */
static void test_glob_string_across_pages(void **state)
{
	struct ms_passby why;
	struct one o;
	uint64_t a[1];
	char *buf = aligned_alloc(4096, 8192), *s;

	(void)state;
	assert_non_null(buf);
	s = buf + 4096 - 10;
	memset(s, 'x', 20);
	memcpy(s + 20, ".log", 5);
	one_open(&o, "will_fail(unlink, EACCES, when(pathname ~ \"*x.log\"))\n");
	a[0] = (uint64_t)(uintptr_t)s;
	assert_true(holds(&o, a, &why));
	s[22] = 'X';
	assert_false(holds(&o, a, &why));
	assert_int_equal(strlen(why.text), 24);
	one_close(&o);
	free(buf);
}

/* ---- an fd's path ---- */

struct tmp {
	char dir[256], log[300], txt[300];
};

static void tmp_make(struct tmp *t)
{
	const char *base = getenv("TMPDIR");

	snprintf(t->dir, sizeof(t->dir), "%s/test_when.XXXXXX", base && *base ? base : "/tmp");
	assert_non_null(mkdtemp(t->dir));
	snprintf(t->log, sizeof(t->log), "%s/app.log", t->dir);
	snprintf(t->txt, sizeof(t->txt), "%s/app.txt", t->dir);
}

static void tmp_remove(struct tmp *t)
{
	unlink(t->log);
	unlink(t->txt);
	rmdir(t->dir);
}

static void test_fd_path(void **state)
{
	struct ms_passby why;
	struct tmp t;
	struct one o;
	uint64_t a[3] = { 0, 0, 0 };
	int log, txt, p[2];

	(void)state;
	tmp_make(&t);
	log = open(t.log, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	txt = open(t.txt, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	assert_true(log >= 0 && txt >= 0);
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);

	one_open(&o, "will_fail(write, ENOSPC, when(fd ~ \"*.log\"))\n");
	assert_int_equal(o.c->arg, MS_CA_FD);
	assert_int_equal(o.c->gform, MS_GF_SUFFIX);
	a[0] = (uint64_t)log;
	assert_true(holds(&o, a, &why));
	a[0] = (uint64_t)txt;
	assert_false(holds(&o, a, &why));
	/* what it saw: the fd's path, and the fd */
	assert_int_equal(why.param, 0);
	assert_int_equal(why.value, txt);
	assert_int_equal(why.is_text, 1);
	assert_string_equal(why.text, t.txt);
	/* the path as it is at the call: renamed under its fd */
	assert_int_equal(rename(t.log, t.txt), 0);
	a[0] = (uint64_t)log;
	assert_false(holds(&o, a, &why));
	assert_string_equal(why.text, t.txt);
	assert_int_equal(rename(t.txt, t.log), 0);
	assert_true(holds(&o, a, &why));
	/* an fd that is not open, or negative: nothing to match */
	a[0] = (uint64_t)p[1];
	assert_false(holds(&o, a, &why));
	a[0] = 999;
	assert_false(holds(&o, a, &why));
	a[0] = (uint64_t)(uint32_t)-1;
	assert_false(holds(&o, a, &why));
	one_close(&o);

	one_open(&o, "will_fail(write, EPIPE, when(fd ~ \"pipe:*\"))\n");
	a[0] = (uint64_t)p[1];
	assert_true(holds(&o, a, &why));
	a[0] = (uint64_t)log;
	assert_false(holds(&o, a, &why));
	assert_string_equal(why.text, t.log);
	one_close(&o);

	close(log);
	close(txt);
	close(p[0]);
	close(p[1]);
	tmp_remove(&t);
}

/* ---- a socket address ---- */

static void test_addr(void **state)
{
	struct ms_passby why;
	struct sockaddr_in in4 = { .sin_family = AF_INET, .sin_port = htons(443) };
	struct sockaddr_in6 in6 = { .sin6_family = AF_INET6, .sin6_port = htons(53) };
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	struct one o;
	uint64_t a[3] = { 3, 0, 0 };

	(void)state;
	in4.sin_addr.s_addr = htonl(0x0a000001);
	in6.sin6_addr = in6addr_loopback;
	strcpy(un.sun_path, "/run/app.sock");

	one_open(&o, "will_fail(connect, ECONNREFUSED, when(addr ~ \"*:443\"))\n");
	assert_int_equal(o.c->arg, MS_CA_ADDR);
	a[1] = (uint64_t)(uintptr_t)&in4;
	a[2] = sizeof(in4);
	assert_true(holds(&o, a, &why));
	in4.sin_port = htons(80);
	assert_false(holds(&o, a, &why));
	assert_string_equal(why.text, "10.0.0.1:80");
	a[1] = (uint64_t)(uintptr_t)&in6;
	assert_false(holds(&o, a, &why));
	assert_string_equal(why.text, "[::1]:53");
	a[1] = 0;
	assert_false(holds(&o, a, &why));
	one_close(&o);

	one_open(&o, "will_fail(connect, ECONNREFUSED, when(addr == \"[::1]:53\"))\n");
	a[1] = (uint64_t)(uintptr_t)&in6;
	assert_true(holds(&o, a, &why));
	one_close(&o);

	one_open(&o, "will_fail(connect, ENOENT, when(addr ~ \"unix:/run/*\"))\n");
	a[1] = (uint64_t)(uintptr_t)&un;
	assert_true(holds(&o, a, &why));
	strcpy(un.sun_path, "/tmp/app.sock");
	assert_false(holds(&o, a, &why));
	assert_string_equal(why.text, "unix:/tmp/app.sock");
	one_close(&o);
}

/* ---- integers ---- */

static void test_bits(void **state)
{
	struct ms_passby why;
	struct one o;
	uint64_t a[3] = { (uint64_t)(uintptr_t)"f", 0, 0 };

	(void)state;
	one_open(&o, "will_fail(open, EACCES, when(flags & O_CREAT))\n");
	assert_int_equal(o.c->op, MS_C_ANYBITS);
	assert_int_equal(o.c->value, O_CREAT);
	a[1] = O_WRONLY | O_CREAT | O_TRUNC;
	assert_true(holds(&o, a, &why));
	a[1] = O_WRONLY | O_TRUNC;
	assert_false(holds(&o, a, &why));
	/* what it saw: the value */
	assert_int_equal(why.param, 1);
	assert_int_equal(why.is_text, 0);
	assert_int_equal(why.value, O_WRONLY | O_TRUNC);
	one_close(&o);

	/* any of the bits */
	one_open(&o, "will_fail(open, EACCES, when(flags & O_CREAT|O_EXCL))\n");
	assert_int_equal(o.c->value, O_CREAT | O_EXCL);
	a[1] = O_EXCL;
	assert_true(holds(&o, a, &why));
	a[1] = O_APPEND;
	assert_false(holds(&o, a, &why));
	one_close(&o);

	one_open(&o, "will_fail(open, EACCES, when(!(flags & O_TRUNC)))\n");
	assert_int_equal(o.c->op, MS_C_NOBITS);
	a[1] = O_WRONLY | O_CREAT;
	assert_true(holds(&o, a, &why));
	a[1] = O_WRONLY | O_TRUNC;
	assert_false(holds(&o, a, &why));
	one_close(&o);
}

static void test_sets(void **state)
{
	struct ms_passby why;
	struct one o;
	uint64_t a[3] = { 0, 0, 5 };

	(void)state;
	one_open(&o, "will_fail(write, EIO, when(fd in {1, 2}))\n");
	assert_int_equal(o.c->op, MS_C_IN);
	assert_int_equal(o.c->nset, 2);
	for (uint64_t fd = 0; fd < 5; fd++) {
		a[0] = fd;
		if (holds(&o, a, &why) != (fd == 1 || fd == 2))
			fail_msg("fd %u: in {1, 2} says %d", (unsigned)fd, !(fd == 1 || fd == 2));
	}
	a[0] = 3;
	assert_false(holds(&o, a, &why));
	assert_int_equal(why.param, 0);
	assert_int_equal(why.value, 3);
	/* an int is its low 32 bits: a register's upper half is not the fd's */
	a[0] = 0xdeadbeef00000002ull;
	assert_true(holds(&o, a, &why));
	one_close(&o);

	/* a signed parameter's negative member */
	one_open(&o, "will_fail(close, EBADF, when(fd in {-1, 7}))\n");
	a[0] = (uint64_t)(uint32_t)-1;
	assert_true(holds(&o, a, &why));
	a[0] = (uint64_t)-1;
	assert_true(holds(&o, a, &why));
	a[0] = 0xffffffffull - 1;
	assert_false(holds(&o, a, &why));
	one_close(&o);

	/* flags in {O_RDONLY, O_WRONLY} */
	one_open(&o, "will_fail(open, ENOENT, when(flags in {O_RDONLY, O_WRONLY}))\n");
	a[0] = (uint64_t)(uintptr_t)"f";
	a[1] = O_RDONLY;
	assert_true(holds(&o, a, &why));
	a[1] = O_RDWR;
	assert_false(holds(&o, a, &why));
	one_close(&o);
}

static void test_comparisons(void **state)
{
	struct ms_passby why;
	struct one o;
	uint64_t a[3] = { 1, 0, 0 };

	(void)state;
	/* count is a size_t: unsigned */
	one_open(&o, "will_fail(write, EFBIG, when(count > 100))\n");
	a[2] = 101;
	assert_true(holds(&o, a, &why));
	a[2] = 100;
	assert_false(holds(&o, a, &why));
	assert_int_equal(why.param, 2);
	assert_int_equal(why.value, 100);
	a[2] = UINT64_MAX;
	assert_true(holds(&o, a, &why));
	one_close(&o);

	/* fd is an int: signed */
	one_open(&o, "will_fail(close, EBADF, when(fd < 0))\n");
	a[0] = (uint64_t)(uint32_t)-1;
	assert_true(holds(&o, a, &why));
	a[0] = 0;
	assert_false(holds(&o, a, &why));
	one_close(&o);

	one_open(&o, "will_fail(close, EBADF, when(fd >= 3, fd <= 4, fd != 4))\n");
	a[0] = 3;
	assert_true(holds(&o, a, &why));
	a[0] = 4;
	assert_false(holds(&o, a, &why));
	a[0] = 5;
	assert_false(holds(&o, a, &why));
	a[0] = 2;
	assert_false(holds(&o, a, &why));
	one_close(&o);
}

/* Every condition must hold; the one that does not is the one shown,
 * the integer ones before the text ones (they cost no read). */
static void test_all_conditions(void **state)
{
	struct ms_passby why;
	struct tmp t;
	struct one o;
	uint64_t a[3] = { 0, (uint64_t)(uintptr_t)"hello", 5 };
	int log;

	(void)state;
	tmp_make(&t);
	log = open(t.log, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	assert_true(log >= 0);
	one_open(&o, "will_fail(write, ENOSPC, when(fd ~ \"*.log\", count == 5))\n");
	a[0] = (uint64_t)log;
	assert_true(holds(&o, a, &why));
	a[2] = 6;
	assert_false(holds(&o, a, &why));
	assert_int_equal(why.param, 2);
	assert_int_equal(why.is_text, 0);
	a[2] = 5;
	a[0] = 1;
	assert_false(holds(&o, a, &why));
	assert_int_equal(why.param, 0);
	assert_int_equal(why.is_text, 1);
	one_close(&o);
	close(log);
	tmp_remove(&t);
}

/* ---- at=: a call's site in one of the ranges ---- */

/* A resolver as the symbolizer's: "fn" is two ranges of "unit" (a
 * function split in two, the tier's hook gives "unit" and the caller's
 * value as the site) and one of another object; "none" resolves to no
 * range, with a warning; anything else is an error. */
static int resolve(void *ctx, const char *text, struct ms_site_range *out, unsigned max,
		   unsigned *n, char *msg, size_t msglen)
{
	(void)ctx;
	assert_true(max >= 3);
	*n = 0;
	if (!strcmp(text, "fn")) {
		out[0] = (struct ms_site_range){ "/usr/lib/unit", 0x100, 0x1ff };
		out[1] = (struct ms_site_range){ "unit", 0x400, 0x400 };
		out[2] = (struct ms_site_range){ "other.so", 0x300, 0x3ff };
		*n = 3;
		return 0;
	}
	if (!strcmp(text, "none")) {
		snprintf(msg, msglen, "none is never called");
		return 1;
	}
	snprintf(msg, msglen, "no function %s; closest: fn", text);
	return -1;
}

static struct ms_chan_hdr *at_channel(struct ms_spec *spec, const char *text, struct ms_diag *d,
				      int *rc)
{
	struct ms_chan_hdr *h;
	uint64_t size;

	ms_spec_init(spec, realloc, free);
	ms_parse_set_at_resolver(spec, resolve, NULL);
	*rc = ms_parse(spec, "spec", text, strlen(text), d);
	if (*rc)
		return NULL;
	size = ms_channel_size(spec, 16);
	h = calloc(1, size);
	assert_non_null(h);
	ms_channel_write(spec, h, size, 16, 0);
	assert_null(ms_channel_validate(h, size));
	return h;
}

static void test_at_ranges(void **state)
{
	static const struct {
		uintptr_t site;
		int holds;
	} calls[] = {
		{ 0xff, 0 }, { 0x100, 1 }, { 0x180, 1 }, { 0x1ff, 1 }, { 0x200, 0 },
		{ 0x300, 0 }, /* other.so's range, but the call is unit's */
		{ 0x400, 1 }, { 0x401, 0 },
	};
	struct ms_spec spec;
	struct ms_diag d;
	struct ms_passby why;
	uint64_t a[MS_MAX_PARAMS] = { 0 };
	struct ms_chan_hdr *h;
	const struct ms_stmt *s;
	int rc;

	(void)state;
	h = at_channel(&spec, "will_fail(read, EIO, at=\"fn\")", &d, &rc);
	assert_int_equal(rc, 0);
	s = &((const struct ms_rule *)ms_chan_at(h, h->rules_off))->stmt;
	assert_int_equal(s->ncond, 1);
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		memset(&why, 0, sizeof(why));
		assert_int_equal(ms_conds_hold(h, s, a, (const void *)calls[i].site, &why), calls[i].holds);
		if (!calls[i].holds) {
			char want[32];

			snprintf(want, sizeof(want), "unit+%#lx", (unsigned long)calls[i].site);
			assert_int_equal(why.param, MS_SITE_PARAM);
			assert_string_equal(why.text, want);
		}
	}
	/* no site known (the hook says none): never */
	assert_int_equal(ms_conds_hold(h, s, a, NULL, &why), 0);
	assert_string_equal(why.text, "?");
	ms_spec_fini(&spec);
	free(h);

	/* at= after when(): both hold */
	h = at_channel(&spec, "will_fail(read, EIO, at=\"unit+0x10\", when(fd == 3))", &d, &rc);
	assert_int_equal(rc, 0);
	s = &((const struct ms_rule *)ms_chan_at(h, h->rules_off))->stmt;
	assert_int_equal(s->ncond, 2);
	a[0] = 3;
	assert_int_equal(ms_conds_hold(h, s, a, (const void *)0x10, NULL), 1);
	assert_int_equal(ms_conds_hold(h, s, a, (const void *)0x11, NULL), 0);
	a[0] = 4;
	assert_int_equal(ms_conds_hold(h, s, a, (const void *)0x10, NULL), 0);
	ms_spec_fini(&spec);
	free(h);

	/* a warning: no range, the statement is for no call */
	h = at_channel(&spec, "will_fail(read, EIO, at=\"none\")", &d, &rc);
	assert_int_equal(rc, 0);
	s = &((const struct ms_rule *)ms_chan_at(h, h->rules_off))->stmt;
	assert_int_equal(ms_conds_hold(h, s, a, (const void *)0x100, NULL), 0);
	ms_spec_fini(&spec);
	free(h);

	/* the resolver's error, at the value */
	h = at_channel(&spec, "will_fail(read, EIO, at=\"fm\")", &d, &rc);
	assert_null(h);
	assert_int_equal(rc, -EINVAL);
	assert_non_null(strstr(d.msg, "at=\"fm\": no function fm; closest: fn"));
	assert_int_equal(d.col, 25);
	ms_spec_fini(&spec);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_glob_forms),
		cmocka_unit_test(test_glob_negated_null_and_exact),
		cmocka_unit_test(test_glob_string_across_pages),
		cmocka_unit_test(test_fd_path),
		cmocka_unit_test(test_addr),
		cmocka_unit_test(test_bits),
		cmocka_unit_test(test_sets),
		cmocka_unit_test(test_comparisons),
		cmocka_unit_test(test_all_conditions),
		cmocka_unit_test(test_at_ranges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
