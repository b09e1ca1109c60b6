/* SPDX-License-Identifier: MIT */
/*
 * Reports of a run, written from a channel after every process exited:
 * by the driver (mockrun), and by the shim itself in standalone mode.
 */
#ifndef MS_REPORT_H
#define MS_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "mockshim/driver.h"

struct ms_report_in {
	void *map;		/* the shared channel: counters and events */
	void *snapshot;		/* the channel as written, up to the events */
	const char *program;
	struct mockshim_result result;
	int verbosity;		/* enum mockshim_verbosity */
	char **still_running;	/* "name[pid]" at a timeout */
	size_t nstill_running;
};

/* Writes the report (enum mockshim_report_format); 0 or -errno. */
int ms_report_write(struct ms_report_in *r, FILE *out, int format);
/* Failed checks: failures the shims recorded plus leftovers. */
unsigned ms_report_failures(const struct ms_report_in *r);
/* Statements not used up; turns taken by all statements. */
unsigned ms_report_leftovers(const struct ms_report_in *r);
unsigned ms_report_consumed(const struct ms_report_in *r);

/* The HTML page (report_html.c); 0 or -errno. */
int ms_report_html(struct ms_report_in *r, FILE *out);

/* Text escaped for XML attributes and text, and as a JSON string. */
void ms_xml_text(FILE *out, const char *text);
void ms_json_text(FILE *out, const char *text);

#endif
