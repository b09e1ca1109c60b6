/* SPDX-License-Identifier: MIT */
/* Declared prototypes and struct declarations: what they compile to, and
 * every refusal with its position. */
#include <stdio.h>
#include "parse_fixture.h"
#include "lang/lang.h"
#include "catalog/catalog.h"

static const struct ms_fn_meta *declared(void **state, const char *name)
{
	struct fixture *f = *state;
	int id = ms_spec_find(&f->spec, name, strlen(name));

	assert_true(id >= (int)MS_FN_COUNT);
	return ms_spec_meta(&f->spec, (unsigned)id);
}

static const struct ms_out *out(void **state, const struct ms_rule *r, uint32_t k)
{
	struct fixture *f = *state;

	assert_true(k < r->nouts);
	return &f->spec.outs[r->outs_first + k];
}

static void test_chef_cook(void **state)
{
	struct fixture *f = *state;
	const struct ms_fn_meta *m;
	const struct ms_rule *r;
	const struct ms_out *o;

	assert_int_equal(parse(f, "mock int chef_cook(const char *order, char **dish_out)\n"
				  "expect_string(chef_cook, order, \"hotdog\")\n"
				  "will_return(chef_cook, 0, *dish_out=\"burger\")"),
			 0);
	m = declared(state, "chef_cook");
	assert_true(m->declared);
	assert_false(m->handler);
	assert_int_equal(f->spec.ndeclared, 1);
	assert_string_equal(m->ret_text, "int");
	assert_string_equal(m->proto, "(const char *order, char **dish_out)");
	assert_int_equal(m->nparams, 2);
	assert_int_equal(m->params[0].type.tclass, MS_T_STR);
	assert_int_equal(m->params[1].type.tclass, MS_T_PTR);
	assert_string_equal(pool(state, m->pool_decl),
			    "int chef_cook(const char *order, char **dish_out)");
	/* the output: a copy the caller owns */
	assert_int_equal(m->nouts, 1);
	assert_int_equal(m->outs[0].kind, MS_OK_STRPTR);
	assert_int_equal(m->outs[0].param, 1);
	assert_true(m->outs[0].owned);
	r = rule(state, 0);
	assert_int_equal(r->stmt.fn, MS_FN_COUNT);
	assert_int_equal(r->value, 0);
	o = out(state, r, 0);
	assert_int_equal(o->kind, MS_O_STRDUP);
	assert_int_equal(o->param, 1);
	assert_string_equal(pool(state, o->data), "burger");
	assert_int_equal(f->spec.expects[0].kind, MS_X_STRING);
	/* the same declaration again is no change */
	assert_int_equal(parse(f, "mock int chef_cook(const char  *order,char **dish_out)"), 0);
	assert_int_equal(f->spec.ndeclared, 1);
}

static void test_types(void **state)
{
	struct fixture *f = *state;
	const struct ms_fn_meta *m;
	double d;

	assert_int_equal(parse(f, "mock double area(double w, double h, unsigned char scale)\n"
				  "will_return(area, 2.5)\n"
				  "expect_value(area, w, 1.5)\n"
				  "mock void ping(void)\n"
				  "will_return(ping, _)\n"
				  "mock const char *name_of(int16_t id)\n"
				  "will_return(name_of, \"x\")\n"
				  "mock char *dup_of(long id)\n"
				  "will_return(dup_of, \"y\")\n"
				  "mock void *handle(unsigned long long n, bool *ok, size_t *len)\n"
				  "will_return(handle, 0x1000, *ok=true, *len=7)\n"
				  "mock int names(const char **out, const char *const *in)\n"
				  "will_return(names, 1, *out=\"z\")"),
			 0);
	m = declared(state, "area");
	assert_int_equal(m->ret.tclass, MS_T_DOUBLE);
	assert_int_equal(m->params[0].type.tclass, MS_T_DOUBLE);
	assert_int_equal(m->params[2].type.tclass, MS_T_UINT);
	assert_int_equal(m->params[2].type.size, 1);
	assert_true(rule(state, 0)->flags & MS_RF_DOUBLE);
	memcpy(&d, &rule(state, 0)->value, sizeof(d));
	assert_true(d == 2.5);
	memcpy(&d, &f->spec.expects[0].lo, sizeof(d));
	assert_true(d == 1.5);
	assert_true(rule(state, 1)->flags & MS_RF_DEFAULT);
	assert_int_equal(rule(state, 2)->flags, MS_RF_STRVAL);
	assert_int_equal(rule(state, 3)->flags, MS_RF_STRVAL | MS_RF_OWNED);
	m = declared(state, "name_of");
	assert_int_equal(m->params[0].type.size, 2);
	assert_int_equal(rule(state, 4)->value, 0x1000);
	assert_int_equal(out(state, rule(state, 4), 0)->len, 1); /* bool */
	assert_int_equal(out(state, rule(state, 4), 1)->len, 8); /* size_t */
	/* const char **: our string; const char *const *: not an output */
	assert_int_equal(out(state, rule(state, 5), 0)->kind, MS_O_POOLPTR);
	m = declared(state, "names");
	assert_int_equal(m->nouts, 1);
}

