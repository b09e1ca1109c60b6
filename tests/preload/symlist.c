/* SPDX-License-Identifier: MIT */
/* Prints every catalog symbol (canonical names and aliases), one a line. */
#include <stdio.h>

#include "catalog/catalog.h"

int main(void)
{
	for (unsigned i = 0; i < MS_SYM_COUNT; i++)
		puts(ms_sym_name(i));
	return 0;
}
