/* SPDX-License-Identifier: MIT */
/*
 * Catalog ids and metadata, generated from include/mockshim/catalog.def.
 * Shared by the driver (parser, reports, --list) and the shim.
 */
#ifndef MS_CATALOG_H
#define MS_CATALOG_H

#include <stdint.h>

/*
 * The length of a parenthesised argument list, as a preprocessor number:
 * MS_NARGS_OF((fd, buf, count)) is 3, MS_NARGS_OF(()) is 0.  A row's
 * number of parameters is its (args)' length: written once.
 */
#define MS_CAT_(a, b) a##b
#define MS_CAT(a, b) MS_CAT_(a, b)
#define MS_NARGS(...) MS_NARGS_(__VA_ARGS__, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define MS_NARGS_(a, b, c, d, e, f, g, h, n, ...) n
/* empty: the first argument pasted to MS_E_ is MS_E_ itself, which
 * expands to two words and shifts the 1 into place */
#define MS_FIRST_(a, ...) a
#define MS_FIRST(...) MS_FIRST_(__VA_ARGS__, ~)
#define MS_E_ ~, 1
#define MS_PICK2_(a, b, ...) b
#define MS_IS_EMPTY_(x) MS_PICK2_(x, 0, ~)
#define MS_E_PASTE(x) MS_E_##x
#define MS_IS_EMPTY1(x) MS_IS_EMPTY_(MS_E_PASTE(x))
#define MS_IS_EMPTY(...) MS_IS_EMPTY1(MS_FIRST(__VA_ARGS__))
#define MS_NA_1(args) 0
#define MS_NA_0(args) MS_NARGS args
#define MS_NARGS_OF(args) MS_CAT(MS_NA_, MS_IS_EMPTY args)(args)

/* Canonical function ids: MS_ID_read, ... */
enum ms_fn_id {
#define MOCKSHIM_FN(ret, name, ...) MS_ID_##name,
#define MOCKSHIM_FN_H MOCKSHIM_FN
#define MOCKSHIM_FN_V MOCKSHIM_FN
#define MOCKSHIM_ALIAS(...)
#define MOCKSHIM_ALIAS_H(...)
#define MOCKSHIM_ALIAS_V(...)
#include "mockshim/catalog.def"
#include "mockshim/catalog_end.h"
	MS_FN_COUNT
};

/* Every exported symbol (canonical names and aliases): MS_SYM_read, ... */
enum ms_sym_id {
#define MOCKSHIM_FN(ret, name, ...) MS_SYM_##name,
#define MOCKSHIM_FN_H MOCKSHIM_FN
#define MOCKSHIM_FN_V MOCKSHIM_FN
#define MOCKSHIM_ALIAS(canon, ret, name, ...) MS_SYM_##name,
#define MOCKSHIM_ALIAS_H MOCKSHIM_ALIAS
#define MOCKSHIM_ALIAS_V MOCKSHIM_ALIAS
#include "mockshim/catalog.def"
#include "mockshim/catalog_end.h"
	MS_SYM_COUNT
};

/* Parameters of a function at most: a catalog row has up to 8, a declared
 * prototype up to 6 integer and 8 double ones. */
#define MS_MAX_PARAMS 14

enum ms_fail_kind {
	MS_FK_NEVER = 0,	/* cannot fail */
	MS_FK_ERRNO,		/* returns a value and sets errno */
	MS_FK_RC,		/* returns the error code */
};

/* Type classes, for return values and parameters. */
enum ms_tclass {
	MS_T_VOID = 0,
	MS_T_INT,		/* signed integer */
	MS_T_UINT,		/* unsigned integer */
	MS_T_DOUBLE,		/* double (declared prototypes) */
	MS_T_PTR,		/* opaque pointer */
	MS_T_STR,		/* char * / const char * */
};

struct ms_type {
	uint8_t tclass;
	uint8_t size;		/* bytes, for integers */
	char text[40];		/* as written in the catalog */
	char strct[24];		/* "stat" for struct stat *, else "" */
};

/* How --trace shows a parameter (tracefmt.c), decided from its row's
 * name, the parameter's name and type once, when the row is parsed. */
