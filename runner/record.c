/* SPDX-License-Identifier: MIT */
/*
 * --record FILE --record-fns FN,...: the spec that replays a run.
 *
 * The shims log every real call of the recorded functions (libmockshim/
 * record.c); after the run, each call becomes a will_return with its
 * value, errno and outputs, scoped to its program with in=, in the order
 * of the calls.  Replayed with -f FILE, each program takes the values
 * back in the same order, then the real functions run again.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "session.h"
#include "catalog/catalog.h"

#define RECORD_CAP (64u << 20)

/* Why function m cannot be recorded, or NULL. */
static const char *not_recordable(const struct ms_fn_meta *m)
{
	if (m->ret.tclass == MS_T_PTR)
		return "it returns a pointer, which a replay cannot give back";
	for (unsigned i = 0; i < m->nparams; i++) {
		int out = 0;

		for (unsigned k = 0; k < m->nouts; k++)
			out |= m->outs[k].param == i && m->outs[k].kind != MS_OK_FERROR;
		/* getline's *lineptr: what it allocates is no output of the row */
		if (!out && strstr(m->params[i].type.text, "**"))
			return "it allocates what it returns through a pointer, which a replay cannot "
			       "give back";
	}
	for (unsigned i = 0; i < m->nouts; i++) {
		const struct ms_out_desc *o = &m->outs[i];

		if (o->kind != MS_OK_STRUCT || strcmp(o->strct, "addrinfo") == 0 ||
		    strcmp(o->strct, "sockaddr") == 0 || strcmp(o->strct, "revents") == 0)
			continue;
		if (!ms_struct_find(o->strct))
			return "its output is a struct a spec cannot write";
	}
	return NULL;
}

/*
 * --record-fns @GROUP: the recordable functions of a catalog group, by
 * the names mockrun explore gives them (DESIGN 7.2) or the catalog's own
 * (mockrun --list).  Those that cannot be recorded are left out.
 */
static const struct {
	const char *name, *group;
} groups[] = {
	{ "net", "network" }, { "file", "file" }, { "stdio", "stdio" }, { "time", "time" },
	{ "process", "process" }, { "alloc", "memory" }, { "network", "network" },
	{ "memory", "memory" }, { "identity", "identity" }, { "env", "env" }, { "misc", "misc" },
};

#define GROUPS_HELP "@net, @file, @stdio, @time, @process, @identity, @env, @misc"

/* Functions that make a descriptor: replayed, the program would get a
 * number no real file or socket stands behind, and its next real call on
 * it fails (EBADF).  A group leaves them out: the replay makes the real
 * socket, and the recorded calls on it answer as in the recorded run. */
static int makes_fd(const char *name)
{
	static const char *const fds[] = { "socket", "socketpair", "accept", "accept4", "open",
					   "openat", "creat", "dup", "dup2", "dup3", "pipe", "pipe2",
					   "epoll_create", "epoll_create1", "eventfd", "timerfd_create",
					   "signalfd", "memfd_create", "inotify_init", "inotify_init1",
					   "fcntl", "close" };

	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		if (strcmp(fds[i], name) == 0)
			return 1;
	return 0;
}

static int record_group(struct mockshim_session *s, const char *g, size_t n)
{
	for (size_t i = 0; i < sizeof(groups) / sizeof(groups[0]); i++) {
		if (strlen(groups[i].name) != n || strncmp(groups[i].name, g, n) != 0)
			continue;
		for (unsigned id = 0; id < MS_FN_COUNT; id++) {
			const struct ms_fn_meta *m = ms_catalog_get(id);

			/* a void function has nothing to give back: replayed, it would
			 * do nothing (freeaddrinfo, endhostent) */
			if (m->group && strcmp(m->group, groups[i].group) == 0 &&
			    m->ret.tclass != MS_T_VOID && !makes_fd(m->name) && !not_recordable(m))
				s->spec.recorded[id] = 1;
		}
		return 0;
	}
	snprintf(s->error, sizeof(s->error), "--record-fns: no group '@%.*s' (groups: " GROUPS_HELP ")\n",
		 (int)n, g);
	return -EINVAL;
}

