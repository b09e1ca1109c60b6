/* SPDX-License-Identifier: MIT */
/*
 * responder [-c CACHE] [-t TTL] lookup NAME: an NSS-style responder.  It
 * answers from its cache (a text file: "name uid home stamp" per line)
 * while an entry is younger than TTL seconds (default 300), and asks the
 * back end on a miss or an expired entry, caching the answer.
 * Prints "name uid home (cached|fresh)"; exit 2 when there is no such
 * user, 3 when the back end is unavailable, 64 on bad usage.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"

struct entry {
	struct user u;
	long long stamp;
};

#define MAX_ENTRIES 256

static int load(const char *path, struct entry *e, int max)
{
	FILE *f = fopen(path, "r");
	int n = 0;

	if (!f)
		return 0;
	while (n < max && fscanf(f, "%31s %u %63s %lld", e[n].u.name, &e[n].u.uid, e[n].u.home,
				 &e[n].stamp) == 4)
		n++;
	fclose(f);
	return n;
}

static int save(const char *path, const struct entry *e, int n)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	for (int i = 0; i < n; i++)
		fprintf(f, "%s %u %s %lld\n", e[i].u.name, e[i].u.uid, e[i].u.home, e[i].stamp);
	return fclose(f);
}

int main(int argc, char **argv)
{
	static struct entry cache[MAX_ENTRIES];
	const char *path = "cache.db", *name;
	long ttl = 300;
	int opt, n, i, rc;
	time_t now;

	while ((opt = getopt(argc, argv, "c:t:")) != -1) {
		if (opt == 'c')
			path = optarg;
		else if (opt == 't')
			ttl = atol(optarg);
		else
			return 64;
	}
	if (argc - optind != 2 || strcmp(argv[optind], "lookup") != 0) {
		fprintf(stderr, "usage: responder [-c CACHE] [-t TTL] lookup NAME\n");
		return 64;
	}
	name = argv[optind + 1];
	now = time(NULL);
	n = load(path, cache, MAX_ENTRIES);
	for (i = 0; i < n; i++)
		if (strcmp(cache[i].u.name, name) == 0)
			break;
	if (i < n && now - cache[i].stamp < ttl) {
		printf("%s %u %s (cached)\n", cache[i].u.name, cache[i].u.uid, cache[i].u.home);
		return 0;
	}
	if (i == n && n == MAX_ENTRIES)
		i = n - 1; /* full: replace the last one */
	memset(&cache[i].u, 0, sizeof(cache[i].u));
	rc = backend_lookup(name, &cache[i].u);
	if (rc == -ENOENT) {
		fprintf(stderr, "responder: %s: no such user\n", name);
		return 2;
	}
	if (rc != 0) {
		fprintf(stderr, "responder: %s: back end unavailable (%s)\n", name, strerror(-rc));
		return 3;
	}
	snprintf(cache[i].u.name, sizeof(cache[i].u.name), "%s", name);
	cache[i].stamp = (long long)now;
	if (i == n)
		n++;
	if (save(path, cache, n) != 0)
		fprintf(stderr, "responder: %s: cannot write the cache\n", path);
	printf("%s %u %s (fresh)\n", cache[i].u.name, cache[i].u.uid, cache[i].u.home);
	return 0;
}
