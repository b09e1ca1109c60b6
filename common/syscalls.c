/* SPDX-License-Identifier: MIT */
/*
 * The syscall tier's table (syscall.def) as metadata shaped like a catalog
 * row's (struct ms_fn_meta): the parser compiles a SYS_ statement, and the
 * channel's validator checks its rules, exactly as for a catalog function.
 * Parsed on first use, as the catalog's rows; the shim only ever reaches
 * this from the validator, at attach.
 */
#include <errno.h>
#include <string.h>

#include "arch.h"
#include "catalog.h"

static const struct sys_row {
	unsigned nr;
	const char *name, *proto, *outs;
	int err;
	unsigned flags;
} rows[] = {
#define MS_SYS(nr, name, proto, outs, err, flags) { nr, #name, "(" proto ")", outs, err, flags },
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
	memcpy(names[i] + 4, r->name, strlen(r->name) + 1);
	*m = (struct ms_fn_meta){ .name = names[i], .ret_text = "long", .proto = r->proto,
				  .group = "syscall", .outs_text = r->outs,
				  .fail_kind = MS_FK_ERRNO, .fail_value = -1, .fail_errno = r->err,
				  .syscall = 1, .sys_flags = (uint8_t)r->flags,
				  .sysnr = (uint16_t)r->nr };
	/* a row that does not parse is a table bug: the unit test finds it */
	if (ms_meta_parse(m) == 0)
		ms_meta_parse_outs(m);
	__atomic_store_n(&state[i], 2, __ATOMIC_RELEASE);
	return m->nparams == 0xff || m->nouts == 0xff ? NULL : m;
}

const struct ms_fn_meta *ms_syscall_find(const char *name, size_t len)
{
	for (unsigned i = 0; i < NROWS; i++)
		if (strlen(rows[i].name) == len && memcmp(rows[i].name, name, len) == 0)
			return row(i);
	return NULL;
}

const struct ms_fn_meta *ms_syscall_by_nr(unsigned nr)
{
	for (unsigned i = 0; i < NROWS; i++)
		if (rows[i].nr == nr)
			return row(i);
	return NULL;
}

const struct ms_fn_meta *ms_syscall_at(unsigned i)
{
	return i < NROWS ? row(i) : NULL;
}
