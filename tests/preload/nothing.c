/* SPDX-License-Identifier: MIT */
/* An empty library: proves that mockrun appends to an existing LD_PRELOAD. */
int mockshim_test_nothing(void);
int mockshim_test_nothing(void)
{
	return 0;
}
