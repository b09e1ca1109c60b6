/* SPDX-License-Identifier: MIT */
/*
 * mockrun's side of the symbolizer (sites.h): finds mockshim-symbolize,
 * starts it on first need outside the run's tree, asks it over a socket
 * pair and keeps its answers.  No libdw here: mockrun is static.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sites.h"

extern char **environ;

#define CACHE 1024

struct cached {
	char object[64];
	uint64_t offset;
	int pc;		/* asked as an instruction's own address */
	char *text;	/* " (...)", or "" when nothing is known */
};

struct ms_sym {
	char *helper;
	int fd;
	int state;	/* 0: not started, 1: running, -1: absent or gone */
	pid_t pid;	/* the process that started it */
	char err[512];
	char **progs;
	size_t nprogs;
	char buf[8192];	/* what was read and not yet taken */
	size_t have;
	struct cached cache[CACHE];
};

static int exec_ok(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0;
}

char *ms_sym_find_helper(void)
{
	const char *env = getenv("MOCKSHIM_SYMBOLIZER");
	const char *rel[] = { "../sites/", "../" MS_LIBEXECDIR_REL "/", "" };
	char self[PATH_MAX], cand[PATH_MAX + 128];
	ssize_t n;

	if (env && *env)
		return exec_ok(env) ? realpath(env, NULL) : NULL;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		char *slash;

		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash) {
			*slash = '\0';
			for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
				const char *r = rel[i];
				char *last = strrchr(self, '/');
				int keep = (int)strlen(self);

				if (last && strncmp(r, "../", 3) == 0) {
					keep = (int)(last - self);
					r += 3;
				}
				snprintf(cand, sizeof(cand), "%.*s/%s" MS_SYM_HELPER, keep, self, r);
				if (exec_ok(cand))
					return strdup(cand);
			}
		}
	}
	if (exec_ok(MS_LIBEXECDIR "/" MS_SYM_HELPER))
		return strdup(MS_LIBEXECDIR "/" MS_SYM_HELPER);
	return NULL;
}

struct ms_sym *ms_sym_new(const char *helper)
{
	struct ms_sym *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->fd = -1;
	s->helper = helper ? strdup(helper) : ms_sym_find_helper();
	if (!s->helper) {
		s->state = -1;
		if (getenv("MOCKSHIM_SYMBOLIZER") && *getenv("MOCKSHIM_SYMBOLIZER"))
			snprintf(s->err, sizeof(s->err), "MOCKSHIM_SYMBOLIZER=%s is no program",
				 getenv("MOCKSHIM_SYMBOLIZER"));
		else
			snprintf(s->err, sizeof(s->err),
				 "%s is not installed (mockshim was built without libdw: "
				 "install libdw-dev and rebuild, or set MOCKSHIM_SYMBOLIZER)",
				 MS_SYM_HELPER);
	}
	return s;
}

void ms_sym_free(struct ms_sym *s)
{
	if (!s)
		return;
	if (s->fd >= 0)
		close(s->fd); /* end of input: the helper exits */
	for (size_t i = 0; i < s->nprogs; i++)
		free(s->progs[i]);
	free(s->progs);
	for (size_t i = 0; i < CACHE; i++)
		free(s->cache[i].text);
	free(s->helper);
	free(s);
}

const char *ms_sym_error(const struct ms_sym *s)
{
	return s ? s->err : "out of memory";
}

static void gone(struct ms_sym *s, const char *why)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	s->state = -1;
	snprintf(s->err, sizeof(s->err), "%s: %s", s->helper ? s->helper : MS_SYM_HELPER, why);
}

static __attribute__((format(printf, 2, 3))) int send_line(struct ms_sym *s, const char *fmt, ...)
{
	char line[4096];
	va_list ap;
	int n;
	size_t done = 0;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(line) - 1 || memchr(line, '\n', (size_t)n))
		return -1; /* no request of two lines */
	line[n++] = '\n';
	while (done < (size_t)n) {
		ssize_t w = send(s->fd, line + done, (size_t)n - done, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			gone(s, "it went away");
			return -1;
		}
		done += (size_t)w;
	}
	return 0;
}

