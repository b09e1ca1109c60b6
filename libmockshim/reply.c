/* SPDX-License-Identifier: MIT */
/*
 * What a reply gives besides its value (decide.h's hooks): the outputs
 * only this process can build (a struct passwd or group in static
 * storage, a hostent, an addrinfo list, strings copied with the
 * program's own malloc), and --on-fail=abort.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <netdb.h>
#include <pwd.h>
#include <sys/socket.h>

#include "channel/channel.h"
#include "decide/decide.h"
#include "shim.h"

/*
 * The program's malloc, for copies the program frees (strdup, a declared
 * char **): the first definition but the shim's own (whose trampoline
 * would take turns of malloc rules), which a sanitizer runtime in the
 * executable or an allocator preloaded before the shim provides, else
 * libc's.  Looked up at the first copy; one word, which a signal
 * handler cannot see half-written.
 */
static void *(*prog_malloc)(size_t);

static void *copy_alloc(size_t n)
{
	void *(*f)(size_t) = __atomic_load_n(&prog_malloc, __ATOMIC_ACQUIRE);

	if (ms_unlikely(!f)) {
		void *p = ms_find_symbol("malloc", 0);

		if (p)
			memcpy(&f, &p, sizeof(f));
		else
			f = ms_real.malloc.fn;
		__atomic_store_n(&prog_malloc, f, __ATOMIC_RELEASE);
	}
	return f(n);
}

/* getpwuid/getpwnam's result: static storage, as glibc's own (the strings
 * stay in the channel, which lives as long as the process). */
static struct passwd *passwd_of(const struct ms_rule *r)
{
	static struct passwd pw;
	struct ms_passwd_rec rec;

	memcpy(&rec, ms_d.pool + r->value_str, sizeof(rec));
	pw.pw_name = (char *)ms_d.pool + rec.name;
	pw.pw_passwd = (char *)ms_d.pool + rec.passwd;
	pw.pw_gecos = (char *)ms_d.pool + rec.gecos;
	pw.pw_dir = (char *)ms_d.pool + rec.dir;
	pw.pw_shell = (char *)ms_d.pool + rec.shell;
	pw.pw_uid = rec.uid;
	pw.pw_gid = rec.gid;
	return &pw;
}

/* getpw*_r: the passwd record at pool offset off into *pw, its strings
 * copied into buf; 0 if they do not fit in buflen bytes (ERANGE). */
static int fill_passwd(uint32_t off, struct passwd *pw, char *buf, uint64_t buflen)
{
	struct ms_passwd_rec rec;
	const uint32_t *strs[] = { &rec.name, &rec.passwd, &rec.gecos, &rec.dir, &rec.shell };
	char **dst[] = { &pw->pw_name, &pw->pw_passwd, &pw->pw_gecos, &pw->pw_dir,
			 &pw->pw_shell };
	size_t len[5];
	uint64_t need = 0, at = 0;

	memcpy(&rec, ms_d.pool + off, sizeof(rec));
	for (unsigned i = 0; i < 5; i++)
		need += len[i] = ms_slen(ms_d.pool + *strs[i]) + 1;
	if (!buf || need > buflen)
		return 0;
	for (unsigned i = 0; i < 5; i++) {
		memcpy(buf + at, ms_d.pool + *strs[i], len[i]);
		*dst[i] = buf + at;
		at += len[i];
	}
	pw->pw_uid = rec.uid;
	pw->pw_gid = rec.gid;
	return 1;
}

/* A struct group from the rule's record: static storage, as glibc's; the
 * members are split out of a copy of the comma separated list. */
static struct group *group_of(const struct ms_rule *r)
{
	static struct group gr;
	static char names[4096];
	static char *mem[64];
	struct ms_group_rec rec;
	size_t n, k = 0;

	memcpy(&rec, ms_d.pool + r->value_str, sizeof(rec));
	gr.gr_name = (char *)ms_d.pool + rec.name;
	gr.gr_passwd = (char *)ms_d.pool + rec.passwd;
	gr.gr_gid = rec.gid;
	n = ms_slen(ms_d.pool + rec.mem);
	if (n >= sizeof(names))
		n = sizeof(names) - 1;
	memcpy(names, ms_d.pool + rec.mem, n);
	names[n] = '\0';
	for (char *p = names; n && k < sizeof(mem) / sizeof(mem[0]) - 1;) {
		mem[k++] = p;
		while (*p && *p != ',')
			p++;
		if (!*p)
			break;
		*p++ = '\0';
	}
	mem[k] = NULL;
	gr.gr_mem = mem;
	return &gr;
}

/* gethostbyname*'s result from the rule's addresses: static storage, as
 * glibc's; h_name is the name asked for, the addresses those of the
 * first one's family. */
