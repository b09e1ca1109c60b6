/* SPDX-License-Identifier: MIT */
/* mockrun -t: the default -j, and --shard. */
#ifndef MS_JOBS_H
#define MS_JOBS_H
#include <stdint.h>

/* Jobs at once when -j is not given (see jobs.c). */
int ms_default_jobs(void);
/* The shard (0..n-1) of a test: a hash of its file's base name and name. */
int ms_shard_of(const char *path, const char *name, int n);

#endif
