/* SPDX-License-Identifier: MIT */
/* Two plugins (libdup_a, libdup_b) each define dup_helper: DUP_VALUE. */
int dup_helper(void);

int dup_helper(void)
{
	return DUP_VALUE;
}
