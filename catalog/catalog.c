/* SPDX-License-Identifier: MIT */
/*
 * Catalog metadata: the rows of catalog.def as data, with their prototype
 * and output strings parsed into parameters and output descriptions.
 * No allocation: the rows are constant data; the table they are parsed
 * into is zeroed storage (bss), filled row by row on first use: a program
 * that preloads the shim pays no relocated, dirty pages for it (some 185
 * kB), and one that attaches a channel only those of the rows it arms.
 */
#include <errno.h>
#include <netdb.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>

#include "arch/arch.h"
#include "catalog.h"
#include "ctype.h"

#define MOCKSHIM_ERRNO(v, e) .fail_kind = MS_FK_ERRNO, .fail_value = (int64_t)(v), .fail_errno = (e)
#define MOCKSHIM_RC(e) .fail_kind = MS_FK_RC, .fail_value = (int64_t)(e)
#define MOCKSHIM_NEVER .fail_kind = MS_FK_NEVER

/*
 * The rows' strings and the aliases' names, one after the other in one
 * object, and the tables holding their offsets: no pointer, so nothing
 * for the loader to relocate in every process the shim is preloaded in
 * (five pointers a row were 2,685 of the shim's 4,569 relative
 * relocations; the symbol and alias names 751 of the 2,203 left).
 */
static const struct strtab {
#define MOCKSHIM_FN(ret, fn, proto_, args, group_, fail, outs_) \
	char fn##_name[sizeof(#fn)], fn##_ret[sizeof(#ret)], fn##_proto[sizeof(#proto_)], \
		fn##_group[sizeof(group_)], fn##_outs[sizeof(outs_)];
#define MOCKSHIM_FN_H MOCKSHIM_FN
#define MOCKSHIM_FN_V MOCKSHIM_FN
#define MOCKSHIM_ALIAS(canon, ret, name, ...) char name##_name[sizeof(#name)];
#define MOCKSHIM_ALIAS_H MOCKSHIM_ALIAS
#define MOCKSHIM_ALIAS_V MOCKSHIM_ALIAS
#include "mockshim/catalog.def"
#include "mockshim/catalog_end.h"
} strtab = {
#define MOCKSHIM_FN(ret, fn, proto_, args, group_, fail, outs_) #fn, #ret, #proto_, group_, outs_,
#define MOCKSHIM_FN_H MOCKSHIM_FN
#define MOCKSHIM_FN_V MOCKSHIM_FN
#define MOCKSHIM_ALIAS(canon, ret, name, ...) #name,
#define MOCKSHIM_ALIAS_H MOCKSHIM_ALIAS
#define MOCKSHIM_ALIAS_V MOCKSHIM_ALIAS
#include "mockshim/catalog.def"
#include "mockshim/catalog_end.h"
};

#define STR(off) ((const char *)&strtab + (off))

