/* SPDX-License-Identifier: MIT */
/* A library with functions of every kind a declared prototype takes. */
#ifndef DECL_H
#define DECL_H

#include <stdbool.h>
#include <stdint.h>

struct rec {
	int id;
	char name[16];
	const char *tag;
	double v;
};

int decl_add(int a, int b);
double decl_scale(double x, int k, double y);
long decl_many(int a, int b, int c, int d, int e, int f, double x1, double x2, double x3,
	       double x4, double x5, double x6, double x7, double x8);
int decl_get(int id, struct rec *out);
const char *decl_name(int id);
char *decl_dup(const char *s);
bool decl_ok(int8_t x);
void decl_note(const char *msg);
/* calls decl_add: a call made inside the library */
int decl_twice(int a);
int (*decl_add_ptr(void))(int, int);
int decl_fail(void);

#endif
