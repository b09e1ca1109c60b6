/* SPDX-License-Identifier: MIT */
/*
 * Live control: mockrun --control SOCKET serves requests from its run
 * loop, mockrun ctl SOCKET (ctl.c) sends them (DESIGN.md 4, "Live
 * control").
 * The server never blocks the loop: connections are non-blocking, a
 * reply is written as the socket takes it, and a wait (--wait-call,
 * --wait-exit) is a connection held open until its condition holds.
 * What a request asks of the running session (statements added, the
 * calls counted, a clock moved) is session.c's, which a driver's other
 * threads call too.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "catalog/catalog.h"
#include "channel/channel.h"
#include "clockmove.h"
#include "control.h"
#include "holds.h"
#include "session.h"

#define MAX_CLIENTS (MS_CONTROL_POLLFDS - 2)
#define POLL_WAIT_MS 10 /* how often a --wait-call looks at the counts */
#define DRAIN_MS 100	/* how long the end waits for requests of clients that came */
/* how long the janitor keeps the run's end for a --wait-exit that
 * comes after the socket is gone */
#define ENDED_S 10

enum wait_kind { WAIT_NONE, WAIT_CALL, WAIT_EXIT, WAIT_HELD };

struct client {
	int fd;
	char *in;		/* MS_CTL_MAX_REQUEST bytes */
	size_t inlen;
	char *out;		/* the reply, once there is one */
	size_t outlen, outoff;
	enum wait_kind wait;
	unsigned fns[6], nfns;	/* WAIT_CALL: the function and its variants, */
	uint64_t n;		/* how many calls */
	char fn[72];		/* its name as asked; WAIT_HELD: the hold's */
	int64_t deadline;	/* ms of CLOCK_MONOTONIC, -1: none */
};

struct ms_control {
	int lfd;
	char status[512];	/* how the program ended, once it has ("": not yet) */
	struct sockaddr_un ended; /* ms_control_ended_name() of the path */
	socklen_t endedlen;
	int janitor;		/* the write end: its EOF tells it to clean up */
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char *dir;		/* the private directory, or NULL */
	ino_t ino;
	struct client c[MAX_CLIENTS];
	size_t nc;
	/*
	 * --wait-held: a thread that waits on the state's hold_seq (a futex
	 * every thread that comes to a hold, or leaves one, bumps and wakes)
	 * and writes a byte into a pipe the run loop polls: the loop looks
	 * at the holds the moment one changes, with no polling.
	 */
	int watch[2];		/* the pipe, -1: no watcher */
	pthread_t watcher;
	uint32_t *seq;		/* the state's hold_seq */
	int watch_stop;		/* (atomic) */
	size_t watch_at;	/* its pollfd's index, 0: not polled */
};

/* ---- the socket and what removes it ---- */

/*
 * A grandchild, out of the process tree mockrun waits for (double fork,
 * its own session, every descriptor closed but a pipe): when the pipe's
 * last writer goes, mockrun has finished or died (SIGKILL included), and
 * it removes the socket, if it is still ours, and the directory.
 */
/* Whether a socket at path is a stale one (nobody listens). */
static int stale(const struct sockaddr_un *a)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), r;

	if (fd < 0)
		return 0;
	r = connect(fd, (const struct sockaddr *)a, sizeof(*a)) != 0 && errno == ECONNREFUSED;
	close(fd);
	return r;
}

/*
 * The name under which a run's end is kept once its socket is gone: an
 * abstract unix socket (no file to leave behind), named by the user and
 * the socket's absolute path, which both sides compute the same way (the
 * directory may be gone when ctl asks).
 */
int ms_control_ended_name(const char *path, struct sockaddr_un *a, socklen_t *len)
{
	char abs[PATH_MAX * 2], dir[PATH_MAX], real[PATH_MAX];
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	uint64_t h = 0xcbf29ce484222325ull;
	uid_t uid = geteuid();
	int n;

	if (slash && (size_t)(slash - path) < sizeof(dir)) {
		memcpy(dir, path, (size_t)(slash - path));
		dir[slash - path] = '\0';
	} else {
		snprintf(dir, sizeof(dir), "%s", slash ? "/" : ".");
	}
	if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	if (realpath(dir, real))
		snprintf(abs, sizeof(abs), "%s/%s", strcmp(real, "/") == 0 ? "" : real, base);
	else if (path[0] == '/')
		snprintf(abs, sizeof(abs), "%s", path);
	else if (getcwd(real, sizeof(real)))
		snprintf(abs, sizeof(abs), "%s/%s", real, path);
	else
		return -1;
	for (const unsigned char *q = (const unsigned char *)&uid; q < (const unsigned char *)(&uid + 1); q++)
		h = (h ^ *q) * 0x100000001b3ull;
	for (const unsigned char *q = (const unsigned char *)abs; *q; q++)
		h = (h ^ *q) * 0x100000001b3ull;
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	n = snprintf(a->sun_path + 1, sizeof(a->sun_path) - 1, "mockshim-ended-%016llx", (unsigned long long)h);
	*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
	return 0;
}

