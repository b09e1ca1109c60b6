/* SPDX-License-Identifier: MIT */
/*
 * The syscall tier's table (syscall.def) as metadata shaped like a catalog
 * row's (struct ms_fn_meta): the parser compiles a SYS_ statement, and the
 * channel's validator checks its rules, exactly as for a catalog function.
 * Parsed on first use, as the catalog's rows; the shim only ever reaches
 * this from the validator, at attach.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "arch/arch.h"
#include "catalog.h"

/*
 * The rows' strings, one after the other in one object, and the rows
 * holding their offsets: no pointer, so nothing for the loader to
 * relocate in every process the shim is preloaded in (catalog.c does
 * the same).  A row's fields are named by its line in syscall.def: a
 * name may have a row per architecture.
 */
#define SYS_CAT_(a, b) a##b
#define SYS_CAT(a, b) SYS_CAT_(a, b)
static const struct strtab {
#define MS_SYS(x86_64, aarch64, name, proto, outs, err, flags) \
	char SYS_CAT(name_, __LINE__)[sizeof(#name)], SYS_CAT(proto_, __LINE__)[sizeof("(" proto ")")], \
		SYS_CAT(outs_, __LINE__)[sizeof(outs)];
#include "syscall.def"
#undef MS_SYS
} strtab = {
#define MS_SYS(x86_64, aarch64, name, proto, outs, err, flags) #name, "(" proto ")", outs,
#include "syscall.def"
#undef MS_SYS
};

#define STR(off) ((const char *)&strtab + (off))

/* The rows of every architecture; nr < 0: not a system call of this one. */
static const struct sys_row {
	int nr;
	uint32_t name, proto, outs;	/* STR() */
	int err;
	unsigned flags;
} rows[] = {
#define MS_SYS(x86_64, aarch64, name, proto, outs, err, flags) \
	{ MS_ARCH_SYS_NR(x86_64, aarch64), offsetof(struct strtab, SYS_CAT(name_, __LINE__)), \
	  offsetof(struct strtab, SYS_CAT(proto_, __LINE__)), \
	  offsetof(struct strtab, SYS_CAT(outs_, __LINE__)), err, flags },
#include "syscall.def"
#undef MS_SYS
};

#define NROWS (sizeof(rows) / sizeof(rows[0]))

static struct ms_fn_meta table[NROWS];
static char names[NROWS][32];
static uint8_t state[NROWS];	/* 0 not parsed, 1 being parsed, 2 done */

static const struct ms_fn_meta *row(unsigned i)
{
	struct ms_fn_meta *m = &table[i];
	const struct sys_row *r = &rows[i];
	uint8_t expect = 0;

	if (!__atomic_compare_exchange_n(&state[i], &expect, 1, 0, __ATOMIC_ACQUIRE,
					 __ATOMIC_ACQUIRE)) {
		while (__atomic_load_n(&state[i], __ATOMIC_ACQUIRE) != 2)
			ms_cpu_relax();
		return m->nparams == 0xff ? NULL : m;
	}
	memcpy(names[i], "SYS_", 4);
	memcpy(names[i] + 4, STR(r->name), strlen(STR(r->name)) + 1);
	*m = (struct ms_fn_meta){ .name = names[i], .ret_text = "long", .proto = STR(r->proto),
				  .group = "syscall", .outs_text = STR(r->outs),
				  .fail_kind = MS_FK_ERRNO, .fail_value = -1, .fail_errno = r->err,
				  .syscall = 1, .sys_flags = (uint8_t)r->flags,
				  .sysnr = (uint16_t)r->nr };
	/* a row that does not parse is a table bug: the unit test finds it */
	if (ms_meta_parse(m) == 0)
		ms_meta_parse_outs(m);
	__atomic_store_n(&state[i], 2, __ATOMIC_RELEASE);
	return m->nparams == 0xff || m->nouts == 0xff ? NULL : m;
}

static int named(unsigned i, const char *name, size_t len)
{
	return strlen(STR(rows[i].name)) == len && memcmp(STR(rows[i].name), name, len) == 0;
}

const struct ms_fn_meta *ms_syscall_find(const char *name, size_t len)
{
	for (unsigned i = 0; i < NROWS; i++)
		if (rows[i].nr >= 0 && named(i, name, len))
			return row(i);
	return NULL;
}

const struct ms_fn_meta *ms_syscall_by_nr(unsigned nr)
{
	for (unsigned i = 0; i < NROWS; i++)
		if (rows[i].nr >= 0 && (unsigned)rows[i].nr == nr)
			return row(i);
	return NULL;
}

const struct ms_fn_meta *ms_syscall_at(unsigned i)
{
	for (unsigned k = 0; k < NROWS; k++)
		if (rows[k].nr >= 0 && i-- == 0)
			return row(k);
	return NULL;
}

/* What libc calls in place of a system call that the kernel's generic
 * table (aarch64's) lacks (arrays, not pointers: no relocation). */
static const char instead[][2][12] = {
	{ "open", "openat" },	  { "stat", "newfstatat" },	{ "lstat", "newfstatat" },
	{ "access", "faccessat" }, { "dup2", "dup3" },		{ "rename", "renameat" },
	{ "mkdir", "mkdirat" },	  { "rmdir", "unlinkat" },	{ "unlink", "unlinkat" },
	{ "readlink", "readlinkat" }, { "chmod", "fchmodat" },	{ "chown", "fchownat" },
	{ "poll", "ppoll" },	  { "select", "pselect6" },	{ "epoll_wait", "epoll_pwait" },
	{ "fork", "clone" },	  { "vfork", "clone" },
};

int ms_syscall_absent(const char *name, size_t len, char *msg, size_t cap)
{
	const char *use = NULL;

	if (len <= 4 || memcmp(name, "SYS_", 4) != 0)
		return 0;
	name += 4;
	len -= 4;
	for (unsigned i = 0; i < NROWS; i++)
		if (named(i, name, len) && rows[i].nr >= 0)
			return 0;
	for (unsigned i = 0; i < NROWS; i++) {
		if (!named(i, name, len))
			continue;
		for (unsigned k = 0; k < sizeof(instead) / sizeof(instead[0]); k++)
			if (strcmp(instead[k][0], STR(rows[i].name)) == 0)
				use = instead[k][1];
		snprintf(msg, cap,
			 "SYS_%s does not exist on " MS_ARCH_NAME
			 ": its kernel has the generic system call table, without it%s%s%s",
			 STR(rows[i].name), use ? " (libc calls SYS_" : "", use ? use : "", use ? ")" : "");
		return 1;
	}
	return 0;
}
