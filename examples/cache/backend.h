/* SPDX-License-Identifier: MIT */
/* The identity back end of the cache example (SSSD's pattern). */
#ifndef BACKEND_H
#define BACKEND_H

struct user {
	char name[32];
	unsigned uid;
	char home[64];
};

/* Looks name up: 0 and *out filled, -ENOENT (no such user) or -EIO. */
int backend_lookup(const char *name, struct user *out);

#endif