static const struct row {
	uint32_t name, ret_text, proto, group, outs_text;	/* STR() */
	uint8_t nparams, fail_kind;
	int fail_errno;
	int64_t fail_value;
} rows[MS_FN_COUNT] = {
#define MOCKSHIM_FN(ret, fn, proto_, args, group_, fail, outs_) \
	[MS_ID_##fn] = { .name = offsetof(struct strtab, fn##_name), \
			 .ret_text = offsetof(struct strtab, fn##_ret), \
			 .proto = offsetof(struct strtab, fn##_proto), \
			 .group = offsetof(struct strtab, fn##_group), \
			 .outs_text = offsetof(struct strtab, fn##_outs), \
			 .nparams = MS_NARGS_OF(args), fail },
#define MOCKSHIM_FN_H MOCKSHIM_FN
#define MOCKSHIM_FN_V MOCKSHIM_FN
#define MOCKSHIM_ALIAS(...)
#define MOCKSHIM_ALIAS_H(...)
#define MOCKSHIM_ALIAS_V(...)
#include "mockshim/catalog.def"
#include "mockshim/catalog_end.h"
};

struct ms_fn_meta ms_catalog_table[MS_FN_COUNT];

static const uint8_t nparams_table[MS_FN_COUNT] = {
#define MOCKSHIM_FN(ret, fn, proto, args, ...) [MS_ID_##fn] = MS_NARGS_OF(args),
#define MOCKSHIM_FN_H MOCKSHIM_FN
#define MOCKSHIM_FN_V MOCKSHIM_FN
#define MOCKSHIM_ALIAS(...)
#define MOCKSHIM_ALIAS_H(...)
#define MOCKSHIM_ALIAS_V(...)
#include "mockshim/catalog.def"
#include "mockshim/catalog_end.h"
};

unsigned ms_catalog_nparams(unsigned id)
{
	return id < MS_FN_COUNT ? nparams_table[id] : 0;
}

static const struct {
	uint32_t name;	/* STR() */
	int canon;
} aliases[] = {
#define MOCKSHIM_FN(...)
#define MOCKSHIM_FN_H(...)
#define MOCKSHIM_FN_V(...)
#define MOCKSHIM_ALIAS(canon, ret, name, ...) { offsetof(struct strtab, name##_name), MS_ID_##canon },
#define MOCKSHIM_ALIAS_H MOCKSHIM_ALIAS
#define MOCKSHIM_ALIAS_V MOCKSHIM_ALIAS
#include "mockshim/catalog.def"
#include "mockshim/catalog_end.h"
};

/* STR() of each symbol's name */
static const uint32_t sym_names[MS_SYM_COUNT] = {
#define MOCKSHIM_FN(ret, name, ...) offsetof(struct strtab, name##_name),
#define MOCKSHIM_FN_H MOCKSHIM_FN
#define MOCKSHIM_FN_V MOCKSHIM_FN
#define MOCKSHIM_ALIAS(canon, ret, name, ...) offsetof(struct strtab, name##_name),
#define MOCKSHIM_ALIAS_H MOCKSHIM_ALIAS
#define MOCKSHIM_ALIAS_V MOCKSHIM_ALIAS
#include "mockshim/catalog.def"
#include "mockshim/catalog_end.h"
};


static int is_ident(int c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9');
}

static void copy_trim(char *dst, size_t cap, const char *s, size_t n)
{
	while (n && (*s == ' ' || *s == '\t'))
		s++, n--;
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	if (n >= cap)
		n = cap - 1;
	memcpy(dst, s, n);
	dst[n] = '\0';
}

/* A type by the one parser (ctype.c); strict for the catalog's rows,
 * where catalog-check.c has refused an unknown type at build time
 * already.  -1: not a type the table knows. */
static int classify(struct ms_type *t, const char *s, size_t n, unsigned flags)
{
	struct ms_ctype ct;
	struct ms_ctype_err err = { NULL, 0, NULL };

	if (ms_ctype_parse(s, s + n, &ct, NULL, NULL, NULL, flags, &err))
		return -1;
	*t = ct.t;
	if (t->tclass == MS_T_VOID)
		t->size = 0;
	return 0;
}

/* A row's name without SYS_: a system call's parameters show as the
 * libc function's of that name do. */
static int fn_is(const char *name, const char *what)
{
	if (strncmp(name, "SYS_", 4) == 0)
		name += 4;
	return strcmp(name, what) == 0;
}

static int fn_starts(const char *name, const char *what)
{
	if (strncmp(name, "SYS_", 4) == 0)
		name += 4;
	return strncmp(name, what, strlen(what)) == 0;
}

/* How --trace shows parameter i of m (enum ms_show). */
static uint8_t show_of(const struct ms_fn_meta *m, unsigned i)
{
	const struct ms_param *p = &m->params[i];
	const char *fn = m->name ? m->name : "", *pn = p->name;
	int is_flags = strcmp(pn, "flags") == 0;

	if (p->type.tclass == MS_T_STR)
		return MS_SHOW_STR;
	if (p->type.tclass == MS_T_PTR) {
		if (strcmp(pn, "argv") == 0 && fn_starts(fn, "exec"))
			return MS_SHOW_ARGV;
		return strcmp(p->type.strct, "timespec") == 0 ? MS_SHOW_TIMESPEC
		       : strcmp(p->type.strct, "timeval") == 0 ? MS_SHOW_TIMEVAL
		       : strcmp(p->type.strct, "stat") == 0	  ? MS_SHOW_STAT
		       : strstr(p->type.text, "statx")		  ? MS_SHOW_STATX
								  : MS_SHOW_PTR;
	}
	if (is_flags || strcmp(pn, "flag") == 0) {
		static const char *const at[] = { "statx", "fstatat", "newfstatat", "faccessat",
						  "faccessat2", "unlinkat", "linkat", "fchownat" };

		for (size_t k = 0; k < sizeof(at) / sizeof(at[0]); k++)
			if (fn_is(fn, at[k]))
				return fn_is(fn, "unlinkat")	 ? MS_SHOW_AT_UNLINK
				       : fn_starts(fn, "faccessat") ? MS_SHOW_AT_ACCESS
								    : MS_SHOW_AT_FLAGS;
	}
	if (strcmp(pn, "mask") == 0 && fn_is(fn, "statx"))
		return MS_SHOW_STATX_MASK;
	if (is_flags && (fn_starts(fn, "send") || fn_starts(fn, "recv")))
		return MS_SHOW_MSG_FLAGS;
	if (strcmp(pn, "clockid") == 0 || strcmp(pn, "clk_id") == 0)
		return MS_SHOW_CLOCK;
	if ((fn_is(fn, "socket") || fn_is(fn, "socketpair")) &&
	    (strcmp(pn, "domain") == 0 || strcmp(pn, "type") == 0))
		return pn[0] == 'd' ? MS_SHOW_DOMAIN : MS_SHOW_SOCKTYPE;
	if (is_flags && (fn_is(fn, "open") || fn_is(fn, "openat")))
		return MS_SHOW_OFLAGS;
	if (strcmp(p->type.text, "mode_t") == 0)
		return i > 0 && strcmp(pn, "mode") == 0 && (fn_is(fn, "open") || fn_is(fn, "openat"))
			       ? MS_SHOW_OPEN_MODE : MS_SHOW_MODE;
	if (strcmp(pn, "dirfd") == 0 || strcmp(pn, "olddirfd") == 0 || strcmp(pn, "newdirfd") == 0)
		return MS_SHOW_DIRFD;
	if (p->type.size == 4)
		return p->type.tclass == MS_T_UINT ? MS_SHOW_UINT32 : MS_SHOW_INT32;
	return p->type.tclass == MS_T_UINT ? MS_SHOW_UINT : MS_SHOW_INT;
}

static void parse_proto(struct ms_fn_meta *m, unsigned flags)
{
	const char *p = m->proto + 1; /* skip '(' */
	const char *end = m->proto + strlen(m->proto) - 1; /* ')' */
	unsigned n = 0, bad = 0;

	while (p < end) {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		const char *e = comma ? comma : end;
		const char *name_end = e, *name;

		while (name_end > p && !is_ident(name_end[-1]))
			name_end--;
		name = name_end;
		while (name > p && is_ident(name[-1]))
			name--;
		if (n == 0 && e - p == 4 && memcmp(p, "void", 4) == 0)
			break;
		if (n < MS_MAX_PARAMS) {
			copy_trim(m->params[n].name, sizeof(m->params[n].name), name,
				  (size_t)(name_end - name));
			if (classify(&m->params[n].type, p, (size_t)(name - p), flags) ||
			    m->params[n].type.tclass == MS_T_VOID)
				bad = 1;
		}
		n++;
		p = comma ? comma + 1 : end;
	}
	if (m->nparams == MS_NPARAMS_COUNT) {
		m->nparams = n > MS_MAX_PARAMS ? 0xff : (uint8_t)n; /* a declared function */
	} else if (n != m->nparams) {
		/* A row whose (args) disagree with its prototype is a catalog
		 * bug; catalog-check.c stops the build on it. */
		m->nparams = 0xff;
	}
	if (bad)
		m->nparams = 0xff;
	for (unsigned i = 0; m->nparams != 0xff && i < m->nparams; i++)
		m->params[i].show = show_of(m, i);
	m->name_len = (uint8_t)(m->name ? strnlen(m->name, 255) : 0);
}

int ms_catalog_param(const struct ms_fn_meta *m, const char *name, size_t len)
{
	for (unsigned i = 0; i < m->nparams && i < MS_MAX_PARAMS; i++)
		if (strlen(m->params[i].name) == len && memcmp(m->params[i].name, name, len) == 0)
			return (int)i;
	return -1;
}

static int param_of(const struct ms_fn_meta *m, const char *s, size_t n)
{
	int i = ms_catalog_param(m, s, n);

	return i < 0 ? 0xff : i;
}

/* See the grammar in catalog.def.  A malformed item marks the row broken
 * (nouts = 0xff), which the catalog unit test reports. */
static void parse_outs(struct ms_fn_meta *m)
{
	const char *p = m->outs_text;

	while (*p) {
		const char *e, *q;
		struct ms_out_desc *o;

		while (*p == ' ')
			p++;
		if (!*p)
			break;
		for (e = p; *e && *e != ' '; e++)
			;
		if (strncmp(p, "ret:passwd", 10) == 0 && e - p == 10) {
			m->ret_passwd = 1;
			p = e;
			continue;
		}
		if (strncmp(p, "ret:group", 9) == 0 && e - p == 9) {
			m->ret_group = 1;
			p = e;
			continue;
		}
		if (strncmp(p, "ret:hostent", 11) == 0 && e - p == 11) {
			m->ret_hostent = 1;
			p = e;
			continue;
		}
		if (strncmp(p, "ret:owned", 9) == 0 && e - p == 9) {
			m->ret_owned = 1;
			p = e;
			continue;
		}
		if (strncmp(p, "ret=", 4) == 0) {
			q = p + 4;
			if (*q == '#') {
				m->rd_kind = MS_RD_BYTES;
				m->rd_div = 0xff;
				if (q[1] == '/')
					m->rd_div = (uint8_t)param_of(m, q + 2, (size_t)(e - q - 2));
			} else if (*q >= '0' && *q <= '9') {
				m->rd_kind = MS_RD_CONST;
				m->rd_const = *q - '0';
			} else {
				m->rd_kind = MS_RD_PARAM;
				m->rd_param = (uint8_t)param_of(m, q, (size_t)(e - q));
			}
			p = e;
			continue;
		}
		if (m->nouts >= MS_MAX_PARAMS)
			goto bad;
		o = &m->outs[m->nouts++];
		o->cap1 = o->cap2 = 0xff;
		if (strncmp(p, "ferror=", 7) == 0) {
			o->kind = MS_OK_FERROR;
			o->param = (uint8_t)param_of(m, p + 7, (size_t)(e - p - 7));
		} else if (*p == '*') {
			const char *colon = memchr(p, ':', (size_t)(e - p));

			if (!colon)
				goto bad;
			o->param = (uint8_t)param_of(m, p + 1, (size_t)(colon - p - 1));
			q = colon + 1;
			if (strncmp(q, "i64", 3) == 0 || strncmp(q, "i32", 3) == 0) {
				o->kind = MS_OK_SCALAR;
				o->size = q[1] == '6' ? 8 : 4;
				o->mirror_ret = strncmp(q + 3, "=ret", 4) == 0;
			} else {
				o->kind = MS_OK_STRUCT;
				copy_trim(o->strct, sizeof(o->strct), q, (size_t)(e - q));
			}
		} else {
			const char *br = memchr(p, '[', (size_t)(e - p));
			const char *close = br ? memchr(br, ']', (size_t)(e - br)) : NULL;
			const char *star;

			if (!br || !close)
				goto bad;
			o->param = (uint8_t)param_of(m, p, (size_t)(br - p));
			o->kind = strncmp(close + 1, ":str", 4) == 0 ? MS_OK_STR : MS_OK_BYTES;
			star = memchr(br, '*', (size_t)(close - br));
			if (star) {
				o->cap1 = (uint8_t)param_of(m, br + 1, (size_t)(star - br - 1));
				o->cap2 = (uint8_t)param_of(m, star + 1, (size_t)(close - star - 1));
				if (o->cap2 == 0xff)
					goto bad;
			} else if (close - br == 2 && br[1] == '=') {
				o->cap1 = MS_CAP_OWN; /* as long as the string in it */
			} else {
				o->cap1 = (uint8_t)param_of(m, br + 1, (size_t)(close - br - 1));
			}
			if (o->cap1 == 0xff)
				goto bad;
		}
		if (o->param == 0xff)
			goto bad;
		p = e;
	}
	return;
bad:
	m->nouts = 0xff;
}

void ms_meta_ok_kind(struct ms_fn_meta *m)
{
	/* as ms_tl_ok() asks it, field by field; a system call's -errno
	 * stays with MS_OK_ANY */
	m->ok_kind = m->syscall		       ? MS_OK_ANY
		     : m->ret.tclass >= MS_T_PTR   ? MS_OK_NOT_NULL
		     : m->fail_kind == MS_FK_RC    ? MS_OK_ZERO
		     : m->fail_kind != MS_FK_ERRNO ? MS_OK_ALWAYS
		     : m->ret.size == 4	       ? MS_OK_NOT_VALUE32
						       : MS_OK_NOT_VALUE;
}

int ms_meta_parse(struct ms_fn_meta *m)
{
	if (classify(&m->ret, m->ret_text, strlen(m->ret_text), 0))
		return -1;
	ms_meta_ok_kind(m);
	m->nparams = MS_NPARAMS_COUNT;
	parse_proto(m, 0);
	for (unsigned i = 0; m->nparams != 0xff && i < m->nparams; i++)
		if (!m->params[i].name[0] || !m->params[i].type.text[0])
			m->nparams = 0xff;
	return m->nparams == 0xff ? -1 : 0;
}

void ms_meta_parse_outs(struct ms_fn_meta *m)
{
	parse_outs(m);
}

/*
 * Each row is parsed on its first use, so that a process touches the
 * pages of the rows it uses only (a channel usually arms a few).  state:
 * 0 not parsed, 1 being parsed, 2 done.  A thread that finds a row being
 * parsed waits for it: rows are parsed at attach (the validator, the
 * trace) and by mockrun, before the program's threads or signal handlers
 * can reach the same row.
 */
static uint8_t state[MS_FN_COUNT];

static void parse_row(unsigned i)
{
	struct ms_fn_meta *m = &ms_catalog_table[i];
	const struct row *r = &rows[i];
	uint8_t expect = 0;

	if (!__atomic_compare_exchange_n(&state[i], &expect, 1, 0, __ATOMIC_ACQUIRE,
					 __ATOMIC_ACQUIRE)) {
		while (__atomic_load_n(&state[i], __ATOMIC_ACQUIRE) != 2)
			ms_cpu_relax();
		return;
	}
	*m = (struct ms_fn_meta){ .name = STR(r->name), .ret_text = STR(r->ret_text),
				  .proto = STR(r->proto), .group = STR(r->group),
				  .outs_text = STR(r->outs_text),
				  .nparams = r->nparams, .fail_kind = r->fail_kind,
				  .fail_value = r->fail_value, .fail_errno = r->fail_errno };
	if (classify(&m->ret, m->ret_text, strlen(m->ret_text), MS_CT_STRICT))
		m->nparams = 0xff;
	else
		parse_proto(m, MS_CT_STRICT);
	ms_meta_ok_kind(m);
	if (m->nparams != 0xff)
		parse_outs(m);
	for (unsigned k = 0; k < sizeof(aliases) / sizeof(aliases[0]); k++)
		if (aliases[k].canon == (int)i && m->naliases < sizeof(m->aliases) / sizeof(m->aliases[0]))
			m->aliases[m->naliases++] = STR(aliases[k].name);
	__atomic_store_n(&state[i], 2, __ATOMIC_RELEASE);
}

void ms_catalog_init(void)
{
	for (unsigned i = 0; i < MS_FN_COUNT; i++)
		if (__atomic_load_n(&state[i], __ATOMIC_ACQUIRE) != 2)
			parse_row(i);
}

const struct ms_fn_meta *ms_catalog_get(unsigned id)
{
	if (id >= MS_FN_COUNT)
		return NULL;
	if (__atomic_load_n(&state[id], __ATOMIC_ACQUIRE) != 2)
		parse_row(id);
	return &ms_catalog_table[id];
}

/*
 * Names to ids: an open-addressing table of the canonical names and the
 * aliases, made at the first lookup (the parser looks up every statement's
 * function: a scan of the catalog made a 100,000-statement spec spend
 * most of its parse there).  Static, no allocation (the shim parses a
 * MOCKSHIM= spec too); threads that build it at once write the same
 * values.  A slot holds 0 (empty), i + 1 (rows[i]) or 0x8000 | (k + 1)
 * (aliases[k]).
 */
#define NAME_SLOTS 4096
#define NALIASES (sizeof(aliases) / sizeof(aliases[0]))
_Static_assert(MS_FN_COUNT + NALIASES < NAME_SLOTS / 2 && NALIASES < 0x7fff, "name table size");

static uint16_t name_slots[NAME_SLOTS];
static int names_built;

static uint32_t name_hash(const char *s, size_t n)
{
	uint32_t h = 2166136261u; /* FNV-1a */

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

/* The j-th name, canonical names first (a name that were both keeps its
 * row): its slot value, the name, and the id it stands for. */
static uint16_t slot_of(unsigned j)
{
	return (uint16_t)(j < MS_FN_COUNT ? j + 1 : 0x8000 | (j - MS_FN_COUNT + 1));
}

static const char *slot_name(uint16_t v)
{
	return STR(v & 0x8000 ? aliases[(v & 0x7fff) - 1].name : rows[v - 1].name);
}

static int slot_id(uint16_t v)
{
	return v & 0x8000 ? aliases[(v & 0x7fff) - 1].canon : (int)(v - 1);
}

/* Whether the catalog's name n is name[0..len). */
static int name_is(const char *n, const char *name, size_t len)
{
	return strncmp(n, name, len) == 0 && n[len] == '\0';
}

static void name_put(const char *name, uint16_t v)
{
	uint32_t i = name_hash(name, strlen(name)) & (NAME_SLOTS - 1);

	while (__atomic_load_n(&name_slots[i], __ATOMIC_RELAXED) &&
	       __atomic_load_n(&name_slots[i], __ATOMIC_RELAXED) != v)
		i = (i + 1) & (NAME_SLOTS - 1);
	__atomic_store_n(&name_slots[i], v, __ATOMIC_RELAXED);
}

static void names_build(void)
{
	for (unsigned j = 0; j < MS_FN_COUNT + NALIASES; j++)
		name_put(slot_name(slot_of(j)), slot_of(j));
	__atomic_store_n(&names_built, 1, __ATOMIC_RELEASE);
}

/* The same answer by a scan, in the same order: cheaper than the table
 * for the few lookups of a small spec. */
static int name_scan(const char *name, size_t len)
{
	for (unsigned j = 0; j < MS_FN_COUNT + NALIASES; j++) {
		const char *n = slot_name(slot_of(j));

		if (n[0] == name[0] && name_is(n, name, len))
			return slot_id(slot_of(j));
	}
	return -1;
}

int ms_catalog_find(const char *name, size_t len)
{
	static unsigned scans;
	uint32_t i;
	uint16_t v;

	if (!__atomic_load_n(&names_built, __ATOMIC_ACQUIRE)) {
		/* the table costs about 25 scans to build: a spec of a few
		 * statements never builds it */
		if (!len || __atomic_add_fetch(&scans, 1, __ATOMIC_RELAXED) <= 16)
			return len ? name_scan(name, len) : -1;
		names_build();
	}
	for (i = name_hash(name, len) & (NAME_SLOTS - 1);
	     (v = __atomic_load_n(&name_slots[i], __ATOMIC_RELAXED)) != 0; i = (i + 1) & (NAME_SLOTS - 1))
		if (name_is(slot_name(v), name, len))
			return slot_id(v);
	return -1;
}

const char *ms_sym_name(unsigned sym)
{
	return sym < MS_SYM_COUNT ? STR(sym_names[sym]) : NULL;
}

const char *ms_sym_name_of(const char *name)
{
	for (unsigned i = 0; i < MS_SYM_COUNT; i++)
		if (strcmp(STR(sym_names[i]), name) == 0)
			return STR(sym_names[i]);
	return NULL;
}

/* execle's envp comes after its variadic arguments: environ is looked at
 * in its place */
static const struct ms_exec_row execs[] = {
	{ MS_ID_execve, 0, 2, 0, 0, 0 },	{ MS_ID_execv, 0, -1, 0, 0, 0 },
	{ MS_ID_execvp, 0, -1, 1, 0, 0 },	{ MS_ID_execvpe, 0, 2, 1, 0, 0 },
	{ MS_ID_execl, 0, -1, 0, 0, 0 },	{ MS_ID_execlp, 0, -1, 1, 0, 0 },
	{ MS_ID_execle, 0, -1, 0, 0, 0 },	{ MS_ID_fexecve, 0, 2, 0, 0, 1 },
	{ MS_ID_posix_spawn, 1, 5, 0, 1, 0 },	{ MS_ID_posix_spawnp, 1, 5, 1, 1, 0 },
	{ MS_ID_system, MS_EXEC_SH, -1, 0, 1, 0 }, { MS_ID_popen, MS_EXEC_SH, -1, 0, 1, 0 },
};

const struct ms_exec_row *ms_exec_row(unsigned id)
{
	for (size_t i = 0; i < sizeof(execs) / sizeof(execs[0]); i++)
		if (execs[i].id == id)
			return &execs[i];
	return NULL;
}

const struct ms_exec_row *ms_exec_rows(size_t *n)
{
	*n = sizeof(execs) / sizeof(execs[0]);
	return execs;
}

/*
 * The catalog's fingerprint, a constant the compiler computes: each row's
 * name (its first 32 characters, each weighted by its place, and its
 * length) times a multiplier of its id, and each alias's with its
 * canonical row's; so a shim and a mockrun built from catalogs whose ids
 * name other functions disagree, and no process spends a loop over 644
 * names on it at each attach.
 */
#define HC(s, k) ((uint64_t)(unsigned char)(s)[sizeof(s) > (k) + 1 ? (k) : sizeof(s) - 1] * \
		  (0x9e3779b97f4a7c15ull + 2 * (k)))
#define HC4(s, k) (HC(s, k) + HC(s, (k) + 1) + HC(s, (k) + 2) + HC(s, (k) + 3))
#define HNAME(s) (HC4(s, 0) + HC4(s, 4) + HC4(s, 8) + HC4(s, 12) + HC4(s, 16) + HC4(s, 20) + \
		  HC4(s, 24) + HC4(s, 28) + sizeof(s))
static const uint64_t catalog_sig = (uint64_t)MS_FN_COUNT
#define MOCKSHIM_FN(ret, fn, ...) + HNAME(#fn) * (2 * (uint64_t)MS_ID_##fn + 1)
#define MOCKSHIM_FN_H MOCKSHIM_FN
#define MOCKSHIM_FN_V MOCKSHIM_FN
#define MOCKSHIM_ALIAS(canon, ret, name, ...) + HNAME(#name) * (2 * (uint64_t)MS_ID_##canon + 1) * 3
#define MOCKSHIM_ALIAS_H MOCKSHIM_ALIAS
#define MOCKSHIM_ALIAS_V MOCKSHIM_ALIAS
#include "mockshim/catalog.def"
#include "mockshim/catalog_end.h"
	;

uint32_t ms_catalog_hash(void)
{
	return (uint32_t)(catalog_sig ^ catalog_sig >> 32);
}
