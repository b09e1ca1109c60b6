/* SPDX-License-Identifier: MIT */
/*
 * An empty preloadable library: the start-up baseline that
 * LD_PRELOAD=libmockshim.so is compared with (loading any library costs
 * something; the target is the shim's cost over that).
 */
int ms_bench_empty(void);

int ms_bench_empty(void)
{
	return 0;
}
