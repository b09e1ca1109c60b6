/* SPDX-License-Identifier: MIT */
/* The one C type parser and its type table (catalog/ctype.c): what a type
 * reads as, where and why one is refused, and the table's figures beside
 * the compiler's. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fts.h>
#include <glob.h>
#include <limits.h>
#include <mqueue.h>
#include <poll.h>
#include <pthread.h>
#include <resolv.h>
#include <sched.h>
#include <semaphore.h>
#include <setjmp.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <wchar.h>
#include <cmocka.h>

#include "catalog/catalog.h"

/* [text, end): 0 or -EINVAL, the message in msg and its offset in *at. */
static int parse(const char *text, struct ms_ctype *ct, const char **name, size_t *name_n,
		 unsigned flags, char *msg, size_t cap, long *at)
{
	struct ms_ctype_err err = { msg, cap, NULL };
	int r;

	msg[0] = '\0';
	r = ms_ctype_parse(text, text + strlen(text), ct, name, name_n, NULL, flags, &err);
	*at = err.where ? err.where - text : -1;
	return r;
}

/* A type that reads: its class, size and '*'s. */
static struct ms_ctype good(const char *text, uint8_t tclass, uint8_t size, unsigned depth)
{
	struct ms_ctype ct;
	char msg[200];
	long at;

	if (parse(text, &ct, NULL, NULL, MS_CT_STRICT, msg, sizeof(msg), &at))
		fail_msg("'%s': refused: %s", text, msg);
	if (ct.t.tclass != tclass || ct.t.size != size || ct.depth != depth)
		fail_msg("'%s': class %u size %u depth %u, expected %u %u %u", text, ct.t.tclass,
			 ct.t.size, ct.depth, tclass, size, depth);
	return ct;
}

/* A type refused at offset at with a message holding want. */
static void bad(const char *text, unsigned flags, long want_at, const char *want)
{
	struct ms_ctype ct;
	const char *name = NULL;
	size_t name_n = 0;
	char msg[200];
	long at;

	assert_int_equal(parse(text, &ct, &name, &name_n, flags, msg, sizeof(msg), &at), -EINVAL);
	if (!strstr(msg, want))
		fail_msg("'%s': message '%s' lacks '%s'", text, msg, want);
	if (at != want_at)
		fail_msg("'%s': refused at %ld, expected %ld (%s)", text, at, want_at, msg);
}

static void test_pointer_levels(void **state)
{
	struct ms_ctype ct;

	(void)state;
	ct = good("int", MS_T_INT, 4, 0);
	assert_int_equal(ct.base_class, MS_T_INT);
	/* char * is a string to the rules; char ** a pointer */
	good("char *", MS_T_STR, 8, 1);
	ct = good("char **", MS_T_PTR, 8, 2);
	assert_true(ct.is_char);
	good("int ***", MS_T_PTR, 8, 3);
	ct = good("void *", MS_T_PTR, 8, 1);
	assert_true(ct.is_void);
	good("void", MS_T_VOID, 0, 0);
	ct = good("struct stat *", MS_T_PTR, 8, 1);
	assert_string_equal(ct.t.strct, "stat");
	assert_string_equal(ct.base, "stat");
	/* the text as the rules show it: white space folded */
	ct = good("const  char\t*", MS_T_STR, 8, 1);
	assert_string_equal(ct.t.text, "const char *");
}

static void test_const(void **state)
{
	struct ms_ctype ct;

	(void)state;
	/* konst[k]: what k '*'s point through is const */
	ct = good("const char **", MS_T_PTR, 8, 2);
	assert_int_equal(ct.konst[0], 1);
	assert_int_equal(ct.konst[1], 0);
	assert_int_equal(ct.konst[2], 0);
	ct = good("char *const *", MS_T_PTR, 8, 2);
	assert_int_equal(ct.konst[0], 0);
	assert_int_equal(ct.konst[1], 1);
	ct = good("char const *", MS_T_STR, 8, 1);
	assert_int_equal(ct.konst[0], 1);
	ct = good("int *const", MS_T_PTR, 8, 1);
	assert_int_equal(ct.konst[0], 0);
	assert_int_equal(ct.konst[1], 1);
}

static void test_unsigned_forms(void **state)
{
	struct ms_ctype ct;

	(void)state;
	good("unsigned", MS_T_UINT, 4, 0);
	good("unsigned int", MS_T_UINT, 4, 0);
	good("unsigned long", MS_T_UINT, 8, 0);
	good("unsigned long long int", MS_T_UINT, 8, 0);
	good("long unsigned", MS_T_UINT, 8, 0);
	good("unsigned short", MS_T_UINT, 2, 0);
	ct = good("unsigned char", MS_T_UINT, 1, 0);
	assert_true(ct.is_char);
	ct = good("signed char", MS_T_INT, 1, 0);
	assert_true(ct.is_char);
	good("short int", MS_T_INT, 2, 0);
	good("long long", MS_T_INT, 8, 0);
	good("long", MS_T_INT, 8, 0);
	ct = good("unsigned char *", MS_T_STR, 8, 1);
	assert_int_equal(ct.base_class, MS_T_UINT);
	bad("long double x", 0, 0, "long double is not supported");
	/* after unsigned, a word that is no keyword is the name */
	bad("unsigned x y", 0, 11, "unexpected 'y' after 'x'");
}

