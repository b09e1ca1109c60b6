/* SPDX-License-Identifier: MIT */
/*
 * mockshim-symbolize: mockrun's coprocess for call sites (sites.h has the
 * protocol).  Each object is its own Dwfl, reported at bias 0, so that
 * an address is the site's offset (the ELF vaddr); symbols come from
 * .symtab, .dynsym or the debug file, lines from DWARF, both found by
 * elfutils' standard callbacks (build-id under /usr/lib/debug,
 * .gnu_debuglink), as eu-addr2line finds them.
 */
#include <elfutils/libdwfl.h>
#include <dwarf.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "objmap.h"
#include "sites.h"

static char *debuginfo_path;
static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

struct symstate {
	Dwfl *dwfl;
	Dwfl_Module *mod;	/* NULL: the file could not be read */
};

static struct ms_objmap map;

static Dwfl_Module *module_of(struct ms_obj *o)
{
	struct symstate *s = o->sym;

	if (s)
		return s->mod;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	o->sym = s;
	s->dwfl = dwfl_begin(&callbacks);
	if (!s->dwfl)
		return NULL;
	dwfl_report_begin(s->dwfl);
	s->mod = dwfl_report_elf(s->dwfl, o->base, o->path, -1, 0, true);
	dwfl_report_end(s->dwfl, NULL, NULL);
	return s->mod;
}

static const char *base_of(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* ---- sym: one site ---- */

/* The line of addr found by the compile units' own ranges: libdw before
 * 0.189 finds a unit only through .debug_aranges, which clang does not
 * emit (gcc does).  Its file, and *lineno; NULL when none holds addr. */
static const char *line_by_cu(Dwfl_Module *mod, Dwarf_Addr addr, int *lineno)
{
	Dwarf_Die *cu = NULL;
	Dwarf_Addr bias;

	while ((cu = dwfl_module_nextcu(mod, cu, &bias))) {
		Dwarf_Line *l;

		if (dwarf_haspc(cu, addr - bias) <= 0)
			continue;
		l = dwarf_getsrc_die(cu, addr - bias);
		if (!l || dwarf_lineno(l, lineno) != 0)
			return NULL;
		return dwarf_linesrc(l, NULL, NULL);
	}
	return NULL;
}

/* pc: off is the instruction itself (a crash's), not a return address */
static void do_sym(const char *arg, int pc)
{
	char objname[256];
	uint64_t off;
	struct ms_obj *o;
	Dwfl_Module *mod;
	GElf_Off soff = 0;
	GElf_Sym sym;
	const char *name;
	Dwfl_Line *line;
	int lineno = 0;
	const char *file = NULL;
	char vless[256];

	if (!ms_site_parse(arg, objname, sizeof(objname), &off) || (off == 0 && !pc) ||
	    !(o = ms_objmap_find(&map, objname)) || !(mod = module_of(o))) {
		puts("-");
		return;
	}
	/* a return address: the call is the instruction before it */
	if (!pc)
		off--;
	name = dwfl_module_addrinfo(mod, off, &soff, &sym, NULL, NULL, NULL);
	line = dwfl_module_getsrc(mod, off);
	if (line)
		file = dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL);
	else
		file = line_by_cu(mod, off, &lineno);
	if (!name && !file) {
		puts("-");
		return;
	}
	fputs("= ", stdout);
	/* (shown without a .dynsym name's version: "malloc", not
	 * "malloc@@GLIBC_2.2.5") */
	if (name && strchr(name, '@')) {
		snprintf(vless, sizeof(vless), "%.*s", (int)strcspn(name, "@"), name);
		name = vless;
	}
	if (name && file && lineno > 0)
		printf("%s, %s:%d\n", name, base_of(file), lineno);
	else if (name)
		printf("%s+0x%llx\n", name, (unsigned long long)soff + !pc);
	else
		printf("%s:%d\n", base_of(file), lineno);
}

/* ---- at: ranges ---- */

struct ranges {
	struct ms_sym_range *r;
	size_t n, cap;
};

static void add_range(struct ranges *rs, const char *obj, uint64_t lo, uint64_t hi)
{
	if (hi <= lo)
		return;
	for (size_t i = 0; i < rs->n; i++) {
		struct ms_sym_range *r = &rs->r[i];

		/* [lo, hi) as addresses; r->lo, r->hi the same until printed */
		if (strcmp(r->object, obj) == 0 && lo <= r->hi && hi >= r->lo) {
			r->lo = lo < r->lo ? lo : r->lo;
			r->hi = hi > r->hi ? hi : r->hi;
			return;
		}
	}
	if (rs->n == rs->cap) {
		size_t cap = rs->cap ? 2 * rs->cap : 16;
		struct ms_sym_range *p = realloc(rs->r, cap * sizeof(*p));

		if (!p)
			return;
		rs->r = p;
		rs->cap = cap;
	}
	snprintf(rs->r[rs->n].object, sizeof(rs->r[rs->n].object), "%s", obj);
	rs->r[rs->n].lo = lo;
	rs->r[rs->n].hi = hi;
	rs->n++;
}