/* Tells the janitor that keeps an earlier run's end at this name to
 * forget it (a new run takes the path). */
static void forget_ended(const struct sockaddr_un *a, socklen_t len)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return;
	if (connect(fd, (const struct sockaddr *)a, len) == 0 &&
	    send(fd, MS_CTL_PROTO "\tforget\n", sizeof(MS_CTL_PROTO "\tforget\n") - 1, MSG_NOSIGNAL) > 0) {
		char b;

		/* until it has closed its listener */
		struct timeval tv = { .tv_sec = 1 };

		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		while (read(fd, &b, 1) > 0)
			;
	}
	close(fd);
}

/*
 * In the janitor, once the socket is gone: for ENDED_S seconds, a
 * --wait-exit that comes late (the run ended between ctl's start and its
 * connect) is told how the program ended, as it would have been.
 */
static void serve_ended(struct ms_control *c)
{
	int lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), r = -1;
	int64_t until = ms_mono_ms() + ENDED_S * 1000;

	if (lfd < 0 || !c->endedlen)
		return;
	for (int i = 0; i < 20 && (r = bind(lfd, (struct sockaddr *)&c->ended, c->endedlen)) != 0 &&
			errno == EADDRINUSE; i++)
		forget_ended(&c->ended, c->endedlen);
	if (r != 0 || listen(lfd, 16) != 0) {
		close(lfd);
		return;
	}
	for (int64_t t; (t = ms_mono_ms()) < until;) {
		struct pollfd pfd = { .fd = lfd, .events = POLLIN };
		struct timeval tv = { .tv_sec = 1 };
		char req[256], out[sizeof(c->status) + 64];
		struct ucred cr;
		socklen_t l = sizeof(cr);
		ssize_t k = 0, got = 0;
		int fd, n;

		if (poll(&pfd, 1, (int)(until - t)) <= 0)
			continue;
		fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0)
			continue;
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &l) != 0 ||
		    (cr.uid != geteuid() && cr.uid != 0)) {
			close(fd);
			continue;
		}
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		while ((size_t)got < sizeof(req) - 1 && (k = read(fd, req + got, sizeof(req) - 1 - (size_t)got)) > 0) {
			got += k;
			if (memchr(req, '\n', (size_t)got))
				break;
		}
		req[got] = '\0';
		if (strncmp(req, MS_CTL_PROTO "\tforget\n", sizeof(MS_CTL_PROTO "\tforget\n") - 1) == 0) {
			close(lfd);
			close(fd);
			return;
		}
		n = strncmp(req, MS_CTL_PROTO "\twait-exit\t", sizeof(MS_CTL_PROTO "\twait-exit\t") - 1) == 0
			    ? snprintf(out, sizeof(out), MS_CTL_PROTO " ok\n%s", c->status)
			    : snprintf(out, sizeof(out), MS_CTL_PROTO " error\nthe run ended: %s", c->status);
		if (n > 0 && send(fd, out, strlen(out), MSG_NOSIGNAL) < 0) {
			/* the client went away */
		}
		close(fd);
	}
	close(lfd);
}

/*
 * The janitor: a process of its own (setsid, every signal blocked) that
 * removes the socket and the private directory when mockrun's end of its
 * pipe closes, however mockrun ends, SIGKILL included.  It starts before
 * the socket is bound, so no moment leaves one behind: mockrun sends the
 * socket's inode once it is bound, and the janitor removes what has that
 * inode; if mockrun died before sending it, a socket at the path that
 * nobody listens on is one it was making.  After the inode comes how the
 * run ended, if it did: serve_ended() keeps it for a late --wait-exit.
 */
static int start_janitor(struct ms_control *c)
{
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) != 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		int e = errno;

		close(p[0]);
		close(p[1]);
		return -e;
	}
	if (pid == 0) {
		struct sockaddr_un a = { .sun_family = AF_UNIX };
		sigset_t all;
		struct stat st;
		uint64_t ino = 0;
		size_t got = 0;
		ssize_t n;

		/* each child frees its copy of c before it ends (valgrind's
		 * leak check runs at _exit too) */
		if (fork() != 0) {
			free(c->dir);
			free(c);
			_exit(0);
		}
		setsid();
		prctl(PR_SET_NAME, "mockrun-ctl-rm");
		sigfillset(&all);
		sigprocmask(SIG_SETMASK, &all, NULL);
		close(p[1]);
		if (p[0] > 0)
			syscall(SYS_close_range, 0, (unsigned)p[0] - 1, 0);
		syscall(SYS_close_range, (unsigned)p[0] + 1, ~0u, 0);
		/* the inode (8 bytes), then how the run ended (if it did),
		 * then EOF */
		for (;;) {
			size_t st_got = got > sizeof(ino) ? got - sizeof(ino) : 0;
			char sink;

			if (got < sizeof(ino))
				n = read(p[0], (char *)&ino + got, sizeof(ino) - got);
			else if (st_got < sizeof(c->status) - 1)
				n = read(p[0], c->status + st_got, sizeof(c->status) - 1 - st_got);
			else
				n = read(p[0], &sink, 1) > 0 ? 0 : -1; /* (too long: kept cut) */
			if (n == 0)
				break;
			if (n > 0)
				got += (size_t)n;
			else if (errno != EINTR && errno != EAGAIN)
				break;
		}
		if (got > sizeof(ino))
			c->status[got - sizeof(ino) < sizeof(c->status) ? got - sizeof(ino) : sizeof(c->status) - 1] = '\0';
		memcpy(a.sun_path, c->path, sizeof(c->path));
		if (lstat(c->path, &st) == 0 && S_ISSOCK(st.st_mode) &&
		    (got == sizeof(ino) ? st.st_ino == ino : stale(&a)))
			unlink(c->path);
		if (c->dir)
			rmdir(c->dir);
		if (got > sizeof(ino))
			serve_ended(c);
		free(c->dir);
		free(c);
		_exit(0);
	}
	close(p[0]);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	c->janitor = p[1];
	return 0;
}