/* one answer line, without its newline, into out */
static int recv_line(struct ms_sym *s, char *out, size_t outlen)
{
	for (;;) {
		char *nl = memchr(s->buf, '\n', s->have);
		ssize_t r;

		if (nl) {
			size_t len = (size_t)(nl - s->buf);

			snprintf(out, outlen, "%.*s", (int)len, s->buf);
			memmove(s->buf, nl + 1, s->have - len - 1);
			s->have -= len + 1;
			return 0;
		}
		if (s->have == sizeof(s->buf)) {
			gone(s, "an answer line too long");
			return -1;
		}
		r = recv(s->fd, s->buf + s->have, sizeof(s->buf) - s->have, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			gone(s, r == 0 || errno == ECONNRESET ? "it exited" : strerror(errno));
			return -1;
		}
		s->have += (size_t)r;
	}
}

static int send_program(struct ms_sym *s, const char *prog)
{
	char ans[1024];

	if (send_line(s, "obj %s", prog) < 0 || recv_line(s, ans, sizeof(ans)) < 0)
		return -1;
	return 0; /* "err": a program not found has no sites to show */
}

int ms_sym_add_program(struct ms_sym *s, const char *program)
{
	char **p;

	if (!s || !program || strchr(program, '\n'))
		return -1;
	for (size_t i = 0; i < s->nprogs; i++)
		if (strcmp(s->progs[i], program) == 0)
			return 0;
	p = realloc(s->progs, (s->nprogs + 1) * sizeof(*p));
	if (!p)
		return -1;
	s->progs = p;
	if (!(p[s->nprogs] = strdup(program)))
		return -1;
	s->nprogs++;
	if (s->state == 1 && s->pid == getpid())
		return send_program(s, program);
	return 0;
}

/* The helper is started by a child that exits at once: the helper's
 * parent is then not mockrun, whose wait for the run's tree (as its
 * subreaper) it would otherwise join. */
