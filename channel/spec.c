/* SPDX-License-Identifier: MIT */
/*
 * The spec store (spec.h): growable tables and the string pool, through
 * the spec's allocator.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "spec.h"

void ms_spec_init(struct ms_spec *spec, void *(*realloc_fn)(void *, size_t),
		  void (*free_fn)(void *))
{
	memset(spec, 0, sizeof(*spec));
	spec->realloc_fn = realloc_fn;
	spec->free_fn = free_fn;
}

void ms_spec_fini(struct ms_spec *spec)
{
	if (!spec)
		return;
	spec->free_fn(spec->rules);
	spec->free_fn(spec->outs);
	spec->free_fn(spec->expects);
	spec->free_fn(spec->orders);
	spec->free_fn(spec->conds);
	spec->free_fn(spec->ftimes);
	for (uint32_t i = 0; i < spec->ndyn; i++)
		spec->free_fn(spec->dyn[i]);
	spec->free_fn(spec->dyn);
	for (uint32_t i = 0; i < spec->nstructs; i++)
		spec->free_fn(spec->structs[i]);
	spec->free_fn(spec->structs);
	spec->free_fn(spec->pool);
	memset(spec, 0, sizeof(*spec));
}

int ms_spec_grow(struct ms_spec *spec, void **p, uint32_t *cap, uint32_t need, size_t elem)
{
	uint32_t n = *cap ? *cap : 16;
	void *q;

	if (need <= *cap)
		return 0;
	while (n < need) {
		if (n > UINT32_MAX / 2)
			return -ENOMEM;
		n *= 2;
	}
	q = spec->realloc_fn(*p, (size_t)n * elem);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = n;
	return 0;
}

int ms_spec_find(const struct ms_spec *spec, const char *name, size_t len)
{
	int id = ms_catalog_find(name, len);

	if (id >= 0)
		return id;
	for (uint32_t i = 0; i < spec->ndyn; i++)
		if (strlen(spec->dyn[i]->name) == len && memcmp(spec->dyn[i]->name, name, len) == 0)
			return (int)(MS_FN_COUNT + i);
	return -1;
}

const struct ms_fn_meta *ms_spec_meta(const struct ms_spec *spec, unsigned id)
{
	if (id < MS_FN_COUNT)
		return ms_catalog_get(id);
	id -= MS_FN_COUNT;
	return id < spec->ndyn ? spec->dyn[id] : NULL;
}

uint32_t ms_spec_nstmts(const struct ms_spec *spec)
{
	return spec->nrules + spec->nexpects + spec->norders;
}

const struct ms_stmt *ms_spec_stmt(const struct ms_spec *spec, uint32_t i)
{
	if (i < spec->nrules)
		return &spec->rules[i].stmt;
	if ((i -= spec->nrules) < spec->nexpects)
		return &spec->expects[i].stmt;
	return &spec->orders[i - spec->nexpects].stmt;
}

uint32_t ms_spec_str(struct ms_spec *spec, const char *s, size_t n)
{
	uint32_t off;

	if (n > UINT32_MAX / 4)
		return 0;
	if (spec->pool_len == 0) {
		/* Offset 0 means "none": reserve it. */
		if (ms_spec_grow(spec, (void **)&spec->pool, &spec->pool_cap, 1, 1))
			return 0;
		spec->pool[spec->pool_len++] = '\0';
	}
	if (ms_spec_grow(spec, (void **)&spec->pool, &spec->pool_cap,
		 spec->pool_len + (uint32_t)n + 1, 1))
		return 0;
	off = spec->pool_len;
	if (n)
		memcpy(spec->pool + off, s, n);
	spec->pool[off + n] = '\0';
	spec->pool_len += (uint32_t)n + 1;
	return off;
}

void ms_spec_mark(const struct ms_spec *spec, struct ms_spec_mark *m)
{
	m->nrules = spec->nrules;
	m->nouts = spec->nouts;
	m->nexpects = spec->nexpects;
	m->norders = spec->norders;
	m->nconds = spec->nconds;
	m->nftimes = spec->nftimes;
	m->ndyn = spec->ndyn;
	m->ndeclared = spec->ndeclared;
	m->nstructs = spec->nstructs;
	m->pool_len = spec->pool_len;
}

void ms_spec_rollback(struct ms_spec *spec, const struct ms_spec_mark *m)
{
	spec->nrules = m->nrules;
	spec->nouts = m->nouts;
	spec->nexpects = m->nexpects;
	spec->norders = m->norders;
	spec->nconds = m->nconds;
	spec->nftimes = m->nftimes;
	while (spec->ndyn > m->ndyn)
		spec->free_fn(spec->dyn[--spec->ndyn]);
	while (spec->nstructs > m->nstructs)
		spec->free_fn(spec->structs[--spec->nstructs]);
	spec->ndeclared = m->ndeclared;
	spec->pool_len = m->pool_len;
}