struct ms_control *ms_control_open(const char *path, char *err, size_t cap)
{
	struct ms_control *c = calloc(1, sizeof(*c));
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct stat st;
	mode_t old;
	int r;

	if (!c) {
		snprintf(err, cap, "--control: out of memory\n");
		return NULL;
	}
	c->lfd = c->janitor = -1;
	c->watch[0] = c->watch[1] = -1;
	if (!path) {
		const char *tmp = getenv("TMPDIR");

		if (asprintf(&c->dir, "%s/mockrun-XXXXXX", tmp && *tmp ? tmp : "/tmp") < 0) {
			c->dir = NULL;
			snprintf(err, cap, "--control: out of memory\n");
			goto fail;
		}
		if (!mkdtemp(c->dir)) {
			snprintf(err, cap, "--control: cannot make a directory %s: %s\n", c->dir,
				 strerror(errno));
			free(c->dir);
			c->dir = NULL;
			goto fail;
		}
		r = snprintf(c->path, sizeof(c->path), "%s/control", c->dir);
	} else {
		r = snprintf(c->path, sizeof(c->path), "%s", path);
	}
	if (r < 0 || (size_t)r >= sizeof(c->path)) {
		snprintf(err, cap, "--control %s: the path is too long for a unix socket (%zu bytes at most)\n",
			 path ? path : c->path, sizeof(c->path) - 1);
		goto fail;
	}
	memcpy(a.sun_path, c->path, sizeof(c->path));
	if (ms_control_ended_name(c->path, &c->ended, &c->endedlen) == 0)
		forget_ended(&c->ended, c->endedlen);
	else
		c->endedlen = 0;
	if ((r = start_janitor(c)) < 0) {
		snprintf(err, cap, "--control: cannot start the process that removes the socket: %s\n",
			 strerror(-r));
		goto fail;
	}
	if (lstat(c->path, &st) == 0) {
		/* a socket left by a mockrun that died: nobody listens */
		if (!S_ISSOCK(st.st_mode)) {
			snprintf(err, cap, "--control %s: it exists and is not a socket\n", c->path);
			goto fail;
		}
		if (!stale(&a)) {
			snprintf(err, cap, "--control %s: another process listens there\n", c->path);
			goto fail;
		}
		unlink(c->path);
	}
	c->lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (c->lfd < 0) {
		snprintf(err, cap, "--control: socket: %s\n", strerror(errno));
		goto fail;
	}
	/* 0600 from the start: no moment where another user may connect */
	old = umask(0177);
	r = bind(c->lfd, (struct sockaddr *)&a, sizeof(a));
	umask(old);
	if (r != 0) {
		snprintf(err, cap, "--control %s: %s\n", c->path, strerror(errno));
		goto fail;
	}
	if (stat(c->path, &st) != 0 || chmod(c->path, 0600) != 0) {
		snprintf(err, cap, "--control %s: %s\n", c->path, strerror(errno));
		unlink(c->path);
		goto fail;
	}
	c->ino = st.st_ino;
	{
		uint64_t ino = (uint64_t)st.st_ino;

		if (write(c->janitor, &ino, sizeof(ino)) != (ssize_t)sizeof(ino)) {
			snprintf(err, cap, "--control %s: %s\n", c->path, strerror(errno));
			unlink(c->path);
			goto fail;
		}
	}
	if (listen(c->lfd, 16) != 0) {
		snprintf(err, cap, "--control %s: %s\n", c->path, strerror(errno));
		unlink(c->path);
		goto fail;
	}
	return c;
fail:
	if (c->janitor >= 0)
		close(c->janitor);
	if (c->lfd >= 0)
		close(c->lfd);
	if (c->dir)
		rmdir(c->dir);
	free(c->dir);
	free(c);
	return NULL;
}

const char *ms_control_path(const struct ms_control *c)
{
	return c->path;
}

/* ---- the server ---- */

static void drop(struct ms_control *c, size_t i)
{
	close(c->c[i].fd);
	free(c->c[i].in);
	free(c->c[i].out);
	c->c[i] = c->c[--c->nc];
}