static struct hostent *hostent_of(const struct ms_rule *r, const uint64_t *a)
{
	static struct hostent he;
	static char name[256];
	static char *aliases[1];
	static char *list[65];
	static unsigned char addrs[64][16];
	size_t n = ms_read_user(name, (const void *)(uintptr_t)a[0], sizeof(name) - 1), k = 0;
	struct ms_addr ad;
	uint16_t family = 0;

	name[n < sizeof(name) ? n : sizeof(name) - 1] = '\0';
	name[sizeof(name) - 1] = '\0';
	for (uint64_t i = 0; i < (uint64_t)r->value && i < 64; i++) {
		memcpy(&ad, ms_d.pool + r->value_str + i * sizeof(ad), sizeof(ad));
		if (!family)
			family = ad.family;
		if (ad.family != family)
			continue;
		memcpy(addrs[k], ad.addr, sizeof(addrs[k]));
		list[k] = (char *)addrs[k];
		k++;
	}
	list[k] = NULL;
	aliases[0] = NULL;
	he.h_name = name;
	he.h_aliases = aliases;
	he.h_addrtype = family;
	he.h_length = family == AF_INET6 ? 16 : 4;
	he.h_addr_list = list;
	return &he;
}

int ms_hook_hold_gone(void)
{
	return 0;
}

int ms_hook_hold_defer(uint32_t ri, uint32_t t, uint32_t call)
{
	(void)ri, (void)t, (void)call;
	return 0;
}

void ms_hook_abort(void)
{
	ms_diag("a check failed: aborting (--on-fail=abort)", NULL);
	abort();
}

int ms_hook_out(unsigned id, uint32_t ri, const struct ms_rule *r, const struct ms_out *o,
		const uint64_t *a, uint32_t call, const void *caller)
{
	void *p = (void *)(uintptr_t)a[o->param];
	int rc = 0;

	switch (o->kind) {
	case MS_O_PASSWD_R: {
		/* the row's layout (validated): pwd, buf, buflen, result */
		struct passwd **res = (struct passwd **)(uintptr_t)a[o->param + 3];

		if (!res || (o->data && !p)) {
			ms_output_null(id, ri, call, caller, res ? o->param : o->param + 3);
			break;
		}
		*res = NULL;
		if (!o->data)
			break;
		if (fill_passwd(o->data, p, (char *)(uintptr_t)a[o->param + 1], a[o->param + 2]))
			*res = p;
		else
			rc = ERANGE;
		break;
	}
	case MS_O_STRDUP:
	case MS_O_POOLPTR: {
		/* a declared char ** (the caller frees a copy from its
		 * own malloc: copy_alloc), const char **, or a string
		 * field of a declared struct (at byte len) */
		const char *str = ms_d.pool + o->data;
		char *c = (char *)str;

		if (!p) {
			ms_output_null(id, ri, call, caller, o->param);
			break;
		}
		if (o->kind == MS_O_STRDUP) {
			size_t len = ms_slen(str) + 1;

			c = copy_alloc(len);
			if (c)
				memcpy(c, str, len);
		}
		memcpy((char *)p + o->len, &c, sizeof(c));
		break;
	}
	case MS_O_ADDRINFO:
		if (!p) {
			ms_output_null(id, ri, call, caller, o->param);
			break;
		}
		/* only getaddrinfo's row has this output (validated) */
		rc = ms_build_addrinfo(ms_d.pool + o->data, o->len, (const char *)(uintptr_t)a[0],
				       (const char *)(uintptr_t)a[1],
				       (const struct addrinfo *)(uintptr_t)a[2], p);
		break;
	case MS_O_FERROR:
		/* glibc's FILE starts with int _flags; _IO_ERR_SEEN is 0x20:
		 * ferror() must see the failure, as after a real one. */
		if (p && r->kind == MS_R_FAIL)
			*(int *)p |= 0x20;
		break;
	default:
		break;
	}
	return rc;
}

int64_t ms_hook_value(const struct ms_rule *r, const uint64_t *a, int64_t v)
{
	if (r->flags & MS_RF_STRVAL)
		v = (int64_t)(uintptr_t)(ms_d.pool + r->value_str);
	if (r->flags & MS_RF_OWNED) {
		/* strdup's caller frees what it gets: a copy from its own
		 * malloc (copy_alloc; strdup is not async-signal-safe either) */
		size_t n = ms_slen(ms_d.pool + r->value_str) + 1;
		char *c = copy_alloc(n);

		if (c)
			memcpy(c, ms_d.pool + r->value_str, n);
		v = (int64_t)(uintptr_t)c;
	}
	if (r->flags & MS_RF_PASSWD)
		v = (int64_t)(uintptr_t)passwd_of(r);
	if (r->flags & MS_RF_GROUP)
		v = (int64_t)(uintptr_t)group_of(r);
	if (r->flags & MS_RF_HOSTENT)
		v = (int64_t)(uintptr_t)hostent_of(r, a);
	return v;
}
