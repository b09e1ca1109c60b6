/* SPDX-License-Identifier: MIT */
/*
 * The compiler's outputs (compile_out.h): PARAM=VALUE and *PARAM=VALUE of a
 * reply, the struct literals, addresses and records they hold, and the
 * arguments will_call_real gives the real call instead.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "compile_out.h"
#include "declare.h"
#include "catalog/catalog.h"

/* A string field of a declared struct: a pointer the shim sets at reply
 * time (the pool's address differs in every process). */
struct str_fix {
	uint16_t off;
	uint32_t str;
};

static int encode_struct(struct ms_parser *ps, const struct ms_val *v, const struct ms_struct_desc *sd,
			 char *bytes, struct str_fix *fix, unsigned *nfix)
{
	int seen[MAX_FIELDS * 2] = { 0 };
	unsigned pos = 0;

	memset(bytes, 0, sd->size);
	for (unsigned i = 0; i < v->nfields; i++) {
		const struct ms_field *f = &v->fields[i];
		const struct ms_field_desc *fd = NULL;
		unsigned idx;

		if (f->name) {
			for (idx = 0; idx < sd->nfields; idx++)
				if (strlen(sd->fields[idx].name) == f->name_n &&
				    memcmp(sd->fields[idx].name, f->name, f->name_n) == 0)
					break;
			if (idx == sd->nfields) {
				char list[200];
				size_t n = 0;

				for (unsigned k = 0; k < sd->nfields; k++)
					n += (size_t)snprintf(list + n, n < sizeof(list) ? sizeof(list) - n : 0,
							      "%s%s", k ? ", " : "", sd->fields[k].name);
				return ms_fail_at(&ps->lx, f->line, f->col,
						  "struct %s has no field '%.*s' (fields: %s)", sd->name,
						  (int)f->name_n, f->name, list);
			}
			pos = idx + 1;
		} else {
			idx = pos++;
			if (idx >= sd->nfields)
				return ms_fail_at(&ps->lx, f->v->line, f->v->col,
						  "too many values for struct %s (%u fields)", sd->name,
						  sd->nfields);
		}
		fd = &sd->fields[idx];
		if (seen[idx])
			return ms_fail_at(&ps->lx, f->v->line, f->v->col, "field %s given twice", fd->name);
		seen[idx] = 1;
		if (fd->kind == MS_FD_NESTED && f->v->kind == V_STRUCT) {
			/* its own fields, at its offset; no string fields inside */
			unsigned none = 0;

			if (encode_struct(ps, f->v, fd->sub, bytes + fd->off, NULL, &none))
				return -1;
		} else if (fd->kind == MS_FD_NESTED && f->v->kind != V_INT) {
			return ms_fail_at(&ps->lx, f->v->line, f->v->col,
					  "field %s needs a struct %s literal {...} or an integer, not %s",
					  fd->name, fd->sub->name, ms_val_kind_name(f->v->kind));
		} else if (fd->kind == MS_FD_NESTED) {
			/* an integer: the first field (the seconds of a time) */
			struct ms_val lit = { .kind = V_STRUCT, .nfields = 1, .line = f->v->line,
					   .col = f->v->col };
			unsigned none = 0;

			lit.fields[0].v = f->v;
			if (encode_struct(ps, &lit, fd->sub, bytes + fd->off, NULL, &none))
				return -1;
		} else if (fd->kind == MS_FD_STR && f->v->kind == V_STR) {
			fix[(*nfix)++] = (struct str_fix){ fd->off, f->v->str };
		} else if (fd->kind == MS_FD_STR || fd->kind == MS_FD_PTR) {
			if (f->v->kind != V_NULL && f->v->kind != V_INT)
				return ms_fail_at(&ps->lx, f->v->line, f->v->col, "field %s needs %s, not %s",
						  fd->name,
						  fd->kind == MS_FD_STR ? "a string or NULL"
								     : "NULL or an address",
						  ms_val_kind_name(f->v->kind));
			memcpy(bytes + fd->off, &f->v->i, 8);
			if (f->v->kind == V_NULL)
				memset(bytes + fd->off, 0, 8);
		} else if (fd->kind == MS_FD_DOUBLE) {
			double x;

			if (f->v->kind != V_DBL && f->v->kind != V_INT)
				return ms_fail_at(&ps->lx, f->v->line, f->v->col, "field %s needs a number, not %s",
						  fd->name, ms_val_kind_name(f->v->kind));
			x = f->v->kind == V_DBL ? f->v->d : (double)f->v->i;
			memcpy(bytes + fd->off, &x, 8);
		} else if (fd->kind == MS_FD_CHARS) {
			if (f->v->kind != V_STR)
				return ms_fail_at(&ps->lx, f->v->line, f->v->col, "field %s needs a string, not %s",
						  fd->name, ms_val_kind_name(f->v->kind));
			if (f->v->len >= fd->size)
				return ms_fail_at(&ps->lx, f->v->line, f->v->col,
						  "field %s holds at most %u bytes", fd->name,
						  (unsigned)fd->size - 1);
			memcpy(bytes + fd->off, ps->spec->pool + f->v->str, f->v->len);
		} else {
			int64_t x;

			if (f->v->kind != V_INT && f->v->kind != V_BOOL)
				return ms_fail_at(&ps->lx, f->v->line, f->v->col,
						  "field %s needs an integer, not %s", fd->name,
						  ms_val_kind_name(f->v->kind));
			x = f->v->i;
			if (x < fd->min || x > fd->max)
				return ms_fail_at(&ps->lx, f->v->line, f->v->col,
						  "field %s = %lld out of range", fd->name, (long long)x);
			if (fd->size == 4) {
				uint32_t y = (uint32_t)x;

				memcpy(bytes + fd->off, &y, 4);
			} else if (fd->size == 8) {
				memcpy(bytes + fd->off, &x, 8);
			} else if (fd->size == 2) {
				uint16_t y = (uint16_t)x;

				memcpy(bytes + fd->off, &y, 2);
			} else if (fd->size == 1) {
				bytes[fd->off] = (char)x;
			}
		}
	}
	return 0;
}