static void reply(struct client *cl, const char *status, const char *body, size_t len)
{
	FILE *m;

	if (cl->out)
		return;
	m = open_memstream(&cl->out, &cl->outlen);
	if (!m)
		return;
	fprintf(m, MS_CTL_PROTO " %s\n", status);
	fwrite(body, 1, len, m);
	if (fclose(m) != 0) {
		free(cl->out);
		cl->out = NULL;
		cl->outlen = 0;
	}
	cl->outoff = 0;
	cl->wait = WAIT_NONE;
}

static void replyf(struct client *cl, const char *status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void replyf(struct client *cl, const char *status, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	reply(cl, status, buf, n < 0 ? 0 : (size_t)n >= sizeof(buf) ? sizeof(buf) - 1 : (size_t)n);
}

/* The report so far, from a copy of the live state audited as at the end. */
static void live_report(struct client *cl, struct mockshim_session *s, const char *fmt)
{
	static const char *const names[] = {
		[MOCKSHIM_REPORT_TEXT] = "text", [MOCKSHIM_REPORT_TAP] = "tap",
		[MOCKSHIM_REPORT_JUNIT] = "junit", [MOCKSHIM_REPORT_JSON] = "json",
		[MOCKSHIM_REPORT_HTML] = "html",
	};
	struct ms_report_in in = ms_session_report_in(s);
	struct ms_chan_hdr *spec = NULL;
	char *buf = NULL;
	size_t len = 0;
	int format = -1;
	FILE *m;

	for (int i = 0; i < (int)(sizeof(names) / sizeof(names[0])); i++)
		if (names[i] && strcmp(names[i], fmt) == 0)
			format = i;
	if (format < 0) {
		replyf(cl, "error", "--report: unknown format '%s' (text, tap, junit, json, html)\n", fmt);
		return;
	}
	/* mockrun's own spec, the statements added so far counted, as at the end */
	spec = malloc(s->chan.spec_size);
	if (!spec) {
		replyf(cl, "error", "--report: out of memory\n");
		return;
	}
	pthread_mutex_lock(&s->live_lock); /* a driver's thread may be adding */
	memcpy(spec, s->own, s->chan.spec_size);
	pthread_mutex_unlock(&s->live_lock);
	ms_channel_commit_live(spec);
	in.spec = spec;
	in.running = 1;
	in.tampered = NULL;
	if (ms_report_take_state(&in, s->chan.state, s->chan.state_size, s->token) < 0) {
		replyf(cl, "error", "--report: out of memory\n");
		free(spec);
		return;
	}
	m = open_memstream(&buf, &len);
	if (m) {
		ms_report_write(&in, m, format);
		if (fclose(m) == 0)
			reply(cl, "ok", buf, len);
		else
			replyf(cl, "error", "--report: out of memory\n");
	}
	free(buf);
	ms_report_release(&in);
	free(spec);
}

static void show_clock(struct client *cl, struct mockshim_session *s)
{
	const struct ms_time_state *ts = ms_state_at(s->chan.state, s->own->st_times_off);
	struct ms_time_now n;
	struct timespec now;
	char when[64];
	struct tm tm;
	time_t secs;
	int64_t f;

	ms_time_read(&ts[0], &n);
	clock_gettime(CLOCK_REALTIME, &now);
	f = ms_time_fake(&n, MS_TC_REALTIME, (int64_t)now.tv_sec * 1000000000 + now.tv_nsec);
	secs = (time_t)(f >= 0 ? f / 1000000000 : (f - 999999999) / 1000000000);
	if (!gmtime_r(&secs, &tm) || !strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm))
		snprintf(when, sizeof(when), "@%lld", (long long)secs);
	replyf(cl, "ok", "fake_time: the clock shows %s UTC, rate %g\n", when, n.rate);
}

static int parse_i64(const char *p, int64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoll(p, &end, 10);
	return errno || end == p || *end ? -1 : 0;
}

/* Undoes the escapes of the client (backslash, n, t) in place; the length. */
static size_t unescape(char *p)
{
	char *start = p, *w = p;

	for (; *p; p++) {
		if (*p == '\\' && p[1]) {
			p++;
			*w++ = *p == 'n' ? '\n' : *p == 't' ? '\t' : *p;
		} else {
			*w++ = *p;
		}
	}
	*w = '\0';
	return (size_t)(w - start);
}

/* -e/-f: statements parsed as at the start (a bad one changes nothing)
 * and published into the running channel. */
static void add_live(struct client *cl, struct mockshim_session *s, char *text, char *src)
{
	char msg[2048];
	size_t len = unescape(text);
	int r;

	if (src) {
		unescape(src);
		for (const char *c = src; *c; c++) {
			if ((unsigned char)*c < 0x20 || *c == 0x7f) {
				replyf(cl, "error", "--source: a name without control characters\n");
				return;
			}
		}
		if (!*src || strlen(src) > 256) {
			replyf(cl, "error", "--source: a name of 1 to 256 bytes\n");
			return;
		}
	}
	pthread_mutex_lock(&s->live_lock);
	r = s->live_open ? ms_session_add_live(s, src, text, len, msg, sizeof(msg)) : -EINVAL;
	if (!s->live_open)
		snprintf(msg, sizeof(msg), "the run ended\n");
	pthread_mutex_unlock(&s->live_lock);
	reply(cl, r < 0 ? "error" : "ok", msg, strlen(msg));
}

