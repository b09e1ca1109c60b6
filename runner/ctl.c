/* SPDX-License-Identifier: MIT */
/*
 * mockrun ctl SOCKET ACTION...: the client of live control (control.h).
 * Every action is checked before the first request goes; each request
 * is a connection of its own, its reply's body copied to stdout (ok) or
 * stderr, and the exit status says how the last one went.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "catalog/catalog.h"
#include "clockmove.h"
#include "control.h"

#define DEFAULT_WAIT_S 30.0

static void ctl_usage(FILE *f)
{
	fputs("usage: mockrun ctl SOCKET ACTION...\n"
	      "Acts on a program running under mockrun --control SOCKET (SOCKET '-':\n"
	      "$" MS_CONTROL_ENV "); the actions run in order:\n"
	      "  --report [FMT]          the report so far on stdout (text, tap, junit,\n"
	      "                          json, html)\n"
	      "  --advance-time OFFSET   fake_time's wall clocks jump (+1h, -30s, +1d)\n"
	      "  --set-time WHEN         CLOCK_REALTIME shows WHEN (\"2031-01-01 00:00:00\")\n"
	      "  --rate R                the fake clocks run on at rate R (0: frozen)\n"
	      "  --wait-call FN [N]      until FN was called N times (default 1) in all,\n"
	      "                          since the run started (and for the socket)\n"
	      "  --wait-exit             until every process of the run has exited: how\n"
	      "                          the program ended (kept 10 s after the end)\n"
	      "  -e STMTS, -f FILE       add replies (will_*) for the calls from now on, in\n"
	      "                          every process (sources ctl#1, ctl#2, ...)\n"
	      "  --source NAME           the source of the -e/-f after it, in errors and\n"
	      "                          reports (NAME:LINE:COL), instead of ctl#N\n"
	      "  --wait-held NAME        until a thread is held at will_hold(..., name=NAME):\n"
	      "                          prints pid, tid, process, the call and its site,\n"
	      "                          a line per thread held there\n"
	      "  --release NAME [-e STMTS]\n"
	      "                          lets every thread held at NAME go on to FN's next\n"
	      "                          statement or the real call; with -e, STMTS are\n"
	      "                          added first, so the held call takes them\n"
	      "                          (--release io -e 'will_fail(fsync, EIO)')\n"
	      "  --kill NAME [SIG]       sends SIG (default KILL) to the process of every\n"
	      "                          thread held at NAME (no failure in the report)\n"
	      "  --stop                  end the run: SIGTERM to every process of it\n"
	      "                          (SIGKILL 2 s later), as at its timeout\n"
	      "  --timeout SECS          for every wait (default 30; then exit 124)\n"
	      "Exit status: 0 done, 124 a wait timed out, 125 an error.\n",
	      f);
}

/* Whether the server of the ended-run name that fd is connected to runs
 * as this user (or root), as the janitor does.  That name is abstract:
 * no file mode guards it, and any local user may bind it first to forge
 * a run's end.  A process of this same user can still do so (doc/mockrun.1,
 * SECURITY).  The refusal is said once per ctl. */
static int ended_peer_ours(int fd, const char *sock)
{
	static int said;
	struct ucred cr;
	socklen_t l = sizeof(cr);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &l) != 0 || l != sizeof(cr)) {
		if (!said++)
			fprintf(stderr, "mockrun ctl: %s: the ended run's answer: %s (who serves it "
					"is unknown): ignored\n", sock, strerror(errno));
		return 0;
	}
	if (cr.uid == geteuid() || cr.uid == 0)
		return 1;
	if (!said++)
		fprintf(stderr, "mockrun ctl: %s: the ended run's answer came from uid %lu, "
				"not yours: ignored\n", sock, (unsigned long)cr.uid);
	return 0;
}

/* Sends one request and copies the reply's body to stdout (ok) or
 * stderr; the exit status.  wait: 1 waits for the socket (mockrun may be
 * starting), 2 (--wait-exit) also asks where the janitor keeps a run's
 * end once the socket is gone, and asks again when the connection closed
 * unanswered (the run ended meanwhile). */