/* "10.1.2.3", "::1", "10.1.2.3:80", "[::1]:80" */
static int parse_addr(const char *s, struct ms_addr *out)
{
	char host[64];
	const char *colon = strrchr(s, ':'), *h = s;
	size_t n;
	long port = 0;

	memset(out, 0, sizeof(*out));
	if (*s == '[') {
		const char *close = strchr(s, ']');

		if (!close || (close[1] && close[1] != ':'))
			return -1;
		h = s + 1;
		n = (size_t)(close - h);
		colon = close[1] ? close + 1 : NULL;
	} else if (colon && strchr(s, ':') == colon) {
		n = (size_t)(colon - s); /* one colon: IPv4 with a port */
	} else {
		n = strlen(s);
		colon = NULL;
	}
	if (n >= sizeof(host))
		return -1;
	memcpy(host, h, n);
	host[n] = '\0';
	if (colon) {
		char *end;

		port = strtol(colon + 1, &end, 10);
		if (end == colon + 1 || *end || port < 0 || port > 65535)
			return -1;
	}
	out->port = (uint16_t)port;
	if (inet_pton(AF_INET, host, out->addr) == 1)
		out->family = AF_INET;
	else if (inet_pton(AF_INET6, host, out->addr) == 1)
		out->family = AF_INET6;
	else
		return -1;
	return 0;
}