enum ms_show {
	MS_SHOW_INT = 0,	/* a signed integer */
	MS_SHOW_UINT,		/* an unsigned one */
	MS_SHOW_INT32,		/* ... of 4 bytes: the register's upper half is not */
	MS_SHOW_UINT32,		/* the value's (the line's common kinds decided here) */
	MS_SHOW_STR,		/* a string, quoted */
	MS_SHOW_ARGV,		/* exec*'s argv: its strings */
	MS_SHOW_PTR,		/* a pointer */
	/* a struct shown by its values where the call read it (const) or
	 * filled it, else the pointer */
	MS_SHOW_TIMESPEC,
	MS_SHOW_TIMEVAL,
	MS_SHOW_STAT,
	MS_SHOW_STATX,
	MS_SHOW_AT_FLAGS,	/* AT_* flags (statx, fstatat, linkat, fchownat...) */
	MS_SHOW_AT_UNLINK,	/* unlinkat's: AT_REMOVEDIR first */
	MS_SHOW_AT_ACCESS,	/* faccessat's: AT_EACCESS first */
	MS_SHOW_STATX_MASK,	/* STATX_* */
	MS_SHOW_MSG_FLAGS,	/* send*, recv*: MSG_* */
	MS_SHOW_CLOCK,		/* a clock id: CLOCK_* */
	MS_SHOW_DOMAIN,		/* socket's: AF_* */
	MS_SHOW_SOCKTYPE,	/* socket's: SOCK_*, and its flags */
	MS_SHOW_OFLAGS,		/* open's: O_* */
	MS_SHOW_MODE,		/* a mode_t, in octal */
	MS_SHOW_OPEN_MODE,	/* open's mode: shown (octal) with O_CREAT or O_TMPFILE only */
	MS_SHOW_DIRFD,		/* a directory descriptor: AT_FDCWD by name */
};

struct ms_param {
	char name[24];
	struct ms_type type;
	uint8_t show;		/* enum ms_show */
};

/* A parsed output item of a row ("buf[count]", "*tp:timespec", ...). */
enum ms_out_kind {
	MS_OK_BYTES = 1,	/* bytes copied into a buffer */
	MS_OK_STR,		/* NUL-terminated string into a buffer */
	MS_OK_STRUCT,		/* a known struct stored through a pointer */
	MS_OK_SCALAR,		/* an integer stored through a pointer */
	MS_OK_FERROR,		/* not an output: set the stream's error flag */
	MS_OK_STRPTR,		/* char ** (declared): a pointer to a string, or NULL */
};

/* An output's capacity is the string already in it (mkstemp's template:
 * "template[=]:str"), not a parameter's value. */
#define MS_CAP_OWN 0xfeu

struct ms_out_desc {
	uint8_t kind;
	uint8_t param;
	uint8_t cap1, cap2;	/* capacity params (cap2 multiplies), 0xff none,
				 * MS_CAP_OWN */
	uint8_t size;		/* MS_OK_SCALAR: bytes */
	uint8_t mirror_ret;	/* MS_OK_SCALAR =ret */
	uint8_t dbl;		/* MS_OK_SCALAR: a double */
	uint8_t owned;		/* MS_OK_STRPTR: char **, the caller owns a heap copy;
				 * else (const char **) the spec's own string */
	char strct[24];		/* MS_OK_STRUCT */
};

/* What `_` stands for as a return value. */
enum ms_ret_default {
	MS_RD_NONE = 0,
	MS_RD_BYTES,		/* bytes copied, divided by param div (if any) */
	MS_RD_PARAM,		/* a parameter's value */
	MS_RD_CONST,		/* a constant */
};

struct ms_fn_meta {
	const char *name;
	uint8_t name_len;	/* strlen(name), set with the parameters */
	const char *ret_text;
	const char *proto;
	const char *group;
	const char *outs_text;
	uint8_t nparams;
	uint8_t fail_kind;
	uint8_t handler;	/* declared by a handler module: mock() pops untyped values */
	uint8_t declared;	/* a `mock` prototype: the shim's generic stubs answer it */
	uint8_t traced;		/* declared: --trace names it */
	uint32_t pool_name, pool_params;	/* declared: its strings in the spec's pool */
	uint32_t pool_decl;			/* "int chef_cook(const char *order, ...)" */
	int64_t fail_value;
	int fail_errno;
	/* filled by ms_catalog_get() */
	struct ms_type ret;
	struct ms_param params[MS_MAX_PARAMS];
	struct ms_out_desc outs[MS_MAX_PARAMS];
	uint8_t nouts;
	uint8_t rd_kind, rd_param, rd_div;
	int64_t rd_const;
	uint8_t ret_passwd;	/* "ret:passwd": a struct passwd literal may be returned */
	uint8_t ret_owned;	/* "ret:owned": the caller frees the returned string */
	uint8_t ret_group;	/* "ret:group": a struct group literal may be returned */
	uint8_t ret_hostent;	/* "ret:hostent": an address list {"10.1.2.3", "::1"} may be
				 * returned, as a struct hostent named by parameter 0 */
	const char *aliases[8];
	uint8_t naliases;
	uint8_t syscall;	/* a SYS_ function (syscall.def): the supervisor answers it */
	uint8_t sys_flags;	/* syscall.def's flags (MS_SYSF_*) */
	uint16_t sysnr;		/* its number (x86-64) */
	uint8_t ok_kind;	/* how a success reads (enum ms_ok_kind): set */
				/* with the return type, read by every line */
};

/* A call's success, decided by the row once (ms_meta_ok_kind) rather than
 * at every traced line: MS_OK_ANY, a row set without it, asks every field
 * again. */
