/* SPDX-License-Identifier: MIT */
/*
 * chanfile SPEC FN|- PROGRAM [ARG...]: runs PROGRAM on the channel of
 * statements SPEC, laid out as mockrun lays it out, in two sealed memfds
 * that PROGRAM inherits and MOCKSHIM_CHANNEL names
 * (/proc/self/fd/N,/proc/self/fd/M).  With a function name FN, the first
 * rule of that catalog function is made bad (a count of 0) after the
 * layout: a channel that passes every check of the attach, and that
 * the function's own check, at its first call, refuses.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "catalog/catalog.h"
#include "channel/channel.h"
#include "lang/lang.h"

/* A sealed memfd holding p[0..n), as mockrun's: -1 on error. */
static int sealed(const char *name, const void *p, size_t n, int seals)
{
	int fd = memfd_create(name, MFD_ALLOW_SEALING);

	if (fd < 0 || write(fd, p, n) != (ssize_t)n || fcntl(fd, F_ADD_SEALS, seals) != 0) {
		perror(name);
		return -1;
	}
	return fd;
}

int main(int argc, char **argv)
{
	struct ms_spec spec;
	struct ms_diag d;
	struct ms_chan_hdr *h;
	void *state;
	uint64_t size;
	int sfd, tfd;
	char env[128];

	if (argc < 4) {
		fprintf(stderr, "usage: chanfile SPEC FN|- PROGRAM [ARG...]\n");
		return 2;
	}
	ms_spec_init(&spec, realloc, free);
	if (ms_parse(&spec, "-e", argv[1], strlen(argv[1]), &d) != 0) {
		fprintf(stderr, "chanfile: the spec does not parse\n");
		return 2;
	}
	size = ms_channel_size(&spec, 64);
	h = calloc(1, size);
	if (!h)
		return 2;
	ms_channel_write(&spec, h, size, 64, 0);
	state = calloc(1, h->state_size);
	if (!state)
		return 2;
	ms_state_init(h, state, 1);
	if (strcmp(argv[2], "-") != 0) {
		int fn = ms_catalog_find(argv[2], strlen(argv[2]));
		struct ms_chan_fn *f = fn < 0 ? NULL : (struct ms_chan_fn *)ms_chan_at(h, h->fns_off) + fn;
		struct ms_rule *r = ms_chan_at(h, h->rules_off);

		if (!f || !f->nrules) {
			fprintf(stderr, "chanfile: no rule of %s\n", argv[2]);
			return 2;
		}
		r[f->first_rule].stmt.count = 0;
	}
	if (ms_channel_validate_attach(h, size) != NULL) {
		fprintf(stderr, "chanfile: the attach refuses the channel\n");
		return 2;
	}
	sfd = sealed("mockshim-spec", h, size,
		     F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL);
	tfd = sealed("mockshim-state", state, h->state_size, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);
	if (sfd < 0 || tfd < 0)
		return 2;
	snprintf(env, sizeof(env), "/proc/self/fd/%d,/proc/self/fd/%d", sfd, tfd);
	setenv(MS_CHAN_ENV, env, 1);
	execvp(argv[3], argv + 3);
	perror(argv[3]);
	return 127;
}
