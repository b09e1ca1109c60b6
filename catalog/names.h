/* SPDX-License-Identifier: MIT */
/*
 * Names the statement language and the reports share (names.c): named
 * constants, errno and EAI_* names, the catalog's structs for literals,
 * and shell-style globs.
 */
#ifndef MS_NAMES_H
#define MS_NAMES_H

#include <stddef.h>
#include <stdint.h>

/* Named integer constants: errno, EAI_*, O_*, S_*, SIG*, AF_*, SOCK_*, CLOCK_*. */
int ms_name_value(const char *name, size_t len, int64_t *value);
/* "ENOENT" for 2, or NULL. */
const char *ms_errno_name(int err);
/* "HUP" for SIGHUP (sigabbrev_np()'s names), or NULL. */
const char *ms_signal_abbrev(int sig);
const char *ms_eai_name(int code);

/* Known structs for struct literals. */
enum ms_field_kind {
	MS_FD_INT = 1,
	MS_FD_UINT,
	MS_FD_CHARS,		/* char name[N]: a string, NUL-terminated within */
	MS_FD_DOUBLE,		/* declared structs: double */
	MS_FD_STR,		/* declared structs: char *, the spec's string or NULL */
	MS_FD_PTR,		/* declared structs: another pointer, NULL or an address */
	MS_FD_NESTED,		/* a struct inside: a literal {...} of struct sub, or
				 * an integer for its first field (stx_mtime = {S, NS}) */
};

struct ms_field_desc {
	const char *name;
	uint16_t off, size;
	uint8_t kind;
	int64_t min, max;
	const struct ms_struct_desc *sub;	/* MS_FD_NESTED */
};

struct ms_struct_desc {
	const char *name;
	uint32_t size;
	const struct ms_field_desc *fields;
	unsigned nfields;
};

const struct ms_struct_desc *ms_struct_find(const char *name);
/* The catalog's structs, one by one (--list): NULL after the last. */
const struct ms_struct_desc *ms_struct_at(unsigned i);

/* The shape of a glob, for a match without the general matcher: its
 * literal part is glen bytes (ms_glob_form() computes both). */
enum ms_glob_form {
	MS_GF_ANY = 0,		/* the general matcher */
	MS_GF_EXACT,		/* no special character */
	MS_GF_PREFIX,		/* "lit*" */
	MS_GF_SUFFIX,		/* "*lit" */
	MS_GF_INFIX,		/* "*lit*" */
};

/* Shell-style glob: '*', '?', '[...]'. */
int ms_glob_match(const char *pat, const char *s);
/* The shape of glob pat (enum ms_glob_form) and its literal's length in
 * *len (at most 65535: longer is MS_GF_ANY). */
unsigned ms_glob_form(const char *pat, uint16_t *len);

#endif
