/* SPDX-License-Identifier: MIT */
/*
 * A program for mockrun minimize's test (minimize.sh): many mallocs and
 * writes whose failures it handles, and one malloc (the last) whose
 * failure crashes it.  A failure of its 6th write (line 5) makes it exit
 * 3 (the k-th call from one site, for the occurrence pinning).  With SHRINKME_FIXED set it handles that one too:
 * the fixed program, with the same code and so the same call sites.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(void)
{
	char *keep = NULL;
	int lost = 0, status = 0;

	for (int i = 0; i < 12; i++) {
		char *p = malloc(32); /* handled */

		if (!p) {
			lost++;
			continue;
		}
		snprintf(p, 32, "line %d\n", i);
		if (write(1, p, strlen(p)) < 0) { /* handled: counted */
			lost++;
			if (i == 5) {
				fprintf(stderr, "shrinkme: error: line 5 was lost\n");
				status = 3;
			}
		}
		free(p);
	}
	keep = malloc(64); /* unchecked, unless SHRINKME_FIXED */
	if (!keep && getenv("SHRINKME_FIXED")) {
		fprintf(stderr, "out of memory\n");
		return 1;
	}
	memcpy(keep, "done", 5);
	printf("%s, %d lost\n", keep, lost);
	free(keep);
	return status;
}
