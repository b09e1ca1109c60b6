/* SPDX-License-Identifier: MIT */
/* Driver sessions: statements and settings; a run of the program is run.c. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clockmove.h"
#include "session.h"
#include "lang/lang.h"

#define DEFAULT_EVENTS 8192
/* --control: rules mockrun ctl may add in a run */
#define LIVE_STATEMENTS 64

/* A warning of the statements (a declaration the catalog answers), at
 * once, where it was written. */
static void spec_warning(void *ctx, const char *src, uint32_t line, uint32_t col, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "%s:%u:%u: warning: %s\n", src ? src : "?", line, col, msg);
}

struct mockshim_session *mockshim_session_create(void)
{
	struct mockshim_session *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	ms_spec_init(&s->spec, realloc, free);
	pthread_mutex_init(&s->live_lock, NULL);
	s->spec.module_fn = ms_session_module_stmt;
	s->spec.warn_fn = spec_warning;
	s->spec.module_ctx = s;
	ms_session_set_at_resolver(s, ms_session_at_unavailable, s);
	s->chan.spec_fd = s->chan.state_fd = -1;
	s->events_cap = DEFAULT_EVENTS;
	return s;
}

void ms_session_release_run(struct mockshim_session *s)
{
	ms_report_release(&s->view);
	free(s->own);
	s->own = NULL;
	ms_channel_unmap(&s->chan);
	if (s->chan.spec_fd >= 0)
		close(s->chan.spec_fd);
	if (s->chan.state_fd >= 0)
		close(s->chan.state_fd);
	s->chan.spec_fd = s->chan.state_fd = -1;
	for (size_t i = 0; i < s->nunattached; i++)
		free(s->unattached[i]);
	free(s->unattached);
	s->unattached = NULL;
	s->nunattached = s->unattached_more = 0;
	for (size_t i = 0; i < s->nstill_running; i++)
		free(s->still_running[i]);
	free(s->still_running);
	s->still_running = NULL;
	s->nstill_running = 0;
	free(s->program);
	s->program = NULL;
	for (int i = 0; i < 2; i++) {
		free(s->out[i].data);
		memset(&s->out[i], 0, sizeof(s->out[i]));
	}
	s->ran = 0;
}

void mockshim_session_destroy(struct mockshim_session *s)
{
	if (!s)
		return;
	ms_session_release_run(s);
	free(s->shim_path);
	for (size_t i = 0; i < s->nmodules; i++)
		free(s->modules[i]);
	free(s->modules);
	free(s->cwd);
	free(s->stdin_data);
	free(s->control_at);
	free(s->at_program);
	pthread_mutex_destroy(&s->live_lock);
	ms_spec_fini(&s->spec);
	free(s);
}

void ms_session_set_at_resolver(struct mockshim_session *s, ms_at_resolver fn, void *ctx)
{
	ms_parse_set_at_resolver(&s->spec, fn, ctx);
}

/* Until the symbolizer is in: only at="OBJ+0xHEX" (which the parser
 * reads itself). */
int ms_session_at_unavailable(void *ctx, const char *text, struct ms_site_range *out, unsigned max,
			      unsigned *n, char *msg, size_t msglen)
{
	(void)ctx, (void)text, (void)out, (void)max;
	*n = 0;
	snprintf(msg, msglen,
		 "naming a function or FILE:LINE needs symbolization, which this mockrun does not "
		 "have: write at=\"OBJ+0xHEX\" (--trace shows each call's site)");
	return -1;
}

void ms_session_set_report_symbolizer(struct mockshim_session *s, ms_report_symbolizer fn, void *ctx)
{
	s->symbolize = fn;
	s->symbolize_ctx = ctx;
}

void ms_session_set_report_symbolizer_pc(struct mockshim_session *s, ms_report_symbolizer fn)
{
	s->symbolize_pc = fn;
}

void ms_session_set_sites(struct mockshim_session *s, uint32_t cap)
{
	s->spec.sites_cap = cap;
}

