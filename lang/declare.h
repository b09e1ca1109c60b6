/* SPDX-License-Identifier: MIT */
/*
 * Functions and structs declared into a spec: a handler module's
 * functions, `mock` prototypes, `struct` declarations and SYS_ names
 * (declare.c).  Uses the store (spec.h), never the parser.
 */
#ifndef MS_DECLARE_H
#define MS_DECLARE_H

#include <stddef.h>

#include "channel/channel.h"

/*
 * Declares a function a handler module provides, "int" "chef_cook"
 * "const char *order, char **dish_out": statements may then name it.
 * 0, -EEXIST (a catalog function, or declared otherwise already),
 * -EINVAL (a bad declaration), -ENOMEM.  Declaring it again the same way
 * is a no-op.
 */
int ms_spec_declare(struct ms_spec *spec, const char *ret, const char *name, const char *params);
/*
 * SYS_NAME (len bytes), a system call of catalog/syscall.def: its id,
 * declared on first use for the syscall tier.  -ENOENT (not a known
 * SYS_ name), -ENOMEM.
 */
int ms_spec_syscall(struct ms_spec *spec, const char *name, size_t len);
/*
 * `mock RET NAME(PARAMS)`: the text after `mock` (len bytes), declared
 * for the shim's generic stubs.  0, -ENOMEM, or -EINVAL with msg set and
 * *at the offset in text it is about; MS_DECL_CATALOG, msg and *at set
 * the same way, for a function the catalog has: nothing declared, the
 * catalog's row answers (a warning, not an error).
 */
#define MS_DECL_CATALOG 1
int ms_spec_mock(struct ms_spec *spec, const char *text, size_t len, char *msg, size_t cap,
		 size_t *at);
/* `struct NAME { TYPE FIELD; ... }`: the text after `struct`, the same way. */
int ms_spec_struct(struct ms_spec *spec, const char *text, size_t len, char *msg, size_t cap,
		   size_t *at);
/* A struct for literals: declared in the spec, else a known one; or NULL. */
const struct ms_struct_desc *ms_spec_struct_find(const struct ms_spec *spec, const char *name);

#endif
