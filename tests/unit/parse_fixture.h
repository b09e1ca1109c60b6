/* SPDX-License-Identifier: MIT */
/* The parser tests' fixture: a spec per test, and the error checker. */
#ifndef MS_PARSE_FIXTURE_H
#define MS_PARSE_FIXTURE_H

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "catalog/catalog.h"
#include "lang/lang.h"
#include "channel/channel.h"

struct fixture {
	struct ms_spec spec;
	struct ms_diag diag;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	ms_spec_init(&f->spec, realloc, free);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	ms_spec_fini(&f->spec);
	free(f);
	return 0;
}

static int parse(struct fixture *f, const char *text)
{
	return ms_parse(&f->spec, "t.mock", text, strlen(text), &f->diag);
}

/* Expects text to fail at line:col with msg containing want. */
static void expect_error(void **state, const char *text, uint32_t line, uint32_t col,
			 const char *want)
{
	struct fixture *f = *state;
	uint32_t before = f->spec.nrules;

	assert_int_equal(parse(f, text), -EINVAL);
	if (!strstr(f->diag.msg, want))
		fail_msg("'%s': message '%s' lacks '%s'", text, f->diag.msg, want);
	if (f->diag.line != line || f->diag.col != col)
		fail_msg("'%s': error at %u:%u, expected %u:%u (%s)", text, f->diag.line,
			 f->diag.col, line, col, f->diag.msg);
	assert_int_equal(f->spec.nrules, before);
}

static const struct ms_rule *rule(void **state, uint32_t i)
{
	struct fixture *f = *state;

	assert_true(i < f->spec.nrules);
	return &f->spec.rules[i];
}

static const char *pool(void **state, uint32_t off)
{
	struct fixture *f = *state;

	return f->spec.pool + off;
}

#endif
