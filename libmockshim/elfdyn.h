/* SPDX-License-Identifier: MIT */
/*
 * The dynamic section of a loaded object, as dl_iterate_phdr shows it:
 * what the shim's own symbol lookup (symbols.c) and the GOT patching of
 * declared functions (declared.c) read.  Needs _GNU_SOURCE.
 */
#ifndef MS_ELFDYN_H
#define MS_ELFDYN_H

#include <link.h>
#include <stddef.h>
#include <stdint.h>

#include "shim.h"

struct ms_dynamic {
	const ElfW(Sym) *symtab;
	const char *strtab;
	const uint32_t *gnu, *sysv;	/* DT_GNU_HASH, DT_HASH */
	const ElfW(Versym) *versym;
	const ElfW(Rela) *rela, *jmprel;
	size_t relasz, pltrelsz;	/* bytes */
	const char *rpath, *runpath;	/* DT_RPATH, DT_RUNPATH, or NULL */
	const ElfW(Verneed) *verneed;	/* DT_VERNEED, DT_VERNEEDNUM */
	size_t verneednum;
};

/* Reads info's dynamic section into d: 0, or -1 without a symbol table. */
MS_HIDDEN int ms_read_dynamic(const struct dl_phdr_info *info, struct ms_dynamic *d);
/* The same from a dynamic section itself, of an object loaded at base
 * (a link_map's l_ld and l_addr). */
MS_HIDDEN int ms_read_dyn(const ElfW(Dyn) *dyn, uintptr_t base, struct ms_dynamic *d);
/* Whether address a is in one of info's segments of type (PT_LOAD: the
 * object's memory, PT_GNU_RELRO: made read-only after relocation). */
MS_HIDDEN int ms_in_segment(const struct dl_phdr_info *info, uintptr_t a, uint32_t type);
#define ms_in_object(info, a) ms_in_segment(info, a, PT_LOAD)

#endif