static void *watch_holds(void *arg)
{
	struct ms_control *c = arg;

	while (!__atomic_load_n(&c->watch_stop, __ATOMIC_ACQUIRE)) {
		uint32_t v = __atomic_load_n(c->seq, __ATOMIC_ACQUIRE);
		char b = 1;

		if (write(c->watch[1], &b, 1) < 0) {
			/* full: the loop has a byte to read already */
		}
		if (__atomic_load_n(&c->watch_stop, __ATOMIC_ACQUIRE))
			break;
		syscall(SYS_futex, c->seq, FUTEX_WAIT, v, NULL, NULL, 0);
	}
	return NULL;
}

/* The watcher, from the first --wait-held on: 0, or -1. */
static int start_watcher(struct ms_control *c, struct mockshim_session *s)
{
	if (c->watch[0] >= 0)
		return 0;
	if (pipe2(c->watch, O_CLOEXEC | O_NONBLOCK) != 0) {
		c->watch[0] = c->watch[1] = -1;
		return -1;
	}
	c->seq = ms_holds_seq(s);
	c->watch_stop = 0;
	if (pthread_create(&c->watcher, NULL, watch_holds, c) != 0) {
		close(c->watch[0]);
		close(c->watch[1]);
		c->watch[0] = c->watch[1] = -1;
		return -1;
	}
	return 0;
}