static void test_named(void **state)
{
	struct ms_ctype ct;
	const char *name = NULL;
	size_t name_n = 0;
	char msg[200];
	long at;

	(void)state;
	ct = good("size_t", MS_T_UINT, 8, 0);
	assert_string_equal(ct.base, "size_t");
	good("off_t", MS_T_INT, 8, 0);
	good("uid_t", MS_T_UINT, 4, 0);
	good("uint16_t", MS_T_UINT, 2, 0);
	good("ms_dirent_filter", MS_T_PTR, 8, 0);
	ct = good("bool", MS_T_UINT, 1, 0);
	assert_true(ct.is_bool);
	ct = good("const FILE *", MS_T_PTR, 8, 1);
	assert_string_equal(ct.base, "FILE");
	/* with a name after it: the name's place and length */
	{
		static const char text[] = "const size_t *count";

		assert_int_equal(parse(text, &ct, &name, &name_n, MS_CT_STRICT, msg, sizeof(msg),
				       &at), 0);
		assert_ptr_equal(name, text + 14);
		assert_int_equal(name_n, 5);
		assert_int_equal(ct.t.tclass, MS_T_PTR);
		assert_string_equal(ct.t.text, "const size_t *");
	}
	bad("FILE f", 0, 0, "FILE is passed by pointer only: write FILE *");
	bad("size_t", 0, 5, "expected a name after the type");
}

static void test_unknown(void **state)
{
	struct ms_ctype ct;
	char msg[200];
	long at;

	(void)state;
	/* a statement's declaration: where, and what the parser takes */
	bad("frob x", 0, 0, "unknown type 'frob' (declared prototypes take int, long");
	bad("const frob x", 0, 6, "unknown type 'frob'");
	/* a catalog row: strict, even behind a pointer */
	bad("const frob *p", MS_CT_STRICT, 6,
	    "unknown type 'frob': add it to the type table (catalog/ctype.h)");
	/* a declared prototype: a pointer to what the table does not know is
	 * opaque */
	assert_int_equal(parse("struct s *", &ct, NULL, NULL, 0, msg, sizeof(msg), &at), 0);
	assert_int_equal(parse("frob *", &ct, NULL, NULL, 0, msg, sizeof(msg), &at), 0);
	assert_int_equal(ct.base_class, MS_T_PTR);
	assert_int_equal(ct.t.tclass, MS_T_PTR);
	/* the removed entries are unknown now */
	bad("iconv_t x", 0, 0, "unknown type 'iconv_t'");
	bad("int x y", 0, 6, "unexpected 'y' after 'x'");
	bad("* p", 0, 0, "a '*' before any type");
	bad("int f, ...", 0, 5, "unexpected character ','");
	bad("float x", 0, 0, "float is not supported");
	bad("struct s v", 0, 0, "a struct is passed or returned by value");
}

/* Every entry of the table, read by the parser, beside what the compiler
 * says of the same name (this file includes their headers). */
static void test_table_vs_compiler(void **state)
{
	unsigned n = 0;

	(void)state;
#define SIGNED(name) ((name)((name)-1 >> 1) == (name)-1)
#define CHECK_INT(name, is_signed)                                                        \
	do {                                                                              \
		good(#name, (is_signed) ? MS_T_INT : MS_T_UINT, sizeof(name), 0);          \
		assert_int_equal(SIGNED(name), is_signed);                                \
		n++;                                                                      \
	} while (0);
#define CHECK_MS_T_INT(name, size) CHECK_INT(name, 1) assert_int_equal(sizeof(name), size);
#define CHECK_MS_T_UINT(name, size) CHECK_INT(name, 0) assert_int_equal(sizeof(name), size);
#define CHECK_MS_WCHAR_CLASS(name, size) CHECK_INT(name, SIGNED(name))
#define CHECK_MS_T_PTR(name, size) CHECK_PTR_##size(name)
#define CHECK_PTR_8(name)                                                                 \
	good(#name, MS_T_PTR, sizeof(name), 0);                                           \
	n++;
#define CHECK_PTR_0(name)                                                                 \
	good(#name " *", MS_T_PTR, sizeof(name *), 1);                                    \
	bad(#name " x", 0, 0, "is passed by pointer only");                               \
	n++;
	/* va_list: an array or a struct a call passes by address */
#define CHECK_MS_T_BYADDR(name, size)                                                     \
	good(#name, MS_T_PTR, sizeof(name *), 0);                                         \
	n++;
#define X(name, tclass, size) CHECK_##tclass(name, size)
	MS_CTYPE_TABLE(X)
#undef X
	assert_true(n >= 50);
	/* what the rules are told of the compiler's own types */
	good("char", CHAR_MIN < 0 ? MS_T_INT : MS_T_UINT, 1, 0);
	good("double", MS_T_DOUBLE, sizeof(double), 0);
	good("int", MS_T_INT, sizeof(int), 0);
	good("long", MS_T_INT, sizeof(long), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pointer_levels),
		cmocka_unit_test(test_const),
		cmocka_unit_test(test_unsigned_forms),
		cmocka_unit_test(test_named),
		cmocka_unit_test(test_unknown),
		cmocka_unit_test(test_table_vs_compiler),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
