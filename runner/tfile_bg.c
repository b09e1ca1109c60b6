/* SPDX-License-Identifier: MIT */
/*
 * Test files: run_background, control and stop.  A test with them runs
 * its steps in the order of its file, each background in a process of
 * its own that runs the block's session with a control socket, acted on
 * through mockrun ctl; the test's own run in a child too, since a
 * session waits for every child of its process.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mockshim/driver.h"
#include "control.h"
#include "testfile.h"
#include "tfile.h"

/* A background's process: it runs the block's session with a control
 * socket and, when the session is over, writes how it ended. */
struct bg {
	pid_t pid;		/* 0: not started */
	int fd;			/* its results; -1: collected */
	int killed;		/* kill_held killed it: its end is not judged */
	char sock[PATH_MAX];
};

/* The background's session ended (its results are waiting). */
static int bg_ended(const struct bg *g)
{
	struct pollfd p = { .fd = g->fd, .events = POLLIN };

	return g->fd >= 0 && poll(&p, 1, 0) > 0;
}

/* A child that dies with the test's worker, a pipe from it in fd[0];
 * 0 in the child (fd[1] its end). */
static pid_t fork_helper(int fd[2])
{
	pid_t parent = getpid(), pid;

	if (pipe2(fd, O_CLOEXEC) != 0)
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return -1;
	}
	if (pid == 0) {
		close(fd[0]);
		/* a session forwards the SIGTERM to its program */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent)
			_exit(1);
		return 0;
	}
	close(fd[1]);
	return pid;
}

/* mockrun ctl argv[0] ACTIONS... in a child: its exit status, what it
 * wrote in out. */
static int ctl_run(char **argv, int argc, struct strbuf *out)
{
	int fd[2], st = 0;
	pid_t pid = fork_helper(fd);
	char buf[4096];
	ssize_t k;

	if (pid < 0) {
		sb_printf(out, "cannot fork: %s\n", strerror(errno));
		return 125;
	}
	if (pid == 0) {
		if (dup2(fd[1], 1) < 0 || dup2(fd[1], 2) < 0)
			_exit(125);
		_exit(ms_ctl_main(argc, argv));
	}
	while ((k = read(fd[0], buf, sizeof(buf))) > 0 || (k < 0 && errno == EINTR))
		if (k > 0)
			sb_printf(out, "%.*s", (int)k, buf);
	close(fd[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 125;
}

static int start_bg(const struct file *f, const struct block *b, const char *dir, const char *suite_dir,
		    const struct testfile_opts *o, const char *ctl_dir, struct bg *g)
{
	int fd[2];

	g->fd = -1;
	if ((size_t)snprintf(g->sock, sizeof(g->sock), "%s/%s", ctl_dir, b->name) >= sizeof(g->sock)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	g->pid = fork_helper(fd);
	if (g->pid < 0) {
		g->pid = 0;
		return -1;
	}
	if (g->pid == 0) {
		struct strbuf d = { NULL, 0 }, ex = { NULL, 0 };
		struct mockshim_result res;
		struct mockshim_session *s = ms_tf_run_one(f, b, &b->runs[0], dir, suite_dir, o, g->sock, &res, &d);
		const char *err;
		size_t n;

		if (!s) {
			ms_tf_put_field(fd[1], "n");
			ms_tf_put_field(fd[1], d.s);
			_exit(0);
		}
		ms_tf_describe_exit(&ex, &res);
		ms_tf_put_field(fd[1], !res.exec_errno && res.exited && res.exit_status == 0 ? "z" : "x");
		ms_tf_put_field(fd[1], ex.s);
		if (res.failures)
			ms_tf_add_report(&d, s);
		ms_tf_put_field(fd[1], d.s);
		err = mockshim_session_output(s, 2, &n);
		/* the end of what it wrote, which holds no NUL of its own */
		ms_tf_put_mem(fd[1], n > 2000 ? err + n - 2000 : err, (uint32_t)(n > 2000 ? 2000 : n));
		_exit(0);
	}
	g->fd = fd[0];
	return 0;
}

/* Until the background's socket takes connections: 0, or -1 if its
 * session ended first or after timeout seconds. */
static int wait_bg(const struct bg *g, double timeout)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (strlen(g->sock) >= sizeof(a.sun_path))
		timeout = 0; /* the session ends at once, and says why */
	else
		strcpy(a.sun_path, g->sock);
	for (;;) {
		struct timespec pause = { 0, 5000000 };
		int fd;

		if (bg_ended(g))
			return -1;
		fd = a.sun_path[0] ? socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0) : -1;
		if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0) {
			close(fd);
			return 0;
		}
		if (fd >= 0)
			close(fd);
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 > timeout + 1)
			return -1;
		nanosleep(&pause, NULL);
	}
}

