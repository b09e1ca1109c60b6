/* SPDX-License-Identifier: MIT */
/*
 * Declared prototypes (tier 3): `mock int chef_cook(const char *order,
 * char **dish_out)` mocks a function of any loaded object with no code
 * written for it.
 *
 * +--------------------------------------------------------------------+
 * | How a call gets here                                               |
 * | - Stubs: one per declared function (index i < MS_DECL_MAX), each   |
 * |   puts i in a scratch register and jumps to the common stub,       |
 * |   which tests armed[i]: unarmed, it jumps to real[i] with every    |
 * |   register untouched.  Armed, it saves the argument registers in a |
 * |   frame and consults the rules like any catalog function.  A reply |
 * |   goes back in both return registers (integer and floating point);|
 * |   otherwise the registers are restored and it jumps to real[i]:    |
 * |   the real function sees the call as made.  The assembly is the    |
 * |   architecture's (arch.h: arch-x86_64.h, arch-aarch64.h).          |
 * | - Binding: the shim rewrites the GOT entries (JUMP_SLOT and        |
 * |   GLOB_DAT relocations: R_X86_64_*, R_AARCH64_*) that name a       |
 * |   declared symbol, in every loaded object but itself, to point at  |
 * |   the stub.  Lazy and -z now objects alike (a RELRO page is made   |
 * |   writable for the store, then read-only again); -fno-plt calls    |
 * |   and function pointers taken through the GOT too.  Nothing else   |
 * |   is touched.  real[i] is what the loader bound: the first GOT     |
 * |   entry found already bound, else the first definition of the      |
 * |   loaded objects (a lazy entry not yet used is bound so, by the    |
 * |   global scope).                                                   |
 * | - dlopen: the dlopen trampoline (trampolines_hand.c) calls ms_decl_loaded()    |
 * |   after a load, which patches the objects loaded since.            |
 * |                                                                    |
 * | Why not LD_AUDIT's la_symbind64: it is told of PLT bindings only.  |
 * | A PIE program that takes a function's address calls it through a  |
 * | GLOB_DAT entry (its PLT entry jumps through that), and -fno-plt    |
 * | code always does: la_symbind64 never hears of those calls (bench/ |
 * | run.py's "LD_AUDIT or GOT patching" table, on glibc 2.36).  Its    |
 * | costs were no reason (flagged NOPLTENTER/EXIT, per call +0         |
 * | instructions, start-up about +0.1 ms), but an audit library also   |
 * | lives in a namespace of its own, with its own libc, apart from the |
 * | shim's stubs and channel.  Patching costs nothing where no rule    |
 * | applies (nothing is patched) and nothing for other functions.      |
 * | What neither can reach: calls bound inside their own object        |
 * | (-Bsymbolic, hidden or static functions, non-PIC calls within an   |
 * | executable) and pointers from dlsym().                             |
 * +--------------------------------------------------------------------+
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "arch/arch.h"
#include "channel/channel.h"
#include "elfdyn.h"

/* ms_decl_armed[i]: 0, or ARMED with SSE_ARGS when a parameter is a
 * double.  (%al, a variadic caller's count of SSE registers, is not
 * kept: declared functions are never variadic.) */
enum { MS_DECL_ARMED = 1, MS_DECL_SSE_ARGS = 2 };

MS_HIDDEN uint8_t ms_decl_armed[MS_DECL_MAX];
MS_HIDDEN void *ms_decl_real[MS_DECL_MAX];
MS_HIDDEN const uint32_t ms_decl_idbase = MS_FN_COUNT;
MS_HIDDEN int ms_decl_dispatch(unsigned i, struct ms_decl_frame *fr, const void *caller);
/* the stubs, from the assembly: ms_decl_stubs + MS_DECL_STUB_SIZE * i */
extern const char ms_decl_stubs[] MS_HIDDEN;

__asm__(MS_ARCH_DECL_ASM);

