/* SPDX-License-Identifier: MIT */
/*
 * The one C type parser and type table: catalog rows (catalog/catalog.c,
 * checked at build time by catalog-check.c), handler modules'
 * declarations and `mock` statements (lang/declare.c) read their
 * types here, so that a type means the same in all three.  A type the
 * table does not know is an error: at build time for a catalog row, with
 * its position for a statement.
 */
#ifndef MS_CTYPE_H
#define MS_CTYPE_H

#include <stddef.h>
#include <stdint.h>

#include "catalog.h"

/* A C type, as far as the stubs, the rules and the outputs need it. */
struct ms_ctype {
	struct ms_type t;	/* class and size as the rules see them */
	unsigned depth;		/* '*'s */
	uint8_t is_void, is_char, is_bool, is_double, is_struct;
	uint8_t konst[8];	/* konst[k]: what k '*'s point through is const */
	uint8_t base_class, base_size;	/* of the type under the '*'s */
	char base[24];		/* the struct tag, or the scalar's name */
};

/* Where and why a type was refused. */
struct ms_ctype_err {
	char *msg;
	size_t cap;
	const char *where;
};

enum {
	/* a pointer to a type the table does not know is an error too (the
	 * catalog's rows), not an opaque pointer (declared prototypes) */
	MS_CT_STRICT = 1,
	/* the declaration may use `...` only where the catalog's variadic
	 * rows stop: never inside a type */
};

/* The lexical pieces of a C declaration, shared by the type parser and
 * the declarations' reader (lang/declare.c): a character of a name, and
 * [p, e) past white space. */
static inline int ms_ctype_is_id(int c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9');
}

static inline const char *ms_ctype_skip_ws(const char *p, const char *e)
{
	while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

/*
 * Parses [p, e) as a C type, with a trailing name when name is non-NULL
 * (a parameter or a field): 0, or -EINVAL with err filled.  *name and
 * *name_n are the name's, and *dims the array length of `char name[N]`
 * (fields only: dims non-NULL).  No allocation, no stdio on success.
 */
int ms_ctype_parse(const char *p, const char *e, struct ms_ctype *ct, const char **name,
		   size_t *name_n, unsigned *dims, unsigned flags, struct ms_ctype_err *err);

#endif
