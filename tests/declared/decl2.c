/* SPDX-License-Identifier: MIT */
/* Apart from decl.c, so that its call of decl_add is the library's own
 * call through its PLT, whatever the compiler assumes about interposition. */
#include "decl.h"

int decl_twice(int a)
{
	return decl_add(a, a);
}