/* "10.1.2.3:80", "[::1]:80" or "unix:/path": the struct sockaddr's bytes. */
static int encode_sockaddr(struct ms_parser *ps, const struct ms_val *v, struct ms_out *o)
{
	union {
		struct sockaddr_in in;
		struct sockaddr_in6 in6;
		struct sockaddr_un un;
	} sa;
	const char *s = v->kind == V_STR ? ps->spec->pool + v->str : NULL;
	struct ms_addr a;
	uint32_t len;

	memset(&sa, 0, sizeof(sa));
	if (s && strncmp(s, "unix:", 5) == 0) {
		size_t n = strlen(s + 5);

		if (n == 0 || n >= sizeof(sa.un.sun_path))
			return ms_fail_at(&ps->lx, v->line, v->col, "a unix socket path of 1 to %zu bytes",
					  sizeof(sa.un.sun_path) - 1);
		sa.un.sun_family = AF_UNIX;
		memcpy(sa.un.sun_path, s + 5, n);
		len = (uint32_t)(offsetof(struct sockaddr_un, sun_path) + n + 1);
	} else if (s && parse_addr(s, &a) == 0 && a.family == AF_INET) {
		sa.in.sin_family = AF_INET;
		sa.in.sin_port = htons(a.port);
		memcpy(&sa.in.sin_addr, a.addr, 4);
		len = sizeof(sa.in);
	} else if (s && parse_addr(s, &a) == 0) {
		sa.in6.sin6_family = AF_INET6;
		sa.in6.sin6_port = htons(a.port);
		memcpy(&sa.in6.sin6_addr, a.addr, 16);
		len = sizeof(sa.in6);
	} else {
		return ms_fail_at(&ps->lx, v->line, v->col,
				  "expected an address: \"127.0.0.1:8080\", \"[::1]:80\" or \"unix:/path\"");
	}
	o->kind = MS_O_SOCKADDR;
	o->len = len;
	return ms_pool_store(ps, &sa, len, &o->data);
}

int ms_encode_addrinfo(struct ms_parser *ps, const struct ms_val *v, struct ms_out *o)
{
	struct ms_addr addrs[MAX_FIELDS];

	if (v->kind != V_STRUCT || v->nfields == 0)
		return ms_fail_at(&ps->lx, v->line, v->col,
				  "an addrinfo result is a list of addresses: {\"10.1.2.3\", \"::1\"}");
	for (unsigned i = 0; i < v->nfields; i++) {
		const struct ms_field *f = &v->fields[i];

		if (f->name)
			return ms_fail_at(&ps->lx, f->line, f->col, "an address list has no field names");
		if (f->v->kind != V_STR ||
		    parse_addr(ps->spec->pool + f->v->str, &addrs[i]) != 0)
			return ms_fail_at(&ps->lx, f->v->line, f->v->col,
					  "expected an IPv4 or IPv6 address (\"10.1.2.3\", \"[::1]:80\")");
	}
	o->kind = MS_O_ADDRINFO;
	o->len = v->nfields * (uint32_t)sizeof(addrs[0]);
	o->data = ms_spec_str(ps->spec, (const char *)addrs, o->len);
	if (!o->data) {
		ps->lx.err = -ENOMEM;
		return -1;
	}
	return 0;
}

/*
 * The fields of a record literal, by name ({.pw_name = "alice"}) or by
 * position: each a string (its pool offset) or, where the bit of ids is
 * set, a uid/gid.  hints[k] (or NULL) says more of field k's strings.
 */
static int encode_fields(struct ms_parser *ps, const struct ms_val *v, const char *what,
			 const char *const *names, const char *const *hints, unsigned n,
			 uint32_t ids, uint32_t *words)
{
	unsigned pos = 0;

	for (unsigned i = 0; i < v->nfields; i++) {
		const struct ms_field *f = &v->fields[i];
		unsigned k = pos;

		if (f->name) {
			for (k = 0; k < n; k++)
				if (strlen(names[k]) == f->name_n && memcmp(names[k], f->name, f->name_n) == 0)
					break;
			if (k == n) {
				char list[160];
				size_t off = 0;

				for (unsigned x = 0; x < n; x++)
					off += (size_t)snprintf(list + off, off < sizeof(list) ? sizeof(list) - off : 0,
								"%s%s", x ? ", " : "", names[x]);
				return ms_fail_at(&ps->lx, f->line, f->col,
						  "struct %s has no field '%.*s' (fields: %s)", what,
						  (int)f->name_n, f->name, list);
			}
		} else if (k >= n) {
			return ms_fail_at(&ps->lx, f->v->line, f->v->col, "too many values for struct %s", what);
		}
		pos = k + 1;
		if (ids & (1u << k)) {
			if (f->v->kind != V_INT || f->v->i < 0 || f->v->i > UINT32_MAX)
				return ms_fail_at(&ps->lx, f->v->line, f->v->col, "%s needs a uid/gid", names[k]);
			words[k] = (uint32_t)f->v->i;
		} else if (f->v->kind != V_STR) {
			return ms_fail_at(&ps->lx, f->v->line, f->v->col, "%s needs a string%s, not %s", names[k],
					  hints && hints[k] ? hints[k] : "", ms_val_kind_name(f->v->kind));
		} else {
			words[k] = f->v->str;
		}
	}
	return 0;
}

