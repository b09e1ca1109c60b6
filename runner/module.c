/* SPDX-License-Identifier: MIT */
/*
 * Handler modules: the driver reads a module's "mockshim_mocks" section
 * (written by MOCKSHIM_MOCK, include/mockshim/handler.h) to learn its
 * functions and parameter names, without loading it, and preloads it
 * after libmockshim.so.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "catalog/catalog.h"
#include "elfread.h"
#include "session.h"
#include "lang/lang.h"

#define MOCK_MAGIC "mockshim1"

static int fail(struct mockshim_session *s, int err, const char *path, const char *why)
{
	snprintf(s->error, sizeof(s->error), "%s: %s\n", path, why);
	return err;
}

int mockshim_session_add_module(struct mockshim_session *s, const char *path)
{
	char *abs = realpath(path, NULL), *data = NULL, **mods;
	size_t len = 0, nfns = 0;
	FILE *f;
	int r;

	s->error[0] = '\0';
	if (!abs)
		return fail(s, -errno, path, strerror(errno));
	if (strpbrk(abs, ": ")) {
		r = fail(s, -EINVAL, abs, "cannot go in LD_PRELOAD (it has ':' or ' ')");
		free(abs);
		return r;
	}
	for (size_t i = 0; i < s->nmodules; i++) {
		if (strcmp(s->modules[i], abs) == 0) {
			free(abs);
			return 0;
		}
	}
	f = fopen(abs, "re");
	if (!f) {
		r = fail(s, -errno, abs, strerror(errno));
		free(abs);
		return r;
	}
	r = ms_elf_section(f, "mockshim_mocks", &data, &len);
	fclose(f);
	if (r == -ENOEXEC) {
		r = fail(s, -EINVAL, abs, "not a 64-bit ELF shared object");
		goto out;
	}
	if (r == -ENOENT) {
		r = fail(s, -EINVAL, abs, "not a handler module (no MOCKSHIM_MOCK in it)");
		goto out;
	}
	if (r < 0)
		goto out;
	/* records: "mockshim1\0RET\0NAME\0PARAMS\0", maybe padded with NULs */
	for (size_t off = 0; off < len;) {
		const char *ret, *name, *params;

		if (data[off] == '\0') {
			off++;
			continue;
		}
		if (strcmp(data + off, MOCK_MAGIC) != 0) {
			r = fail(s, -EINVAL, abs, "a mockshim_mocks section of another version");
			goto out;
		}
		off += sizeof(MOCK_MAGIC);
		ret = data + off;
		off += strlen(ret) + 1;
		name = off < len ? data + off : "";
		off += strlen(name) + 1;
		params = off < len ? data + off : "";
		off += strlen(params) + 1;
		if (off > len + 1) {
			r = fail(s, -EINVAL, abs, "a truncated mockshim_mocks section");
			goto out;
		}
		r = ms_spec_declare(&s->spec, ret, name, params);
		if (r == -EEXIST) {
			snprintf(s->error, sizeof(s->error),
				 "%s: %s is a catalog function or comes from another module already\n",
				 abs, name);
			goto out;
		}
		if (r == -EINVAL) {
			snprintf(s->error, sizeof(s->error),
				 "%s: cannot read the declaration %s %s(%s)\n", abs, ret, name, params);
			goto out;
		}
		if (r < 0)
			goto out;
		nfns++;
	}
	if (!nfns) {
		r = fail(s, -EINVAL, abs, "not a handler module (no MOCKSHIM_MOCK in it)");
		goto out;
	}
	mods = realloc(s->modules, (s->nmodules + 1) * sizeof(*mods));
	if (!mods) {
		r = -ENOMEM;
		goto out;
	}
	s->modules = mods;
	s->modules[s->nmodules++] = abs;
	abs = NULL;
	r = 0;
out:
	free(data);
	free(abs);
	return r;
}

/* module "path" in statements: relative to the file that names it. */
int ms_session_module_stmt(void *ctx, const char *src, const char *path, char *msg, size_t cap)
{
	struct mockshim_session *s = ctx;
	char full[PATH_MAX * 2];
	const char *slash = strrchr(src, '/');
	int r;

	if (path[0] != '/' && slash && access(src, R_OK) == 0)
		snprintf(full, sizeof(full), "%.*s/%s", (int)(slash - src), src, path);
	else
		snprintf(full, sizeof(full), "%s", path);
	r = mockshim_session_add_module(s, full);
	if (r < 0) {
		const char *e = s->error;
		const char *colon = strstr(e, ": ");

		snprintf(msg, cap, "%s", colon ? colon + 2 : strerror(-r));
		msg[strcspn(msg, "\n")] = '\0';
	}
	return r < 0 ? -1 : 0;
}
