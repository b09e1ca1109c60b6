/* SPDX-License-Identifier: MIT */
/*
 * The cheapest LD_AUDIT module a symbol-binding mocker could be: every
 * binding is reported to la_symbind64, which keeps it (a real one would
 * compare the name with the declared functions) and asks for no
 * pltenter/pltexit.  run.py measures what loading it costs a process, and
 * each PLT call: the measurement behind choosing GOT patching
 * (libmockshim/declared.c, bench/README.md).
 */
#define _GNU_SOURCE
#include <link.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* MSB_AUDIT_SHOW=PREFIX: each binding of a symbol named PREFIX... is
 * written to stderr, to see which bindings an audit module is told of */
static const char *show;

unsigned int la_version(unsigned int version)
{
	show = getenv("MSB_AUDIT_SHOW");
	return version < LAV_CURRENT ? version : LAV_CURRENT;
}

unsigned int la_objopen(struct link_map *map, Lmid_t lmid, uintptr_t *cookie)
{
	(void)map, (void)lmid, (void)cookie;
	return LA_FLG_BINDTO | LA_FLG_BINDFROM;
}

uintptr_t la_symbind64(Elf64_Sym *sym, unsigned int ndx, uintptr_t *refcook,
		       uintptr_t *defcook, unsigned int *flags, const char *symname)
{
	(void)ndx, (void)refcook, (void)defcook;
	if (show && strncmp(symname, show, strlen(show)) == 0) {
		write(2, "la_symbind64 ", 13);
		write(2, symname, strlen(symname));
		write(2, "\n", 1);
	}
	*flags |= LA_SYMB_NOPLTENTER | LA_SYMB_NOPLTEXIT;
	return sym->st_value;
}
