/* SPDX-License-Identifier: MIT */
/*
 * The compiler's checks (compile_check.c): expectations, the call order
 * and when()'s conditions.  Private to the compiler's files.
 */
#ifndef MS_COMPILE_CHECK_H
#define MS_COMPILE_CHECK_H

#include "compile_base.h"

int ms_compile_conds(struct ms_parser *ps, const struct ms_src_stmt *st, const struct ms_fn_meta *m,
		     struct ms_stmt *hdr);
/* at="SITE" (c->at): one more condition of hdr, after when()'s. */
int ms_compile_at(struct ms_parser *ps, const struct ms_compiling *c, struct ms_stmt *hdr);
int ms_compile_expect(struct ms_parser *ps, const struct ms_compiling *c);
int ms_compile_order(struct ms_parser *ps, const struct ms_compiling *c);

#endif