int ms_session_set_at_program(struct mockshim_session *s, const char *path)
{
	char *p = path ? strdup(path) : NULL;

	if (path && !p)
		return -ENOMEM;
	free(s->at_program);
	s->at_program = p;
	return 0;
}

int ms_session_add_site_skip(struct mockshim_session *s, const char *glob)
{
	const char *old = s->spec.site_skip ? s->spec.pool + s->spec.site_skip : "";
	size_t on = strlen(old), gn = strlen(glob);
	char *buf;
	uint32_t off;

	if (!gn || gn >= 128 || strchr(glob, '\n') || strchr(glob, '/')) {
		snprintf(s->error, sizeof(s->error),
			 "--site-skip %s: a glob of an object's basename (\"libfoo.so*\"), "
			 "under 128 bytes\n", glob);
		return -EINVAL;
	}
	buf = malloc(on + gn + 2);
	if (!buf)
		return -ENOMEM;
	memcpy(buf, old, on);
	if (on)
		buf[on++] = '\n';
	memcpy(buf + on, glob, gn + 1);
	off = ms_spec_str(&s->spec, buf, on + gn);
	free(buf);
	if (!off)
		return -ENOMEM;
	s->spec.site_skip = off;
	return 0;
}

const char *mockshim_session_error(const struct mockshim_session *s)
{
	return s->error;
}

/*
 * A fake_time that freezes a monotonic clock (rate=0 with clocks= naming
 * one): a program waiting for a deadline on it waits forever (asyncio's
 * sleep, a condition variable's timed wait, poll's timeout reckoned on
 * CLOCK_MONOTONIC).  Said once, when the statement is read.
 */
static void warn_frozen(const struct mockshim_session *s, uint32_t first)
{
	const uint32_t mono = (1u << MS_TC_MONOTONIC) | (1u << MS_TC_MONO_RAW) | (1u << MS_TC_BOOTTIME);

	for (uint32_t i = first; i < s->spec.nftimes; i++) {
		const struct ms_ftime *t = &s->spec.ftimes[i];

		if (t->rate == 0 && (t->clocks & mono))
			fprintf(stderr,
				"%s:%u:%u: warning: rate=0 freezes a monotonic clock: a program that "
				"waits for a deadline on it (asyncio.sleep, a timed wait, a timeout "
				"reckoned on CLOCK_MONOTONIC) never reaches it and hangs; freeze the "
				"wall clock only (clocks=wall, the default) or give a rate\n",
				s->spec.pool + t->src, t->line, t->col);
	}
}

int mockshim_session_add(struct mockshim_session *s, const char *src, const char *text,
			 size_t len)
{
	uint32_t nft = s->spec.nftimes;
	struct ms_diag diag;
	int r;

	if (len == (size_t)-1)
		len = strlen(text);
	s->error[0] = '\0';
	/* during a run with --control, from another thread: added live */
	pthread_mutex_lock(&s->live_lock);
	if (s->live_open) {
		r = ms_session_add_live(s, src, text, len, s->error, sizeof(s->error));
		pthread_mutex_unlock(&s->live_lock);
		return r;
	}
	pthread_mutex_unlock(&s->live_lock);
	r = ms_parse(&s->spec, src, text, len, &diag);
	if (r == -EINVAL) {
		ms_format_diag(s->error, sizeof(s->error), src, text, len, &diag);
	} else if (r < 0) {
		snprintf(s->error, sizeof(s->error), "%s: %s\n", src, strerror(-r));
	} else {
		warn_frozen(s, nft);
	}
	return r;
}

/* The largest spec file (or stdin) read: a recorded spec of 16 MiB
 * outputs fits, a runaway source (-f /dev/zero) does not. */
#define MS_SPEC_MAX (64 << 20)

