/* SPDX-License-Identifier: MIT */
/*
 * Compiled alone (-fsyntax-only) before any file of the shim, once in
 * the trampolines' context and once in the other files' (meson.build,
 * tools/types_check.py): every entry of the type table against the
 * compiler and the headers of sysdecl.h.  An entry that no header there
 * declares, or whose size or sign the compiler disagrees with, stops the
 * build here with one line naming it, before any row that names it
 * reaches the compiler in trampolines.c and every file of shim.h.
 */
#include "sysdecl.h"

#include "catalog/catalog.h"

MS_CTYPE_TABLE(MS_CTYPE_ASSERT)