enum ms_ok_kind {
	MS_OK_ANY = 0,
	MS_OK_NOT_VALUE,	/* ret (its 4 or 8 bytes) is not fail_value */
	MS_OK_NOT_VALUE32,
	MS_OK_ALWAYS,		/* a function that cannot fail */
	MS_OK_NOT_NULL,		/* a pointer's success */
	MS_OK_ZERO,		/* an error code's */
};
/* Sets m->ok_kind from the row's fields (its return type parsed). */
void ms_meta_ok_kind(struct ms_fn_meta *m);

#define MS_NPARAMS_COUNT 0xfe

/*
 * Parses m->ret_text and m->proto ("(const char *order, char **dish_out)")
 * of a function declared outside the catalog (a handler module's): -1 when
 * a parameter has no name or type, or there are more than MS_MAX_PARAMS.
 */
int ms_meta_parse(struct ms_fn_meta *m);
/* ... and m->outs_text, catalog.def's grammar (nouts 0xff: malformed). */
void ms_meta_parse_outs(struct ms_fn_meta *m);

/* Whether ret is function m's failure (its errno then says why). */
static inline int ms_call_failed(const struct ms_fn_meta *m, int64_t ret)
{
	return m->fail_kind == MS_FK_ERRNO ? ret == m->fail_value
	       : m->fail_kind == MS_FK_RC  ? ret != 0
					   : 0;
}

/* Metadata of canonical function id, or NULL. Parsed once, thread-unsafe
 * on first use: call ms_catalog_init() before starting threads. */
const struct ms_fn_meta *ms_catalog_get(unsigned id);
/* The rows ms_catalog_get() fills; after ms_catalog_init(), every one:
 * a reader that ran it (--trace's lines) reads them here directly. */
extern struct ms_fn_meta ms_catalog_table[MS_FN_COUNT] __attribute__((visibility("hidden")));
void ms_catalog_init(void);
/* The errors function name's man page lists, "EIO,ENOSPC", or NULL
 * (errlist.c; mockrun explore --errnos all). */
const char *ms_catalog_errnos(const char *name);
/* Canonical id of a canonical name or alias, or -1. */
int ms_catalog_find(const char *name, size_t len);
int ms_catalog_param(const struct ms_fn_meta *m, const char *name, size_t len);
/* Parameters of function id: a constant table, safe anywhere. */
unsigned ms_catalog_nparams(unsigned id);
/* A fingerprint of the catalog's ids, stored in and checked against the channel. */
uint32_t ms_catalog_hash(void);
const char *ms_sym_name(unsigned sym);
/* The catalog's own copy of exported symbol name, or NULL. */
const char *ms_sym_name_of(const char *name);

/*
 * The syscall tier (catalog/syscall.def): SYS_NAME functions, answered by
 * mockrun's supervisor.  Their metadata is shaped as a catalog row's, so
 * that the parser, the validator and the decision treat them alike.
 */
enum ms_sys_flags {
	MS_SYSF_VDSO = 1u << 0,	/* the vDSO answers it: the kernel seldom sees it */
	MS_SYSF_NOFAIL = 1u << 1,	/* never fails: a negative result is a value
					 * (libc passes it on), not -errno */
};
/* Metadata of SYS_name (name without the SYS_), or NULL. */
const struct ms_fn_meta *ms_syscall_find(const char *name, size_t len);
/* Metadata of syscall number nr, or NULL when the table lacks it. */
const struct ms_fn_meta *ms_syscall_by_nr(unsigned nr);
/* The table's rows one by one (--list): NULL after the last. */
const struct ms_fn_meta *ms_syscall_at(unsigned i);
/* Whether SYS_NAME (len bytes) is a system call of another architecture
 * only (open, stat, fork, ... on aarch64): 1, and why in msg. */
int ms_syscall_absent(const char *name, size_t len, char *msg, size_t cap);
#define MS_SYS_NR_MAX 512	/* numbers the filter and the table take */

/*
 * The exec family (what starts a program): which argument names it
 * (MS_EXEC_SH: /bin/sh runs the argument; fd: an fd names it), which is
 * the environment (-1: environ), whether PATH is searched, and whether
 * the call starts a new process (spawn) or replaces this one.  NULL for
 * any other function.  The channel arms these in every process, and the
 * shim names the programs they start that will run unmocked.
 */
#define MS_EXEC_SH (-2)
struct ms_exec_row {
	uint16_t id;
	int8_t file, env;
	uint8_t search, spawn, fd;
};
const struct ms_exec_row *ms_exec_row(unsigned id);
/* All of them (*n rows): what walks the exec family walks these, not
 * every id through ms_exec_row(). */
const struct ms_exec_row *ms_exec_rows(size_t *n);

/* The folder's face: the type table and the names of constants too. */
#include "ctype.h"
#include "names.h"

#endif
