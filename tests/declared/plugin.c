/* SPDX-License-Identifier: MIT */
/* Loaded with dlopen by decl_prog: its calls reach declared functions. */
#include "decl.h"

int plugin_run(int a);

int plugin_run(int a)
{
	/* not a tail call: the caller is the plugin (from=) */
	volatile int r = decl_add(a, 1000);

	return r;
}
