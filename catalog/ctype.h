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

#include <stdbool.h>
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

/* plain char and wchar_t are signed on x86-64, unsigned on aarch64 */
#ifdef __CHAR_UNSIGNED__
#define MS_CHAR_CLASS MS_T_UINT
#else
#define MS_CHAR_CLASS MS_T_INT
#endif
/* (clang says __WCHAR_UNSIGNED__, gcc only __WCHAR_MIN__ 0U) */
#if defined(__WCHAR_UNSIGNED__) || (defined(__WCHAR_MIN__) && __WCHAR_MIN__ == 0)
#define MS_WCHAR_CLASS MS_T_UINT
#else
#define MS_WCHAR_CLASS MS_T_INT
#endif

/* The callbacks a catalog row may take, named once, here: the type table
 * knows them (below) and the trampolines see them through catalog.h. */
struct dirent;
typedef int (*ms_dirent_filter)(const struct dirent *);
typedef int (*ms_dirent_compar)(const struct dirent **, const struct dirent **);
typedef int (*ms_glob_errfunc)(const char *epath, int eerrno);

/*
 * The type table, as an X-macro: X(NAME, CLASS, SIZE) for every typedef
 * a catalog row, a handler module or a `mock` statement may name, with
 * its class and size on x86-64 and aarch64 (glibc, LP64: the same but
 * for wchar_t's sign).  MS_T_PTR entries are pointer types under a
 * typedef (timer_t) or only ever pointed to (FILE): size 8 for the
 * former, 0 for the latter, which cannot be passed by value.  ctype.c
 * makes the parser's table of it; the build asserts every entry against
 * the C library's own declarations (MS_CTYPE_ASSERT, in
 * libmockshim/types_check.c, run by tools/types_check.py before any file
 * of the shim), so an entry the compiler does not agree with, or that no
 * header of libmockshim/sysdecl.h declares, stops the build with one line
 * at its name, before any row that names it reaches the compiler.
 */
#define MS_CTYPE_TABLE(X)                                                              \
	X(int8_t, MS_T_INT, 1) X(uint8_t, MS_T_UINT, 1)                                   \
	X(int16_t, MS_T_INT, 2) X(uint16_t, MS_T_UINT, 2)                                 \
	X(int32_t, MS_T_INT, 4) X(uint32_t, MS_T_UINT, 4)                                 \
	X(int64_t, MS_T_INT, 8) X(uint64_t, MS_T_UINT, 8)                                 \
	X(intptr_t, MS_T_INT, 8) X(size_t, MS_T_UINT, 8)                                  \
	X(ssize_t, MS_T_INT, 8) X(off_t, MS_T_INT, 8)                                     \
	X(off64_t, MS_T_INT, 8) X(pid_t, MS_T_INT, 4)                                     \
	X(uid_t, MS_T_UINT, 4) X(gid_t, MS_T_UINT, 4)                                     \
	X(mode_t, MS_T_UINT, 4) X(id_t, MS_T_UINT, 4)                                     \
	X(idtype_t, MS_T_UINT, 4) X(dev_t, MS_T_UINT, 8)                                  \
	X(key_t, MS_T_INT, 4) X(mqd_t, MS_T_INT, 4)                                       \
	X(time_t, MS_T_INT, 8) X(clockid_t, MS_T_INT, 4)                                  \
	X(clock_t, MS_T_INT, 8) X(useconds_t, MS_T_UINT, 4)                               \
	X(socklen_t, MS_T_UINT, 4) X(nfds_t, MS_T_UINT, 8)                                \
	X(wchar_t, MS_WCHAR_CLASS, 4) X(wint_t, MS_T_UINT, 4)                             \
	X(bool, MS_T_UINT, 1) X(_Bool, MS_T_UINT, 1)                                      \
	/* pointers under a typedef */                                                    \
	X(timer_t, MS_T_PTR, 8) X(caddr_t, MS_T_PTR, 8)                                   \
	X(res_state, MS_T_PTR, 8) X(va_list, MS_T_BYADDR, 8)                              \
	X(ms_dirent_filter, MS_T_PTR, 8) X(ms_dirent_compar, MS_T_PTR, 8)                 \
	X(ms_glob_errfunc, MS_T_PTR, 8)                                                   \
	/* only ever pointed to */                                                        \
	X(FILE, MS_T_PTR, 0) X(DIR, MS_T_PTR, 0)                                          \
	X(fd_set, MS_T_PTR, 0) X(sigset_t, MS_T_PTR, 0)                                   \
	X(glob_t, MS_T_PTR, 0) X(fpos_t, MS_T_PTR, 0)                                     \
	X(fpos64_t, MS_T_PTR, 0) X(siginfo_t, MS_T_PTR, 0)                                \
	X(posix_spawn_file_actions_t, MS_T_PTR, 0) X(posix_spawnattr_t, MS_T_PTR, 0)      \
	X(FTS, MS_T_PTR, 0) X(FTSENT, MS_T_PTR, 0)                                        \
	X(sem_t, MS_T_PTR, 0) X(cpu_set_t, MS_T_PTR, 0)                                   \
	X(pthread_cond_t, MS_T_PTR, 0) X(pthread_mutex_t, MS_T_PTR, 0)

/*
 * One entry against the compiler, where its header is included
 * (MS_CTYPE_TABLE(MS_CTYPE_ASSERT)): an integer's size and sign ((T)-1
 * keeps its sign bit through >> 1 when signed: no comparison with 0 that
 * -Wtype-limits would flag), a pointer typedef's size, and for a type
 * only ever pointed to, that it is declared at all.  va_list is an array
 * (x86-64) or a struct (aarch64) that a call passes by address: only its
 * declaration is asserted.
 */
#define MS_CTYPE_ASSERT(name, tclass, size) MS_CTYPE_ASSERT_##tclass(name, size)
#define MS_CTYPE_ASSERT_INT(name, size, is_signed)                                        \
	_Static_assert(sizeof(name) == (size) &&                                              \
			       ((name)((name)-1 >> 1) == (name)-1) == (is_signed),            \
		       "catalog/ctype.h: " #name "'s size or sign in the type table is not "   \
		       "the compiler's");
#define MS_CTYPE_ASSERT_MS_T_INT(name, size) MS_CTYPE_ASSERT_INT(name, size, 1)
#define MS_CTYPE_ASSERT_MS_T_UINT(name, size) MS_CTYPE_ASSERT_INT(name, size, 0)
#define MS_CTYPE_ASSERT_MS_WCHAR_CLASS(name, size)                                        \
	MS_CTYPE_ASSERT_INT(name, size, MS_WCHAR_CLASS == MS_T_INT)
#define MS_CTYPE_ASSERT_MS_T_PTR(name, size) MS_CTYPE_ASSERT_PTR_##size(name)
#define MS_CTYPE_ASSERT_PTR_8(name)                                                       \
	_Static_assert(sizeof(name) == 8, "catalog/ctype.h: " #name " is not a pointer");
#define MS_CTYPE_ASSERT_PTR_0(name) _Static_assert(sizeof(name *) == 8, #name);
#define MS_CTYPE_ASSERT_MS_T_BYADDR(name, size) _Static_assert(sizeof(name *) == (size), #name);
/* a type a call passes by its address (va_list): a pointer to the rules */
#define MS_T_BYADDR MS_T_PTR

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
