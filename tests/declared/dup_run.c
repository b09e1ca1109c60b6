/* SPDX-License-Identifier: MIT */
/* Apart from dup_helper.c: each plugin calls its own dup_helper through
 * its PLT (it could be interposed), as a library calling its own
 * exported function does. */
int dup_helper(void);
int dup_run(void);

int dup_run(void)
{
	return dup_helper();
}