static void test_struct(void **state)
{
	struct fixture *f = *state;
	const struct ms_struct_desc *sd;
	const struct ms_rule *r;
	const char *bytes;
	double price;
	int32_t id;

	assert_int_equal(parse(f, "struct dish {\n"
				  "\tint id; char name[16];\n"
				  "\tconst char *chef; double price; bool hot;\n"
				  "}\n"
				  "mock int get_dish(int id, struct dish *out)\n"
				  "will_return(get_dish, 0, *out={.id = 7, .name = \"pie\", "
				  ".chef = \"anna\", .price = 2.5, .hot = true})"),
			 0);
	sd = ms_spec_struct_find(&f->spec, "dish");
	assert_non_null(sd);
	assert_int_equal(sd->nfields, 5);
	assert_int_equal(sd->fields[1].off, 4);
	assert_int_equal(sd->fields[2].off, 24);
	assert_int_equal(sd->fields[3].off, 32);
	assert_int_equal(sd->fields[4].off, 40);
	assert_int_equal(sd->size, 48);
	r = rule(state, 0);
	assert_int_equal(r->nouts, 2);
	assert_int_equal(out(state, r, 0)->kind, MS_O_STORE);
	assert_int_equal(out(state, r, 0)->len, 48);
	bytes = pool(state, out(state, r, 0)->data);
	memcpy(&id, bytes, 4);
	assert_int_equal(id, 7);
	assert_string_equal(bytes + 4, "pie");
	memcpy(&price, bytes + 32, 8);
	assert_true(price == 2.5);
	assert_int_equal(bytes[40], 1);
	/* the string field: a pointer the shim sets in each process */
	assert_int_equal(out(state, r, 1)->kind, MS_O_POOLPTR);
	assert_int_equal(out(state, r, 1)->len, 24);
	assert_string_equal(pool(state, out(state, r, 1)->data), "anna");
}

static void test_multiline_and_limits(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(parse(f, "mock int six(int a, int b,\n"
				  "             int c, int d, int e, int g,\n"
				  "             double x1, double x2, double x3, double x4,\n"
				  "             double x5, double x6, double x7, double x8)\n"
				  "will_return(six, 1)"),
			 0);
	assert_int_equal(declared(state, "six")->nparams, 14);
	assert_int_equal(rule(state, 0)->stmt.line, 5);
}