/* {.pw_name = "alice", .pw_uid = 1000, ...}: a struct passwd to return. */
int ms_encode_passwd(struct ms_parser *ps, const struct ms_val *v, uint32_t *off)
{
	static const char *const names[] = { "pw_name", "pw_passwd", "pw_uid", "pw_gid",
					     "pw_gecos", "pw_dir", "pw_shell" };
	uint32_t w[7] = { 0 };
	struct ms_passwd_rec rec;

	if (encode_fields(ps, v, "passwd", names, NULL, 7, 1u << 2 | 1u << 3, w))
		return -1;
	rec = (struct ms_passwd_rec){ w[0], w[1], w[4], w[5], w[6], w[2], w[3] };
	return ms_pool_store(ps, &rec, sizeof(rec), off);
}

/* {.gr_name = "staff", .gr_gid = 50, .gr_mem = "alice,bob"}: a struct group. */
int ms_encode_group(struct ms_parser *ps, const struct ms_val *v, uint32_t *off)
{
	static const char *const names[] = { "gr_name", "gr_passwd", "gr_gid", "gr_mem" };
	static const char *const hints[] = { NULL, NULL, NULL,
					     " of members, comma separated (\"alice,bob\")" };
	uint32_t w[4] = { 0 };
	struct ms_group_rec rec;

	if (encode_fields(ps, v, "group", names, hints, 4, 1u << 2, w))
		return -1;
	rec = (struct ms_group_rec){ w[0], w[1], w[2], w[3] };
	return ms_pool_store(ps, &rec, sizeof(rec), off);
}

/* *PARAM={...} and friends: a struct the pointer points to, written by
 * the reply.  0: *o is the output to add; 1: added (with the pointers
 * of its string fields); -1: an error. */
