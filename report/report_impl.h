/* SPDX-License-Identifier: MIT */
/*
 * What the report's files share (report.c, report_msg.c, report_text.c,
 * report_data.c): the statements as items, the cases of TAP and JUnit,
 * and the helpers each format uses.  Private to report/.
 */
#ifndef MS_REPORT_IMPL_H
#define MS_REPORT_IMPL_H

#include <stdint.h>
#include <stdio.h>

#include "channel/channel.h"
#include "report.h"

#define MAX_NAMED 8

/* A statement as a report line shows it: a recorded read's bytes would
 * fill screens, so the text is cut at STMT_SHOWN bytes (JSON has it all). */
#define STMT_SHOWN 200

/*
 * Every statement is an item of the report: where it was declared, how
 * often it was used, and whether it is a leftover.
 */
enum item_table { IT_RULE, IT_EXPECT, IT_ORDER };

struct item {
	enum item_table table;
	uint32_t index;
	struct ms_stmt stmt;	/* its header: function, count, position, text, ... */
	uint32_t consumed;
	int kind;		/* the table's own kind */
	uint32_t passed;	/* calls its when() passed by */
	uint32_t declined;	/* draws of its probability= that passed it by */
};

/*
 * Each statement is a test case of the TAP and JUnit reports, and a
 * failure a shim recorded fails the case of the statement it names
 * (a failed expect_string fails that expect_string); the last case is the
 * program's exit, with the failures that name no statement.
 */
struct cases {
	struct item *items;	/* sorted, as reported */
	uint32_t n;
	uint32_t *pos;		/* an item's table index (rules, expects, orders) -> its case */
	uint32_t *nfail;	/* per case (n + 1: the program), failure events */
};

size_t rp_utf8_seq(const unsigned char *p, uint32_t *cp);
const char *rp_safe(const char *text);
/* A call site as every report shows it, the one place that does: "OBJ+0xOFF"
 * and the symbolizer's " (FUNC, FILE:LINE)" (ms_report_in.symbolize), or
 * sym (the nearest dynamic symbol, "" none) as " (sym)"; into buf (cap
 * bytes), which it returns.  raw: "OBJ+0xOFF" only (JSON's "site"). */
const char *rp_site(const struct ms_report_in *s, const char *object, uint64_t off, const char *sym,
		    int raw, char *buf, size_t cap);
/* rp_site for an instruction's own address (a crash's faulting one) */
const char *rp_site_pc(const struct ms_report_in *s, const char *object, uint64_t off, int raw, char *buf,
		       size_t cap);
const char *rp_stmt_text(const struct ms_report_in *s, uint32_t off);
const struct ms_chan_dyn *rp_dyn_at(const struct ms_report_in *s, unsigned id);
const char *rp_fn_name(const struct ms_report_in *s, unsigned id);
const char *rp_stmt_fn_name(const struct ms_report_in *s, unsigned fn, uint32_t text);
const char *rp_param_name(const struct ms_report_in *s, unsigned fn, unsigned param);
uint32_t rp_nitems(const struct ms_report_in *s);
struct item rp_item_at(const struct ms_report_in *s, uint32_t i);
int rp_item_cmp(const void *a, const void *b);
int rp_leftover(const struct ms_report_in *s, const struct item *it);
uint32_t rp_failure_events(const struct ms_report_in *s);
unsigned rp_failed_checks(const struct ms_report_in *s);
void rp_lost_text(const struct ms_report_in *s, char *buf, size_t n);
const char *rp_exe_of(const struct ms_report_in *s, int32_t pid, uint32_t upto);
void rp_count_str(char *buf, size_t n, const struct item *it);
void rp_grouped(char *buf, size_t cap, uint64_t n);
void rp_consumers(const struct ms_report_in *s, uint16_t type, uint32_t ri, char *buf,
		  size_t cap);
/* The end of its range (INT64_MAX or INT64_MIN ns) that fake_time i's
 * clock has reached and stopped at by now, or 0. */
int64_t rp_clock_end(const struct ms_report_in *s, uint32_t i);
void rp_describe_status(const struct ms_report_in *s, char *buf, size_t n);
void rp_processes(const struct ms_report_in *s, char *buf, size_t cap);
const char *rp_escape_why(const struct ms_report_in *s, unsigned kind);
void rp_escapes(const struct ms_report_in *s, FILE *out, const char *prefix);
/* The crash a process recorded (MS_EV_CRASH): its site and its stack's
 * frames in order; 0, or -1 when it recorded none. */
struct rp_crash {
	int sig;
	const struct ms_event *site;
	const struct ms_event *frame[MS_CRASH_FRAMES];
	unsigned nframes;
};
int rp_crash_of(const struct ms_report_in *s, int32_t pid, struct rp_crash *c);
/* The replies that failed or answered a call of process pid before its
 * crash (DESIGN.md 7.6), most recent first, into out (at most max):
 * their MS_EV_CONSUME events, which are each statement's first reply in
 * the process (every one under -v); the number found. */
#define RP_CRASH_FAULTS 8
unsigned rp_crash_faults(const struct ms_report_in *s, int32_t pid, const struct ms_event **out,
			 unsigned max);
/* e (the crash's site) is its faulting instruction, frame 0 */
int rp_crash_is_pc(const struct rp_crash *c, const struct ms_event *e);
/* "PREFIXjq[4242] killed by SIGSEGV at jq+0x3a1f0 (FUNC, FILE:LINE)" and
 * "PREFIX  stack: SITE, SITE, ..." for every process that recorded a
 * crash; the number of crashes. */
unsigned rp_crashes(const struct ms_report_in *s, FILE *out, const char *prefix);
void rp_put_escaped(FILE *f, const unsigned char *p, size_t n);
void rp_failure_text(FILE *f, const struct ms_report_in *s, const struct ms_event *e,
		     uint32_t i, const char *indent);
void rp_leftover_text(FILE *f, const struct ms_report_in *s, const struct item *it,
		      const char *indent);
struct item *rp_sorted_items(const struct ms_report_in *s);
/* The items' indexes in report order, or NULL when that is theirs (the
 * channel groups statements by function, each group in order: a spec
 * about one function needs no array) or when out of memory (*ok 0). */
uint32_t *rp_sorted_order(const struct ms_report_in *s, int *ok);
void rp_unbound_declared(const struct ms_report_in *s, FILE *out, const char *prefix);
void rp_report_text(struct ms_report_in *s, FILE *out);
uint32_t rp_case_of(const struct ms_report_in *s, const struct cases *c, const struct ms_event *e);
int rp_cases_make(const struct ms_report_in *s, struct cases *c);
void rp_cases_free(struct cases *c);
char *rp_case_text(const struct ms_report_in *s, const struct cases *c, uint32_t k,
		   const char *indent);
int rp_program_failed(const struct ms_report_in *s, const struct cases *c);
void rp_report_tap(struct ms_report_in *s, FILE *out, int version);
char *rp_headline(const char *text);
void rp_report_json(struct ms_report_in *s, FILE *out);
void rp_tamper_line(FILE *out, const struct ms_report_in *s, const char *prefix);
void rp_report_junit(struct ms_report_in *s, FILE *out);

#endif