static void test_errors(void **state)
{
	expect_error(state, "mock int f(int a, ...)", 1, 19, "variadic");
	expect_error(state, "mock int f(struct s v)", 1, 12, "by value");
	expect_error(state, "mock float f(void)", 1, 6, "float is not supported");
	expect_error(state, "mock int f(long double x)", 1, 12, "long double");
	expect_error(state, "mock int f(foo_t x)", 1, 12, "unknown type 'foo_t'");
	expect_error(state, "mock int f(int)", 1, 14, "expected a name");
	expect_error(state, "mock int f(int x, int x)", 1, 23, "'x' given twice");
	expect_error(state, "mock int f(int x", 1, 11, "'(' without its ')'");
	expect_error(state, "mock int f(int x,\n  int y\nwill_return(getuid, 1)", 1, 11,
		     "'(' without its ')'");
	expect_error(state, "mock int f(int a, # the first\n  double b) # done\nwill_fail(f)", 3, 11,
		     "cannot fail");
	expect_error(state, "mock int f(int a[])", 1, 17, "array parameters");
	expect_error(state, "mock (int x)", 1, 6, "expected the function's name");
	{
		char text[400] = "mock int ";

		memset(text + 9, 'f', 200);
		strcpy(text + 209, "(void)");
		expect_error(state, text, 1, 10, "function name too long");
	}
	expect_error(state, "mock int f(int x)\nmock long f(int x)", 2, 11,
		     "declared already, otherwise: int f(int x)");
	expect_error(state, "mock int f(int a, int b, int c, int d, int e, int g, int h)", 1, 54,
		     "more than 6 integer");
	expect_error(state,
		     "mock int f(double a, double b, double c, double d, double e, double g,\n"
		     "  double h, double i, double j)",
		     2, 23, "more than 8 double");
	expect_error(state, "mock int f(int a,\n  frob x)", 2, 3, "unknown type 'frob'");
	expect_error(state, "mock int f(int x)\nwill_fail(f)", 2, 11, "cannot fail");
	expect_error(state, "mock int f(double x)\nexpect_in_range(f, x, 1, 2)", 2, 20,
		     "'x' is a double");
	expect_error(state, "mock int f(int *p)\nwill_return(f, 0, *p=\"s\")", 2, 22,
		     "needs an integer");
	expect_error(state, "mock int f(uint8_t *p)\nwill_return(f, 0, *p=300)", 2, 22,
		     "does not fit");
	expect_error(state, "mock int f(struct nodecl *p)\nwill_return(f, 0, *p={1})", 2, 19,
		     "struct nodecl is not declared");
	expect_error(state, "mock int f(char **p)\nwill_return(f, 0, *p=3)", 2, 22,
		     "needs a string or NULL");
	expect_error(state, "mock double f(void)\nwill_return(f, \"x\")", 2, 16,
		     "expected a number");
	/* the two sides of one check (compile_base.c): a return value, a parameter */
	expect_error(state, "mock double f(void)\nwill_return(f, NULL)", 2, 16,
		     "f() returns double: expected a number, not NULL");
	expect_error(state, "mock int f(double x)\nexpect_value(f, x, \"s\")", 2, 20,
		     "'x' is a double: expected a number, not a string");
}

/* A declaration of a catalog function (renameat2 in a spec older than
 * its row): a warning where it is, and the catalog's row answers. */
static char warned[300];
static uint32_t warned_line, warned_col;

static void catch_warning(void *ctx, const char *src, uint32_t line, uint32_t col, const char *msg)
{
	(void)ctx;
	snprintf(warned, sizeof(warned), "%s: %s", src, msg);
	warned_line = line;
	warned_col = col;
}

static void test_catalog_declared(void **state)
{
	struct fixture *f = *state;

	f->spec.warn_fn = catch_warning;
	assert_int_equal(parse(f, "will_return(getuid, 1)\nmock int getpid(void)\nwill_return(getpid, 7)"), 0);
	assert_non_null(strstr(warned, "t.mock: getpid() is in the catalog now: its row is used"));
	assert_int_equal(warned_line, 2);
	assert_int_equal(warned_col, 10);
	assert_int_equal(f->spec.rules[1].stmt.fn, MS_ID_getpid);
	assert_int_equal(f->spec.ndyn, 0);
}

static void test_struct_errors(void **state)
{
	expect_error(state, "struct s { int a; }\nstruct s { int b; }", 2, 8,
		     "struct s is declared already");
	expect_error(state, "struct s { float a; }", 1, 12, "float is not supported");
	expect_error(state, "struct s { int a[3]; }", 1, 12, "only char arrays");
	expect_error(state, "struct s { int a }", 1, 18, "expected ';'");
	expect_error(state, "struct s { }", 1, 10, "has no fields");
	expect_error(state, "struct { int a; }", 1, 8, "expected the struct's tag");
	expect_error(state, "struct s { int a; int a; }", 1, 23, "'a' given twice");
	expect_error(state, "struct s { char big[2000]; }", 1, 12, "larger than 1024");
	expect_error(state, "struct timespec { char pad[40]; }", 1, 8, "the catalog's already");
	expect_error(state, "struct s { int a; # the first\n int b; # ) }\n }\nstruct s2 { int c; float d; }",
		     4, 20, "float is not supported");
	expect_error(state, "struct s { int a;\n  int b;\nwill_return(getuid, 1)", 1, 10,
		     "'{' without its '}'");
	expect_error(state, "struct s { int a;\n  int b;\n", 1, 10, "'{' without its '}'");
	expect_error(state,
		     "struct s { int a; const char *name; }\nmock int f(struct s *p)\n"
		     "will_return(f, 0, *p={.a = 1, .name = 2.5})",
		     3, 39, "field name needs a string or NULL");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
		T(test_chef_cook),
		T(test_types),
		T(test_struct),
		T(test_multiline_and_limits),
		T(test_errors),
		T(test_struct_errors),
		T(test_catalog_declared),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
