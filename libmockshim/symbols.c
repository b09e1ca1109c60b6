/* SPDX-License-Identifier: MIT */
/*
 * Finding a symbol's definition without dlsym.
 *
 * dlsym reports through dlerror(), whose state is the program's: a
 * lookup the shim makes while the program has a dlopen error pending
 * (binding free inside dlerror() itself, for one) clears that error or
 * frees the object dlerror() is reading.  So the shim looks definitions
 * up itself, in the dynamic symbol tables of the loaded objects, through
 * dl_iterate_phdr (which leaves dlerror alone): GNU or SysV hash, the
 * default version of a versioned name, IFUNCs resolved.
 *
 * Not instrumented under sanitizers (meson.build): the real functions are
 * bound before the sanitizer runtime is initialised.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <string.h>

#include "elfdyn.h"

struct find {
	const char *name;
	uint32_t gnu, sysv;	/* the name's hashes */
	int next;		/* after the shim (RTLD_NEXT), else any object but it */
	int past_self;
	int index, limit;	/* objects seen; with next, those loaded at start */
	uintptr_t found;
};

static int initial_objects;	/* objects when the shim started */

static uint32_t gnu_hash(const char *s)
{
	uint32_t h = 5381;

	for (; *s; s++)
		h = h * 33 + (uint8_t)*s;
	return h;
}

static uint32_t sysv_hash(const char *s)
{
	uint32_t h = 0, g;

	for (; *s; s++) {
		h = (h << 4) + (uint8_t)*s;
		g = h & 0xf0000000u;
		if (g)
			h ^= g >> 24;
		h &= ~g;
	}
	return h;
}

static int same(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

/* Symbol i, if it is a default-version definition of the name. */
static uintptr_t defined(uintptr_t base, const struct ms_dynamic *d, uint32_t i, const char *name)
{
	const ElfW(Sym) *s = &d->symtab[i];
	unsigned type = ELF64_ST_TYPE(s->st_info);
	uintptr_t a;

	if (s->st_shndx == SHN_UNDEF || !s->st_value || ELF64_ST_BIND(s->st_info) == STB_LOCAL ||
	    (type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_NOTYPE) ||
	    (d->versym && (d->versym[i] & 0x8000)) || !same(name, d->strtab + s->st_name))
		return 0;
	a = base + s->st_value;
	if (type == STT_GNU_IFUNC) {
		uintptr_t (*resolve)(void);

		memcpy(&resolve, &a, sizeof(a));
		a = resolve(); /* x86-64 resolvers take no argument */
	}
	return a;
}

static uintptr_t lookup(uintptr_t base, const struct ms_dynamic *d, const struct find *f)
{
	if (d->gnu) {
		uint32_t nbuckets = d->gnu[0], symoffset = d->gnu[1], nbloom = d->gnu[2];
		uint32_t shift = d->gnu[3], h = f->gnu, i;
		const ElfW(Addr) *bloom = (const ElfW(Addr) *)(d->gnu + 4);
		const uint32_t *buckets = (const uint32_t *)(bloom + nbloom), *chain;
		ElfW(Addr) word;

		if (!nbuckets || !nbloom)
			return 0;
		word = bloom[(h / (8 * sizeof(word))) % nbloom];
		if (!((word >> (h % (8 * sizeof(word)))) & (word >> ((h >> shift) % (8 * sizeof(word)))) &
		      1))
			return 0;
		chain = buckets + nbuckets;
		for (i = buckets[h % nbuckets]; i >= symoffset; i++) {
			uint32_t c = chain[i - symoffset];
			uintptr_t a;

			if ((c | 1) == (h | 1) && (a = defined(base, d, i, f->name)))
				return a;
			if (c & 1)
				break;
		}
		return 0;
	}
	if (d->sysv) {
		uint32_t nbucket = d->sysv[0];
		const uint32_t *bucket = d->sysv + 2, *chain = bucket + nbucket;

		for (uint32_t i = nbucket ? bucket[f->sysv % nbucket] : 0; i; i = chain[i]) {
			uintptr_t a = defined(base, d, i, f->name);

			if (a)
				return a;
		}
	}
	return 0;
}

int ms_in_segment(const struct dl_phdr_info *info, uintptr_t a, uint32_t type)
{
	for (int k = 0; k < info->dlpi_phnum; k++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[k];

		if (ph->p_type == type && a >= info->dlpi_addr + ph->p_vaddr &&
		    a < info->dlpi_addr + ph->p_vaddr + ph->p_memsz)
			return 1;
	}
	return 0;
}

int ms_read_dyn(const ElfW(Dyn) *dyn, uintptr_t base, struct ms_dynamic *d)
{
	uintptr_t rpath = 0, runpath = 0;

	memset(d, 0, sizeof(*d));
	for (; dyn && dyn->d_tag != DT_NULL; dyn++) {
		/* glibc relocates the d_ptr entries of the dynamic section in
		 * place, but not those of every object (the vDSO's): either way */
		uintptr_t p = dyn->d_un.d_ptr < base ? dyn->d_un.d_ptr + base : dyn->d_un.d_ptr;

		switch (dyn->d_tag) {
		case DT_SYMTAB:
			d->symtab = (const ElfW(Sym) *)p;
			break;
		case DT_STRTAB:
			d->strtab = (const char *)p;
			break;
		case DT_GNU_HASH:
			d->gnu = (const uint32_t *)p;
			break;
		case DT_HASH:
			d->sysv = (const uint32_t *)p;
			break;
		case DT_VERSYM:
			d->versym = (const ElfW(Versym) *)p;
			break;
		case DT_RELA:
			d->rela = (const ElfW(Rela) *)p;
			break;
		case DT_RELASZ:
			d->relasz = dyn->d_un.d_val;
			break;
		case DT_JMPREL:
			d->jmprel = (const ElfW(Rela) *)p;
			break;
		case DT_PLTRELSZ:
			d->pltrelsz = dyn->d_un.d_val;
			break;
		case DT_VERNEED:
			d->verneed = (const ElfW(Verneed) *)p;
			break;
		case DT_VERNEEDNUM:
			d->verneednum = dyn->d_un.d_val;
			break;
		case DT_RPATH:
			rpath = dyn->d_un.d_val + 1;
			break;
		case DT_RUNPATH:
			runpath = dyn->d_un.d_val + 1;
			break;
		default:
			break;
		}
	}
	if (!d->symtab || !d->strtab)
		return -1;
	/* string table offsets, + 1 so that 0 is "none" */
	d->rpath = rpath ? d->strtab + rpath - 1 : NULL;
	d->runpath = runpath ? d->strtab + runpath - 1 : NULL;
	return 0;
}

int ms_read_dynamic(const struct dl_phdr_info *info, struct ms_dynamic *d)
{
	const ElfW(Dyn) *dyn = NULL;

	for (int k = 0; k < info->dlpi_phnum; k++)
		if (info->dlpi_phdr[k].p_type == PT_DYNAMIC)
			dyn = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[k].p_vaddr);
	return ms_read_dyn(dyn, info->dlpi_addr, d);
}