int mockshim_session_add_file(struct mockshim_session *s, const char *path)
{
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "re");
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int r = 0;

	if (!f) {
		r = -errno;
		snprintf(s->error, sizeof(s->error), "%s: cannot read: %s\n", path, strerror(errno));
		return r;
	}
	for (;;) {
		size_t got;

		if (len + 4096 > cap) {
			char *nb;

			cap = cap * 2 + 4096;
			cap = cap > MS_SPEC_MAX + 1 ? MS_SPEC_MAX + 1 : cap;
			nb = realloc(buf, cap);

			if (!nb) {
				r = -ENOMEM;
				goto out;
			}
			buf = nb;
		}
		got = fread(buf + len, 1, cap - len, f);
		len += got;
		if (len > MS_SPEC_MAX) {
			/* -f /dev/zero must not take the machine's memory */
			r = -EFBIG;
			snprintf(s->error, sizeof(s->error),
				 "%s: a spec is at most %d MiB: this one is larger\n", path,
				 MS_SPEC_MAX >> 20);
			goto out;
		}
		if (got == 0) {
			if (ferror(f)) {
				r = -EIO;
				snprintf(s->error, sizeof(s->error), "%s: read error\n", path);
				goto out;
			}
			break;
		}
	}
	r = mockshim_session_add(s, path, buf ? buf : "", len);
out:
	if (f != stdin)
		fclose(f);
	free(buf);
	return r;
}

int mockshim_session_set_trace(struct mockshim_session *s, const char *fns, const char *path)
{
	s->error[0] = '\0';
	memset(s->spec.traced, 0, sizeof(s->spec.traced));
	s->spec.trace = 1;
	s->spec.trace_path = 0;
	for (uint32_t i = 0; i < s->spec.ndyn; i++)
		s->spec.dyn[i]->traced = 0;
	if (!fns || !*fns) {
		/* every catalog function but the allocator, which would drown
		 * it, and every declared one */
		for (unsigned i = 0; i < MS_FN_COUNT; i++)
			s->spec.traced[i] = strcmp(ms_catalog_get(i)->group, "memory") != 0;
		for (uint32_t i = 0; i < s->spec.ndyn; i++)
			s->spec.dyn[i]->traced = s->spec.dyn[i]->declared;
	} else {
		for (const char *p = fns; *p;) {
			size_t n = strcspn(p, ",");
			int id = ms_catalog_find(p, n);

			/* a declared function (the statements are added first) */
			for (uint32_t i = 0; id < 0 && i < s->spec.ndyn; i++) {
				const struct ms_fn_meta *m = s->spec.dyn[i];

				if (m->declared && strlen(m->name) == n && strncmp(m->name, p, n) == 0) {
					s->spec.dyn[i]->traced = 1;
					id = INT_MAX;
				}
			}
			if (id == INT_MAX) {
				p += n + (p[n] == ',');
				continue;
			}
			if (id < 0 && n > 4 && strncmp(p, "SYS_", 4) == 0) {
				/* a system call: the supervisor traces it */
				int k = ms_spec_syscall(&s->spec, p, n);
				char why[192];

				if (k == -ENOMEM)
					return -ENOMEM;
				if (k < 0 && ms_syscall_absent(p, n, why, sizeof(why))) {
					snprintf(s->error, sizeof(s->error), "--trace: %s\n", why);
					s->spec.trace = 0;
					return -EINVAL;
				}
				if (k < 0) {
					snprintf(s->error, sizeof(s->error),
						 "--trace: '%.*s' is not a system call the syscall tier "
						 "knows (see mockrun --list: syscall)\n",
						 (int)n, p);
					s->spec.trace = 0;
					return -EINVAL;
				}
				s->spec.dyn[k - MS_FN_COUNT]->traced = 1;
				p += n + (p[n] == ',');
				continue;
			}
			if (id < 0) {
				snprintf(s->error, sizeof(s->error),
					 "--trace: '%.*s' is not in the catalog (see mockrun --list) nor declared with mock\n",
					 (int)n, p);
				s->spec.trace = 0;
				return -EINVAL;
			}
			s->spec.traced[id] = 1;
			p += n + (p[n] == ',');
		}
	}
	if (path) {
		char *abs = path[0] == '/' ? strdup(path) : NULL;
		char cwd[PATH_MAX];

		if (!abs && getcwd(cwd, sizeof(cwd)) && asprintf(&abs, "%s/%s", cwd, path) < 0)
			abs = NULL;
		if (!abs)
			return -ENOMEM;
		s->spec.trace_path = ms_spec_str(&s->spec, abs, strlen(abs));
		free(abs);
		if (!s->spec.trace_path)
			return -ENOMEM;
	}
	return 0;
}

