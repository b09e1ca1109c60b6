/* SPDX-License-Identifier: MIT */
/*
 * What an exploration leaves in DIR: the findings (runs grouped by
 * outcome and crash site, or injected site when the crash site is not
 * known), a test file per finding, explore.json and index.html.  All of
 * it is made from DIR/meta and the journal alone, so a merge of shards
 * writes what one unsharded run writes.
 */
#define _GNU_SOURCE
#include <glob.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "impl.h"

static char *group_key(const struct ex_result *r)
{
	return r->crash_site[0] ? ex_printf("%s\x1f%s", ex_outcome_names[r->outcome], r->crash_site)
				: ex_printf("%s\x1f%s\x1f%s", ex_outcome_names[r->outcome], r->fn, r->site);
}

void ex_findings(struct ex *x)
{
	char **keys = NULL;

	x->findings = NULL;
	x->nfindings = 0;
	for (size_t i = 0; i < x->nresults; i++) {
		const struct ex_result *r = &x->results[i];
		char *k;
		size_t f;

		if (!((x->oracles >> r->outcome) & 1))
			continue;
		k = group_key(r);
		for (f = 0; f < x->nfindings; f++)
			if (strcmp(keys[f], k) == 0)
				break;
		if (f == x->nfindings) {
			x->findings = ex_xrealloc(x->findings, (f + 1) * sizeof(*x->findings));
			keys = ex_xrealloc(keys, (f + 1) * sizeof(*keys));
			keys[f] = k;
			x->findings[f].first = i;
			x->findings[f].runs = NULL;
			x->findings[f].nruns = 0;
			x->findings[f].file = ex_printf("%04zu-%s-%s.mock", f + 1, ex_outcome_names[r->outcome], r->fn);
			x->nfindings++;
		} else {
			free(k);
		}
		x->findings[f].runs = ex_xrealloc(x->findings[f].runs, (x->findings[f].nruns + 1) * sizeof(size_t));
		x->findings[f].runs[x->findings[f].nruns++] = i;
	}
	for (size_t f = 0; f < x->nfindings; f++)
		free(keys[f]);
	free(keys);
}

static const char *sig_name(int sig)
{
	const char *n = sig > 0 ? sigabbrev_np(sig) : NULL;

	return n ? n : "?";
}

static const struct ex_site *site_of(const struct ex *x, const char *fn, const char *site)
{
	for (size_t i = 0; i < x->nsites; i++)
		if (strcmp(x->sites[i].fn, fn) == 0 && strcmp(x->sites[i].site, site) == 0)
			return &x->sites[i];
	return NULL;
}

/* "planted+0x11c9 (main, planted.c:20)" */
static char *site_text(const struct ex *x, const char *fn, const char *site)
{
	const struct ex_site *s = site_of(x, fn, site);

	if (site[0] == '#')
		return ex_printf("call %s of %s", site + 1, fn);
	return s && s->symbol[0] ? ex_printf("%s %s", site, s->symbol) : ex_strdup(site);
}

/* what the program did, in words */
static char *what_happened(const struct ex *x, const struct ex_result *r)
{
	switch (r->outcome) {
	case EX_CRASH:
	case EX_ABORT:
		return r->crash_site[0] ? ex_printf("killed by SIG%s at %s", sig_name(r->sig), r->crash_site)
					: ex_printf("killed by SIG%s", sig_name(r->sig));
	case EX_HANG:
		return ex_printf("still running after the %.0f s timeout", x->timeout);
	case EX_SILENT:
		return ex_printf("exited %d as the clean run did, with different %s", r->status,
				 x->nfiles ? "output or files" : "output");
	case EX_SANITIZER:
		return ex_strdup("a sanitizer or valgrind error on stderr");
	case EX_EXITED:
		return ex_printf("exited %d (the clean run: %d)", r->status, x->clean_status);
	case EX_UNREACHED:
		return ex_strdup("never called from the site");
	default:
		return r->exited ? ex_printf("exited %d", r->status) : ex_printf("killed by SIG%s", sig_name(r->sig));
	}
}

/* ---- the test files ---- */

/* a word of a test file's run (or a string of a directive) in double quotes */
/* A test file's "Run it from ..." comment (mockrun -t DIR/FILE, with the
 * --site-skip globs of the run) and the handler modules it loads: what
 * explore's findings and minimize's file share; who names the command. */
