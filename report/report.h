/* SPDX-License-Identifier: MIT */
/*
 * Reports of a run, written from a channel after every process exited:
 * by the driver (mockrun), and by the shim itself in standalone mode.
 */
#ifndef MS_REPORT_H
#define MS_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "mockshim/result.h"

struct ms_chan_hdr;
struct ms_state_hdr;

#define MS_HELD_PAGE 4096u

/*
 * A call site's symbolization, for the reports: fills out (outlen bytes)
 * with what follows "OBJ+0xOFF" where the report shows a site, as
 * " (FUNC, FILE:LINE)", and returns its length; 0 when it found nothing
 * (the report then shows the nearest dynamic symbol the shim recorded,
 * if any).  mockrun's symbolizer sets it (ms_report_in.symbolize);
 * NULL: raw sites.  report/ itself never symbolizes.
 */
typedef int (*ms_report_symbolizer)(void *ctx, const char *object, uint64_t offset, char *out,
				    size_t outlen);

/*
 * Where a --trace line's site is (DESIGN.md 7.1): the line ends with
 * " at SITE", SITE "OBJ+0xHEX" (maybe already followed by a symbolizer's
 * " (FUNC, FILE:LINE)").  1 with SITE's first byte at line + *start and
 * its "OBJ+0xHEX" *len bytes long (what a relay extends at line + *start
 * + *len); 0 when the line has no site.  line: n bytes, the newline
 * excluded.
 */
int ms_trace_site_span(const char *line, size_t n, size_t *start, size_t *len);

struct ms_report_in {
	const struct ms_chan_hdr *spec;	/* the spec: sealed, nobody could change it */
	void *state;		/* a private copy of the state, audited */
	uint64_t state_size;
	uint8_t *held;		/* a bit per MS_HELD_PAGE of state: read from the
				 * memfd (the rest zeros); NULL: all of it */
	const char *tampered;	/* why the state cannot be trusted, or NULL */
	int32_t tamper_pid;	/* the process an impossible event names, or 0 */
	uint32_t lost_failures;	/* failure events a process died writing */
	char why[160];
	const char *program;
	struct mockshim_result result;
	int verbosity;		/* enum mockshim_verbosity */
	int done_before_timeout;	/* the program itself had exited when it expired */
	int go_program;		/* it is a Go program: a fake_time cannot reach its clock */
	int running;		/* mockrun ctl --report: the tree is still running (the
				 * audit allows a copy torn between its counts) */
	char **unattached;	/* "name[pid]": orphans the driver reaped that never attached */
	size_t nunattached, unattached_more;
	const char *power;	/* power_loss(): where the power went out and what
				 * was rolled back, or NULL */
	char **still_running;	/* "name[pid]" at a timeout */
	size_t nstill_running;
	ms_report_symbolizer symbolize;	/* NULL: sites are shown raw */
	void *symbolize_ctx;
	/* the same for an instruction's own address (a crash's faulting
	 * instruction), where symbolize takes a return address (whose
	 * call is the instruction before it); NULL: symbolize's */
	ms_report_symbolizer symbolize_pc;
};

/*
 * Takes a private copy of the state (size bytes at live, which the
 * programs may still be writing) into r and audits it: every index and
 * length is bounded, strings terminated, and what no shim can write
 * (a wrong token, counts beyond their statement's, failures without
 * events, events past the log's end) sets r->tampered.  0 or -ENOMEM.
 */
int ms_report_take_state(struct ms_report_in *r, const void *live, uint64_t size,
			 uint64_t token);
/* The same, read from the state's memfd fd rather than a mapping of it:
 * what no process wrote is not read.  0 or -errno. */
int ms_report_take_state_fd(struct ms_report_in *r, int fd, uint64_t size, uint64_t token);
const struct ms_state_hdr *ms_report_state(const struct ms_report_in *r);
void ms_report_release(struct ms_report_in *r);

/* Writes the report (enum mockshim_report_format); 0 or -errno. */
int ms_report_write(struct ms_report_in *r, FILE *out, int format);
/* Failed checks: failures the shims recorded plus leftovers. */
unsigned ms_report_failures(const struct ms_report_in *r);
/* Statements not used up; turns taken by all statements. */
unsigned ms_report_leftovers(const struct ms_report_in *r);
unsigned ms_report_consumed(const struct ms_report_in *r);

/* The HTML page (report_html.c); 0 or -errno. */
int ms_report_html(struct ms_report_in *r, FILE *out);

/* A test of a test file (mockrun -t), as its HTML page shows it. */
struct ms_html_test {
	const char *file, *name;
	unsigned line;
	int passed, error;	/* error: a fixture failed */
	double seconds;
	const char *report;	/* its run's text report (statements and uses), or NULL */
	const char *details;	/* why it failed, or NULL */
	const char *out, *err;	/* what its program wrote, or NULL */
};

/* The HTML page of a test-file run, one section per test (the same
 * self-contained page as ms_report_html's); 0 or -errno. */
int ms_report_html_tests(FILE *out, const struct ms_html_test *t, size_t n);

/* Text escaped for XML attributes and text (valid UTF-8, XML 1.0
 * characters only), as a JSON string, as a TAP test name, and for a
 * terminal (control characters and invalid UTF-8 as \xNN). */
void ms_xml_text(FILE *out, const char *text);
void ms_json_text(FILE *out, const char *text);
void ms_tap_text(FILE *out, const char *text);
void ms_safe_text(FILE *out, const char *text);
/* JUnit: a source file's classname (ms_junit_class: malloc'd, NULL for a
 * name that is no file, which is its own classname); the timestamp and
 * hostname attributes. */
char *ms_junit_class(const char *path);
void ms_junit_classname(FILE *out, const char *path);
void ms_junit_when_where(FILE *out, long long started);

#endif