/* Stops background b (at its stop, line, or at the end of the test) and
 * judges it: 1 if it failed, why in details.  A background fails if it
 * could not start, ended before its stop other than with status 0, or
 * its mock checks failed; how it ends when stopped is not judged. */
static int stop_bg(const struct file *f, const struct block *b, struct bg *g, uint32_t line,
		   struct strbuf *details)
{
	char *flag, *ex = NULL, *why = NULL, *err = NULL;
	int ended, failed = 0, st;

	if (!g->pid || g->fd < 0)
		return 0;
	ended = bg_ended(g);
	if (!ended) {
		char *argv[] = { g->sock, (char *)"--stop", NULL };
		struct strbuf out = { NULL, 0 };

		if (ctl_run(argv, 2, &out) != 0) {
			/* the socket is gone once the run is over: it
			 * ended by itself and its results come soon; else
			 * its session ends the program at a SIGTERM */
			struct pollfd p = { .fd = g->fd, .events = POLLIN };

			ended = 1;
			if (poll(&p, 1, 10000) <= 0)
				kill(g->pid, SIGTERM);
		}
		free(out.s);
	}
	flag = ms_tf_get_field(g->fd);
	if (flag && flag[0] != 'n') {
		ex = ms_tf_get_field(g->fd);
		why = ms_tf_get_field(g->fd);
		err = ms_tf_get_field(g->fd);
	} else if (flag) {
		why = ms_tf_get_field(g->fd);
	}
	close(g->fd);
	g->fd = -1;
	while (waitpid(g->pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!flag) {
		sb_printf(details, "%s:%u: run_background %s: its worker died\n", f->path, b->line, b->name);
		failed = 1;
	} else if (flag[0] == 'n') {
		sb_printf(details, "%s:%u: run_background %s: %s%s", f->path, b->line, b->name,
			  why ? why : "", why && *why && why[strlen(why) - 1] == '\n' ? "" : "\n");
		failed = 1;
	} else {
		if (ended && flag[0] != 'z' && !g->killed) {
			if (line == b->line)
				sb_printf(details, "%s:%u: run_background %s: %s %s before the test's end\n",
					  f->path, b->line, b->name, b->runs[0].argv[0], ex ? ex : "ended");
			else
				sb_printf(details, "%s:%u: run_background %s: %s %s before its stop at line %u\n",
					  f->path, b->line, b->name, b->runs[0].argv[0], ex ? ex : "ended", line);
			failed = 1;
		}
		if (why && *why) {
			sb_printf(details, "%s:%u: run_background %s: its mock checks failed\n%s", f->path,
				  b->line, b->name, why);
			failed = 1;
		}
		if (failed && err && *err)
			sb_printf(details, "run_background %s stderr%s:\n%s%s", b->name,
				  strlen(err) >= 2000 ? " (the end)" : "", err,
				  err[strlen(err) - 1] == '\n' ? "" : "\n");
	}
	free(flag);
	free(ex);
	free(why);
	free(err);
	return failed;
}

/* A control block's statements as a request: the blank lines before
 * them kept as newlines only, so lines and columns stay the file's. */
char *ms_tf_act_text(const char *blanked)
{
	const char *p = blanked, *ls = blanked, *e;
	struct strbuf b = { NULL, 0 };

	while (*p == ' ' || *p == '\n') {
		if (*p == '\n') {
			sb_printf(&b, "\n");
			ls = p + 1;
		}
		p++;
	}
	e = p + strlen(p);
	while (e > p && (e[-1] == ' ' || e[-1] == '\n'))
		e--;
	sb_printf(&b, "%.*s\n", (int)(e - ls), ls);
	return b.s;
}

/* Control block c's acts on background g, in order, through mockrun
 * ctl: 1 if one failed, why in details. */
static int run_control(const struct file *f, const struct block *c, struct bg *g,
		       const struct testfile_opts *o, struct strbuf *details)
{
	char timeout[32];

	snprintf(timeout, sizeof(timeout), "%g", o->timeout > 0 ? o->timeout : 30.0);
	for (size_t i = 0; i < c->nacts; i++) {
		const struct act *a = &c->acts[i];
		char count[24], *text = NULL, *argv[12];
		struct strbuf out = { NULL, 0 };
		int argc = 0, rc;

		argv[argc++] = g->sock;
		switch (a->kind) {
		case A_ADD:
			text = ms_tf_act_text(a->text);
			argv[argc++] = (char *)"--source";
			argv[argc++] = f->path;
			argv[argc++] = (char *)"-e";
			argv[argc++] = text;
			break;
		case A_WAIT_CALL:
			snprintf(count, sizeof(count), "%lu", a->n);
			argv[argc++] = (char *)"--wait-call";
			argv[argc++] = a->text;
			argv[argc++] = count;
			argv[argc++] = (char *)"--timeout";
			argv[argc++] = timeout;
			break;
		case A_WAIT_HELD:
			argv[argc++] = (char *)"--wait-held";
			argv[argc++] = a->text;
			argv[argc++] = (char *)"--timeout";
			argv[argc++] = timeout;
			break;
		case A_RELEASE:
			if (a->stmt) {
				argv[argc++] = (char *)"--source";
				argv[argc++] = f->path;
			}
			argv[argc++] = (char *)"--release";
			argv[argc++] = a->text;
			if (a->stmt) {
				argv[argc++] = (char *)"-e";
				argv[argc++] = a->stmt;
			}
			break;
		case A_KILL_HELD:
			snprintf(count, sizeof(count), "%lu", a->n);
			argv[argc++] = (char *)"--kill";
			argv[argc++] = a->text;
			argv[argc++] = count;
			g->killed = 1;
			break;
		case A_ADVANCE:
		case A_SET:
		case A_RATE:
			argv[argc++] = (char *)(a->kind == A_ADVANCE ? "--advance-time"
						: a->kind == A_SET ? "--set-time" : "--rate");
			argv[argc++] = a->text;
			break;
		}
		argv[argc] = NULL;
		rc = ctl_run(argv, argc, &out);
		free(text);
		if (rc != 0) {
			const char *m = out.s ? out.s : "";

			if (strncmp(m, "mockrun ctl: ", 13) == 0)
				m += 13;
			sb_printf(details, "%s:%u: control %s: %s%s%s", f->path, a->line, c->name,
				  bg_ended(g) ? "(its run_background had ended) " : "", m,
				  *m && m[strlen(m) - 1] == '\n' ? "" : "\n");
			free(out.s);
			return 1;
		}
		free(out.s);
	}
	return 0;
}

/* The test's own run, in a child: a session waits for every child of
 * its process, and the backgrounds are children of this one. */
static int run_fg(const struct file *f, const struct block *t, const char *dir, const char *suite_dir,
		  const struct testfile_opts *o, struct result *out, struct strbuf *details)
{
	int fd[2], st;
	pid_t pid = fork_helper(fd);
	char *flag, *d;

	if (pid < 0) {
		sb_printf(details, "cannot fork: %s\n", strerror(errno));
		return 1;
	}
	if (pid == 0) {
		struct strbuf why = { NULL, 0 };
		struct mockshim_result res;
		struct result r;
		struct mockshim_session *s;
		int failed;

		memset(&r, 0, sizeof(r));
		s = ms_tf_run_one(f, t, &t->runs[0], dir, suite_dir, o, NULL, &res, &why);
		failed = !s || ms_tf_check_run(f, t, dir, s, &res, &r, &why);
		ms_tf_put_field(fd[1], failed ? "f" : "p");
		ms_tf_put_field(fd[1], why.s);
		ms_tf_put_field(fd[1], r.out);
		ms_tf_put_field(fd[1], r.err);
		_exit(0);
	}
	flag = ms_tf_get_field(fd[0]);
	d = flag ? ms_tf_get_field(fd[0]) : NULL;
	out->out = flag ? ms_tf_get_field(fd[0]) : NULL;
	out->err = flag ? ms_tf_get_field(fd[0]) : NULL;
	close(fd[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (d && *d)
		sb_printf(details, "%s", d);
	if (!flag)
		sb_printf(details, "%s:%u: the run's worker died\n", f->path, t->runs[0].line);
	free(d);
	st = !flag || flag[0] != 'p';
	free(flag);
	return st;
}

/* A test with backgrounds: its steps in the order of the file, then
 * every background not stopped yet (after a failure too). */
int ms_tf_run_steps(const struct file *f, const struct block *t, const char *dir, const char *suite_dir,
		     const struct testfile_opts *o, struct result *out, struct strbuf *details)
{
	struct bg *g = xrealloc(NULL, t->nsubs * sizeof(*g));
	const char *tmp = getenv("TMPDIR");
	double wait_s = o->timeout > 0 ? o->timeout : 30.0;
	char ctl_dir[PATH_MAX];
	int failed = 0;

	memset(g, 0, t->nsubs * sizeof(*g));
	/* the sockets out of the test's directory, which its programs see */
	snprintf(ctl_dir, sizeof(ctl_dir), "%s/mockshim-ctl-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(ctl_dir)) {
		sb_printf(details, "cannot make a directory for the control sockets: %s\n", strerror(errno));
		free(g);
		return 1;
	}
	for (size_t i = 0; i < t->nsteps && !failed; i++) {
		const struct step *st = &t->steps[i];
		const struct block *b = &t->subs[st->sub];

		switch (st->kind) {
		case S_START:
			if (start_bg(f, b, dir, suite_dir, o, ctl_dir, &g[st->sub]) < 0) {
				sb_printf(details, "%s:%u: run_background %s: cannot fork: %s\n", f->path,
					  b->line, b->name, strerror(errno));
				failed = 1;
			} else if (wait_bg(&g[st->sub], wait_s) < 0 && !bg_ended(&g[st->sub])) {
				/* one that ended before its socket took a connection
				 * (run true) is judged at its stop, as any other */
				sb_printf(details, "%s:%u: run_background %s: its control socket "
						   "took no connection in %g s\n", f->path, b->line,
					  b->name, wait_s);
				stop_bg(f, b, &g[st->sub], b->line, details);
				failed = 1;
			}
			break;
		case S_CONTROL:
			failed |= run_control(f, b, &g[b->target], o, details);
			break;
		case S_RUN:
			failed |= run_fg(f, t, dir, suite_dir, o, out, details);
			break;
		case S_STOP:
			failed |= stop_bg(f, b, &g[st->sub], st->line, details);
			break;
		}
	}
	for (size_t i = t->nsubs; i-- > 0;)
		if (t->subs[i].kind == B_BACKGROUND)
			failed |= stop_bg(f, &t->subs[i], &g[i], t->subs[i].line, details);
	ms_tf_rm_tree(ctl_dir);
	free(g);
	return failed;
}

