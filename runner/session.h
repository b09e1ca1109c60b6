/* SPDX-License-Identifier: MIT */
/*
 * Private state of a driver session: session.c keeps its statements and
 * settings, and a run's live side (statements added, counts, clocks
 * moved), run.c runs the program; control.c (ctl's server), module.c
 * (handler modules), check.c (--check), record.c (--record) and the
 * test files' runner (its control blocks checked before a run) reach
 * into it; mockrun.c marks its one run (ms_session_set_once).
 */
#ifndef MS_SESSION_H
#define MS_SESSION_H

#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>

#include "mockshim/driver.h"
#include "report/report.h"
#include "channel/channel.h"
#include "lang/lang.h"

struct buffer {
	char *data;
	size_t len, cap;
};

struct mockshim_session {
	struct ms_spec spec;
	char error[2048];
	char *shim_path;
	char **modules;		/* handler modules, preloaded after the shim */
	size_t nmodules;
	double timeout;
	int verbosity;
	uint32_t events_cap;
	uint32_t chan_flags;	/* enum ms_chan_flags */
	char *cwd;
	char *stdin_data;
	size_t stdin_len;
	int has_stdin;
	int capture;

	/* the last run */
	int ran;
	struct mockshim_result result;
	char *program;
	struct ms_chan_pair chan;	/* the spec (sealed) and the state memfds */
	struct ms_chan_hdr *own;	/* mockrun's own copy of the spec: what it
					 * reads, and what the memfd must still hold */
	uint64_t token;		/* the state's, random per run */
	uint64_t seed;		/* probability= draws */
	int seed_set;
	struct ms_report_in view;	/* the spec and an audited copy of the state */
	struct buffer out[2];	/* captured stdout, stderr */
	int done_before_timeout;	/* the program had exited when the timeout expired */
	int go_program;		/* the program is a Go program (set when a fake_time is) */
	char **unattached;	/* "name[pid]": orphans reaped that never attached */
	size_t nunattached, unattached_more;
	char **still_running;	/* "name[pid]" at timeout */
	size_t nstill_running;
	int control;		/* --control: serve mockrun ctl */
	int once;		/* runs once: the compiled statements go once
				 * they are in the channel (ms_session_set_once) */
	int no_handlers;	/* the process has no signal handlers of its
				 * own (ms_session_set_no_handlers) */
	void (*started)(void *);	/* ms_session_on_started() */
	void *started_arg;
	char *control_at;	/* its socket's path, NULL: a private directory */
	struct ms_control *ctl;	/* while a run serves it */
	const char *ctl_path;	/* its path then, for other threads */
	unsigned nctl;		/* statements ctl added: sources ctl#1, ctl#2, ... */
	pthread_mutex_t live_lock;	/* a run's live side (the spec, own, the
					 * channel's room): ctl and other threads */
	int live_open;		/* under live_lock: the run takes live requests */
	int stop_req;		/* ctl --stop: end the tree (atomic) */
	/* processes mockrun ctl --kill signalled at a hold (holds.c): a thread
	 * that never left its hold there is no failure; under live_lock */
	int32_t hold_killed[64];
	unsigned nhold_killed;
	uint32_t base[5];	/* the spec's counts before them: rules, outs, */
				/* conds, pool, sources (restored after the run) */
	/* at="NAME": the program the statements are for (program mode: its
	 * argv[0]; a test: its first run's; NULL: not known), which the
	 * resolver (spec.at_fn, its ctx the session) looks names up in */
	char *at_program;
	/* the reports' sites symbolized (report.h), NULL: raw */
	ms_report_symbolizer symbolize;
	ms_report_symbolizer symbolize_pc;	/* for a crash's faulting instruction */
	void *symbolize_ctx;
	/* power_loss() (power.c): the run's power directory, the paths=
	 * made absolute once, what the rollback did (the report's) */
	char *power_dir;
	int power_abs;
	char *power_note;
};

/* at="NAME" is resolved by fn (lang.h: ms_at_resolver) with ctx in what
 * the session parses next; mockshim_session_create sets
 * ms_session_at_unavailable (ctx: the session).  The symbolizer sets
 * its own here. */
void ms_session_set_at_resolver(struct mockshim_session *s, ms_at_resolver fn, void *ctx);
int ms_session_at_unavailable(void *ctx, const char *text, struct ms_site_range *out, unsigned max,
			      unsigned *n, char *msg, size_t msglen);
/* Sites in the reports (failures, leftovers' "by", crashes) get what fn
 * says of them (report.h: ms_report_symbolizer), in every report of the
 * session from now on (ms_session_report_in); NULL: raw sites. */
void ms_session_set_report_symbolizer(struct mockshim_session *s, ms_report_symbolizer fn, void *ctx);
/* ...and for an instruction's own address, a crash's faulting one
 * (report.h: symbolize_pc); NULL: fn's */