int mockshim_session_set_shim(struct mockshim_session *s, const char *path)
{
	char *p = strdup(path);

	if (!p)
		return -ENOMEM;
	free(s->shim_path);
	s->shim_path = p;
	return 0;
}

int mockshim_session_set_cwd(struct mockshim_session *s, const char *dir)
{
	char *d = dir ? strdup(dir) : NULL;

	if (dir && !d)
		return -ENOMEM;
	free(s->cwd);
	s->cwd = d;
	return 0;
}

int mockshim_session_set_stdin(struct mockshim_session *s, const void *data, size_t len)
{
	char *d = NULL;

	if (data) {
		d = malloc(len ? len : 1);
		if (!d)
			return -ENOMEM;
		memcpy(d, data, len);
	}
	free(s->stdin_data);
	s->stdin_data = d;
	s->stdin_len = data ? len : 0;
	s->has_stdin = data != NULL;
	return 0;
}

void mockshim_session_set_capture(struct mockshim_session *s, int on)
{
	s->capture = on;
}

const char *mockshim_session_output(const struct mockshim_session *s, int fd, size_t *len)
{
	const struct buffer *b = fd == 1 ? &s->out[0] : fd == 2 ? &s->out[1] : NULL;

	if (len)
		*len = b ? b->len : 0;
	return b && b->data ? b->data : "";
}

int mockshim_session_set_control(struct mockshim_session *s, int on, const char *path)
{
	char *p = path ? strdup(path) : NULL;

	if (path && !p)
		return -ENOMEM;
	free(s->control_at);
	s->control_at = p;
	s->control = on;
	s->spec.live_cap = on ? LIVE_STATEMENTS : 0;
	/* counted from the start: --wait-call N is about the whole run */
	for (unsigned i = 0; i < MS_FN_COUNT; i++)
		s->spec.counted[i] = on && strcmp(ms_catalog_get(i)->group, "memory") != 0;
	return 0;
}

void ms_session_spec_counts(const struct ms_spec *spec, uint32_t c[5])
{
	c[0] = spec->nrules;
	c[1] = spec->nouts;
	c[2] = spec->nconds;
	c[3] = spec->pool_len;
	c[4] = spec->nsources;
}

void ms_session_spec_restore(struct ms_spec *spec, const uint32_t c[5])
{
	spec->nrules = c[0];
	spec->nouts = c[1];
	spec->nconds = c[2];
	spec->pool_len = c[3];
	spec->nsources = c[4];
}

const char *mockshim_session_control_path(const struct mockshim_session *s)
{
	return __atomic_load_n(&s->ctl_path, __ATOMIC_ACQUIRE);
}

int mockshim_session_set_timeout(struct mockshim_session *s, double seconds)
{
	if (!(seconds >= 0) || seconds > 1e9)
		return -EINVAL;
	s->timeout = seconds;
	return 0;
}

void mockshim_session_set_abort_on_fail(struct mockshim_session *s, int on)
{
	if (on)
		s->chan_flags |= MS_CHAN_ABORT_ON_FAIL;
	else
		s->chan_flags &= ~(uint32_t)MS_CHAN_ABORT_ON_FAIL;
}

void mockshim_session_set_seed(struct mockshim_session *s, uint64_t seed)
{
	s->seed = seed;
	s->seed_set = 1;
}

void mockshim_session_set_trace_timed(struct mockshim_session *s, int on)
{
	if (on)
		s->chan_flags |= MS_CHAN_TRACE_TIMED;
	else
		s->chan_flags &= ~(uint32_t)MS_CHAN_TRACE_TIMED;
}

void mockshim_session_set_verbosity(struct mockshim_session *s, int verbosity)
{
	s->verbosity = verbosity;
}

void ms_session_set_once(struct mockshim_session *s)
{
	s->once = 1;
}