static int ctl_send(const char *sock, const char *req, double wait_s, int wait)
{
	struct sockaddr_un ended;
	socklen_t endedlen = 0;
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct timeval tv;
	char buf[65536], *nl;
	size_t len = 0;
	ssize_t k;
	int fd, rc = 125, head = 1, e;
	int64_t until = ms_mono_ms() + (int64_t)(wait_s * 1000);

	if (strlen(sock) >= sizeof(a.sun_path)) {
		fprintf(stderr, "mockrun ctl: %s: the path is too long for a unix socket\n", sock);
		return 125;
	}
	strcpy(a.sun_path, sock);
	if (wait == 2 && ms_control_ended_name(sock, &ended, &endedlen) < 0)
		endedlen = 0;
again:
	/* a wait waits for the socket too: mockrun may be starting */
	for (;;) {
		struct timespec pause = { 0, 20000000 };

		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0)
			break;
		e = errno;
		/* the run has ended: its janitor may still know how */
		if (endedlen && (e == ENOENT || e == ECONNREFUSED) &&
		    connect(fd, (struct sockaddr *)&ended, endedlen) == 0) {
			if (ended_peer_ours(fd, sock))
				break;
			/* another user's: as if nothing were there */
		}
		close(fd);
		fd = -1;
		errno = e;
		if (!wait || (e != ENOENT && e != ECONNREFUSED))
			break;
		if (ms_mono_ms() >= until) {
			fprintf(stderr, "mockrun ctl: %s: no mockrun --control serves it after %g s\n",
				sock, wait_s);
			return 124;
		}
		nanosleep(&pause, NULL);
	}
	if (fd < 0) {
		struct stat st;

		e = errno;
		if (stat(sock, &st) == 0 && !S_ISSOCK(st.st_mode))
			fprintf(stderr, "mockrun ctl: %s: not a socket (the path mockrun --control "
					"printed, or $" MS_CONTROL_ENV ")\n", sock);
		else
			fprintf(stderr, "mockrun ctl: %s: %s%s\n", sock, strerror(e),
				e == ENOENT || e == ECONNREFUSED ? " (no mockrun --control serves it: "
								   "has the run ended?)" : "");
		return 125;
	}
	/* a reply, even to a wait, comes within its timeout; a socket that
	 * is not ours may never answer */
	tv.tv_sec = (time_t)wait_s + 5;
	tv.tv_usec = 0;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	tv.tv_sec = 5;
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	signal(SIGPIPE, SIG_IGN);
	if (write(fd, req, strlen(req)) != (ssize_t)strlen(req)) {
		if (wait == 2 && (errno == EPIPE || errno == ECONNRESET) && ms_mono_ms() < until) {
			/* closed as we came: the run ended, ask its janitor */
			close(fd);
			goto again;
		}
		fprintf(stderr, "mockrun ctl: %s: %s (not a mockrun control socket?)\n", sock,
			strerror(errno));
		close(fd);
		return 125;
	}
	while ((k = read(fd, buf + len, sizeof(buf) - len)) > 0 || (k < 0 && errno == EINTR)) {
		if (k < 0)
			continue;
		len += (size_t)k;
		if (head) {
			if (!(nl = memchr(buf, '\n', len))) {
				if (len < sizeof(buf))
					continue;
				break;
			}
			*nl = '\0';
			if (strncmp(buf, MS_CTL_PROTO " ", sizeof(MS_CTL_PROTO)) != 0)
				break;
			rc = strcmp(buf + sizeof(MS_CTL_PROTO), "ok") == 0		? 0
			     : strcmp(buf + sizeof(MS_CTL_PROTO), "timeout") == 0 ? 124
									   : 125;
			head = 0;
			len -= (size_t)(nl + 1 - buf);
			memmove(buf, nl + 1, len);
		}
		if (fwrite(buf, 1, len, rc == 0 ? stdout : stderr) != len) {
			rc = 125;
			break;
		}
		len = 0;
	}
	if (head && wait == 2 && len == 0 && ms_mono_ms() < until) {
		/* closed unanswered: the run ended as we came */
		close(fd);
		goto again;
	}
	if (head) {
		fprintf(stderr, "mockrun ctl: %s: %s\n", sock,
			k < 0 ? "no answer (not a mockrun control socket?)"
			      : "not a mockrun control socket (its answer is not mockrun's)");
		rc = 125;
	}
	close(fd);
	if (fflush(stdout) != 0) {
		fprintf(stderr, "mockrun ctl: stdout: %s\n", strerror(errno));
		rc = 125;
	}
	return rc;
}

/* -e STMTS / -f FILE (- : stdin) as an add request, escaped onto a line. */
static size_t escape_into(char *req, size_t w, size_t cap, const char *text, size_t len, size_t *used)
{
	size_t i;

	for (i = 0; i < len && w + 3 < cap; i++) {
		char ch = text[i];

		if (ch == '\\' || ch == '\n' || ch == '\t') {
			req[w++] = '\\';
			ch = ch == '\n' ? 'n' : ch == '\t' ? 't' : ch;
		}
		req[w++] = ch;
	}
	*used = i;
	return w;
}

