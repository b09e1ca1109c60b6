/* SPDX-License-Identifier: MIT */
/*
 * The compiler's outputs (compile_out.c): PARAM=VALUE of a reply, the
 * records of returned pointers and will_call_real's replaced arguments.
 * Private to the compiler's files.
 */
#ifndef MS_COMPILE_OUT_H
#define MS_COMPILE_OUT_H

#include "compile_base.h"

int ms_compile_output(struct ms_parser *ps, struct ms_compiling *c, const struct ms_arg *a);
int ms_compile_rewrite(struct ms_parser *ps, const struct ms_fn_meta *m, const struct ms_arg *a);
int ms_encode_passwd(struct ms_parser *ps, const struct ms_val *v, uint32_t *off);
int ms_encode_group(struct ms_parser *ps, const struct ms_val *v, uint32_t *off);
int ms_encode_addrinfo(struct ms_parser *ps, const struct ms_val *v, struct ms_out *o);

#endif