/* Ends the watcher (the state is still mapped). */
static void stop_watcher(struct ms_control *c)
{
	if (c->watch[0] < 0)
		return;
	__atomic_store_n(&c->watch_stop, 1, __ATOMIC_RELEASE);
	__atomic_fetch_add(c->seq, 1, __ATOMIC_ACQ_REL);
	syscall(SYS_futex, c->seq, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
	pthread_join(c->watcher, NULL);
	close(c->watch[0]);
	close(c->watch[1]);
	c->watch[0] = c->watch[1] = -1;
	c->watch_at = 0;
}

/* --wait-held: the threads held at the hold, one line each; 0 when none. */
static int reply_held(struct client *cl, struct mockshim_session *s, const char *name)
{
	struct ms_held h[16];
	size_t k = ms_holds_list(s, name, h, 16);
	char body[16 * 512];
	size_t len = 0;

	if (!k)
		return 0;
	for (size_t i = 0; i < k && i < 16; i++) {
		ms_held_line(&h[i], body + len, sizeof(body) - len);
		len += strlen(body + len);
	}
	reply(cl, "ok", body, len);
	return 1;
}

static int hold_name_ok(struct client *cl, struct mockshim_session *s, const char *opt,
			const char *name)
{
	if (ms_holds_named(s, name))
		return 1;
	replyf(cl, "error", "%s: no will_hold is named '%s' in this run\n", opt, name);
	return 0;
}

/* One request: args[0] is the verb. */
static void handle(struct ms_control *c, struct client *cl, struct mockshim_session *s, char **args,
		   size_t nargs)
{
	const char *verb = args[0];
	int64_t v = 0;

	if (strcmp(verb, "report") == 0) {
		live_report(cl, s, nargs > 1 ? args[1] : "text");
	} else if (strcmp(verb, "advance-time") == 0 || strcmp(verb, "set-time") == 0 ||
		   strcmp(verb, "rate") == 0) {
		int rate = verb[0] == 'r';
		double r = 1;

		if (!s->own->nftimes) {
			replyf(cl, "error", "no fake_time in this session: there is no clock to move "
					    "(start it with fake_time(\"+0s\"))\n");
			return;
		}
		if (nargs != 2 || (rate ? (r = strtod(args[1], NULL), !(r >= 0 && r <= 1e6))
					: parse_i64(args[1], &v) < 0)) {
			replyf(cl, "error", "%s: a bad value\n", verb);
			return;
		}
		/* one writer of the anchor at a time: a driver's thread may move it */
		pthread_mutex_lock(&s->live_lock);
		if (ms_time_move(s->own, s->chan.state,
				 rate ? MS_TIME_RATE : verb[0] == 'a' ? MS_TIME_ADVANCE : MS_TIME_SET,
				 rate ? 0 : v, r) < 0) {
			char msg[256];

			ms_move_refused(s->own, s->chan.state, v, msg, sizeof(msg));
			pthread_mutex_unlock(&s->live_lock);
			reply(cl, "error", msg, strlen(msg));
			return;
		}
		pthread_mutex_unlock(&s->live_lock);
		show_clock(cl, s);
	} else if (strcmp(verb, "wait-call") == 0) {
		int id = nargs > 1 ? ms_catalog_find(args[1], strlen(args[1])) : -1;
		int64_t ms;

		if (nargs != 4 || parse_i64(args[2], &v) < 0 || v < 1 || parse_i64(args[3], &ms) < 0) {
			replyf(cl, "error", "wait-call: a bad request\n");
			return;
		}
		if (id < 0) {
			replyf(cl, "error", "--wait-call: '%s' is not in the catalog (see mockrun --list)\n",
			       args[1]);
			return;
		}
		if (!(((const struct ms_chan_fn *)ms_chan_at(s->own, s->own->fns_off))[id]
			      .flags & MS_FF_COUNTED)) {
			replyf(cl, "error", "--wait-call: %s is one of the allocator's functions, whose "
					    "calls are not counted\n", args[1]);
			return;
		}
		cl->wait = WAIT_CALL;
		cl->nfns = ms_session_fn_ids(args[1], cl->fns, sizeof(cl->fns) / sizeof(cl->fns[0]));
		snprintf(cl->fn, sizeof(cl->fn), "%s", args[1]);
		cl->n = (uint64_t)v;
		cl->deadline = ms_mono_ms() + ms;
	} else if (strcmp(verb, "wait-exit") == 0) {
		int64_t ms;

		if (nargs != 2 || parse_i64(args[1], &ms) < 0) {
			replyf(cl, "error", "wait-exit: a bad request\n");
			return;
		}
		if (c->status[0]) { /* the run has ended */
			reply(cl, "ok", c->status, strlen(c->status));
			return;
		}
		cl->wait = WAIT_EXIT;
		cl->deadline = ms_mono_ms() + ms;
	} else if (strcmp(verb, "wait-held") == 0) {
		int64_t ms;

		if (nargs != 3 || parse_i64(args[2], &ms) < 0) {
			replyf(cl, "error", "wait-held: a bad request\n");
			return;
		}
		if (!hold_name_ok(cl, s, "--wait-held", args[1]) || reply_held(cl, s, args[1]))
			return;
		if (start_watcher(c, s) < 0) {
			replyf(cl, "error", "--wait-held: cannot start the watcher: %s\n", strerror(errno));
			return;
		}
		cl->wait = WAIT_HELD;
		snprintf(cl->fn, sizeof(cl->fn), "%s", args[1]);
		cl->deadline = ms_mono_ms() + ms;
	} else if (strcmp(verb, "release") == 0 && (nargs >= 2 && nargs <= 4)) {
		char msg[2048];
		size_t k;

		if (!hold_name_ok(cl, s, "--release", args[1]))
			return;
		if (!ms_holds_list(s, args[1], NULL, 0)) {
			replyf(cl, "error", "--release: no thread is held at '%s' now\n", args[1]);
			return;
		}
		if (nargs >= 3) {
			/* the statement first: the held call takes it */
			size_t len = unescape(args[2]);
			int r;

			if (nargs == 4)
				unescape(args[3]);
			pthread_mutex_lock(&s->live_lock);
			r = s->live_open ? ms_session_add_live(s, nargs == 4 ? args[3] : NULL, args[2], len,
							       msg, sizeof(msg))
					 : -EINVAL;
			if (!s->live_open)
				snprintf(msg, sizeof(msg), "the run ended\n");
			pthread_mutex_unlock(&s->live_lock);
			if (r < 0) {
				reply(cl, "error", msg, strlen(msg));
				return;
			}
		}
		k = ms_holds_release(s, args[1]);
		replyf(cl, "ok", "released %zu thread%s at '%s'\n", k, k == 1 ? "" : "s", args[1]);
	} else if (strcmp(verb, "kill") == 0 && nargs == 3) {
		size_t k;

		if (parse_i64(args[2], &v) < 0 || v < 1 || v > 64) {
			replyf(cl, "error", "kill: a bad signal\n");
			return;
		}
		if (!hold_name_ok(cl, s, "--kill", args[1]))
			return;
		k = ms_holds_kill(s, args[1], (int)v);
		if (!k) {
			replyf(cl, "error", "--kill: no thread is held at '%s' now\n", args[1]);
			return;
		}
		replyf(cl, "ok", "signalled the process of %zu held thread%s at '%s'\n", k, k == 1 ? "" : "s",
		       args[1]);
	} else if (strcmp(verb, "add") == 0 && (nargs == 2 || nargs == 3)) {
		add_live(cl, s, args[1], nargs == 3 ? args[2] : NULL);
	} else if (strcmp(verb, "stop") == 0 && nargs == 1) {
		/* the run loop ends the tree as at --timeout */
		__atomic_store_n(&s->stop_req, 1, __ATOMIC_RELEASE);
		reply(cl, "ok", "", 0);
	} else {
		replyf(cl, "error", "unknown request '%s' (another mockrun version?)\n", verb);
	}
}

/* A whole request line in cl->in: split at tabs and handled. */
static void request(struct ms_control *c, struct client *cl, struct mockshim_session *s)
{
	char *args[8], *p = cl->in, *nl = memchr(cl->in, '\n', cl->inlen);
	size_t nargs = 0;

	*nl = '\0';
	if (strncmp(p, MS_CTL_PROTO "\t", sizeof(MS_CTL_PROTO)) != 0) {
		replyf(cl, "error", "not a mockrun ctl request (another mockrun version?)\n");
		return;
	}
	p += sizeof(MS_CTL_PROTO);
	while (p && nargs < sizeof(args) / sizeof(args[0])) {
		args[nargs++] = p;
		p = strchr(p, '\t');
		if (p)
			*p++ = '\0';
	}
	handle(c, cl, s, args, nargs);
}

static void check_waits(struct ms_control *c, struct mockshim_session *s)
{
	int64_t t = ms_mono_ms();

	for (size_t i = 0; i < c->nc; i++) {
		struct client *cl = &c->c[i];
		uint64_t k;

		if (cl->wait == WAIT_CALL) {
			k = ms_session_calls_of(s, cl->fns, cl->nfns);
			if (k >= cl->n)
				reply(cl, "ok", "", 0);
			else if (t >= cl->deadline)
				replyf(cl, "timeout", "--wait-call: %s was called %llu time%s of %llu\n",
				       cl->fn, (unsigned long long)k, k == 1 ? "" : "s",
				       (unsigned long long)cl->n);
		} else if (cl->wait == WAIT_HELD) {
			if (!reply_held(cl, s, cl->fn) && t >= cl->deadline)
				replyf(cl, "timeout", "--wait-held: no thread came to hold '%s'\n", cl->fn);
		} else if (cl->wait == WAIT_EXIT && t >= cl->deadline) {
			replyf(cl, "timeout", "--wait-exit: %s is still running\n", s->program);
		}
	}
}

size_t ms_control_pollfds(struct ms_control *c, struct pollfd *pfd)
{
	size_t n = 0;

	pfd[n++] = (struct pollfd){ .fd = c->nc < MAX_CLIENTS ? c->lfd : -1, .events = POLLIN };
	for (size_t i = 0; i < c->nc; i++)
		pfd[n++] = (struct pollfd){
			.fd = c->c[i].fd,
			.events = c->c[i].out ? POLLOUT : c->c[i].wait ? 0 : POLLIN,
		};
	c->watch_at = 0;
	if (c->watch[0] >= 0) {
		c->watch_at = n;
		pfd[n++] = (struct pollfd){ .fd = c->watch[0], .events = POLLIN };
	}
	return n;
}

int ms_control_wait_ms(const struct ms_control *c)
{
	int64_t t = ms_mono_ms(), w = -1;

	for (size_t i = 0; i < c->nc; i++) {
		int64_t d = c->c[i].wait == WAIT_CALL ? POLL_WAIT_MS
			    : c->c[i].wait == WAIT_EXIT || c->c[i].wait == WAIT_HELD
				    ? (c->c[i].deadline > t ? c->c[i].deadline - t : 0)
				    : -1;

		if (d >= 0 && (w < 0 || d < w))
			w = d;
	}
	return w > INT_MAX ? INT_MAX : (int)w;
}

void ms_control_serve(struct ms_control *c, const struct pollfd *pfd, size_t n,
		      struct mockshim_session *s)
{
	size_t nc = c->nc;

	if (c->watch_at && c->watch_at < n && (pfd[c->watch_at].revents & POLLIN)) {
		char b[64];

		while (read(c->watch[0], b, sizeof(b)) > 0)
			;
	}
	/* the clients first, as polled (accepting adds more at the end) */
	for (size_t i = nc; i-- > 0;) {
		struct client *cl = &c->c[i];
		short ev = i + 1 < n ? pfd[i + 1].revents : 0;

		if (cl->wait && !cl->out && (ev & (POLLERR | POLLHUP))) {
			/* the client went away while it waited (^C): poll would
			 * say so at once on every turn */
			drop(c, i);
			continue;
		}
		if (cl->out && (ev & (POLLOUT | POLLERR | POLLHUP))) {
			ssize_t k = send(cl->fd, cl->out + cl->outoff, cl->outlen - cl->outoff, MSG_NOSIGNAL);

			if (k > 0)
				cl->outoff += (size_t)k;
			if ((k < 0 && errno != EAGAIN) || cl->outoff == cl->outlen)
				drop(c, i);
			continue;
		}
		if (!cl->out && !cl->wait && (ev & (POLLIN | POLLERR | POLLHUP))) {
			ssize_t k = read(cl->fd, cl->in + cl->inlen, MS_CTL_MAX_REQUEST - 1 - cl->inlen);

			if (k <= 0) {
				if (k == 0 || errno != EAGAIN)
					drop(c, i);
				continue;
			}
			cl->inlen += (size_t)k;
			if (memchr(cl->in, '\n', cl->inlen))
				request(c, cl, s);
			else if (cl->inlen == MS_CTL_MAX_REQUEST - 1)
				replyf(cl, "error", "the request is too long (%d bytes at most)\n",
				       MS_CTL_MAX_REQUEST);
		}
	}
	if (n && (pfd[0].revents & POLLIN)) {
		int fd;

		while (c->nc < MAX_CLIENTS &&
		       (fd = accept4(c->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
			struct ucred cr;
			socklen_t l = sizeof(cr);

			/* the socket is 0600, and a process of another user
			 * that got a descriptor to it anyway is refused */
			if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &l) != 0 ||
			    (cr.uid != geteuid() && cr.uid != 0)) {
				close(fd);
				continue;
			}
			c->c[c->nc] = (struct client){ .fd = fd, .deadline = -1,
							.in = malloc(MS_CTL_MAX_REQUEST) };
			if (!c->c[c->nc].in) {
				close(fd);
				continue;
			}
			c->nc++;
		}
	}
	check_waits(c, s);
}

static void status_text(const struct mockshim_session *s, char *buf, size_t cap)
{
	const struct mockshim_result *r = &s->result;

	if (r->exec_errno)
		snprintf(buf, cap, "%s could not be started: %s\n", s->program, strerror(r->exec_errno));
	else if (r->signal)
		snprintf(buf, cap, "%s was killed by signal %d\n", s->program, r->signal);
	else
		snprintf(buf, cap, "%s exited with status %d\n", s->program, r->exit_status);
}

void ms_control_finish(struct ms_control *c, struct mockshim_session *s)
{
	char *status = c->status;

	status_text(s, c->status, sizeof(c->status));
	/* Clients that came as the run ended: connected (still in the
	 * listening socket's queue, or accepted) with their request not yet
	 * read.  A short bounded drain reads and answers them as the ended
	 * run does (--wait-exit: how the program ended), rather than "the
	 * run ended" or a closed connection. */
	for (int64_t until = ms_mono_ms() + DRAIN_MS;;) {
		struct pollfd pfd[1 + MAX_CLIENTS];
		size_t n = ms_control_pollfds(c, pfd), pending = 0;
		int64_t left = until - ms_mono_ms();

		for (size_t i = 0; i < c->nc; i++)
			pending += !c->c[i].out && !c->c[i].wait;
		if (left <= 0 || poll(pfd, n, pending ? (int)left : 0) <= 0)
			break;
		ms_control_serve(c, pfd, n, s);
	}
	check_waits(c, s);
	stop_watcher(c);
	for (size_t i = 0; i < c->nc; i++) {
		struct client *cl = &c->c[i];

		if (cl->wait == WAIT_EXIT)
			reply(cl, "ok", status, strlen(status));
		else if (cl->wait == WAIT_HELD)
			replyf(cl, "error", "--wait-held: the run ended; no thread was held at '%s'\n",
			       cl->fn);
		else if (cl->wait == WAIT_CALL)
			replyf(cl, "error", "--wait-call: the run ended; %s was called %llu time%s of %llu\n",
			       cl->fn, (unsigned long long)ms_session_calls_of(s, cl->fns, cl->nfns), ms_session_calls_of(s, cl->fns, cl->nfns) == 1 ? "" : "s",
			       (unsigned long long)cl->n);
		else if (!cl->out)
			replyf(cl, "error", "the run ended\n");
	}
}

void ms_control_close(struct ms_control *c)
{
	struct stat st;

	if (!c)
		return;
	stop_watcher(c);
	/* what is left to say, said with a bound on each client */
	for (size_t i = 0; i < c->nc; i++) {
		struct client *cl = &c->c[i];
		struct timeval tv = { .tv_sec = 1 };

		if (!cl->out && !cl->wait && c->status[0]) {
			/* a request that came after the drain: --wait-exit
			 * is still told how the program ended */
			ssize_t k = read(cl->fd, cl->in + cl->inlen, MS_CTL_MAX_REQUEST - 1 - cl->inlen);

			if (k > 0)
				cl->inlen += (size_t)k;
			static const char we[] = MS_CTL_PROTO "\twait-exit\t";

			if (cl->inlen > sizeof(we) - 1 && memcmp(cl->in, we, sizeof(we) - 1) == 0 &&
			    memchr(cl->in, '\n', cl->inlen))
				reply(cl, "ok", c->status, strlen(c->status));
		}
		if (!cl->out)
			replyf(cl, "error", "the run ended\n");
		fcntl(cl->fd, F_SETFL, 0);
		setsockopt(cl->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		while (cl->out && cl->outoff < cl->outlen) {
			ssize_t k = send(cl->fd, cl->out + cl->outoff, cl->outlen - cl->outoff, MSG_NOSIGNAL);

			if (k <= 0)
				break;
			cl->outoff += (size_t)k;
		}
	}
	while (c->nc)
		drop(c, c->nc - 1);
	if (lstat(c->path, &st) == 0 && S_ISSOCK(st.st_mode) && st.st_ino == c->ino)
		unlink(c->path);
	if (c->dir)
		rmdir(c->dir);
	close(c->lfd);
	if (c->janitor >= 0) {
		/* the janitor keeps how the run ended for a while */
		sigset_t pipe, old;
		struct timespec zero = { 0, 0 };

		/* (a janitor killed from outside must not kill mockrun) */
		sigemptyset(&pipe);
		sigaddset(&pipe, SIGPIPE);
		pthread_sigmask(SIG_BLOCK, &pipe, &old);
		if (c->status[0] && write(c->janitor, c->status, strlen(c->status)) < 0)
			sigtimedwait(&pipe, NULL, &zero);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		close(c->janitor);
	}
	free(c->dir);
	free(c);
}