/* a return address R is in [lo, hi) when lo < R <= hi */
static void print_ranges(const struct ranges *rs)
{
	for (size_t i = 0; i < rs->n; i++)
		printf("range %s 0x%llx 0x%llx\n", rs->r[i].object, (unsigned long long)rs->r[i].lo + 1,
		       (unsigned long long)rs->r[i].hi);
}

/* the closest names seen, for an error */
struct near {
	char name[3][128];
	unsigned dist[3];
	size_t n;
};

static void near_add(struct near *nr, const char *want, const char *name)
{
	unsigned d = ms_sym_distance(want, name, 3);
	size_t i;

	if (d > 3 || d == 0)
		return;
	for (i = 0; i < nr->n; i++)
		if (strcmp(nr->name[i], name) == 0)
			return;
	for (i = nr->n; i > 0 && nr->dist[i - 1] > d; i--)
		if (i < 3) {
			memcpy(nr->name[i], nr->name[i - 1], sizeof(nr->name[i]));
			nr->dist[i] = nr->dist[i - 1];
		}
	if (i >= 3)
		return;
	snprintf(nr->name[i], sizeof(nr->name[i]), "%s", name);
	nr->dist[i] = d;
	if (nr->n < 3)
		nr->n++;
}

static void near_print(const struct near *nr)
{
	if (!nr->n)
		return;
	printf(" (did you mean ");
	for (size_t i = 0; i < nr->n; i++)
		printf("%s%s", i ? (i + 1 == nr->n ? " or " : ", ") : "", nr->name[i]);
	printf("?)");
}

static void print_searched(void)
{
	printf("; searched ");
	for (size_t i = 0; i < map.n; i++)
		printf("%s%s", i ? ", " : "", map.obj[i].base);
	if (!map.n)
		printf("no object (no program given)");
}

/* FUNC, or FUNC's parts that compilers split off: FUNC.cold, FUNC.part.N,
 * FUNC.isra.N, FUNC.constprop.N, FUNC.lto_priv.N */
static int func_matches(const char *name, const char *want)
{
	size_t n = strlen(want);
	const char *at = strchr(name, '@');

	/* a .dynsym name's version, "malloc@@GLIBC_2.2.5", is not the name's */
	if (at && (size_t)(at - name) == n && strncmp(name, want, n) == 0)
		return 1;
	static const char *const parts[] = { ".cold", ".part.", ".isra.", ".constprop.", ".lto_priv." };

	if (strncmp(name, want, n) != 0)
		return 0;
	if (name[n] == '\0')
		return 1;
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		if (strncmp(name + n, parts[i], strlen(parts[i])) == 0)
			return 1;
	return 0;
}