static int output_struct(struct ms_parser *ps, struct ms_compiling *c, const struct ms_arg *a, int pi,
			 const struct ms_out_desc *od, struct ms_out *o)
{
	const struct ms_fn_meta *m = c->m;
	const struct ms_struct_desc *sd = ms_spec_struct_find(ps->spec, od->strct);
	char bytes[1024];
	struct str_fix fix[MAX_FIELDS];
	unsigned nfix = 0;

	if (strcmp(od->strct, "addrinfo") == 0) {
		if (!a->deref)
			return ms_fail_at(&ps->lx, a->line, a->col,
					  "write *%s={\"10.1.2.3\", \"::1\"}", m->params[pi].name);
		if (ms_encode_addrinfo(ps, &a->v, o))
			return -1;
		return 0;
	}
	if (strcmp(od->strct, "revents") == 0) {
		int16_t ev[MAX_FIELDS];

		if (!a->deref || a->v.kind != V_STRUCT || a->v.nfields == 0)
			return ms_fail_at(&ps->lx, a->line, a->col,
					  "write *%s={POLLIN, 0, ...}: the revents of each entry",
					  m->params[pi].name);
		for (unsigned k = 0; k < a->v.nfields; k++) {
			const struct ms_field *f = &a->v.fields[k];

			if (f->name || f->v->kind != V_INT || f->v->i < 0 || f->v->i > 0x7fff)
				return ms_fail_at(&ps->lx, f->v->line, f->v->col,
						  "revents are POLL* flags joined with '|', or 0");
			ev[k] = (int16_t)f->v->i;
		}
		o->kind = MS_O_REVENTS;
		o->cap1 = (uint8_t)(pi + 1); /* nfds */
		o->len = a->v.nfields * (uint32_t)sizeof(ev[0]);
		if (ms_pool_store(ps, ev, o->len, &o->data))
			return -1;
		c->have_bytes = 1;
		return 0;
	}
	if (strcmp(od->strct, "sockaddr") == 0) {
		if (!a->deref)
			return ms_fail_at(&ps->lx, a->line, a->col, "write *%s=\"127.0.0.1:8080\"",
					  m->params[pi].name);
		if (encode_sockaddr(ps, &a->v, o))
			return -1;
		o->cap1 = (uint8_t)(pi + 1); /* the socklen_t * after it */
		return 0;
	}
	if (strcmp(od->strct, "passwd_r") == 0) {
		if (!a->deref || a->v.kind != V_STRUCT)
			return ms_fail_at(&ps->lx, a->line, a->col,
					  "write *%s={.pw_name = \"...\", .pw_uid = N, ...}",
					  m->params[pi].name);
		if (ms_encode_passwd(ps, &a->v, &o->data))
			return -1;
		o->kind = MS_O_PASSWD_R;
		o->len = sizeof(struct ms_passwd_rec);
		return 0;
	}
	if (!a->deref)
		return ms_fail_at(&ps->lx, a->line, a->col,
				  "'%s' points to a struct %s: write *%s={...}",
				  m->params[pi].name, od->strct, m->params[pi].name);
	if (!sd && m->declared)
		return ms_fail_at(&ps->lx, a->line, a->col,
				  "struct %s is not declared: add struct %s { TYPE FIELD; ... } "
				  "before this statement",
				  od->strct, od->strct);
	if (!sd || sd->size > sizeof(bytes))
		return ms_fail_at(&ps->lx, a->line, a->col, "struct %s literals are not supported",
				  od->strct);
	if (a->v.kind != V_STRUCT)
		return ms_fail_at(&ps->lx, a->v.line, a->v.col,
				  "'*%s' needs a struct %s literal {...}, not %s",
				  m->params[pi].name, od->strct, ms_val_kind_name(a->v.kind));
	if (encode_struct(ps, &a->v, sd, bytes, fix, &nfix))
		return -1;
	o->kind = MS_O_STORE;
	o->len = sd->size;
	if (ms_pool_store(ps, bytes, sd->size, &o->data) || ms_add_out(ps, o))
		return -1;
	/* then its string fields, which point into the pool */
	for (unsigned k = 0; k < nfix; k++) {
		o->kind = MS_O_POOLPTR;
		o->len = fix[k].off;
		o->data = fix[k].str;
		if (ms_add_out(ps, o))
			return -1;
	}
	return 1;
}