static int add_request(const char *opt, const char *arg, const char *source, char *req, size_t cap)
{
	char *text = NULL;
	size_t len = 0, w, i;
	FILE *f = NULL;

	if (opt[1] == 'e') {
		text = strdup(arg);
		len = text ? strlen(text) : 0;
	} else {
		f = strcmp(arg, "-") == 0 ? stdin : fopen(arg, "re");
		if (!f) {
			fprintf(stderr, "mockrun ctl: -f %s: %s\n", arg, strerror(errno));
			return -1;
		}
		text = malloc(MS_CTL_MAX_REQUEST);
		len = text ? fread(text, 1, MS_CTL_MAX_REQUEST, f) : 0;
		if (text && ferror(f)) {
			fprintf(stderr, "mockrun ctl: -f %s: %s\n", arg, strerror(errno));
			free(text);
			text = NULL;
			len = 0;
		}
		if (f != stdin)
			fclose(f);
		if (!text)
			return -1;
	}
	if (!text) {
		fprintf(stderr, "mockrun ctl: out of memory\n");
		return -1;
	}
	w = (size_t)snprintf(req, cap, MS_CTL_PROTO "\tadd\t");
	w = escape_into(req, w, cap, text, len, &i);
	free(text);
	if (i == len && source && w + 3 < cap) {
		size_t sl = strlen(source), k;

		req[w++] = '\t';
		w = escape_into(req, w, cap, source, sl, &k);
		i = k == sl ? i : 0;
	}
	if (i < len || w + 2 > cap) {
		fprintf(stderr, "mockrun ctl: %s: the statements are too long (%d bytes at most)\n", opt,
			MS_CTL_MAX_REQUEST / 2);
		return -1;
	}
	req[w++] = '\n';
	req[w] = '\0';
	return 0;
}

static int is_format(const char *p)
{
	static const char *const f[] = { "text", "tap", "junit", "json", "html" };

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (strcmp(p, f[i]) == 0)
			return 1;
	return 0;
}

/* --wait-call FN [N] at argv[*i]: the request, with *i at its last word;
 * 0, or -1 with the error printed. */
static int wait_call_request(int argc, char **argv, int *i, double wait_s, char *req, size_t cap)
{
	const char *fn = *i + 1 < argc ? argv[*i + 1] : NULL;
	unsigned long long n = 1;
	char *end;

	if (!fn || fn[0] == '-') {
		fprintf(stderr, "mockrun ctl: --wait-call needs a function\n");
		return -1;
	}
	if (ms_catalog_find(fn, strlen(fn)) < 0) {
		fprintf(stderr, "mockrun ctl: --wait-call: '%s' is not in the catalog (see mockrun --list)\n",
			fn);
		return -1;
	}
	(*i)++;
	if (*i + 1 < argc && argv[*i + 1][0] >= '0' && argv[*i + 1][0] <= '9') {
		errno = 0;
		n = strtoull(argv[*i + 1], &end, 10);
		if (errno || *end || n < 1 || n > UINT32_MAX) {
			fprintf(stderr, "mockrun ctl: --wait-call %s: '%s' is not a count in 1..%u\n", fn,
				argv[*i + 1], UINT32_MAX);
			return -1;
		}
		(*i)++;
	}
	snprintf(req, cap, MS_CTL_PROTO "\twait-call\t%s\t%llu\t%lld\n", fn, n, (long long)(wait_s * 1000));
	return 0;
}

/* A hold's name as will_hold's name= takes it: 0, or -1 with the error. */
static int hold_name(const char *opt, const char *name)
{
	if (!name || !*name || name[0] == '-' || strlen(name) > 64 || strpbrk(name, " \t\n\"\\")) {
		fprintf(stderr, "mockrun ctl: %s needs a hold's name (will_hold's name=)\n", opt);
		return -1;
	}
	return 0;
}

