/* SPDX-License-Identifier: MIT */
/* Call sites' symbolizer, mockrun's side (sites/): the protocol's pieces,
 * and the client against a helper of the test's own (a shell script
 * speaking the protocol) or none. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "sites/sites.h"

static void site_parse(void **state)
{
	char obj[64];
	uint64_t off = 0;

	assert_int_equal(ms_site_parse("jq+0x2b7c4", obj, sizeof(obj), &off), 10);
	assert_string_equal(obj, "jq");
	assert_int_equal(off, 0x2b7c4);
	/* the last "+0x": libstdc++'s name has a '+' */
	assert_int_equal(ms_site_parse("libstdc++.so.6+0x10 (f)", obj, sizeof(obj), &off), 19);
	assert_string_equal(obj, "libstdc++.so.6");
	assert_int_equal(off, 0x10);
	assert_int_equal(ms_site_parse("jq+0x", obj, sizeof(obj), &off), 0);
	assert_int_equal(ms_site_parse("jq", obj, sizeof(obj), &off), 0);
	assert_int_equal(ms_site_parse("jq+0x12g", obj, sizeof(obj), &off), 0);
	assert_int_equal(ms_site_parse("+0x12", obj, sizeof(obj), &off), 0);
	assert_int_equal(ms_site_parse("jq+0x11112222333344445", obj, sizeof(obj), &off), 0);
	assert_int_equal(ms_site_parse("averyveryverylongname+0x1", obj, 8, &off), 0);
}

static void site_in_line(void **state)
{
	const char *l = "malloc(16) = 0x5581 at jq+0x2b7c4\n";

	(void)state;
	assert_ptr_equal(ms_site_in_line(l, strlen(l)), strstr(l, "jq+"));
	l = "malloc(16) = 0x5581 at jq+0x2b7c4";
	assert_ptr_equal(ms_site_in_line(l, strlen(l)), strstr(l, "jq+"));
	l = "malloc(16) = 0x5581\n";
	assert_null(ms_site_in_line(l, strlen(l)));
	l = "open(\"a at b\") = 3 at jq+0x2b7c4 extra\n";
	assert_null(ms_site_in_line(l, strlen(l)));
	l = "write(1, \"at x+0x1\") = 5 at sat+0x1\n";
	assert_ptr_equal(ms_site_in_line(l, strlen(l)), strstr(l, "sat+"));
	l = "x = 1 at nowhere\n";
	assert_null(ms_site_in_line(l, strlen(l)));
}

static void answers(void **state)
{
	struct ms_sym_range r;
	const char *m = NULL;

	(void)state;
	assert_int_equal(ms_sym_parse_range("range jq 0x11 0x2f", &r), 0);
	assert_string_equal(r.object, "jq");
	assert_int_equal(r.lo, 0x11);
	assert_int_equal(r.hi, 0x2f);
	assert_int_equal(ms_sym_parse_range("range jq 0x11", &r), -1);
	assert_int_equal(ms_sym_parse_range("range jq 0x30 0x2f", &r), -1);
	assert_int_equal(ms_sym_parse_range("range jq 0x1 0x2 x", &r), -1);
	assert_int_equal(ms_sym_parse_range("range  0x1 0x2", &r), -1);
	assert_int_equal(ms_sym_parse_end("end 0", &m), 0);
	assert_string_equal(m, "");
	assert_int_equal(ms_sym_parse_end("end 1 careful", &m), 1);
	assert_string_equal(m, "careful");
	assert_int_equal(ms_sym_parse_end("end -1 no function 'x'", &m), -1);
	assert_string_equal(m, "no function 'x'");
	assert_int_equal(ms_sym_parse_end("end 2 x", &m), -2);
	assert_int_equal(ms_sym_parse_end("end 10", &m), -2);
	assert_int_equal(ms_sym_parse_end("range jq 0x1 0x2", &m), -2);
}

static void distance(void **state)
{
	(void)state;
	assert_int_equal(ms_sym_distance("jv_mem_alloc", "jv_mem_alloc", 3), 0);
	assert_int_equal(ms_sym_distance("jv_mem_aloc", "jv_mem_alloc", 3), 1);
	assert_int_equal(ms_sym_distance("kitten", "sitting", 3), 3);
	assert_int_equal(ms_sym_distance("malloc", "free", 3), 4);
	assert_int_equal(ms_sym_distance("a", "abcdef", 3), 4);
	assert_int_equal(ms_sym_distance("", "ab", 3), 2);
}

/* a helper of the test's own, written to a file; its path */
static char *fake_helper(const char *body)
{
	char *path = strdup("/tmp/mockshim-fake-symbolize.XXXXXX");
	FILE *f;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	fprintf(f, "#!/bin/sh\n%s", body);
	fclose(f);
	chmod(path, 0700);
	return path;
}

