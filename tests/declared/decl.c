/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decl.h"

int decl_add(int a, int b)
{
	return a + b;
}

double decl_scale(double x, int k, double y)
{
	return x * k + y;
}

long decl_many(int a, int b, int c, int d, int e, int f, double x1, double x2, double x3,
	       double x4, double x5, double x6, double x7, double x8)
{
	/* each argument weighed by its place: a swapped register shows */
	return a + 2L * b + 3L * c + 4L * d + 5L * e + 6L * f +
	       (long)(100 * x1 + 200 * x2 + 300 * x3 + 400 * x4 + 500 * x5 + 600 * x6 +
		      700 * x7 + 800 * x8);
}

int decl_get(int id, struct rec *out)
{
	out->id = id;
	snprintf(out->name, sizeof(out->name), "real%d", id);
	out->tag = "real-tag";
	out->v = id / 2.0;
	return 0;
}

const char *decl_name(int id)
{
	return id ? "real-name" : "real-zero";
}

char *decl_dup(const char *s)
{
	return strdup(s);
}

bool decl_ok(int8_t x)
{
	return x > 0;
}

void decl_note(const char *msg)
{
	printf("note: %s\n", msg);
}

int decl_fail(void)
{
	return 0;
}