static uint32_t ndecl;			/* dyn entries that may be declared: < MS_DECL_MAX */
static uint8_t patching[MS_DECL_MAX];	/* this process patches function i */
static uint8_t any_patching;
static uint8_t counted[MS_DECL_MAX];	/* this process counted in function i's bound */
static uintptr_t canon[MS_DECL_MAX];	/* function i's canonical PLT entry, if any */
/*
 * Stubs: stub i < ndecl is function i's first; a function that objects
 * bind to different definitions (two RTLD_LOCAL plugins with a function
 * of the same name, different symbol versions) gets a stub for each
 * from nstubs on, so that every call goes on to its own definition.
 * ms_decl_fn[stub] is the function, ms_decl_real[stub] the definition.
 */
MS_HIDDEN uint8_t ms_decl_fn[MS_DECL_MAX];
static uint32_t nstubs;

/* ms_decl_slot[stub]: its function's fast slot, which x86-64's stub reads
 * before it saves a register (arch-x86_64.h: the offsets below); set
 * before the stub is armed (stub_is), one that is never live before. */
static struct ms_fast no_slot;
MS_HIDDEN struct ms_fast *ms_decl_slot[MS_DECL_MAX];
_Static_assert(offsetof(struct ms_fast, live) == 0 && offsetof(struct ms_fast, value) == 16 &&
		       offsetof(struct ms_fast, consumed) == 24 && MS_FAST_ALWAYS == 1,
	       "the fast slot as arch-x86_64.h's stub reads it");

static void stub_is(unsigned st, unsigned fn)
{
	ms_decl_fn[st] = (uint8_t)fn;
	__atomic_store_n(&ms_decl_slot[st], &ms_fast[MS_FN_COUNT + fn], __ATOMIC_RELAXED);
}

/* ms_consult for declared function id (MS_FN_COUNT + i), the stubs'
 * way in: its fast slot first (shim.h), as a catalog function's; the
 * shim never calls a declared function, so there is no guard to test. */
static inline __attribute__((always_inline)) int decl_consult(unsigned id, const uint64_t *a,
							      int64_t *ret, const void *caller)
{
	int k;

	/* no slot (a when(), several rules, an expectation and a rule): ms_consult alone */
	if (!__atomic_load_n(&ms_fast[id].kind, __ATOMIC_RELAXED))
		return ms_consult(id, a, ret, caller);
	k = ms_fast_take(id, 0, a, caller, ret);
	if (k)
		return k == 1;
	return ms_consult_slot(id, a, ret, caller);
}

/* decl_consult for the stub's assembly (a function with no double) */
MS_HIDDEN int ms_decl_consult(unsigned id, const uint64_t *a, int64_t *ret, const void *caller);

int ms_decl_consult(unsigned id, const uint64_t *a, int64_t *ret, const void *caller)
{
	return decl_consult(id, a, ret, caller);
}

int ms_decl_dispatch(unsigned i, struct ms_decl_frame *fr, const void *caller)
{
	const struct ms_chan_dyn *d = &ms_d.dyn[ms_decl_fn[i]];
	uint64_t a[MS_MAX_PARAMS];
	unsigned gi = 0, xi = 0;

	for (unsigned n = 0; n < d->nparams; n++)
		a[n] = d->dblmask & (1u << n) ? fr->fpr[xi++][0] : fr->gpr[gi++];
	return decl_consult(MS_FN_COUNT + ms_decl_fn[i], a, &fr->ret, caller);
}

/* A traced real call returned: its line, with the declared types. */
MS_HIDDEN void ms_decl_after(unsigned i, struct ms_decl_frame *fr, const void *caller);

