/* SPDX-License-Identifier: MIT */
/*
 * --trace-format chrome: the timed trace lines the shims wrote,
 *	@START END TID PPID PID EXE: CALL[ = RESULT][ (mocked: SRC:LINE)][ at SITE]
 * as Trace Event Format JSON (what Perfetto and chrome://tracing open):
 * a process and a thread track named exe[pid] / exe[tid], a complete
 * ("X") slice per call with its call text, result, the statement that
 * answered it and its site (args "site": "cat+0x4a2b"), and flow events
 * from a parent to its child (from the fork or spawn that returned the
 * child's pid, else the parent's last call before the child's first)
 * and across an exec (a pid whose program changed).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mockshim/driver.h"
#include "report.h"

struct call {
	unsigned long long start, end;
	long tid, ppid, pid;
	char *exe, *fn, *text, *result, *by, *site;
};

static void free_call(struct call *c)
{
	free(c->exe);
	free(c->fn);
	free(c->text);
	free(c->result);
	free(c->by);
	free(c->site);
}

static void free_calls(struct call *c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free_call(&c[i]);
	free(c);
}

int ms_trace_site_span(const char *line, size_t n, size_t *start, size_t *len)
{
	/* the last " at " whose word is OBJ+0xHEX and after which no '"'
	 * comes (a string argument of the call may hold " at x+0x1") */
	for (size_t i = n; i-- > 0;) {
		size_t k, plus = 0;

		if (line[i] == '"')
			return 0;
		if (i + 4 > n || memcmp(line + i, " at ", 4) != 0)
			continue;
		for (k = i + 4; k < n && line[k] != ' '; k++)
			if (line[k] == '+' && !plus)
				plus = k;
		if (!plus || plus == i + 4 || k - plus < 4 || line[plus + 1] != '0' || line[plus + 2] != 'x')
			continue;
		*start = i + 4;
		*len = k - (i + 4);
		return 1;
	}
	return 0;
}

/* One line, or -1 when it is not a timed trace line. */
static int parse(char *l, struct call *c)
{
	int used = 0;
	char *exe, *colon, *call, *eq, *paren, *mk, *at;
	size_t start, len;

	memset(c, 0, sizeof(*c));
	if (sscanf(l, "@%llu %llu %ld %ld %ld %n", &c->start, &c->end, &c->tid, &c->ppid, &c->pid,
		   &used) != 5 || !used)
		return -1;
	exe = l + used;
	colon = strstr(exe, ": ");
	if (!colon)
		return -1;
	*colon = '\0';
	call = colon + 2;
	/* " at SITE" ends the line (SITE: "OBJ+0xHEX", maybe symbolized) */
	if (ms_trace_site_span(call, strlen(call), &start, &len)) {
		at = call + start - 4;
		c->site = strdup(at + 4);
		*at = '\0';
	}
	mk = strstr(call, " (mocked: ");
	if (mk && mk[strlen(mk) - 1] == ')') {
		mk[strlen(mk) - 1] = '\0';
		c->by = strdup(mk + 10);
		*mk = '\0';
	}
	eq = NULL;
	for (char *p = strstr(call, " = "); p; p = strstr(p + 1, " = "))
		eq = p;
	if (eq) {
		c->result = strdup(eq + 3);
		*eq = '\0';
	}
	paren = strchr(call, '(');
	c->fn = strndup(call, paren ? (size_t)(paren - call) : strlen(call));
	c->text = strdup(call);
	c->exe = strdup(exe);
	return c->fn && c->text && c->exe ? 0 : -1;
}

static void us(FILE *out, unsigned long long ns)
{
	fprintf(out, "%llu.%03llu", ns / 1000, ns % 1000);
}

static void name_event(FILE *out, const char *what, long pid, long tid, const char *exe, long id,
		       int *first)
{
	char name[512];

	snprintf(name, sizeof(name), "%s[%ld]", exe, id);
	fprintf(out, "%s\n{\"ph\":\"M\",\"name\":\"%s\",\"pid\":%ld,\"tid\":%ld,\"args\":{\"name\":",
		*first ? "" : ",", what, pid, tid);
	ms_json_text(out, name);
	fputs("}}", out);
	*first = 0;
}

static void flow(FILE *out, const char *name, long id, const struct call *from, const struct call *to,
		 int *first)
{
	fprintf(out, "%s\n{\"ph\":\"s\",\"name\":\"%s\",\"cat\":\"process\",\"id\":%ld,\"pid\":%ld,\"tid\":%ld,\"ts\":",
		*first ? "" : ",", name, id, from->pid, from->tid);
	us(out, from->start);
	fprintf(out, "},\n{\"ph\":\"f\",\"bp\":\"e\",\"name\":\"%s\",\"cat\":\"process\",\"id\":%ld,\"pid\":%ld,\"tid\":%ld,\"ts\":",
		name, id, to->pid, to->tid);
	us(out, to->start);
	fputc('}', out);
	*first = 0;
}

