/* SPDX-License-Identifier: MIT */
/*
 * Included after each expansion of catalog.def: undefines the row
 * macros, so that the next expansion can define its own.
 */
#undef MOCKSHIM_FN
#undef MOCKSHIM_FN_H
#undef MOCKSHIM_FN_V
#undef MOCKSHIM_ALIAS
#undef MOCKSHIM_ALIAS_H
#undef MOCKSHIM_ALIAS_V
#undef MOCKSHIM_FN_VOID
#undef MOCKSHIM_ALIAS_VOID