void ms_decl_after(unsigned i, struct ms_decl_frame *fr, const void *caller)
{
	const struct ms_chan_dyn *d = &ms_d.dyn[ms_decl_fn[i]];
	uint64_t a[MS_MAX_PARAMS];
	unsigned gi = 0, xi = 0;

	for (unsigned k = 0; k < d->nparams; k++)
		a[k] = d->dblmask & (1u << k) ? fr->fpr[xi++][0] : fr->gpr[gi++];
	ms_hook_trace_decl(d, ms_d.pool, a,
		      d->ret == MS_DYN_RET_DOUBLE ? fr->fpret : (uint64_t)fr->ret, NULL, caller);
}

/* ---- the GOT ---- */

struct scan {
	uintptr_t self_lo;		/* in the shim's own text: it is not patched */
	int skip;			/* objects to pass over (scanned before) */
	int seen;
	unsigned long long subs;	/* objects unloaded so far (dlpi_subs) */
	uintptr_t global[MS_DECL_MAX];	/* the global scope's definition, once asked */
	uint8_t asked[MS_DECL_MAX];
};

static int decl_index(const char *name)
{
	for (uint32_t i = 0; i < ndecl; i++)
		if (patching[i] && ms_d.pool[ms_d.dyn[i].name] == name[0] &&
		    strcmp(ms_d.pool + ms_d.dyn[i].name, name) == 0)
			return (int)i;
	return -1;
}

/* Points *slot at stub st of function i, through a read-only (RELRO)
 * page if need be. */
static void patch(const struct dl_phdr_info *info, void **slot, unsigned i, unsigned st)
{
	uintptr_t a = (uintptr_t)slot, size = (uintptr_t)getauxval(AT_PAGESZ);
	uintptr_t page;
	int relro = ms_in_segment(info, a, PT_GNU_RELRO);

	/* 4 KiB on x86-64; 4, 16 or 64 KiB on aarch64, as the kernel was built */
	if (!size)
		size = 4096;
	page = a & ~(size - 1);
	if (relro && syscall(SYS_mprotect, page, (long)size, (long)(PROT_READ | PROT_WRITE)) != 0) {
		ms_diag("warning: cannot make a GOT page writable: ", ms_d.pool + ms_d.dyn[i].name,
			" stays unmocked in ", info->dlpi_name[0] ? info->dlpi_name : "the program",
			NULL);
		return;
	}
	__atomic_store_n(slot, (void *)(ms_decl_stubs + MS_DECL_STUB_SIZE * st), __ATOMIC_RELEASE);
	if (relro)
		syscall(SYS_mprotect, page, (long)size, (long)PROT_READ);
}

/* ms_missing_real as a data pointer: what real[i] is while unbound */
static void *missing(void)
{
	void (*f)(void) = ms_missing_real;
	void *p;

	memcpy(&p, &f, sizeof(p));
	return p;
}

/* No entry bound yet: the first definition in the loaded objects, as the
 * global scope finds it (a canonical PLT entry is no definition). */
static void *global_definition(unsigned i)
{
	return ms_find_symbol(ms_d.pool + ms_d.dyn[i].name, 0);
}

/* The stub of function i that goes on to definition def (0: none known),
 * a new one if need be; -1 when every stub is taken. */
static int stub_for(unsigned i, uintptr_t def)
{
	void *p;

	memcpy(&p, &def, sizeof(p));
	if (!def)
		return (int)i; /* the first stub: ms_missing_real, as the loader would fail */
	if (__atomic_load_n(&ms_decl_real[i], __ATOMIC_ACQUIRE) == missing()) {
		__atomic_store_n(&ms_decl_real[i], p, __ATOMIC_RELEASE);
		return (int)i;
	}
	for (uint32_t st = 0; st < nstubs; st++)
		if (ms_decl_fn[st] == i && ms_decl_real[st] == p)
			return (int)st;
	if (nstubs >= MS_DECL_MAX) {
		ms_diag("warning: no stub left for another definition of ", ms_d.pool + ms_d.dyn[i].name,
			": its calls there stay unmocked", NULL);
		return -1;
	}
	/* complete before any entry points at it */
	stub_is(nstubs, i);
	__atomic_store_n(&ms_decl_real[nstubs], p, __ATOMIC_RELEASE);
	__atomic_store_n(&ms_decl_armed[nstubs], ms_decl_armed[i], __ATOMIC_RELEASE);
	return (int)nstubs++;
}

