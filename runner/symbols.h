/* SPDX-License-Identifier: MIT */
/*
 * Call sites shown symbolized in mockrun (sites/sites.h's client): one
 * symbolizer for mockrun's life, started only when a site must be shown
 * or a name in at= resolved; --trace lines relayed through it.
 */
#ifndef MS_RUNNER_SYMBOLS_H
#define MS_RUNNER_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

struct ms_sym;

/* the symbolizer of this mockrun, made on first use (starts nothing) */
struct ms_sym *ms_symbols(void);
/* a program whose objects sites may name (the run's, each test's) */
void ms_symbols_program(const char *program);
/* the helper can be started: started now (before the run, outside the
 * run's tree); 0, or -1 when there is none */
int ms_symbols_ready(void);

/* at="FUNC" / at="FILE:LINE" (lang.h's ms_at_resolver; ctx: the
 * session, whose at= program is looked in); a warning is written to
 * stderr here */
struct ms_site_range;
int ms_symbols_at(void *ctx, const char *text, struct ms_site_range *out, unsigned max, unsigned *n,
		  char *msg, size_t msglen);
/* a site's " (FUNC, FILE:LINE)" for the reports (report.h's
 * ms_report_symbolizer); 0 when nothing is known */
int ms_symbols_site(void *ctx, const char *object, uint64_t offset, char *out, size_t outlen);
/* both, for a session */
struct mockshim_session;
void ms_symbols_session(struct mockshim_session *s);

/* --trace-file's lines, written by the run into fd: rewritten in place
 * with each line's site symbolized; 0, or -errno */
int ms_symbols_rewrite_trace(int fd);

/* --trace on stderr: a pipe whose write end the processes open by
 * *path (/proc/PID/fd/N) and whose lines a thread of mockrun copies to
 * stderr, each site symbolized.  0, or -1 (no helper, no thread: the
 * trace goes to stderr as it is) */
int ms_symbols_relay_start(char *path, size_t pathlen);
/* the run is over: the lines left copied, the thread gone */
void ms_symbols_relay_stop(void);

#endif