int ms_compile_output(struct ms_parser *ps, struct ms_compiling *c, const struct ms_arg *a)
{
	const struct ms_fn_meta *m = c->m;
	uint8_t *given = c->given;
	int pi = ms_catalog_param(m, a->key, a->key_n);
	const struct ms_out_desc *od;
	struct ms_out o;

	memset(&o, 0, sizeof(o));
	if (pi < 0) {
		char list[200];

		ms_param_list(m, list, sizeof(list));
		return ms_fail_at(&ps->lx, a->line, a->col,
				  "%s() has no parameter '%.*s' (parameters: %s; options: errno, in, from, delay)",
				  m->name, (int)a->key_n, a->key, list);
	}
	od = ms_find_out(m, pi);
	if (!od)
		return ms_fail_at(&ps->lx, a->line, a->col, "'%s' is not an output parameter of %s()",
				  m->params[pi].name, m->name);
	if (given[pi])
		return ms_fail_at(&ps->lx, a->line, a->col, "output '%s' given twice", m->params[pi].name);
	given[pi] = 1;
	o.param = (uint8_t)pi;
	o.cap1 = od->cap1;
	o.cap2 = od->cap2;
	switch (od->kind) {
	case MS_OK_BYTES:
	case MS_OK_STR:
		if (a->deref)
			return ms_fail_at(&ps->lx, a->line, a->col,
					  "'%s' is a buffer: write %s=\"...\" without '*'",
					  m->params[pi].name, m->params[pi].name);
		if (a->v.kind != V_STR)
			return ms_fail_at(&ps->lx, a->v.line, a->v.col, "'%s' needs a string, not %s",
					  m->params[pi].name, ms_val_kind_name(a->v.kind));
		o.kind = od->kind == MS_OK_STR ? MS_O_STR : MS_O_BYTES;
		o.data = a->v.str;
		o.len = a->v.len;
		c->have_bytes = 1;
		break;
	case MS_OK_STRUCT: {
		int r = output_struct(ps, c, a, pi, od, &o);

		if (r)
			return r < 0 ? -1 : 0;
		break;
	}
	case MS_OK_STRPTR:
		if (!a->deref)
			return ms_fail_at(&ps->lx, a->line, a->col, "write *%s=\"...\" (or NULL)",
					  m->params[pi].name);
		if (a->v.kind == V_STR) {
			/* char **: the caller owns a copy; const char **: ours */
			o.kind = od->owned ? MS_O_STRDUP : MS_O_POOLPTR;
			o.data = a->v.str;
			o.len = 0;
		} else if (a->v.kind == V_NULL) {
			uint64_t zero = 0;

			o.kind = MS_O_STORE;
			o.len = 8;
			if (ms_pool_store(ps, &zero, 8, &o.data))
				return -1;
		} else {
			return ms_fail_at(&ps->lx, a->v.line, a->v.col, "'*%s' needs a string or NULL, not %s",
					  m->params[pi].name, ms_val_kind_name(a->v.kind));
		}
		break;
	case MS_OK_SCALAR: {
		int64_t x = a->v.i;

		if (!a->deref)
			return ms_fail_at(&ps->lx, a->line, a->col, "write *%s=VALUE", m->params[pi].name);
		if (od->dbl && (a->v.kind == V_DBL || a->v.kind == V_INT)) {
			double d = a->v.kind == V_DBL ? a->v.d : (double)a->v.i;

			memcpy(&x, &d, 8);
		} else if (m->declared && a->v.kind == V_NULL && od->size == 8) {
			x = 0; /* a pointer */
		} else if (a->v.kind != V_INT && a->v.kind != V_BOOL) {
			return ms_fail_at(&ps->lx, a->v.line, a->v.col, "'*%s' needs %s, not %s",
					  m->params[pi].name, od->dbl ? "a number" : "an integer",
					  ms_val_kind_name(a->v.kind));
		} else if (m->declared && od->size < 8) {
			struct ms_type t = { .tclass = MS_T_UINT, .size = od->size };

			snprintf(t.text, sizeof(t.text), "a %u-byte integer", (unsigned)od->size);
			if (ms_check_int_range(ps, &a->v, &t, "value"))
				return -1;
		}
		o.kind = MS_O_STORE;
		o.len = od->size;
		o.data = ms_spec_str(ps->spec, (const char *)&x, od->size); /* little endian */
		if (!o.data) {
			ps->lx.err = -ENOMEM;
			return -1;
		}
		break;
	}
	default:
		return ms_fail_at(&ps->lx, a->line, a->col, "catalog error: bad output for %s()", m->name);
	}
	return ms_add_out(ps, &o);
}

/*
 * will_call_real(FN, PARAM=VALUE): the real function gets VALUE for
 * PARAM.  A relative path is made absolute here, in the directory of the
 * driver (or of the program, in standalone mode), as the user meant it.
 */