static int is_stub(uintptr_t v)
{
	return v >= (uintptr_t)ms_decl_stubs && v < (uintptr_t)(ms_decl_stubs + MS_DECL_STUB_SIZE * MS_DECL_MAX);
}

static void scan_relocs(struct dl_phdr_info *info, const ElfW(Rela) *rel, size_t size,
			const ElfW(Sym) *symtab, const char *strtab, struct scan *s)
{
	for (size_t k = 0; k < size / sizeof(*rel); k++) {
		unsigned type = (unsigned)ELF64_R_TYPE(rel[k].r_info);
		const ElfW(Sym) *sym;
		void **slot;
		uintptr_t v, def;
		int i, st;

		if (type != MS_ARCH_R_JUMP_SLOT && type != MS_ARCH_R_GLOB_DAT)
			continue;
		sym = &symtab[ELF64_R_SYM(rel[k].r_info)];
		if (!sym->st_name || (i = decl_index(strtab + sym->st_name)) < 0)
			continue;
		slot = (void **)(info->dlpi_addr + rel[k].r_offset);
		v = (uintptr_t)__atomic_load_n(slot, __ATOMIC_ACQUIRE);
		if (is_stub(v))
			continue;
		/* An executable that takes the address of a function it does
		 * not define (non-PIC code) has a canonical PLT entry for it:
		 * its symbol is undefined but has a value, and every pointer to
		 * the function is that entry, which jumps through the entry we
		 * patch.  Never the real function, or the stub would loop. */
		if (sym->st_shndx == SHN_UNDEF && sym->st_value)
			canon[i] = info->dlpi_addr + sym->st_value;
		/* an entry holding that pointer stays: its calls go through the
		 * program's entry, and pointers still compare equal */
		if (v && v == canon[i])
			continue;
		if (!v && type == MS_ARCH_R_GLOB_DAT)
			continue; /* a weak function that is absent: the program tests for NULL */
		if (v && (type == MS_ARCH_R_GLOB_DAT || !ms_in_object(info, v) ||
			  (sym->st_shndx != SHN_UNDEF && v == info->dlpi_addr + sym->st_value))) {
			/* bound: to another object, or to this one's own definition */
			def = v;
		} else {
			/* a lazy entry not yet used (it points into this object's
			 * PLT): what the loader would bind it to */
			if (!s->asked[i]) {
				s->global[i] = (uintptr_t)global_definition((unsigned)i);
				s->asked[i] = 1;
			}
			def = s->global[i];
			if (!def && ELF64_ST_BIND(sym->st_info) == STB_WEAK)
				continue;
		}
		st = stub_for((unsigned)i, def);
		if (st >= 0)
			patch(info, slot, (unsigned)i, (unsigned)st);
	}
}

/* What the last scan saw: its objects, and how many had been unloaded. */
static int objects_scanned;
static unsigned long long subs_scanned;

static int scan_object(struct dl_phdr_info *info, size_t size, void *data)
{
	struct scan *s = data;
	struct ms_dynamic d;

	(void)size;
	if (!s->seen) {
		/* the objects seen last time are still the first ones, unless
		 * one was unloaded since */
		s->subs = info->dlpi_subs;
		s->skip = s->subs == subs_scanned ? objects_scanned : 0;
	}
	if (s->seen++ < s->skip || ms_in_object(info, s->self_lo) || ms_read_dynamic(info, &d) != 0)
		return 0;
	if (d.rela)
		scan_relocs(info, d.rela, d.relasz, d.symtab, d.strtab, s);
	if (d.jmprel)
		scan_relocs(info, d.jmprel, d.pltrelsz, d.symtab, d.strtab, s);
	return 0;
}