/* --release NAME [-e STMTS | -f FILE] at argv[*i]. */
static int release_request(int argc, char **argv, int *i, const char *source, char *req, size_t cap)
{
	static char add[MS_CTL_MAX_REQUEST];
	const char *name = *i + 1 < argc ? argv[*i + 1] : NULL;
	size_t pre = sizeof(MS_CTL_PROTO "\tadd\t") - 1;

	if (hold_name("--release", name) < 0)
		return -1;
	(*i)++;
	if (*i + 1 < argc && (strcmp(argv[*i + 1], "-e") == 0 || strcmp(argv[*i + 1], "-f") == 0)) {
		if (*i + 2 >= argc) {
			fprintf(stderr, "mockrun ctl: --release %s %s needs %s\n", name, argv[*i + 1],
				argv[*i + 1][1] == 'e' ? "statements" : "a file");
			return -1;
		}
		if (add_request(argv[*i + 1], argv[*i + 2], source, add, sizeof(add)) < 0)
			return -1;
		*i += 2;
		if ((size_t)snprintf(req, cap, MS_CTL_PROTO "\trelease\t%s\t%s", name, add + pre) >= cap) {
			fprintf(stderr, "mockrun ctl: --release: the statements are too long\n");
			return -1;
		}
		return 0;
	}
	snprintf(req, cap, MS_CTL_PROTO "\trelease\t%s\n", name);
	return 0;
}

/* --kill NAME [SIG] at argv[*i]: SIG a name (KILL, SIGTERM) or a number. */
static int kill_request(int argc, char **argv, int *i, char *req, size_t cap)
{
	const char *name = *i + 1 < argc ? argv[*i + 1] : NULL, *sig;
	int64_t v = 9;

	if (hold_name("--kill", name) < 0)
		return -1;
	(*i)++;
	sig = *i + 1 < argc && argv[*i + 1][0] != '-' ? argv[*i + 1] : NULL;
	if (sig) {
		char *end, full[32];

		errno = 0;
		v = strtoll(sig, &end, 10);
		if (errno || *end || end == sig) {
			snprintf(full, sizeof(full), "%s%s", strncmp(sig, "SIG", 3) == 0 ? "" : "SIG", sig);
			if (!ms_name_value(full, strlen(full), &v) || strncmp(full, "SIG", 3) != 0)
				v = -1;
		}
		if (v < 1 || v > 64) {
			fprintf(stderr, "mockrun ctl: --kill %s: '%s' is not a signal (KILL, TERM, 9)\n",
				name, sig);
			return -1;
		}
		(*i)++;
	}
	snprintf(req, cap, MS_CTL_PROTO "\tkill\t%s\t%lld\n", name, (long long)v);
	return 0;
}

/*
 * The action at argv[*i] as a request into req, *i left at its last word:
 * 0, 1 when it makes none (--timeout, --source, which sets *source for
 * the -e and -f after it), or -1 with the error printed.
 */
static int ctl_request(int argc, char **argv, int *i, const char **source, double wait_s,
		       char *req, size_t cap)
{
	const char *o = argv[*i], *arg = *i + 1 < argc ? argv[*i + 1] : NULL;
	char msg[1024];
	int64_t ns;
	double r;

	if (strcmp(o, "--timeout") == 0) {
		(*i)++; /* checked before: it is for every wait */
		return 1;
	}
	if (strcmp(o, "--report") == 0 || strncmp(o, "--report=", 9) == 0) {
		const char *fmt = o[8] == '=' ? o + 9 : arg && is_format(arg) ? arg : "text";

		if (o[8] != '=' && arg && is_format(arg))
			(*i)++;
		if (!is_format(fmt)) {
			fprintf(stderr, "mockrun ctl: --report: unknown format '%s' (text, tap, junit, json, "
					"html)\n", fmt);
			return -1;
		}
		snprintf(req, cap, MS_CTL_PROTO "\treport\t%s\n", fmt);
	} else if (strcmp(o, "--advance-time") == 0 || strcmp(o, "--set-time") == 0) {
		if (!arg) {
			fprintf(stderr, "mockrun ctl: %s needs a time\n", o);
			return -1;
		}
		if (ms_move_time(o, arg, o[2] == 's', &ns, msg, sizeof(msg)) < 0) {
			fprintf(stderr, "mockrun ctl: %s", msg);
			return -1;
		}
		snprintf(req, cap, MS_CTL_PROTO "\t%s\t%lld\n", o + 2, (long long)ns);
		(*i)++;
	} else if (strcmp(o, "--rate") == 0) {
		if (ms_move_rate(arg, &r, msg, sizeof(msg)) < 0) {
			fprintf(stderr, "mockrun ctl: %s", msg);
			return -1;
		}
		snprintf(req, cap, MS_CTL_PROTO "\trate\t%.17g\n", r);
		(*i)++;
	} else if (strcmp(o, "--wait-call") == 0) {
		return wait_call_request(argc, argv, i, wait_s, req, cap);
	} else if (strcmp(o, "--wait-held") == 0) {
		if (hold_name(o, arg) < 0)
			return -1;
		snprintf(req, cap, MS_CTL_PROTO "\twait-held\t%s\t%lld\n", arg, (long long)(wait_s * 1000));
		(*i)++;
	} else if (strcmp(o, "--release") == 0) {
		return release_request(argc, argv, i, *source, req, cap);
	} else if (strcmp(o, "--kill") == 0) {
		return kill_request(argc, argv, i, req, cap);
	} else if (strcmp(o, "--wait-exit") == 0) {
		snprintf(req, cap, MS_CTL_PROTO "\twait-exit\t%lld\n", (long long)(wait_s * 1000));
	} else if (strcmp(o, "-e") == 0 || strcmp(o, "-f") == 0) {
		if (!arg) {
			fprintf(stderr, "mockrun ctl: %s needs %s\n", o, o[1] == 'e' ? "statements" : "a file");
			return -1;
		}
		if (add_request(o, arg, *source, req, cap) < 0)
			return -1;
		(*i)++;
	} else if (strcmp(o, "--source") == 0) {
		if (!arg || !*arg || strlen(arg) > 256) {
			fprintf(stderr, "mockrun ctl: --source needs a name of 1 to 256 bytes\n");
			return -1;
		}
		*source = arg;
		(*i)++;
		return 1;
	} else if (strcmp(o, "--stop") == 0) {
		snprintf(req, cap, MS_CTL_PROTO "\tstop\n");
	} else {
		fprintf(stderr, "mockrun ctl: unknown action '%s' (see mockrun ctl --help)\n", o);
		return -1;
	}
	return 0;
}