void ms_session_set_no_handlers(struct mockshim_session *s)
{
	s->no_handlers = 1;
}

void ms_session_on_started(struct mockshim_session *s, void (*fn)(void *), void *arg)
{
	s->started = fn;
	s->started_arg = arg;
}


struct ms_report_in ms_session_report_in(const struct mockshim_session *s)
{
	struct ms_report_in in = {
		.spec = s->view.spec,
		.state = s->view.state,
		.state_size = s->view.state_size,
		.held = s->view.held,
		.tampered = s->view.tampered,
		.tamper_pid = s->view.tamper_pid,
		.lost_failures = s->view.lost_failures,
		.program = s->program,
		.result = s->result,
		.verbosity = s->verbosity,
		.done_before_timeout = s->done_before_timeout,
		.go_program = s->go_program,
		.unattached = s->unattached,
		.nunattached = s->nunattached,
		.unattached_more = s->unattached_more,
		.still_running = s->still_running,
		.power = s->power_note,
		.nstill_running = s->nstill_running,
		.symbolize = s->symbolize,
		.symbolize_ctx = s->symbolize_ctx,
		.symbolize_pc = s->symbolize_pc,
	};

	return in;
}

uint32_t ms_session_trace_lost(const struct mockshim_session *s, int *err)
{
	const struct ms_state_hdr *st = s->view.state;

	*err = 0;
	if (!s->ran || !st)
		return 0;
	*err = st->trace_errno;
	return st->trace_lost;
}

uint32_t ms_session_trace_badf(const struct mockshim_session *s, int *fd)
{
	const struct ms_state_hdr *st = s->view.state;

	*fd = -1;
	if (!s->ran || !st)
		return 0;
	*fd = st->trace_badf_fd - 1;
	return st->trace_badf;
}

int ms_session_trace_open_errno(const struct mockshim_session *s)
{
	const struct ms_state_hdr *st = s->view.state;

	return s->ran && st ? st->trace_open_errno : 0;
}

int mockshim_session_report(struct mockshim_session *s, FILE *out, int format)
{
	struct ms_report_in in;

	if (!s->ran)
		return -EINVAL;
	in = ms_session_report_in(s);
	return ms_report_write(&in, out, format);
}

/* ---- a run's live side: statements, counts and clocks, from ctl or a
 * driver's other thread ---- */

int ms_session_add_live(struct mockshim_session *s, const char *src, const char *text, size_t len,
			char *msg, size_t cap)
{
	uint32_t before[5];
	struct ms_diag d;
	const char *why;
	char name[32];
	int r;

	if (!src) {
		snprintf(name, sizeof(name), "ctl#%u", s->nctl + 1);
		src = name;
	}
	ms_session_spec_counts(&s->spec, before);
	/* the channel's pool ends with one NUL more than the spec's, which
	 * every shim checks: the added strings come after it */
	if (!ms_spec_str(&s->spec, "", 0)) {
		snprintf(msg, cap, "%s: out of memory\n", src);
		return -ENOMEM;
	}
	s->spec.live = 1;
	r = ms_parse(&s->spec, src, text, len, &d);
	s->spec.live = 0;
	if (r < 0) {
		ms_session_spec_restore(&s->spec, before);
		if (r == -EINVAL)
			ms_format_diag(msg, cap, src, text, len, &d);
		else
			snprintf(msg, cap, "%s: %s\n", src, strerror(-r));
		return r;
	}
	if (s->spec.nrules == before[0]) {
		ms_session_spec_restore(&s->spec, before);
		snprintf(msg, cap, "%s: no statement to add\n", src);
		return -EINVAL;
	}
	r = ms_channel_add_live(&s->chan, s->own, &s->spec, &why);
	if (r < 0) {
		ms_session_spec_restore(&s->spec, before);
		snprintf(msg, cap, "%s: %s%s\n", src, r == -ENOSPC ? "" : "internal error: ", why);
		return r;
	}
	s->nctl++;
	snprintf(msg, cap, "%s: %u statement%s added\n", src, s->spec.nrules - before[0],
		 s->spec.nrules - before[0] == 1 ? "" : "s");
	return 0;
}

