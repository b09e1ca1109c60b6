/* SPDX-License-Identifier: MIT */
/* Call sites shown symbolized: mockrun's one symbolizer, the rewrite of
 * --trace-file and the relay of --trace on stderr (symbols.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lang/lang.h"
#include "report/report.h"
#include "sites/sites.h"
#include "session.h"
#include "symbols.h"

static struct ms_sym *sym;
/* the relay's thread, ctl's and the main one share the helper */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

struct ms_sym *ms_symbols(void)
{
	if (!sym)
		sym = ms_sym_new(NULL);
	return sym;
}

static void add_program(const char *program)
{
	if (ms_symbols())
		ms_sym_add_program(sym, program);
}

void ms_symbols_program(const char *program)
{
	pthread_mutex_lock(&lock);
	add_program(program);
	pthread_mutex_unlock(&lock);
}

int ms_symbols_ready(void)
{
	int r;

	pthread_mutex_lock(&lock);
	r = ms_symbols() ? ms_sym_start(sym) : -1;
	pthread_mutex_unlock(&lock);
	return r;
}

int ms_symbols_at(void *ctx, const char *text, struct ms_site_range *out, unsigned max, unsigned *n,
		  char *msg, size_t msglen)
{
	/* the compiler copies the objects' names before the next call */
	static __thread struct ms_sym_range got[MS_AT_RANGES_MAX];
	struct mockshim_session *s = ctx;
	const char *prog = s ? s->at_program : NULL;
	char *full = NULL;
	int rc;

	*n = 0;
	pthread_mutex_lock(&lock);
	/* a relative path with a '/' is the run's working directory's */
	if (prog && prog[0] != '/' && strchr(prog, '/') && s->cwd &&
	    asprintf(&full, "%s/%s", s->cwd, prog) >= 0)
		prog = full;
	if (prog)
		add_program(prog);
	free(full);
	if (!ms_symbols()) {
		pthread_mutex_unlock(&lock);
		snprintf(msg, msglen, "out of memory");
		return -1;
	}
	rc = ms_sym_at(sym, text, got, max < MS_AT_RANGES_MAX ? max : MS_AT_RANGES_MAX, n, msg, msglen);
	pthread_mutex_unlock(&lock);
	for (unsigned i = 0; i < *n; i++) {
		out[i].object = got[i].object;
		out[i].lo = got[i].lo;
		out[i].hi = got[i].hi;
	}
	if (rc == 1)
		fprintf(stderr, "mockrun: warning: at=\"%s\": %s\n", text, msg);
	return rc;
}

int ms_symbols_site(void *ctx, const char *object, uint64_t offset, char *out, size_t outlen)
{
	int r;

	(void)ctx;
	pthread_mutex_lock(&lock);
	r = ms_symbols() ? ms_sym_site(sym, object, offset, out, outlen) : 0;
	pthread_mutex_unlock(&lock);
	return r;
}

static int site_pc(void *ctx, const char *object, uint64_t offset, char *out, size_t outlen)
{
	int r;

	(void)ctx;
	pthread_mutex_lock(&lock);
	r = ms_symbols() ? ms_sym_site_pc(sym, object, offset, out, outlen) : 0;
	pthread_mutex_unlock(&lock);
	return r;
}

void ms_symbols_session(struct mockshim_session *s)
{
	ms_session_set_at_resolver(s, ms_symbols_at, s);
	ms_session_set_report_symbolizer(s, ms_symbols_site, s);
	ms_session_set_report_symbolizer_pc(s, site_pc);
}

/* the lines of text[0, len) to out, each site symbolized; the bytes
 * after the last newline stay in text: their count */
static size_t lines_out(const char *text, size_t len, FILE *out)
{
	char line[8192];
	size_t done = 0;

	while (done < len) {
		const char *nl = memchr(text + done, '\n', len - done);
		size_t n;

		if (!nl)
			break;
		n = (size_t)(nl + 1 - (text + done));
		if (n < sizeof(line) / 2 && ms_site_in_line(text + done, n)) {
			size_t k;

			pthread_mutex_lock(&lock);
			k = ms_sym_line(sym, text + done, n, line, sizeof(line));
			pthread_mutex_unlock(&lock);

			fwrite(line, 1, k, out);
		} else {
			fwrite(text + done, 1, n, out);
		}
		done += n;
	}
	return len - done;
}