int mockshim_session_set_record(struct mockshim_session *s, const char *fns)
{
	s->error[0] = '\0';
	memset(s->spec.recorded, 0, sizeof(s->spec.recorded));
	s->spec.record_cap = 0;
	if (!fns || !*fns) {
		snprintf(s->error, sizeof(s->error),
			 "--record needs --record-fns FN,...: the functions whose results to record, "
			 "by name or by group (" GROUPS_HELP "); for a network client, "
			 "--record-fns @net,@time: its sockets, name lookups, waits on them "
			 "(poll, select, epoll) and the clock\n");
		return -EINVAL;
	}
	for (const char *p = fns; *p;) {
		size_t n = strcspn(p, ",");
		int id = *p == '@' ? -1 : ms_catalog_find(p, n);
		const char *why;

		if (*p == '@') {
			if (record_group(s, p + 1, n - 1) < 0)
				return -EINVAL;
			p += n + (p[n] == ',');
			continue;
		}
		if (id < 0) {
			snprintf(s->error, sizeof(s->error),
				 "--record-fns: '%.*s' is not in the catalog (see mockrun --list)\n",
				 (int)n, p);
			return -EINVAL;
		}
		why = not_recordable(ms_catalog_get((unsigned)id));
		if (why) {
			snprintf(s->error, sizeof(s->error), "--record-fns: %s() cannot be recorded: %s\n",
				 ms_catalog_get((unsigned)id)->name, why);
			return -EINVAL;
		}
		s->spec.recorded[id] = 1;
		p += n + (p[n] == ',');
	}
	s->spec.record_cap = RECORD_CAP;
	return 0;
}

/* ---- writing the spec ---- */

static void put_bytes(FILE *f, const unsigned char *p, size_t n)
{
	fputc('"', f);
	for (size_t i = 0; i < n; i++) {
		unsigned c = p[i];

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c >= 0x20 && c < 0x7f)
			fputc((int)c, f);
		else
			fprintf(f, "\\x%02x", c);
	}
	fputc('"', f);
}

static int64_t int_at(const unsigned char *p, unsigned size, int is_signed)
{
	uint64_t v = 0;

	memcpy(&v, p, size > 8 ? 8 : size); /* little endian */
	if (is_signed && size < 8 && (v >> (8 * size - 1)) & 1)
		v |= ~(uint64_t)0 << (8 * size);
	return (int64_t)v;
}

/* A struct literal of the fields the catalog knows; zero fields left out. */
static void put_struct(FILE *f, const struct ms_struct_desc *sd, const unsigned char *p, size_t len)
{
	int first = 1;

	fputc('{', f);
	for (unsigned i = 0; i < sd->nfields; i++) {
		const struct ms_field_desc *fd = &sd->fields[i];
		const unsigned char *q = p + fd->off;

		if ((size_t)fd->off + fd->size > len)
			continue;
		if (fd->kind == MS_FD_CHARS) {
			size_t n = strnlen((const char *)q, fd->size);

			if (!n)
				continue;
			fprintf(f, "%s.%s = ", first ? "" : ", ", fd->name);
			put_bytes(f, q, n);
		} else {
			int64_t v = int_at(q, fd->size, fd->kind == MS_FD_INT);

			if (!v)
				continue;
			fprintf(f, "%s.%s = %lld", first ? "" : ", ", fd->name, (long long)v);
		}
		first = 0;
	}
	fputc('}', f);
}

static void put_addr(FILE *f, int family, const void *addr, unsigned port)
{
	char text[INET6_ADDRSTRLEN] = "?";

	inet_ntop(family, addr, text, sizeof(text));
	if (family == AF_INET6)
		port ? fprintf(f, "\"[%s]:%u\"", text, port) : fprintf(f, "\"%s\"", text);
	else
		port ? fprintf(f, "\"%s:%u\"", text, port) : fprintf(f, "\"%s\"", text);
}

static void put_sockaddr(FILE *f, const unsigned char *p, size_t len)
{
	sa_family_t family = 0;

	if (len >= sizeof(family))
		memcpy(&family, p, sizeof(family));
	if (family == AF_INET && len >= sizeof(struct sockaddr_in)) {
		struct sockaddr_in in;

		memcpy(&in, p, sizeof(in));
		put_addr(f, AF_INET, &in.sin_addr, ntohs(in.sin_port));
	} else if (family == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
		struct sockaddr_in6 in6;

		memcpy(&in6, p, sizeof(in6));
		put_addr(f, AF_INET6, &in6.sin6_addr, ntohs(in6.sin6_port));
	} else if (family == AF_UNIX) {
		size_t n = len - offsetof(struct sockaddr_un, sun_path);

		fputs("\"unix:", f);
		for (size_t i = 0; i < n && p[offsetof(struct sockaddr_un, sun_path) + i]; i++)
			fputc(p[offsetof(struct sockaddr_un, sun_path) + i], f);
		fputc('"', f);
	} else {
		fputs("\"0.0.0.0:0\"", f);
	}
}

/* The outputs of entry r, and its program's name, stay within it (the
 * log is in memory the programs could write anything into). */