int ms_session_check_live(struct mockshim_session *s, const char *src, const char *text, size_t len,
			  char *msg, size_t cap)
{
	uint32_t before[5];
	struct ms_diag d;
	int r;

	ms_session_spec_counts(&s->spec, before);
	s->spec.live = 1;
	r = ms_parse(&s->spec, src, text, len, &d);
	s->spec.live = 0;
	if (r == -EINVAL)
		ms_format_diag(msg, cap, src, text, len, &d);
	else if (r < 0)
		snprintf(msg, cap, "%s: %s\n", src, strerror(-r));
	ms_session_spec_restore(&s->spec, before);
	return r;
}

unsigned ms_session_fn_ids(const char *fn, unsigned *ids, unsigned cap)
{
	static const char *const sufs[] = { "", "4", "at", "2", "3" };
	char name[80];
	unsigned n = 0;

	for (size_t i = 0; i < sizeof(sufs) / sizeof(sufs[0]) && n < cap; i++) {
		int len = snprintf(name, sizeof(name), "%s%s", fn, sufs[i]), id;

		if (len < 0 || (size_t)len >= sizeof(name))
			continue;
		id = ms_catalog_find(name, (size_t)len);
		if (id >= 0 && (i == 0 || strcmp(ms_catalog_get((unsigned)id)->name, name) == 0))
			ids[n++] = (unsigned)id;
	}
	return n;
}

uint64_t ms_session_calls_of(const struct mockshim_session *s, const unsigned *ids, unsigned n)
{
	const struct ms_fn_state *fst = ms_state_at(s->chan.state, s->own->st_fns_off);
	uint64_t k = 0;

	for (unsigned i = 0; i < n; i++)
		k += __atomic_load_n(&fst[ids[i]].calls, __ATOMIC_RELAXED);
	return k;
}

long long mockshim_session_calls(struct mockshim_session *s, const char *fn)
{
	unsigned ids[6], nids;
	int id = fn ? ms_catalog_find(fn, strlen(fn)) : -1;
	long long n = -1;

	pthread_mutex_lock(&s->live_lock);
	if (s->live_open && id >= 0 &&
	    (((const struct ms_chan_fn *)ms_chan_at(s->own, s->own->fns_off))[id].flags & MS_FF_COUNTED)) {
		nids = ms_session_fn_ids(fn, ids, sizeof(ids) / sizeof(ids[0]));
		n = (long long)ms_session_calls_of(s, ids, nids);
	}
	pthread_mutex_unlock(&s->live_lock);
	return n;
}

int mockshim_session_move_time(struct mockshim_session *s, const char *how, const char *value)
{
	int rate = how && strcmp(how, "rate") == 0, set = how && strcmp(how, "set-time") == 0;
	int64_t ns = 0;
	double r = 1;
	int ret = 0;

	s->error[0] = '\0';
	if (!value || (!rate && !set && (!how || strcmp(how, "advance-time") != 0))) {
		snprintf(s->error, sizeof(s->error), "move_time: '%s' is not advance-time, set-time or rate\n",
			 how ? how : "(null)");
		return -EINVAL;
	}
	if (rate ? ms_move_rate(value, &r, s->error, sizeof(s->error)) < 0
		 : ms_move_time(how, value, set, &ns, s->error, sizeof(s->error)) < 0)
		return -EINVAL;
	pthread_mutex_lock(&s->live_lock);
	if (!s->live_open || !s->own->nftimes) {
		snprintf(s->error, sizeof(s->error), "%s\n",
			 !s->live_open ? "no run with control is in progress"
				       : "no fake_time in this session: there is no clock to move");
		ret = -EINVAL;
	} else if (ms_time_move(s->own, s->chan.state,
				rate ? MS_TIME_RATE : set ? MS_TIME_SET : MS_TIME_ADVANCE, ns, r) < 0) {
		ms_move_refused(s->own, s->chan.state, ns, s->error, sizeof(s->error));
		ret = -ERANGE;
	}
	pthread_mutex_unlock(&s->live_lock);
	return ret;
}