static const char *speaker =
	"while read -r req arg; do\n"
	"  case $req in\n"
	"  hello) echo 'ok mockshim-symbolize 1' ;;\n"
	"  obj) echo 'ok 2' ;;\n"
	"  sym) case $arg in prog+0x10) echo '= f, f.c:3' ;; *) echo '-' ;; esac ;;\n"
	"  at) case $arg in\n"
	"      two) echo 'range prog 0x11 0x20'; echo 'range lib.so 0x1 0x2'; echo 'end 1 a warning' ;;\n"
	"      *) echo \"end -1 no function '$arg'\" ;; esac ;;\n"
	"  esac\n"
	"done\n";

static void client_speaks(void **state)
{
	char *h = fake_helper(speaker), out[256], msg[256];
	struct ms_sym *s = ms_sym_new(h);
	struct ms_sym_range r[4];
	unsigned n = 9;
	const char *line = "write(1, \"x\", 1) = 1 at prog+0x10\n";

	(void)state;
	assert_non_null(s);
	assert_int_equal(ms_sym_add_program(s, "prog"), 0);
	assert_int_equal(ms_sym_line(s, line, strlen(line), out, sizeof(out)),
			 strlen(line) + strlen(" (f, f.c:3)"));
	assert_string_equal(out, "write(1, \"x\", 1) = 1 at prog+0x10 (f, f.c:3)\n");
	assert_string_equal(ms_sym_error(s), "");
	/* nothing known: the line as it was */
	line = "write(1, \"x\", 1) = 1 at prog+0x11\n";
	ms_sym_line(s, line, strlen(line), out, sizeof(out));
	assert_string_equal(out, line);
	assert_int_equal(ms_sym_site(s, "prog", 0x10, out, sizeof(out)), 11);
	assert_string_equal(out, " (f, f.c:3)");
	assert_int_equal(ms_sym_at(s, "two", r, 4, &n, msg, sizeof(msg)), 1);
	assert_int_equal(n, 2);
	assert_string_equal(msg, "a warning");
	assert_string_equal(r[0].object, "prog");
	assert_int_equal(r[0].lo, 0x11);
	assert_int_equal(r[1].hi, 0x2);
	/* more ranges than room: the first ones, the answer read through */
	assert_int_equal(ms_sym_at(s, "two", r, 1, &n, msg, sizeof(msg)), 1);
	assert_int_equal(n, 1);
	assert_int_equal(ms_sym_at(s, "nope", r, 4, &n, msg, sizeof(msg)), -1);
	assert_int_equal(n, 0);
	assert_string_equal(msg, "no function 'nope'");
	/* a request of two lines is never sent */
	assert_int_equal(ms_sym_at(s, "a\nb", r, 4, &n, msg, sizeof(msg)), -1);
	ms_sym_free(s);
	unlink(h);
	free(h);
}

static void client_without_helper(void **state)
{
	struct ms_sym *s;
	struct ms_sym_range r[1];
	unsigned n = 9;
	char out[256], msg[512];
	const char *line = "read(0) = 1 at prog+0x10\n";

	(void)state;
	setenv("MOCKSHIM_SYMBOLIZER", "/nonexistent/mockshim-symbolize", 1);
	assert_null(ms_sym_find_helper());
	s = ms_sym_new(NULL);
	assert_non_null(s);
	assert_int_equal(ms_sym_site(s, "prog", 0x10, out, sizeof(out)), 0);
	assert_string_equal(out, "");
	assert_int_equal(ms_sym_line(s, line, strlen(line), out, sizeof(out)), strlen(line));
	assert_string_equal(out, line);
	assert_int_equal(ms_sym_at(s, "main", r, 1, &n, msg, sizeof(msg)), -1);
	assert_int_equal(n, 0);
	assert_non_null(strstr(msg, "a function's name or FILE:LINE needs the call sites' symbolizer"));
	assert_non_null(strstr(msg, "MOCKSHIM_SYMBOLIZER=/nonexistent/mockshim-symbolize is no program"));
	ms_sym_free(s);
	unsetenv("MOCKSHIM_SYMBOLIZER");
}

static void client_helper_fails(void **state)
{
	char *h = fake_helper("read -r x; echo 'ok somebody-else 7'\n"), *g = fake_helper("exit 3\n");
	char out[64], msg[512];
	struct ms_sym *s = ms_sym_new(h);
	struct ms_sym_range r[1];
	unsigned n;

	(void)state;
	assert_int_equal(ms_sym_start(s), -1);
	assert_non_null(strstr(ms_sym_error(s), "not a symbolizer of protocol 1"));
	assert_int_equal(ms_sym_site(s, "prog", 0x10, out, sizeof(out)), 0);
	ms_sym_free(s);
	s = ms_sym_new(g);
	assert_int_equal(ms_sym_at(s, "main", r, 1, &n, msg, sizeof(msg)), -1);
	assert_non_null(strstr(msg, g));
	assert_true(strstr(msg, "it exited") || strstr(msg, "it went away"));
	ms_sym_free(s);
	unlink(h);
	unlink(g);
	free(h);
	free(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(site_parse),	   cmocka_unit_test(site_in_line),
		cmocka_unit_test(answers),	   cmocka_unit_test(distance),
		cmocka_unit_test(client_speaks),   cmocka_unit_test(client_without_helper),
		cmocka_unit_test(client_helper_fails),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
