/* SPDX-License-Identifier: MIT */
/*
 * Included after each expansion of catalog.def: undefines the row
 * macros, so that the next expansion can define its own.
 */
#undef MS_FN
#undef MS_FN_H
#undef MS_FN_V
#undef MS_ALIAS
#undef MS_ALIAS_H
#undef MS_ALIAS_V
#undef MS_FN_VOID
#undef MS_ALIAS_VOID