static int visit(struct dl_phdr_info *info, size_t size, void *data)
{
	struct find *f = data;
	struct ms_dynamic d;
	const char *name = info->dlpi_name ? info->dlpi_name : "";

	(void)size;
	if (f->limit && f->index >= f->limit)
		return 1;
	f->index++;
	if (ms_in_object(info, (uintptr_t)&initial_objects)) {
		f->past_self = 1;
		return 0;
	}
	if ((f->next && !f->past_self) || strncmp(name, "linux-vdso", 10) == 0 ||
	    strncmp(name, "linux-gate", 10) == 0 || ms_read_dynamic(info, &d) != 0)
		return 0;
	f->found = lookup(info->dlpi_addr, &d, f);
	return f->found != 0;
}

static int count(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)info, (void)size;
	++*(int *)data;
	return 0;
}

void ms_symbols_init(void)
{
	int n = 0;

	if (!__atomic_load_n(&initial_objects, __ATOMIC_RELAXED)) {
		dl_iterate_phdr(count, &n);
		__atomic_store_n(&initial_objects, n, __ATOMIC_RELAXED);
	}
}

void *ms_find_symbol(const char *name, int next)
{
	struct find f = { .name = name, .gnu = gnu_hash(name), .sysv = sysv_hash(name),
			  .next = next };
	void *p;

	if (next) {
		ms_symbols_init();
		f.limit = __atomic_load_n(&initial_objects, __ATOMIC_RELAXED);
	}
	dl_iterate_phdr(visit, &f);
	memcpy(&p, &f.found, sizeof(p));
	return p;
}

/* ---- the version an object bound an import to ---- */

struct bound {
	uintptr_t caller;
	const char *name;
	const char *version;	/* out */
};

/* The version of the import of f->name whose relocation is in rel, or
 * NULL: its symbol's versym index, looked up in the object's verneed. */
static const char *import_version(const struct ms_dynamic *d, const ElfW(Rela) *rel, size_t n,
				  const char *name)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t si = (uint32_t)ELF64_R_SYM(rel[i].r_info);
		const ElfW(Verneed) *vn = d->verneed;
		ElfW(Versym) ndx;

		if (!si || !same(d->strtab + d->symtab[si].st_name, name))
			continue;
		if (!d->versym || !vn)
			return NULL;
		ndx = d->versym[si] & 0x7fff;
		for (size_t k = 0; k < d->verneednum; k++) {
			const ElfW(Vernaux) *a = (const ElfW(Vernaux) *)((const char *)vn + vn->vn_aux);

			for (unsigned j = 0; j < vn->vn_cnt; j++) {
				if (a->vna_other == ndx)
					return d->strtab + a->vna_name;
				a = (const ElfW(Vernaux) *)((const char *)a + a->vna_next);
			}
			if (!vn->vn_next)
				break;
			vn = (const ElfW(Verneed) *)((const char *)vn + vn->vn_next);
		}
		return NULL;
	}
	return NULL;
}

static int bound_visit(struct dl_phdr_info *info, size_t size, void *data)
{
	struct bound *b = data;
	struct ms_dynamic d;

	(void)size;
	if (!ms_in_object(info, b->caller))
		return 0;
	if (ms_read_dynamic(info, &d) == 0) {
		b->version = import_version(&d, d.jmprel, d.pltrelsz / sizeof(ElfW(Rela)), b->name);
		if (!b->version)
			b->version = import_version(&d, d.rela, d.relasz / sizeof(ElfW(Rela)), b->name);
	}
	return 1;
}

const char *ms_bound_version(const void *caller, const char *name)
{
	struct bound b = { (uintptr_t)caller, name, NULL };

	dl_iterate_phdr(bound_visit, &b);
	return b.version;
}
