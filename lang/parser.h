/* SPDX-License-Identifier: MIT */
/*
 * The statement language (DESIGN.md section 3): ms_parse() reads a
 * spec text into the store.  Its parts: the lexer (lexer.h), the reader
 * of values and statements (reader.h), the compiler of statements into
 * rules, expectations and call-order entries (compile.h), and the
 * declarations (declare.h).
 */
#ifndef MS_PARSER_H
#define MS_PARSER_H

#include <stddef.h>

#include "lexer.h"
#include "channel/channel.h"

/*
 * Parses statements from text (len bytes) named src (for reports) and
 * appends their rules.  Returns 0, -ENOMEM, or -EINVAL with diag filled.
 * Nothing is appended when it fails.
 */
int ms_parse(struct ms_spec *spec, const char *src, const char *text, size_t len,
	     struct ms_diag *diag);

#endif