static void at_func(const char *want)
{
	struct ranges rs = { 0 };
	struct near nr = { 0 };
	char sysobj[256] = "";

	for (size_t i = 0; i < map.n; i++) {
		struct ms_obj *o = &map.obj[i];
		Dwfl_Module *mod = module_of(o);
		int nsym = mod ? dwfl_module_getsymtab(mod) : -1;

		for (int k = 1; k < nsym; k++) {
			GElf_Sym sym;
			GElf_Addr addr;
			const char *name = dwfl_module_getsym_info(mod, k, &sym, &addr, NULL, NULL, NULL);
			int type = GELF_ST_TYPE(sym.st_info);

			if (!name || (type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF)
				continue;
			if (!func_matches(name, want)) {
				char bare[128];

				snprintf(bare, sizeof(bare), "%.*s", (int)strcspn(name, "@"), name);
				if (!o->system)
					near_add(&nr, want, bare);
				continue;
			}
			if (o->system) {
				if (!*sysobj)
					snprintf(sysobj, sizeof(sysobj), "%s", o->base);
				continue;
			}
			add_range(&rs, o->base, addr, addr + (sym.st_size ? sym.st_size : 1));
		}
	}
	print_ranges(&rs);
	if (rs.n)
		printf("end 0\n");
	else if (*sysobj)
		printf("end 1 '%s' is defined only in %s, a system library, where no call site is "
		       "(a call from there belongs to its caller in the program)\n", want, sysobj);
	else {
		printf("end -1 no function '%s'", want);
		near_print(&nr);
		print_searched();
		printf("\n");
	}
	free(rs.r);
}

/* a line table's file is FILE: the same path, or FILE is its last
 * components ("jv.c", "src/jv.c") */
static int file_matches(const char *path, const char *want)
{
	size_t lp = strlen(path), lw = strlen(want);

	if (lw > lp || strcmp(path + lp - lw, want) != 0)
		return 0;
	return lw == lp || path[lp - lw - 1] == '/';
}

static int same_line(Dwarf_Line *l, const char *want, int lineno)
{
	int ln = 0;
	const char *src = dwarf_linesrc(l, NULL, NULL);

	return src && dwarf_lineno(l, &ln) == 0 && ln == lineno && file_matches(src, want);
}

static void at_line(const char *want, int lineno)
{
	struct ranges rs = { 0 };
	struct near nr = { 0 };
	int file_seen = 0, below = 0, above = 0, dwarf_seen = 0;

	for (size_t i = 0; i < map.n; i++) {
		struct ms_obj *o = &map.obj[i];
		Dwfl_Module *mod = module_of(o);
		Dwarf_Die *cu = NULL;
		Dwarf_Addr bias;

		if (!mod || o->system)
			continue;
		while ((cu = dwfl_module_nextcu(mod, cu, &bias))) {
			Dwarf_Lines *lines;
			Dwarf_Files *files;
			size_t nl, nf, j;

			dwarf_seen = 1;
			if (dwarf_getsrcfiles(cu, &files, &nf) == 0)
				for (j = 0; j < nf; j++) {
					const char *f = dwarf_filesrc(files, j, NULL, NULL);

					if (f && !file_matches(f, want))
						near_add(&nr, base_of(want), base_of(f));
				}
			if (dwarf_getsrclines(cu, &lines, &nl) != 0)
				continue;
			for (j = 0; j < nl; j++) {
				Dwarf_Line *l = dwarf_onesrcline(lines, j);
				const char *src = dwarf_linesrc(l, NULL, NULL);
				bool stmt = false, end = false;
				int ln = 0;
				Dwarf_Addr lo, hi;
				size_t k;

				if (!src || !file_matches(src, want))
					continue;
				file_seen = 1;
				dwarf_lineno(l, &ln);
				dwarf_linebeginstatement(l, &stmt);
				dwarf_lineendsequence(l, &end);
				if (!stmt || end)
					continue;
				if (ln != lineno) {
					if (ln < lineno && ln > below)
						below = ln;
					if (ln > lineno && (!above || ln < above))
						above = ln;
					continue;
				}
				/* the row's range: to the next row of another line */
				dwarf_lineaddr(l, &lo);
				for (k = j + 1; k < nl; k++) {
					Dwarf_Line *m = dwarf_onesrcline(lines, k);

					dwarf_lineendsequence(m, &end);
					if (end || !same_line(m, want, lineno))
						break;
				}
				if (k == nl)
					continue;
				dwarf_lineaddr(dwarf_onesrcline(lines, k), &hi);
				add_range(&rs, o->base, lo + bias, hi + bias);
				j = k - 1;
			}
		}
	}
	print_ranges(&rs);
	if (rs.n)
		printf("end 0\n");
	else if (file_seen) {
		printf("end -1 no code at %s:%d", want, lineno);
		if (below || above) {
			printf(" (the nearest lines with code: ");
			if (below)
				printf("%d%s", below, above ? ", " : "");
			if (above)
				printf("%d", above);
			printf(")");
		}
		printf("\n");
	} else {
		printf("end -1 no file '%s' in the line tables", want);
		near_print(&nr);
		print_searched();
		if (!dwarf_seen)
			printf(" (none of them has debug info: build with -g or install its -dbgsym package)");
		printf("\n");
	}
	free(rs.r);
}

static void do_at(const char *text)
{
	const char *colon = strrchr(text, ':');
	char *end;
	long line;

	if (colon && colon != text && colon[1] >= '0' && colon[1] <= '9') {
		char file[1024];

		line = strtol(colon + 1, &end, 10);
		if (*end || line <= 0 || line > 0x7fffffff || (size_t)(colon - text) >= sizeof(file)) {
			printf("end -1 '%s': a line number after the file's name\n", text);
			return;
		}
		snprintf(file, sizeof(file), "%.*s", (int)(colon - text), text);
		at_line(file, (int)line);
		return;
	}
	if (!*text || strpbrk(text, " \t/:")) {
		printf("end -1 '%s' is neither a function's name nor FILE:LINE\n", text);
		return;
	}
	at_func(text);
}

int main(int argc, char **argv)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;

	if (argc > 1 && strcmp(argv[1], "--version") == 0) {
		printf("%s %d\n", MS_SYM_HELPER, MS_SYM_PROTO);
		return 0;
	}
	if (argc > 1) {
		fprintf(stderr, "usage: %s (mockrun's coprocess: its protocol on stdin and stdout, sites/sites.h)\n",
			argv[0]);
		return 2;
	}
	while ((len = getline(&line, &cap, stdin)) > 0) {
		char err[512];

		if (line[len - 1] == '\n')
			line[--len] = '\0';
		if (strcmp(line, "hello 1") == 0)
			printf("ok %s %d\n", MS_SYM_HELPER, MS_SYM_PROTO);
		else if (strncmp(line, "obj ", 4) == 0) {
			if (ms_objmap_add_program(&map, line + 4, err, sizeof(err)) < 0)
				printf("err %s\n", err);
			else
				printf("ok %zu\n", map.n);
		} else if (strncmp(line, "sym ", 4) == 0)
			do_sym(line + 4, 0);
		else if (strncmp(line, "pc ", 3) == 0)
			do_sym(line + 3, 1);
		else if (strncmp(line, "at ", 3) == 0)
			do_at(line + 3);
		else if (strcmp(line, "quit") == 0)
			break;
		else
			printf("err unknown request '%.40s'\n", line);
		fflush(stdout);
	}
	free(line);
	return 0;
}