static int by_start(const void *a, const void *b)
{
	const struct call *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

int mockshim_trace_chrome(FILE *in, FILE *out)
{
	struct call *c = NULL;
	size_t n = 0, cap = 0, lcap = 0;
	char *line = NULL;
	ssize_t got;
	int first = 1;
	long flows = 0;

	while ((got = getline(&line, &lcap, in)) > 0) {
		if (line[got - 1] == '\n')
			line[got - 1] = '\0';
		if (n == cap) {
			struct call *nc = realloc(c, (cap = cap ? cap * 2 : 256) * sizeof(*c));

			if (!nc) {
				free_calls(c, n);
				free(line);
				return -ENOMEM;
			}
			c = nc;
		}
		if (parse(line, &c[n]) == 0)
			n++;
		else
			free_call(&c[n]);
	}
	free(line);
	if (ferror(in)) {
		free_calls(c, n);
		return -EIO;
	}
	qsort(c, n, sizeof(*c), by_start);

	fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", out);
	/* tracks: a process (its last program's name) and each thread */
	for (size_t i = 0; i < n; i++) {
		size_t last = i, j;
		int seen_pid = 0, seen_tid = 0;

		for (j = 0; j < i; j++) {
			seen_pid |= c[j].pid == c[i].pid;
			seen_tid |= c[j].pid == c[i].pid && c[j].tid == c[i].tid;
		}
		if (!seen_pid) {
			for (j = i; j < n; j++)
				if (c[j].pid == c[i].pid)
					last = j;
			name_event(out, "process_name", c[i].pid, c[i].pid, c[last].exe, c[i].pid, &first);
		}
		if (!seen_tid)
			name_event(out, "thread_name", c[i].pid, c[i].tid, c[i].exe, c[i].tid, &first);
	}
	/* the calls */
	for (size_t i = 0; i < n; i++) {
		fprintf(out, "%s\n{\"ph\":\"X\",\"name\":", first ? "" : ",");
		ms_json_text(out, c[i].fn);
		fprintf(out, ",\"cat\":\"%s\",\"pid\":%ld,\"tid\":%ld,\"ts\":", c[i].by ? "mocked" : "real",
			c[i].pid, c[i].tid);
		us(out, c[i].start);
		fputs(",\"dur\":", out);
		us(out, c[i].end - c[i].start);
		fputs(",\"args\":{\"call\":", out);
		ms_json_text(out, c[i].text);
		if (c[i].result) {
			fputs(",\"result\":", out);
			ms_json_text(out, c[i].result);
		}
		if (c[i].by) {
			fputs(",\"mocked_by\":", out);
			ms_json_text(out, c[i].by);
		}
		if (c[i].site) {
			fputs(",\"site\":", out);
			ms_json_text(out, c[i].site);
		}
		fputs("}}", out);
		first = 0;
	}
	/* flows: parent -> child (each child's first call), and exec */
	for (size_t i = 0; i < n; i++) {
		const struct call *from = NULL;
		size_t j;

		for (j = 0; j < i && c[j].pid != c[i].pid; j++)
			;
		if (j < i) {
			/* not the pid's first call: an exec when the program changed */
			for (j = i; j-- > 0;)
				if (c[j].pid == c[i].pid)
					break;
			if (strcmp(c[j].exe, c[i].exe) != 0)
				flow(out, "exec", ++flows, &c[j], &c[i], &first);
			continue;
		}
		/* the parent's fork that returned this pid, else its last call
		 * that began before the child's first (a spawn, an untraced fork) */
		for (j = 0; j < n; j++) {
			char pid[24];
			size_t k;

			if (c[j].pid != c[i].ppid || !c[j].result)
				continue;
			k = (size_t)snprintf(pid, sizeof(pid), "%ld", c[i].pid);
			if (strstr(c[j].fn, "fork") && strncmp(c[j].result, pid, k) == 0 &&
			    (c[j].result[k] == '\0' || c[j].result[k] == ' ')) {
				from = &c[j];
				break;
			}
		}
		if (!from) {
			for (j = i; j-- > 0;) {
				if (c[j].pid == c[i].ppid) {
					from = &c[j];
					break;
				}
			}
		}
		if (from)
			flow(out, strstr(from->fn, "spawn") ? "spawn" : "fork", ++flows, from, &c[i], &first);
	}
	fputs("\n]}\n", out);
	free_calls(c, n);
	return fflush(out) == 0 ? 0 : -EIO;
}