/* The socket ctl talks to: SOCKET, or "-" for $MOCKSHIM_CONTROL; NULL
 * with the error printed. */
static const char *ctl_socket(const char *arg)
{
	const char *sock = arg;

	if (strcmp(arg, "-") == 0) {
		sock = getenv(MS_CONTROL_ENV);
		if (!sock || !*sock) {
			fprintf(stderr, "mockrun ctl: '-' names $" MS_CONTROL_ENV ", which is not set\n");
			return NULL;
		}
	}
	return sock;
}

/* --timeout S, for every wait: its value, or -1 with the error printed. */
static double ctl_timeout(int argc, char **argv)
{
	double wait_s = DEFAULT_WAIT_S;
	char *end;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--timeout") != 0)
			continue;
		wait_s = i + 1 < argc ? strtod(argv[i + 1], &end) : 0;
		if (i + 1 >= argc || *end || end == argv[i + 1] || !(wait_s > 0 && wait_s < 1e7)) {
			fprintf(stderr, "mockrun ctl: --timeout: '%s' is not a positive number of seconds\n",
				i + 1 < argc ? argv[i + 1] : "");
			return -1;
		}
	}
	return wait_s;
}

int ms_ctl_main(int argc, char **argv)
{
	static char req[MS_CTL_MAX_REQUEST];
	const char *sock;
	double wait_s;
	int rc = 0, actions = 0;

	if (argc >= 1 && (strcmp(argv[0], "--help") == 0 || strcmp(argv[0], "-h") == 0)) {
		ctl_usage(stdout);
		return 0;
	}
	if (argc < 2) {
		ctl_usage(stderr);
		return 125;
	}
	if (!(sock = ctl_socket(argv[0])) || (wait_s = ctl_timeout(argc, argv)) < 0)
		return 125;
	/* every argument is checked (pass 0) before the first request goes
	 * (pass 1) */
	for (int pass = 0; pass < 2 && rc == 0; pass++) {
		const char *source = NULL;

		for (int i = 1; i < argc && rc == 0; i++) {
			int waitc = strcmp(argv[i], "--wait-call") == 0 || strcmp(argv[i], "--wait-held") == 0 ? 1
				    : strcmp(argv[i], "--wait-exit") == 0 ? 2 : 0, r;

			req[0] = '\0';
			r = ctl_request(argc, argv, &i, &source, wait_s, req, sizeof(req));
			if (r < 0)
				return 125;
			if (r > 0)
				continue;
			actions++;
			/* --wait-call, --wait-held and --wait-exit wait for the socket too */
			if (pass == 1)
				rc = ctl_send(sock, req, wait_s, waitc);
		}
		if (!actions) {
			fprintf(stderr, "mockrun ctl: no action (see mockrun ctl --help)\n");
			return 125;
		}
	}
	return rc;
}