int ms_symbols_rewrite_trace(int fd)
{
	char *in = NULL, *outbuf = NULL, buf[65536];
	size_t inlen = 0, outlen = 0, rest;
	FILE *m, *o;
	ssize_t r;
	off_t at = 0;
	int e = 0, rd;

	if (ms_symbols_ready() < 0)
		return 0; /* raw sites: nothing to add */
	/* (fd may be write-only: an O_TMPFILE) */
	snprintf(buf, sizeof(buf), "/proc/self/fd/%d", fd);
	rd = open(buf, O_RDONLY | O_CLOEXEC);
	if (rd < 0)
		return -errno;
	m = open_memstream(&in, &inlen);
	if (!m) {
		close(rd);
		return -ENOMEM;
	}
	while ((r = pread(rd, buf, sizeof(buf), at)) > 0) {
		fwrite(buf, 1, (size_t)r, m);
		at += r;
	}
	if (r < 0)
		e = errno;
	close(rd);
	if (fclose(m) != 0 && !e)
		e = ENOMEM;
	if (e) {
		free(in);
		return -e;
	}
	o = open_memstream(&outbuf, &outlen);
	if (!o) {
		free(in);
		return -ENOMEM;
	}
	rest = lines_out(in, inlen, o);
	fwrite(in + inlen - rest, 1, rest, o);
	if (fclose(o) != 0) {
		free(in);
		free(outbuf);
		return -ENOMEM;
	}
	if (outlen == inlen && memcmp(outbuf, in, inlen) == 0) {
		/* no site known: the file as it is */
		free(in);
		free(outbuf);
		return 0;
	}
	free(in);
	/* longer than it was: written over from the start, nothing lost
	 * when a write fails (the file is then an error of --trace-file's) */
	for (size_t done = 0; done < outlen;) {
		r = pwrite(fd, outbuf + done, outlen - done, (off_t)done);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			e = r < 0 ? errno : EIO;
			break;
		}
		done += (size_t)r;
	}
	free(outbuf);
	if (!e && ftruncate(fd, (off_t)outlen) != 0)
		e = errno;
	return -e;
}

/* ---- the relay of --trace on stderr ---- */

static int relay_rd = -1, relay_wr = -1;
static pthread_t relay;

static void *relay_main(void *arg)
{
	static char text[65536];
	size_t have = 0;

	(void)arg;
	for (;;) {
		ssize_t r = read(relay_rd, text + have, sizeof(text) - have);
		char *out = NULL;
		size_t outlen = 0, rest;
		FILE *o;

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		have += (size_t)r;
		o = open_memstream(&out, &outlen);
		if (!o)
			break;
		rest = lines_out(text, have, o);
		/* a line longer than the buffer goes out as it is */
		if (rest == sizeof(text)) {
			fwrite(text, 1, rest, o);
			rest = 0;
		}
		if (fclose(o) == 0)
			for (size_t done = 0; done < outlen;) {
				ssize_t w = write(2, out + done, outlen - done);

				if (w < 0 && errno == EINTR)
					continue;
				if (w <= 0)
					break;
				done += (size_t)w;
			}
		free(out);
		memmove(text, text + have - rest, rest);
		have = rest;
	}
	if (have)
		(void)!write(2, text, have);
	return NULL;
}

int ms_symbols_relay_start(char *path, size_t pathlen)
{
	int p[2];
	sigset_t all, old;

	if (ms_symbols_ready() < 0 || pipe2(p, O_CLOEXEC) < 0)
		return -1;
	relay_rd = p[0];
	relay_wr = p[1];
	/* the thread takes no signal: mockrun reads its own from a signalfd */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	if (pthread_create(&relay, NULL, relay_main, NULL) != 0) {
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		close(p[0]);
		close(p[1]);
		relay_rd = relay_wr = -1;
		return -1;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	snprintf(path, pathlen, "/proc/%d/fd/%d", (int)getpid(), relay_wr);
	return 0;
}

void ms_symbols_relay_stop(void)
{
	if (relay_wr < 0)
		return;
	/* every process of the run has exited: with ours closed, the
	 * pipe ends after what they wrote */
	close(relay_wr);
	relay_wr = -1;
	pthread_join(relay, NULL);
	close(relay_rd);
	relay_rd = -1;
}