static int entry_ok(const struct ms_rec *r)
{
	const char *p = (const char *)(r + 1), *end = (const char *)r + r->size;

	if (!memchr(r->exe, '\0', sizeof(r->exe)))
		return 0;
	for (unsigned k = 0; k < r->nouts; k++) {
		const struct ms_rec_out *o = (const struct ms_rec_out *)p;

		if ((size_t)(end - p) < sizeof(*o) || o->len > (size_t)(end - p) - sizeof(*o) ||
		    ms_rec_pad(o->len) > (size_t)(end - p) - sizeof(*o))
			return 0;
		p = (const char *)ms_rec_next(o);
	}
	return 1;
}

static int by_seq(const void *a, const void *b)
{
	const struct ms_rec *x = *(const struct ms_rec *const *)a, *y = *(const struct ms_rec *const *)b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void put_value(FILE *f, const struct ms_fn_meta *m, const struct ms_rec *r, int failed,
		      const struct ms_rec_out *retstr)
{
	const char *name = NULL;

	if (m->ret.tclass == MS_T_VOID || (m->ret.tclass == MS_T_STR && m->rd_kind == MS_RD_PARAM &&
					   r->ret)) {
		fputc('_', f);
		return;
	}
	if (m->ret.tclass == MS_T_STR) {
		if (retstr)
			put_bytes(f, (const unsigned char *)(retstr + 1), retstr->len);
		else
			fputs("NULL", f);
		return;
	}
	if (failed && m->fail_kind == MS_FK_RC)
		name = strcmp(m->name, "getaddrinfo") == 0 || strcmp(m->name, "getnameinfo") == 0
			       ? ms_eai_name((int)r->ret)
			       : ms_errno_name((int)r->ret);
	if (name)
		fputs(name, f);
	else if (m->ret.tclass == MS_T_UINT)
		fprintf(f, "%llu", (unsigned long long)(m->ret.size == 4 ? (uint32_t)r->ret
									  : (uint64_t)r->ret));
	else
		fprintf(f, "%lld", (long long)(m->ret.size == 4 ? (int32_t)r->ret : r->ret));
}

static void put_out(FILE *f, const struct ms_fn_meta *m, const struct ms_rec_out *o)
{
	const unsigned char *p = (const unsigned char *)(o + 1);
	const char *pname = o->param < m->nparams ? m->params[o->param].name : "?";

	switch (o->kind) {
	case MS_REC_BYTES:
		fprintf(f, ", %s=", pname);
		put_bytes(f, p, o->len);
		break;
	case MS_REC_STORE: {
		const struct ms_out_desc *d = NULL;

		for (unsigned i = 0; i < m->nouts; i++)
			if (m->outs[i].param == o->param)
				d = &m->outs[i];
		if (d && d->kind == MS_OK_STRUCT && ms_struct_find(d->strct)) {
			fprintf(f, ", *%s=", pname);
			put_struct(f, ms_struct_find(d->strct), p, o->len);
		} else {
			fprintf(f, ", *%s=%lld", pname, (long long)int_at(p, o->len, 1));
		}
		break;
	}
	case MS_REC_ADDRINFO:
		fprintf(f, ", *%s={", pname);
		for (uint32_t k = 0; k < o->len / sizeof(struct ms_addr); k++) {
			struct ms_addr a;

			memcpy(&a, p + k * sizeof(a), sizeof(a));
			fputs(k ? ", " : "", f);
			put_addr(f, a.family, a.addr, a.port);
		}
		fputc('}', f);
		break;
	case MS_REC_SOCKADDR:
		fprintf(f, ", *%s=", pname);
		put_sockaddr(f, p, o->len);
		break;
	case MS_REC_REVENTS:
		fprintf(f, ", *%s={", pname);
		for (uint32_t k = 0; k < o->len / 2; k++) {
			int16_t ev;

			memcpy(&ev, p + 2 * k, 2);
			fprintf(f, "%s%d", k ? ", " : "", ev);
		}
		fputc('}', f);
		break;
	default:
		break;
	}
}

int mockshim_session_write_record(struct mockshim_session *s, FILE *f)
{
	s->error[0] = '\0';
	if (!s->ran || !s->view.spec || !s->view.state || !s->view.spec->rec_cap) {
		snprintf(s->error, sizeof(s->error), "no recorded run (set_record, then run)\n");
		return -EINVAL;
	}
	return ms_record_write(s->view.spec, s->view.state, s->program, f);
}

/*
 * A replay likely to stall: a non-blocking connect() recorded (-1,
 * EINPROGRESS) while what the program then waits with (poll, select,
 * epoll_wait) and asks the result by (getsockopt SO_ERROR) went
 * unrecorded.  Replayed, the connect "is in progress" on a socket that
 * never connects: the wait runs real and waits for it.  Said in the file
 * and on stderr.
 */
static void stall_warning(const struct ms_chan_hdr *h, const struct ms_rec *const *recs, size_t n,
			  FILE *f)
{
	const struct ms_chan_fn *fns = (const struct ms_chan_fn *)((const char *)h + h->fns_off);
	int pending = 0, waits, asks;
	const char *missing;

	for (size_t i = 0; i < n && !pending; i++)
		pending = recs[i]->fn == MS_ID_connect && recs[i]->ret < 0 && recs[i]->err == EINPROGRESS;
	if (!pending)
		return;
	waits = (fns[MS_ID_poll].flags | fns[MS_ID_ppoll].flags | fns[MS_ID_select].flags |
		 fns[MS_ID_epoll_wait].flags) & MS_FF_RECORD;
	asks = fns[MS_ID_getsockopt].flags & MS_FF_RECORD;
	if (waits && asks)
		return;
	missing = !waits && !asks ? "a wait (poll, ppoll, select, epoll_wait) nor getsockopt"
		  : !waits	  ? "a wait (poll, ppoll, select, epoll_wait)"
				  : "getsockopt";
	fprintf(f, "# warning: a non-blocking connect() was recorded (EINPROGRESS) but not %s: "
		   "the replay may wait forever on a socket that never connects; record them too "
		   "(--record-fns @net)\n",
		missing);
	fprintf(stderr, "mockrun: warning: --record: a non-blocking connect() was recorded "
			"(EINPROGRESS) but not %s: the replay may wait forever on a socket that never "
			"connects; record them too (--record-fns @net)\n",
		missing);
}

int ms_record_write(const struct ms_chan_hdr *h, const struct ms_state_hdr *st, const char *program,
		    FILE *f)
{
	const char *log;
	uint64_t used;
	const struct ms_rec **recs = NULL;
	size_t n = 0, cap = 0, incomplete = 0;

	if (!h->rec_cap)
		return -EINVAL;
	/* the audited copy of the state: the programs can no longer change it */
	log = ms_state_at(st, h->st_rec_off);
	used = st->rec_next < h->rec_cap ? st->rec_next : h->rec_cap;

	for (uint64_t off = 0; off + sizeof(struct ms_rec) <= used;) {
		const struct ms_rec *r = (const struct ms_rec *)(log + off);

		if (r->size < sizeof(*r) || r->size % 8 || r->size > used - off)
			break; /* claimed but never written: the program died in the call */
		if (__atomic_load_n(&r->state, __ATOMIC_ACQUIRE) != 1 || r->fn >= MS_FN_COUNT ||
		    !entry_ok(r)) {
			incomplete++;
		} else {
			if (n == cap) {
				const struct ms_rec **q = realloc(recs, (cap = cap ? 2 * cap : 256) * sizeof(*q));

				if (!q) {
					free(recs);
					return -ENOMEM;
				}
				recs = q;
			}
			recs[n++] = r;
		}
		off += r->size;
	}
	if (n)
		qsort(recs, n, sizeof(*recs), by_seq);
	fprintf(f, "# recorded by mockrun --record: %zu calls of %s; replay with mockrun -f FILE\n",
		n, program ? program : "the program");
	if (st->rec_dropped || incomplete)
		fprintf(f, "# %u calls not recorded (the log holds %llu MiB), %zu incomplete\n",
			st->rec_dropped, (unsigned long long)(h->rec_cap >> 20), incomplete);
	for (size_t i = 0; i < n; i++) {
		const struct ms_rec *r = recs[i];
		const struct ms_fn_meta *m = ms_catalog_get(r->fn);
		const struct ms_rec_out *o = (const struct ms_rec_out *)(r + 1), *retstr = NULL;
		const char *exe = r->exe[0] ? r->exe : NULL;
		int failed = ms_call_failed(m, r->ret);

		for (unsigned k = 0; k < r->nouts; k++, o = ms_rec_next(o))
			if (o->kind == MS_REC_RETSTR)
				retstr = o;
		if (m->rd_kind == MS_RD_BYTES && !failed && r->ret >= (int64_t)MS_REC_MAX_BYTES)
			fprintf(f, "# %s() gave %lld bytes, more than a spec holds: replayed short\n",
				m->name, (long long)r->ret);
		fprintf(f, "will_return(%s, ", m->name);
		put_value(f, m, r, failed, retstr);
		o = (const struct ms_rec_out *)(r + 1);
		for (unsigned k = 0; k < r->nouts; k++, o = ms_rec_next(o))
			put_out(f, m, o);
		if (failed && m->fail_kind == MS_FK_ERRNO && r->err) {
			const char *e = ms_errno_name(r->err);

			e ? fprintf(f, ", errno=%s", e) : fprintf(f, ", errno=%d", r->err);
		}
		if (exe && !strpbrk(exe, "*?[\\\""))
			fprintf(f, ", in=\"%s\"", exe);
		fputs(")\n", f);
	}
	stall_warning(h, recs, n, f);
	free(recs);
	return ferror(f) ? -EIO : 0;
}
