/* SPDX-License-Identifier: MIT */
/*
 * The statement compiler: a statement as read (reader.h) becomes a
 * rule, an expectation or a call-order entry in the store (spec.h), each
 * opening with the same header (struct ms_stmt).  Its files:
 *   compile.c        the statement kinds, the header, the options, replies
 *   compile_out.c    outputs (PARAM=VALUE), struct literals, addresses,
 *                    will_call_real's replaced arguments
 *   compile_check.c  expectations, call order, when()'s conditions
 *   compile_time.c   fake_time()
 *   compile_base.c   what they share (compile_base.h), at the bottom:
 *                    compile.c calls compile_out.c and compile_check.c,
 *                    and each of them calls only the base
 * This header is the compiler's face to parser.c.
 */
#ifndef MS_COMPILE_H
#define MS_COMPILE_H

#include <stdint.h>

#include "reader.h"

struct ms_stmt_kind;

/* The kind of statement NAME, or NULL (an error). */
const struct ms_stmt_kind *ms_find_stmt_kind(struct ms_parser *ps, const struct ms_tok *name);
/* A statement read by ms_read_stmt(), into the store: 0, or -1 (ps->lx.err). */
int ms_compile(struct ms_parser *ps, struct ms_src_stmt *st);
/* fake_time(...), at its name: read and compiled. */
int ms_compile_fake_time(struct ms_parser *ps, struct ms_src_stmt *st, char *scratch);

#endif
