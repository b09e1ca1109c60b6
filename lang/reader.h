/* SPDX-License-Identifier: MIT */
/*
 * The statement reader: values (integers, strings, names, struct
 * literals, durations, repeat() and file()) and statements NAME(FN, ARG,
 * ..., when(...)) as written, before the compiler gives them meaning.
 * Private to the parser's files (lexer, reader, compiler, parser.c).
 */
#ifndef MS_READER_H
#define MS_READER_H

#include <stddef.h>
#include <stdint.h>

#include "lexer.h"
#include "channel/channel.h"

enum val_kind { V_INT = 1, V_DBL, V_STR, V_NULL, V_BOOL, V_PH, V_STRUCT, V_DUR, V_IDENT };

#define MAX_FIELDS 16
#define MAX_ARGS 16
#define MAX_NESTED 8
/* A string, a repeat() or a file(): 16 MiB.  The fuzz targets build with
 * less: each parse allocates its scratch at this size, and ASan poisons
 * all of it on every run. */
#ifndef MS_PARSER_MAX_STR
#define MS_PARSER_MAX_STR (16u << 20)
#endif
#define MAX_STR MS_PARSER_MAX_STR

struct ms_field {
	const char *name;	/* NULL: positional */
	size_t name_n;
	uint32_t line, col;	/* of the name */
	struct ms_val *v;
};

struct ms_val {
	enum val_kind kind;
	uint32_t line, col;
	const char *name;	/* V_IDENT: a name that is no constant (a parameter?) */
	size_t name_n;
	int64_t i;
	double d;
	uint32_t str, len;	/* V_STR: pool */
	unsigned nfields;
	struct ms_field fields[MAX_FIELDS];
};

struct ms_arg {
	const char *key;	/* NULL: positional */
	size_t key_n;
	int deref;
	uint32_t line, col;
	struct ms_val v;
};

#define MAX_CONDS 8

/* when(PARAM OP VALUE, ...): one condition, as written. */
struct ms_cond_src {
	struct ms_tok param;
	char op[3];		/* "==" "!=" "<" "<=" ">" ">=" "~" "!~" "&" "!&" "in" */
	uint32_t op_line, op_col;
	struct ms_val v;
};

struct ms_src_stmt {
	struct ms_tok name;
	struct ms_tok fn;
	const char *start, *stop;
	unsigned nargs;
	struct ms_arg args[MAX_ARGS];
	struct ms_val fieldvals[MAX_ARGS][MAX_FIELDS];
	int has_when;
	uint32_t when_line, when_col;
	unsigned nconds;
	struct ms_cond_src conds[MAX_CONDS];
	struct ms_val condfields[MAX_CONDS][MAX_FIELDS];
	/* the fields of struct literals inside struct literals (statx's
	 * stx_mtime = {S, NS}), one level deep */
	struct ms_val nested[MAX_NESTED][MAX_FIELDS];
	unsigned nnested;
};

/* A parse in progress: the text's lexer, the spec it adds to. */
struct ms_parser {
	struct ms_lexer lx;
	struct ms_spec *spec;
	const char *src;	/* the source's name ("-e#1", a file's path) */
	uint32_t src_off;	/* the same, in the pool */
	struct ms_src_stmt *st;	/* the statement being read: its nested literals */
	size_t scratch_cap;	/* of the parse's scratch: what the text's */
				/* literals spell fits (at most MAX_STR) */
	int in_literal;		/* reading a literal inside a literal */
};

/* "an integer", "a string", ...: for messages. */
const char *ms_val_kind_name(enum val_kind k);
/* value := scalar { '|' scalar } | '{' fields '}', at the current token;
 * fieldvals holds a struct literal's fields.  0, or -1 (ps->lx.err). */
int ms_read_value(struct ms_parser *ps, struct ms_val *v, struct ms_val *fieldvals, char *scratch);
/* At an identifier: when '=' follows, both are read and the value is
 * current (*keyed = 1); else nothing is (*keyed = 0).  0, or -1. */
int ms_read_key(struct ms_lexer *lx, int *keyed);
/* NAME(FN, ARG, ..., when(...)) at the current token (NAME). */
int ms_read_stmt(struct ms_parser *ps, struct ms_src_stmt *st, char *scratch);
/* size bytes at data into the pool: *off; -1 and -ENOMEM when it cannot grow. */
int ms_pool_store(struct ms_parser *ps, const void *data, size_t size, uint32_t *off);

#endif