int ms_compile_rewrite(struct ms_parser *ps, const struct ms_fn_meta *m, const struct ms_arg *a)
{
	const struct ms_param *p;
	struct ms_out o;
	char list[200];
	int pi;

	memset(&o, 0, sizeof(o));
	o.cap1 = o.cap2 = MS_NONE8;
	ms_param_list(m, list, sizeof(list));
	if (m->syscall)
		return ms_fail_at(&ps->lx, a->line, a->col,
				  "will_call_real cannot replace an argument of a system call: the "
				  "kernel runs it with the caller's own registers");
	if (a->deref || m->handler || m->declared)
		return ms_fail_at(&ps->lx, a->line, a->col,
				  m->handler || m->declared
				       ? "will_call_real replaces arguments of catalog functions only"
				       : "will_call_real replaces an argument (PARAM=VALUE), not what "
					 "it points to");
	pi = ms_catalog_param(m, a->key, a->key_n);
	if (pi < 0)
		return ms_fail_at(&ps->lx, a->line, a->col,
				  "%s() has no parameter '%.*s' (parameters: %s; options: errno, in, "
				  "from, delay)",
				  m->name, (int)a->key_n, a->key, list);
	p = &m->params[pi];
	if (ms_find_out(m, pi))
		return ms_fail_at(&ps->lx, a->line, a->col,
				  "'%s' is an output of %s(): the real call writes it, there is nothing "
				  "to replace",
				  p->name, m->name);
	o.param = (uint8_t)pi;
	if (ms_is_int_class(&p->type)) {
		if (a->v.kind != V_INT && a->v.kind != V_BOOL)
			return ms_fail_at(&ps->lx, a->v.line, a->v.col, "'%s' is %s: expected an integer, not %s",
					  p->name, p->type.text, ms_val_kind_name(a->v.kind));
		if (ms_check_int_range(ps, &a->v, &p->type, "value"))
			return -1;
		o.kind = MS_O_ARG_INT;
		o.len = 8;
		if (ms_pool_store(ps, &a->v.i, 8, &o.data))
			return -1;
	} else if (p->type.tclass == MS_T_STR) {
		const char *s;
		char path[4096];
		long n;

		/* the spec's string is read-only: a buffer the real call
		 * writes into (mktemp's template) cannot be it */
		if (strncmp(p->type.text, "const ", 6) != 0)
			return ms_fail_at(&ps->lx, a->line, a->col,
					  "'%s' is %s: %s() may write into it, so it cannot be replaced "
					  "by the spec's string",
					  p->name, p->type.text, m->name);
		o.kind = MS_O_ARG_STR;
		if (a->v.kind == V_NULL)
			return ms_add_out(ps, &o);
		if (a->v.kind != V_STR)
			return ms_fail_at(&ps->lx, a->v.line, a->v.col, "'%s' is a string: expected a string or "
					  "NULL, not %s", p->name, ms_val_kind_name(a->v.kind));
		s = ps->spec->pool + a->v.str;
		o.data = a->v.str;
		o.len = a->v.len;
		if (s[0] != '/' && strstr(p->name, "path") &&
		    (n = syscall(SYS_getcwd, path, sizeof(path))) > 0 &&
		    (size_t)n + 1 + a->v.len < sizeof(path)) {
			path[n - 1] = '/';
			memcpy(path + n, s, a->v.len + 1);
			o.data = ms_spec_str(ps->spec, path, (size_t)n + a->v.len);
			if (!o.data)
				return (ps->lx.err = -ENOMEM), -1;
			o.len = (uint32_t)n + a->v.len;
		}
	} else if (p->type.tclass == MS_T_PTR && strstr(p->type.text, "sockaddr") &&
		   pi + 1 < (int)m->nparams) {
		if (encode_sockaddr(ps, &a->v, &o))
			return -1;
		o.kind = MS_O_ARG_ADDR;
		o.param = (uint8_t)pi;
		o.cap1 = (uint8_t)(pi + 1);
	} else {
		return ms_fail_at(&ps->lx, a->line, a->col,
				  "%s() cannot have '%s' replaced: it is %s (integers, strings and "
				  "socket addresses can be)",
				  m->name, p->name, p->type.text);
	}
	return ms_add_out(ps, &o);
}

