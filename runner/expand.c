/* SPDX-License-Identifier: MIT */
/*
 * Expansion in test files (issues 21, 47): ${DIR} (the directory of the
 * .mock file), ${TMP} (the test's own temporary directory) and $NAME or
 * ${NAME} of a variable set with env(), of MOCKSHIM_SUITE_DIR or of the
 * environment mockrun was started in, in run words, stdin_file, env and
 * cwd; $$ is one $.  No shell runs: a $ before a name that is not defined
 * reaches the program as it is (sh -c "... $1", $UNSET), so files written
 * before expansion existed mostly mean what they meant.  In run words a $
 * the reader marked literal (in single quotes, or after a backslash) is
 * not expanded either: MS_EXPAND_LITERAL.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expand.h"

static int word_char(int c, int first)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (!first && c >= '0' && c <= '9');
}

static void put(FILE *out, const char *s, const char *dir, const char *tmp, ms_var_fn var,
		void *ctx, int depth)
{
	while (*s) {
		const char *name, *val = NULL;
		size_t n = 0;
		int braced, literal = 0;

		if (*s == MS_EXPAND_LITERAL && s[1]) {
			fputc(s[1], out);
			s += 2;
			continue;
		}
		if (*s != '$') {
			fputc(*s++, out);
			continue;
		}
		if (s[1] == '$') {
			fputc('$', out);
			s += 2;
			continue;
		}
		braced = s[1] == '{';
		name = s + 1 + braced;
		while (word_char((unsigned char)name[n], n == 0))
			n++;
		if (n && braced && name[n] != '}')
			n = 0;
		if (n == 3 && braced && memcmp(name, "DIR", 3) == 0)
			val = dir ? dir : ".";
		else if (n == 3 && braced && memcmp(name, "TMP", 3) == 0)
			val = tmp ? tmp : "";
		else if (n && var)
			val = var(ctx, name, n, &literal);
		if (!val) {
			fputc(*s++, out);
			continue;
		}
		if (depth < 8 && !literal)
			put(out, val, dir, tmp, var, ctx, depth + 1);
		else
			fputs(val, out);
		s = name + n + braced;
	}
}

char *ms_expand(const char *s, const char *dir, const char *tmp, ms_var_fn var, void *ctx)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	if (!out)
		return NULL;
	put(out, s, dir, tmp, var, ctx, 0);
	if (fclose(out) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

int ms_read_whole(const char *path, char **data, size_t *len)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *out, *in = fopen(path, "re");
	char chunk[4096];
	size_t k;
	int e = 0;

	if (!in)
		return -errno;
	out = open_memstream(&buf, &n);
	if (!out) {
		e = -errno;
		fclose(in);
		return e;
	}
	while ((k = fread(chunk, 1, sizeof(chunk), in)) > 0)
		fwrite(chunk, 1, k, out);
	if (ferror(in))
		e = -EIO;
	fclose(in);
	if (fclose(out) != 0 && !e)
		e = -ENOMEM;
	if (e) {
		free(buf);
		return e;
	}
	*data = buf;
	*len = n;
	return 0;
}