/* Counts this process in the bound count of each declared function it
 * has a definition of, once. */
static void count_bound(struct ms_fn_state *fns)
{
	for (uint32_t i = 0; i < ndecl; i++) {
		if (ms_d.dyn[i].kind != MS_DYN_DECLARED || counted[i])
			continue;
		if (ms_decl_real[i] != missing() || global_definition(i)) {
			counted[i] = 1;
			__atomic_fetch_add(&fns[MS_FN_COUNT + i].bound, 1, __ATOMIC_RELAXED);
		}
	}
}

/* Patches the objects loaded since the last scan (all, after a dlclose). */
static void scan(void)
{
	struct scan s;

	memset(&s, 0, sizeof(s));
	s.self_lo = (uintptr_t)&ms_decl_armed;
	dl_iterate_phdr(scan_object, &s);
	objects_scanned = s.seen;
	subs_scanned = s.subs;
}

/* ---- dlopen on the caller's behalf ---- */

/* Dir (from a search path: $ORIGIN expanded to origin) / file into out,
 * if that file exists. */
static int try_dir(const char *dir, size_t n, const char *origin, const char *file, char *out,
		   size_t cap)
{
	size_t k = 0, lf = strlen(file);

	if (n >= 7 && memcmp(dir, "$ORIGIN", 7) == 0 && (n == 7 || dir[7] == '/')) {
		dir += 7, n -= 7;
	} else if (n >= 9 && memcmp(dir, "${ORIGIN}", 9) == 0 && (n == 9 || dir[9] == '/')) {
		dir += 9, n -= 9;
	} else {
		origin = "";
		if (memchr(dir, '$', n) || !n)
			return 0; /* $LIB, $PLATFORM: not followed */
	}
	if (strlen(origin) + n + lf + 2 > cap)
		return 0;
	memcpy(out, origin, strlen(origin));
	k = strlen(origin);
	memcpy(out + k, dir, n);
	k += n;
	out[k++] = '/';
	memcpy(out + k, file, lf + 1);
	return syscall(SYS_faccessat, AT_FDCWD, out, F_OK) == 0;
}

static int search(const char *paths, const char *origin, const char *file, char *out,
		  size_t cap)
{
	for (const char *p = paths; p && *p;) {
		size_t n = strcspn(p, ":;");

		if (try_dir(p, n, origin, file, out, cap))
			return 1;
		p += n + (p[n] != '\0');
	}
	return 0;
}

/*
 * The path a bare file name has for the object at caller: a search of
 * its DT_RPATH (when it has no DT_RUNPATH), or of LD_LIBRARY_PATH then
 * its DT_RUNPATH, as the loader would search for that caller.  A name
 * loaded already is the loader's to find.  0: leave it to the loader.
 */
/* The directory of lm's object, which $ORIGIN stands for: 1, or 0. */
static int origin_of(const struct link_map *lm, char *out, size_t cap)
{
	char *slash;

	if (lm->l_name && lm->l_name[0] == '/') {
		if (strlen(lm->l_name) >= cap)
			return 0;
		memcpy(out, lm->l_name, strlen(lm->l_name) + 1);
	} else {
		long n = syscall(SYS_readlinkat, AT_FDCWD, "/proc/self/exe", out, (long)cap - 1);

		if (n <= 0)
			return 0;
		out[n] = '\0';
	}
	slash = strrchr(out, '/');
	if (!slash)
		return 0;
	*slash = '\0';
	return 1;
}

/* file with $ORIGIN (or ${ORIGIN}) as the loader expands it for the
 * object at caller, into out: 1, or 0 when file has none. */
