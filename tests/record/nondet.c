/* SPDX-License-Identifier: MIT */
/*
 * nondet [NAME] [crash]: prints what differs from run to run: random
 * bytes, the time (time and clock_gettime), the addresses NAME resolves
 * to (default localhost), and what it reads from stdin (or the error).
 */
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	unsigned char r[16];
	struct timespec ts;
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res, *ai;
	char buf[256], host[64];
	ssize_t n, i;
	int rc;

	if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
		return 1;
	printf("random ");
	for (size_t k = 0; k < sizeof(r); k++)
		printf("%02x", r[k]);
	printf("\ntime %lld\n", (long long)time(NULL));
	clock_gettime(CLOCK_MONOTONIC, &ts);
	printf("monotonic %lld.%09ld\n", (long long)ts.tv_sec, ts.tv_nsec);
	rc = getaddrinfo(argc > 1 ? argv[1] : "localhost", "80", &hints, &res);
	if (rc) {
		printf("resolve: %s\n", gai_strerror(rc));
	} else {
		for (ai = res; ai; ai = ai->ai_next)
			if (getnameinfo(ai->ai_addr, ai->ai_addrlen, host, sizeof(host), NULL, 0,
					NI_NUMERICHOST) == 0)
				printf("address %s\n", host);
		freeaddrinfo(res);
	}
	n = read(0, buf, sizeof(buf));
	if (n < 0) {
		printf("read: %s\n", strerror(errno));
	} else {
		printf("read %zd:", n);
		for (i = 0; i < n; i++)
			printf(" %02x", (unsigned char)buf[i]);
		printf("\n");
	}
	fflush(stdout);
	if (argc > 2 && strcmp(argv[2], "crash") == 0)
		abort();
	return 0;
}