void ms_session_set_report_symbolizer_pc(struct mockshim_session *s, ms_report_symbolizer fn);
/* The program at= names are looked up in (a copy; NULL: none): 0 or -ENOMEM. */
int ms_session_set_at_program(struct mockshim_session *s, const char *path);
/* --site-skip GLOB: frames of objects whose basename matches are passed
 * over when finding a call's site, as the system libraries' are:
 * 0, or -EINVAL / -ENOMEM with the error set. */
int ms_session_add_site_skip(struct mockshim_session *s, const char *glob);
/* --sites: a sites table of cap slots in the state (0: none). */
void ms_session_set_sites(struct mockshim_session *s, uint32_t cap);

/* power_loss() (power.c) */
int ms_power_prepare(struct mockshim_session *s);
int ms_power_reached(const struct mockshim_session *s);
void ms_power_rollback(struct mockshim_session *s, int cut);
void ms_power_cleanup(struct mockshim_session *s);
/* whether the last run's power went out (a power_loss took its turn) */
int ms_power_was_cut(const struct mockshim_session *s);

/* Statements added to the running program (ctl -e, or
 * mockshim_session_add() from another thread), named src (NULL:
 * ctl#N); 0, or -errno with the message in msg. */
int ms_session_add_live(struct mockshim_session *s, const char *src, const char *text, size_t len,
			char *msg, size_t cap);

/* Statements as ms_session_add_live() would take them (replies of
 * counted functions), parsed and forgotten: a test file's control block
 * is checked before anything runs.  0, or -errno with the message. */
int ms_session_check_live(struct mockshim_session *s, const char *src, const char *text, size_t len,
			  char *msg, size_t cap);
/* FN's id and those of the variants a program may call in its place
 * (accept4 for accept, openat for open, pipe2, dup3, wait4, ...), at
 * most cap: how many. */
unsigned ms_session_fn_ids(const char *fn, unsigned *ids, unsigned cap);
/* The calls of functions ids[0 .. n), so far, in the whole tree of the
 * run (its state mapped). */
uint64_t ms_session_calls_of(const struct mockshim_session *s, const unsigned *ids, unsigned n);

/* Forgets the last run (its channel, report view, output). */
void ms_session_release_run(struct mockshim_session *s);

/* The session runs once (mockrun's program mode): its compiled
 * statements are freed when the channel is made, unless --control. */
void ms_session_set_once(struct mockshim_session *s);
/* The process installs no signal handler (mockrun's program mode): the
 * child, which shares its memory until it execs, need not set any back
 * to the default first (run.c, default_handlers()).  A handler added to
 * that mode must drop this call. */
void ms_session_set_no_handlers(struct mockshim_session *s);
/* fn(arg) is called in the run once the program has started (exec'd,
 * or failed to): what need not come first runs while the program loads. */
void ms_session_on_started(struct mockshim_session *s, void (*fn)(void *), void *arg);
/* Counts of the spec that statements added live grow. */
void ms_session_spec_counts(const struct ms_spec *spec, uint32_t c[5]);
void ms_session_spec_restore(struct ms_spec *spec, const uint32_t c[5]);

/* The spec's module_fn: module "path" statements. */
int ms_session_module_stmt(void *ctx, const char *src, const char *path, char *msg, size_t cap);

/* --record: the spec that replays the calls logged in the state (an
 * audited copy) of a run of spec h; 0 or -errno (record.c). */
int ms_record_write(const struct ms_chan_hdr *h, const struct ms_state_hdr *st, const char *program,
		    FILE *f);

/* The report's view of the last run. */
struct ms_report_in ms_session_report_in(const struct mockshim_session *s);

/* The last run's --trace lines that could not be written, and why
 * (*err: an errno, MS_TRACE_SHORT: written in part, 0: not known). */
uint32_t ms_session_trace_lost(const struct mockshim_session *s, int *err);
/* The last run's --trace lines lost because the program closed the
 * trace's descriptor (EBADF), and the first such descriptor in *fd */
uint32_t ms_session_trace_badf(const struct mockshim_session *s, int *fd);
/* The first errno of a process that could not open the trace file (0: none) */
int ms_session_trace_open_errno(const struct mockshim_session *s);
/* Whether the session has SYS_ statements (the syscall tier). */
int ms_session_has_syscalls(const struct mockshim_session *s);
/* mockshim_check_program(), knowing whether SYS_ statements reach the
 * program's system calls. */
/* flags: MS_CHECK_SYSCALLS (SYS_ statements act), MS_CHECK_FTIME (a fake_time) */
#define MS_CHECK_SYSCALLS 1
#define MS_CHECK_FTIME 2
int ms_check_program(const char *program, char *const envp[], int flags, char *buf, size_t cap);
/* MS_CHECK_SYSCALLS | MS_CHECK_FTIME as the session's statements need */
int ms_session_check_flags(const struct mockshim_session *s);
/* Whether program (found as exec would) is a Go program */
int ms_is_go_program(const char *program, char *const envp[]);

#endif