int ms_sym_start(struct ms_sym *s)
{
	int sv[2], st, subreaper = 0;
	pid_t pid;
	char ans[256], want[64];

	if (!s)
		return -1;
	if (s->state == 1 && s->pid != getpid()) {
		/* a child of the process that started it (a -t test): a
		 * helper of its own, the parent's left to the parent */
		close(s->fd);
		s->fd = -1;
		s->have = 0;
		s->state = 0;
	}
	if (s->state)
		return s->state == 1 ? 0 : -1;
	/* a run's subreaper (mockrun while the tree runs, ctl --report)
	 * would have the helper in the tree it waits for: not now */
	if (prctl(PR_GET_CHILD_SUBREAPER, &subreaper) == 0 && subreaper) {
		snprintf(s->err, sizeof(s->err), "%s is not started while a run is going on", s->helper);
		return -1;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
		gone(s, strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		size_t n = 0, k = 0;
		char **env;

		if (fork() != 0)
			_exit(0);
		for (; environ[n]; n++)
			;
		env = calloc(n + 1, sizeof(*env));
		for (size_t i = 0; env && i < n; i++)
			if (strncmp(environ[i], "LD_PRELOAD=", 11) != 0)
				env[k++] = environ[i];
		if (dup2(sv[1], 0) < 0 || dup2(sv[1], 1) < 0)
			_exit(127);
		execve(s->helper, (char *[]){ s->helper, NULL }, env ? env : environ);
		_exit(127);
	}
	close(sv[1]);
	if (pid < 0) {
		close(sv[0]);
		gone(s, strerror(errno));
		return -1;
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	s->fd = sv[0];
	s->state = 1;
	s->pid = getpid();
	snprintf(want, sizeof(want), "ok %s %d", MS_SYM_HELPER, MS_SYM_PROTO);
	if (send_line(s, "hello %d", MS_SYM_PROTO) < 0 || recv_line(s, ans, sizeof(ans)) < 0)
		return -1;
	if (strcmp(ans, want) != 0) {
		gone(s, "not a symbolizer of protocol 1");
		return -1;
	}
	for (size_t i = 0; i < s->nprogs; i++)
		if (send_program(s, s->progs[i]) < 0)
			return -1;
	s->err[0] = '\0';
	return 0;
}

static struct cached *slot(struct ms_sym *s, const char *object, uint64_t offset)
{
	uint64_t h = offset * 0x9e3779b97f4a7c15ull;

	for (const char *p = object; *p; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
	return &s->cache[(h >> 32) % CACHE];
}

static int site(struct ms_sym *s, const char *object, uint64_t offset, int pc, char *out, size_t outlen)
{
	struct cached *c;
	char ans[1024];
	const char *text = "";

	if (outlen)
		*out = '\0';
	if (!s || strlen(object) >= sizeof(c->object) || strpbrk(object, " \n"))
		return 0;
	c = slot(s, object, offset + (uint64_t)pc);
	if (c->text && c->offset == offset && c->pc == pc && strcmp(c->object, object) == 0) {
		snprintf(out, outlen, "%s", c->text);
		return (int)strlen(out);
	}
	if (ms_sym_start(s) < 0)
		return 0;
	if (send_line(s, "%s %s+0x%llx", pc ? "pc" : "sym", object, (unsigned long long)offset) < 0 ||
	    recv_line(s, ans, sizeof(ans)) < 0)
		return 0;
	if (strncmp(ans, "= ", 2) == 0)
		text = ans + 2;
	free(c->text);
	c->text = malloc(strlen(text) + 4);
	if (c->text) {
		if (*text)
			sprintf(c->text, " (%s)", text);
		else
			c->text[0] = '\0';
		snprintf(c->object, sizeof(c->object), "%s", object);
		c->offset = offset;
		c->pc = pc;
		snprintf(out, outlen, "%s", c->text);
	}
	return (int)strlen(out);
}

int ms_sym_site(struct ms_sym *s, const char *object, uint64_t offset, char *out, size_t outlen)
{
	return site(s, object, offset, 0, out, outlen);
}

int ms_sym_site_pc(struct ms_sym *s, const char *object, uint64_t offset, char *out, size_t outlen)
{
	return site(s, object, offset, 1, out, outlen);
}

int ms_sym_at(struct ms_sym *s, const char *text, struct ms_sym_range *out, unsigned max, unsigned *n,
	      char *msg, size_t msglen)
{
	char ans[2048];

	*n = 0;
	if (msglen)
		*msg = '\0';
	if (!s || strchr(text, '\n')) {
		snprintf(msg, msglen, "not a function's name nor FILE:LINE");
		return -1;
	}
	if (ms_sym_start(s) < 0) {
		snprintf(msg, msglen,
			 "a function's name or FILE:LINE needs the call sites' symbolizer, and %s; "
			 "at=\"OBJECT+0xOFFSET\" needs nothing",
			 s->err);
		return -1;
	}
	if (send_line(s, "at %s", text) < 0)
		goto lost;
	for (;;) {
		struct ms_sym_range r;
		const char *m;
		int v;

		if (recv_line(s, ans, sizeof(ans)) < 0)
			goto lost;
		if (ms_sym_parse_range(ans, &r) == 0) {
			if (*n < max)
				out[(*n)++] = r;
			continue;
		}
		v = ms_sym_parse_end(ans, &m);
		if (v == -2) {
			gone(s, "an answer out of the protocol");
			goto lost;
		}
		snprintf(msg, msglen, "%s", m);
		return v;
	}
lost:
	snprintf(msg, msglen, "the call sites' symbolizer failed: %s", s->err);
	return -1;
}

size_t ms_sym_line(struct ms_sym *s, const char *line, size_t len, char *out, size_t outlen)
{
	const char *site = ms_site_in_line(line, len);
	char obj[256], sym[1024];
	uint64_t off;
	size_t end, n;

	if (!outlen)
		return 0;
	if (site) {
		end = (size_t)(site - line) + ms_site_parse(site, obj, sizeof(obj), &off);
		if (ms_sym_site(s, obj, off, sym, sizeof(sym)) > 0) {
			n = (size_t)snprintf(out, outlen, "%.*s%s%.*s", (int)end, line, sym, (int)(len - end),
					     line + end);
			return n < outlen ? n : outlen - 1;
		}
	}
	n = len < outlen ? len : outlen - 1;
	memcpy(out, line, n);
	out[n] = '\0';
	return n;
}