void ex_put_reproduce(FILE *f, const struct ex *x, const char *who, const char *outdir,
		      const char *file)
{
	char *rel = ex_relpath(x->startdir, outdir);

	fprintf(f, "# Run it from the directory %s started in: mockrun", who);
	for (size_t i = 0; i < x->nskips; i++)
		fprintf(f, " --site-skip '%s'", x->skips[i]);
	fprintf(f, " -t %s/%s\n", rel, file);
	free(rel);
	for (size_t i = 0; i < x->nsrcs; i++)
		if (x->srcs[i].kind == 'm') {
			fprintf(f, "module ");
			ex_put_quoted(f, x->srcs[i].text, 0);
			fputc('\n', f);
		}
}

void ex_put_quoted(FILE *f, const char *s, int keep_dir)
{
	fputc('"', f);
	if (keep_dir) {
		fputs("${DIR}/", f);
	}
	for (; *s; s++) {
		if (*s == '"' || *s == '\\' || *s == '$' || *s == '`')
			fputc('\\', f);
		if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static int write_test(const struct ex *x, const struct ex_finding *fd, size_t num)
{
	const struct ex_result *r = &x->results[fd->first];
	char *text = NULL, *path, *stmt = ex_statement(x, r->fn, r->site, r->err), *where = site_text(x, r->fn, r->site),
	     *what = what_happened(x, r), *rel;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int rc;

	fprintf(f, "# Found by mockrun explore: %s.\n", ex_outcome_names[r->outcome]);
	if (r->site[0] == '#')
		fprintf(f, "# %s failed%s%s at its call %s%s;\n", r->fn, r->err[0] ? " with " : "", r->err,
			r->site + 1, x->persistent ? " and every call after it" : "");
	else
		fprintf(f, "# %s failed%s%s at %s from %s;\n", r->fn, r->err[0] ? " with " : "", r->err,
			x->persistent ? "every call" : "its first call", where);
	fprintf(f, "# the program was %s.\n", what);
	if (r->message[0])
		fprintf(f, "# It said: %s\n", r->message);
	if (r->stack[0])
		fprintf(f, "# stack: %s\n", r->stack);
	fprintf(f, "# Confirmed in %d of %d runs%s.\n", r->same, r->attempts, r->same < r->attempts ? " (flaky)" : "");
	if (fd->nruns > 1) {
		fprintf(f, "# The same from %zu other site%s:", fd->nruns - 1, fd->nruns > 2 ? "s" : "");
		for (size_t i = 1; i < fd->nruns && i < 21; i++) {
			const struct ex_result *o = &x->results[fd->runs[i]];

			fprintf(f, " %s %s %s%s", o->fn, o->err, o->site, i + 1 < fd->nruns ? "," : "");
		}
		fprintf(f, "%s\n", fd->nruns > 21 ? " ..." : "");
	}
	fprintf(f, "# It fails while the program %s, and passes once it handles the error.\n",
		r->outcome == EX_SILENT ? "hides the error" : r->outcome == EX_HANG ? "hangs" : "is killed");
	ex_put_reproduce(f, x, "explore", x->outdir, fd->file);
	if (x->workdir) {
		rel = ex_relpath(x->outdir, x->workdir);
		fprintf(f, "setup {\n\trun cp -a ");
		ex_put_quoted(f, rel, 1);
		fprintf(f, "/. .\n}\n");
		free(rel);
	}
	fprintf(f, "test \"%04zu %s: %s fails", num, ex_outcome_names[r->outcome], r->fn);
	if (r->err[0])
		fprintf(f, " with %s", r->err);
	fprintf(f, " at %s\" {\n", r->site);
	fprintf(f, "\ttimeout(%.0f)\n", x->timeout < 1 ? 1 : x->timeout + 0.5);
	if (!x->workdir) {
		rel = ex_relpath(x->outdir, x->startdir);
		fprintf(f, "\tcwd(");
		ex_put_quoted(f, rel, 0);
		fprintf(f, ")\n");
		free(rel);
	}
	for (size_t i = 0; i < x->nsrcs; i++) {
		if (x->srcs[i].kind == 'e') {
			fprintf(f, "\t%s\n", x->srcs[i].text);
		} else if (x->srcs[i].kind == 'f') {
			char *body = ex_read_file(x->srcs[i].text, NULL);

			fprintf(f, "\t# from %s\n%s\n", x->srcs[i].text, body ? body : "");
			free(body);
		}
	}
	for (char *p = stmt, *semi; p; p = semi) {
		semi = strstr(p, "; ");
		if (semi) {
			*semi = '\0';
			semi += 2;
		}
		fprintf(f, "\t%s\n", p);
	}
	fprintf(f, "\trun ");
	if (strchr(x->argv[0], '/')) {
		const char *p0 = x->argv[0];
		char *abs;

		while (p0[0] == '.' && p0[1] == '/')
			p0 += 2;
		abs = p0[0] == '/' ? ex_strdup(p0) : ex_printf("%s/%s", x->startdir, p0);

		/* the program beside the test file, wherever its copy runs */
		rel = ex_relpath(x->outdir, abs);
		ex_put_quoted(f, x->argv[0][0] == '/' ? abs : rel, x->argv[0][0] != '/');
		free(rel);
		free(abs);
	} else {
		ex_put_quoted(f, x->argv[0], 0);
	}
	for (int i = 1; i < x->argc; i++) {
		fputc(' ', f);
		ex_put_quoted(f, x->argv[i], 0);
	}
	fputc('\n', f);
	switch (r->outcome) {
	case EX_SILENT:
		fprintf(f, "\texpect_exit_not(%d)\n", r->status);
		break;
	case EX_EXITED:
		fprintf(f, "\texpect_exit(%d)\n", x->clean_status);
		break;
	case EX_SANITIZER:
		fprintf(f, "\t# and no sanitizer report on stderr\n\texpect_no_signal()\n");
		break;
	default:
		fprintf(f, "\texpect_no_signal()\n");
	}
	fprintf(f, "}\n");
	fclose(f);
	path = ex_printf("%s/%s", x->outdir, fd->file);
	rc = ex_write_file(path, text, len);
	if (rc)
		rc = ex_error("%s: %s", path, strerror(-rc));
	free(path);
	free(text);
	free(stmt);
	free(where);
	free(what);
	return rc;
}

/* ---- explore.json ---- */

static void jstr(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void write_json(const struct ex *x, FILE *f)
{
	size_t counts[EX_NOUTCOMES] = { 0 };

	fprintf(f, "{\"explore\":1,\"program\":[");
	for (int i = 0; i < x->argc; i++) {
		fputs(i ? "," : "", f);
		jstr(f, x->argv[i]);
	}
	fprintf(f, "],\"statements\":[");
	for (size_t i = 0; i < x->nsrcs; i++) {
		fprintf(f, "%s{\"kind\":\"%s\",\"text\":", i ? "," : "",
			x->srcs[i].kind == 'e' ? "eval" : x->srcs[i].kind == 'f' ? "file" : "module");
		jstr(f, x->srcs[i].text);
		fputc('}', f);
	}
	fprintf(f, "],\"fns\":[");
	for (size_t i = 0; i < x->nfns; i++) {
		fputs(i ? "," : "", f);
		jstr(f, x->fns[i]);
	}
	fprintf(f, "],\"errnos\":");
	jstr(f, x->errnos_arg);
	fprintf(f, ",\"oracles\":[");
	for (int o = 0, n = 0; o < EX_NOUTCOMES; o++)
		if ((x->oracles >> o) & 1)
			fprintf(f, "%s\"%s\"", n++ ? "," : "", ex_outcome_names[o]);
	fprintf(f, "],\"files\":[");
	for (size_t i = 0; i < x->nfiles; i++) {
		fputs(i ? "," : "", f);
		jstr(f, x->files[i]);
	}
	fprintf(f, "],\"site_skip\":[");
	for (size_t i = 0; i < x->nskips; i++) {
		fputs(i ? "," : "", f);
		jstr(f, x->skips[i]);
	}
	fprintf(f, "],\"persistent\":%s,\"method\":\"%s\",\"timeout_seconds\":%.3f,", x->persistent ? "true" : "false",
		x->count_mode ? "count" : "site", x->timeout);
	fprintf(f, "\"clean\":{\"exited\":%s,\"exit_status\":%d,\"signal\":%d,\"seconds\":%.3f,"
		   "\"nondeterministic_stdout\":%s,\"nondeterministic_files\":%s},",
		x->clean_exited ? "true" : "false", x->clean_status, x->clean_sig, x->clean_secs,
		x->nondet_stdout ? "true" : "false", x->nondet_files ? "true" : "false");
	fprintf(f, "\"complete\":%s,\"sites\":[", x->complete ? "true" : "false");
	for (size_t i = 0; i < x->nsites; i++) {
		fprintf(f, "%s{\"function\":", i ? "," : "");
		jstr(f, x->sites[i].fn);
		fprintf(f, ",\"site\":");
		jstr(f, x->sites[i].site);
		fprintf(f, ",\"symbol\":");
		jstr(f, x->sites[i].symbol);
		fprintf(f, ",\"calls\":%u}", x->sites[i].calls);
	}
	fprintf(f, "],\"runs\":[");
	for (size_t i = 0; i < x->nresults; i++) {
		const struct ex_result *r = &x->results[i];

		counts[r->outcome]++;
		fprintf(f, "%s{\"id\":%zu,\"function\":", i ? "," : "", r->id);
		jstr(f, r->fn);
		fprintf(f, ",\"site\":");
		jstr(f, r->site);
		fprintf(f, ",\"errno\":");
		jstr(f, r->err);
		fprintf(f, ",\"outcome\":\"%s\",\"exited\":%s,\"exit_status\":%d,\"signal\":%d,\"crash_site\":",
			ex_outcome_names[r->outcome], r->exited ? "true" : "false", r->status, r->sig);
		jstr(f, r->crash_site);
		fprintf(f, ",\"stack\":[");
		if (r->stack[0]) {
			char *st = ex_strdup(r->stack), *save = NULL;
			int n = 0;

			for (char *w = strtok_r(st, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
				fputs(n++ ? "," : "", f);
				jstr(f, w);
			}
			free(st);
		}
		fprintf(f, "],\"message\":");
		jstr(f, r->message);
		fprintf(f, ",\"confirmed\":%d,\"attempts\":%d,\"seconds\":%.3f}", r->same, r->attempts, r->secs);
	}
	fprintf(f, "],\"findings\":[");
	for (size_t k = 0; k < x->nfindings; k++) {
		const struct ex_finding *fd = &x->findings[k];
		const struct ex_result *r = &x->results[fd->first];

		fprintf(f, "%s{\"id\":%zu,\"file\":", k ? "," : "", k + 1);
		jstr(f, fd->file);
		fprintf(f, ",\"outcome\":\"%s\",\"function\":", ex_outcome_names[r->outcome]);
		jstr(f, r->fn);
		fprintf(f, ",\"site\":");
		jstr(f, r->site);
		fprintf(f, ",\"errno\":");
		jstr(f, r->err);
		fprintf(f, ",\"crash_site\":");
		jstr(f, r->crash_site);
		fprintf(f, ",\"message\":");
		jstr(f, r->message);
		fprintf(f, ",\"signal\":%d,\"confirmed\":%d,\"attempts\":%d,\"flaky\":%s,\"runs\":[", r->sig, r->same,
			r->attempts, r->same < r->attempts ? "true" : "false");
		for (size_t i = 0; i < fd->nruns; i++)
			fprintf(f, "%s%zu", i ? "," : "", x->results[fd->runs[i]].id);
		fprintf(f, "]}");
	}
	fprintf(f, "],\"summary\":{\"sites\":%zu,\"work\":%zu,\"runs\":%zu,\"findings\":%zu", x->nsites, x->nitems,
		x->nresults, x->nfindings);
	for (int o = 0; o < EX_NOUTCOMES; o++)
		fprintf(f, ",\"%s\":%zu", ex_outcome_names[o], counts[o]);
	fprintf(f, "}}\n");
}

/* ---- index.html ---- */

static void h(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
	}
}

static void write_html(const struct ex *x, FILE *f)
{
	char *rel = ex_relpath(x->startdir, x->outdir);

	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	      "<meta name=\"viewport\" content=\"width=device-width\">"
	      "<title>mockrun explore</title><style>"
	      "body{font:14px/1.4 sans-serif;margin:1.5em;color:#222}"
	      "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:.25em .5em;"
	      "text-align:left;vertical-align:top}th{background:#f3f3f3}code,pre{font:13px monospace}"
	      ".crash,.sanitizer,.hang,.silent,.abort,.exit{color:#a00;font-weight:bold}"
	      ".handled{color:#070}.unreached{color:#777}"
	      "</style></head><body>\n", f);
	fprintf(f, "<h1 id=\"verdict\">%zu finding%s</h1>\n<p>Program: <code>", x->nfindings,
		x->nfindings == 1 ? "" : "s");
	for (int i = 0; i < x->argc; i++) {
		fputs(i ? " " : "", f);
		h(f, x->argv[i]);
	}
	fprintf(f, "</code>; %zu sites, %zu runs of %zu%s; clean run: ", x->nsites, x->nresults, x->nitems,
		x->complete ? "" : " (unfinished: rerun explore with the same -o to go on)");
	if (x->clean_exited)
		fprintf(f, "exit %d", x->clean_status);
	else
		fprintf(f, "killed by SIG%s", sig_name(x->clean_sig));
	fprintf(f, "%s.</p>\n", x->nondet_stdout ? " (its output differs from run to run: not compared)" : "");
	fputs("<h2>Findings</h2>\n", f);
	if (!x->nfindings)
		fputs("<p>None.</p>\n", f);
	for (size_t k = 0; k < x->nfindings; k++) {
		const struct ex_finding *fd = &x->findings[k];
		const struct ex_result *r = &x->results[fd->first];
		char *where = site_text(x, r->fn, r->site), *what = what_happened(x, r), *path;

		fprintf(f, "<section class=\"finding\" id=\"finding-%zu\"><h3><span class=\"%s\">%s</span> ", k + 1,
			ex_outcome_names[r->outcome], ex_outcome_names[r->outcome]);
		h(f, r->fn);
		fprintf(f, "%s%s at <code>", r->err[0] ? " " : "", r->err);
		h(f, where);
		fprintf(f, "</code></h3>\n<p>The program was ");
		h(f, what);
		fprintf(f, ". Confirmed in %d of %d runs%s.</p>\n", r->same, r->attempts,
			r->same < r->attempts ? " (flaky)" : "");
		if (r->message[0]) {
			fputs("<pre class=\"message\">", f);
			h(f, r->message);
			fputs("</pre>\n", f);
		}
		if (r->stack[0]) {
			fputs("<p>Stack:</p><pre class=\"stack\">", f);
			for (const char *p = r->stack; *p; p++)
				if (*p == ',')
					fputc('\n', f);
				else if (*p == '<')
					fputs("&lt;", f);
				else if (*p == '&')
					fputs("&amp;", f);
				else
					fputc(*p, f);
			fputs("</pre>\n", f);
		}
		if (fd->nruns > 1) {
			fprintf(f, "<p>The same from %zu more site%s:", fd->nruns - 1, fd->nruns > 2 ? "s" : "");
			for (size_t i = 1; i < fd->nruns; i++) {
				const struct ex_result *o = &x->results[fd->runs[i]];
				char *w = site_text(x, o->fn, o->site);

				fputs(i > 1 ? ", <code>" : " <code>", f);
				h(f, w);
				fputs("</code>", f);
				free(w);
			}
			fputs("</p>\n", f);
		}
		path = ex_printf("%s/%s", rel, fd->file);
		fputs("<p>Reproduce: <code class=\"reproduce\">mockrun ", f);
		for (size_t i = 0; i < x->nskips; i++) {
			fputs("--site-skip '", f);
			h(f, x->skips[i]);
			fputs("' ", f);
		}
		fputs("-t ", f);
		h(f, path);
		fputs("</code></p></section>\n", f);
		free(path);
		free(where);
		free(what);
	}
	fputs("<h2>Sites</h2>\n<table><tr><th>function</th><th>site</th><th>calls</th><th>runs</th></tr>\n", f);
	for (size_t i = 0; i < x->nsites; i++) {
		const struct ex_site *s = &x->sites[i];

		fputs("<tr><td>", f);
		h(f, s->fn);
		fputs("</td><td><code>", f);
		h(f, s->site);
		if (s->symbol[0]) {
			fputc(' ', f);
			h(f, s->symbol);
		}
		fprintf(f, "</code></td><td>%u</td><td>", s->calls);
		for (size_t k = 0; k < x->nresults; k++) {
			const struct ex_result *r = &x->results[k];

			if (strcmp(r->fn, s->fn) || strcmp(r->site, s->site))
				continue;
			fprintf(f, "%s <span class=\"%s\">%s</span> ", r->err, ex_outcome_names[r->outcome],
				ex_outcome_names[r->outcome]);
		}
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n</body></html>\n", f);
	free(rel);
}

static int write_mem(const struct ex *x, const char *name, void (*fn)(const struct ex *, FILE *))
{
	char *text = NULL, *path = ex_printf("%s/%s", x->outdir, name);
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int rc;

	fn(x, f);
	fclose(f);
	rc = ex_write_file(path, text, len);
	if (rc)
		rc = ex_error("%s: %s", path, strerror(-rc));
	free(path);
	free(text);
	return rc;
}

int ex_write_all(struct ex *x)
{
	int rc = 0;
	char *pat = ex_printf("%s/[0-9][0-9][0-9][0-9]-*.mock", x->outdir);
	glob_t g;

	/* an earlier pass's files: the numbers may have moved */
	if (glob(pat, 0, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc; i++)
			unlink(g.gl_pathv[i]);
		globfree(&g);
	}
	free(pat);
	for (size_t k = 0; k < x->nfindings && !rc; k++)
		rc = write_test(x, &x->findings[k], k + 1);
	if (!rc)
		rc = write_mem(x, "explore.json", write_json);
	if (!rc)
		rc = write_mem(x, "index.html", write_html);
	return rc;
}
