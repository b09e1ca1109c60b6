/* SPDX-License-Identifier: MIT */
/* mockrun -t: ${DIR}, ${TMP} and $NAME in test files, and whole files. */
#ifndef MS_EXPAND_H
#define MS_EXPAND_H
#include <stddef.h>

/* In a string to expand, this byte makes the next one literal: the test
 * file reader writes a $ in single quotes or after a backslash as
 * MS_EXPAND_LITERAL $ (and this byte itself doubled), so it is no
 * variable. */
#define MS_EXPAND_LITERAL '\001'

/* The value of variable NAME (n bytes), or NULL: not a variable.  It sets
 * *literal to 1 for a value not to be expanded in turn (the environment's). */
typedef const char *(*ms_var_fn)(void *ctx, const char *name, size_t n, int *literal);

/* A new string: s with ${DIR} as dir, ${TMP} as tmp, $$ as $, and $NAME or
 * ${NAME} as var() says (values expanded in turn, 8 deep, unless literal);
 * any other $ as it is.  NULL when out of memory. */
char *ms_expand(const char *s, const char *dir, const char *tmp, ms_var_fn var, void *ctx);

/* The whole file at path, in a new buffer: 0, or -errno. */
int ms_read_whole(const char *path, char **data, size_t *len);

#endif
