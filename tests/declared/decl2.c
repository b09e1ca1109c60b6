/* SPDX-License-Identifier: MIT */
/* Apart from decl.c, so that its call of decl_add is the library's own
 * call through its PLT, whatever the compiler assumes about interposition. */
#include "decl.h"

int decl_twice(int a)
{
	return decl_add(a, a);
}

/* &decl_add in position-independent code: a GLOB_DAT entry, which in a
 * program with a canonical PLT entry for decl_add holds that entry */
int (*decl_add_ptr(void))(int, int)
{
	return decl_add;
}