static int expand_origin(const char *file, const void *caller, char *out, size_t cap)
{
	struct link_map *lm = NULL;
	char origin[4096];
	size_t k = 0, lo;
	Dl_info di;

	if (!strstr(file, "$ORIGIN") && !strstr(file, "${ORIGIN}"))
		return 0;
	if (!dladdr1(caller, &di, (void **)&lm, RTLD_DL_LINKMAP) || !lm ||
	    !origin_of(lm, origin, sizeof(origin)))
		return 0;
	lo = strlen(origin);
	while (*file) {
		size_t n = strncmp(file, "$ORIGIN", 7) == 0 ? 7 : strncmp(file, "${ORIGIN}", 9) == 0 ? 9 : 0;

		if (n && (file[n] == '/' || file[n] == '\0')) {
			if (k + lo >= cap)
				return 0;
			memcpy(out + k, origin, lo);
			k += lo;
			file += n;
		} else {
			if (k + 1 >= cap)
				return 0;
			out[k++] = *file++;
		}
	}
	out[k] = '\0';
	return 1;
}

static int caller_path(const char *file, const void *caller, char *out, size_t cap)
{
	struct link_map *lm = NULL;
	struct ms_dynamic d;
	char origin[4096];
	Dl_info di;
	void *h;

	if (!dladdr1(caller, &di, (void **)&lm, RTLD_DL_LINKMAP) || !lm ||
	    ms_read_dyn(lm->l_ld, lm->l_addr, &d) != 0 || !(d.rpath || d.runpath))
		return 0; /* the shim's search is the caller's */
	h = ms_real.dlopen.fn(file, RTLD_LAZY | RTLD_NOLOAD);
	if (h) {
		dlclose(h);
		return 0;
	}
	if (!origin_of(lm, origin, sizeof(origin)))
		return 0;
	if (d.runpath)
		return search(ms_env("LD_LIBRARY_PATH"), "", file, out, cap) ||
		       search(d.runpath, origin, file, out, cap);
	return search(d.rpath, origin, file, out, cap);
}

void *ms_dlopen_for(const char *file, int flags, const void *caller)
{
	char path[4096];

	if (file && !strchr(file, '/') && caller_path(file, caller, path, sizeof(path)))
		return ms_real.dlopen.fn(path, flags);
	if (file && strchr(file, '$') && expand_origin(file, caller, path, sizeof(path)))
		return ms_real.dlopen.fn(path, flags);
	return ms_real.dlopen.fn(file, flags);
}

void ms_decl_bind(const struct ms_chan_hdr *h)
{
	if (!h || !h->ndyn)
		return;
	for (unsigned st = 0; st < MS_DECL_MAX; st++)
		if (!ms_decl_slot[st])
			ms_decl_slot[st] = &no_slot;
	ndecl = h->ndyn < MS_DECL_MAX ? h->ndyn : MS_DECL_MAX;
	nstubs = ndecl;
	ms_guard_enter();
	for (uint32_t i = 0; i < ndecl; i++) {
		ms_decl_real[i] = missing();
		stub_is(i, i);
		/* where no statement applies, nothing is patched: it costs nothing */
		patching[i] = ms_d.dyn[i].kind == MS_DYN_DECLARED && ms_fn_ready(MS_FN_COUNT + i);
		any_patching |= patching[i];
		/* armed before any entry points at a stub */
		__atomic_store_n(&ms_decl_armed[i],
				 (uint8_t)(patching[i] ? MS_DECL_ARMED | (ms_d.dyn[i].dblmask ? MS_DECL_SSE_ARGS : 0)
						       : 0),
				 __ATOMIC_RELEASE);
	}
	if (any_patching)
		scan();
	count_bound(ms_d.fst);
	ms_guard_leave();
}

int ms_decl_active(void)
{
	return any_patching;
}

void ms_decl_loaded(void)
{
	if (!any_patching)
		return;
	ms_guard_enter();
	scan();
	count_bound(ms_d.fst);
	ms_guard_leave();
}
