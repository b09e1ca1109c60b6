/* SPDX-License-Identifier: MIT */
/* Reading ELF files, never loading them (elfread.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "elfread.h"

int ms_elf_at(FILE *f, uint64_t off, void *buf, size_t n)
{
	return fseeko(f, (off_t)off, SEEK_SET) == 0 && fread(buf, 1, n, f) == n ? 0 : -1;
}

int ms_elf_ehdr_ok(const Elf64_Ehdr *eh)
{
	return memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 && eh->e_ident[EI_CLASS] == ELFCLASS64;
}

int ms_elf_ehdr(FILE *f, Elf64_Ehdr *eh)
{
	return ms_elf_at(f, 0, eh, sizeof(*eh)) == 0 && ms_elf_ehdr_ok(eh) ? 0 : -1;
}

int ms_elf_shdr(FILE *f, const Elf64_Ehdr *eh, unsigned i, Elf64_Shdr *sh)
{
	return ms_elf_at(f, eh->e_shoff + (uint64_t)i * sizeof(*sh), sh, sizeof(*sh));
}

char *ms_elf_blob(FILE *f, uint64_t off, uint64_t size, uint64_t max)
{
	char *b;

	if (size > max) {
		errno = ENOEXEC;
		return NULL;
	}
	b = malloc(size + 1);
	if (b && ms_elf_at(f, off, b, size) != 0) {
		free(b);
		errno = ENOEXEC;
		return NULL;
	}
	if (b)
		b[size] = '\0';
	return b;
}

int ms_elf_section(FILE *f, const char *name, char **out, size_t *len)
{
	Elf64_Ehdr eh;
	Elf64_Shdr sh, strsh;
	char *names;
	int r = -ENOENT;

	if (ms_elf_ehdr(f, &eh) != 0 || eh.e_shentsize != sizeof(Elf64_Shdr) ||
	    eh.e_shstrndx >= eh.e_shnum || ms_elf_shdr(f, &eh, eh.e_shstrndx, &strsh) != 0)
		return -ENOEXEC;
	names = ms_elf_blob(f, strsh.sh_offset, strsh.sh_size, 1u << 24);
	if (!names)
		return -errno;
	for (unsigned i = 0; i < eh.e_shnum; i++) {
		if (ms_elf_shdr(f, &eh, i, &sh) != 0) {
			r = -ENOEXEC;
			break;
		}
		if (sh.sh_name >= strsh.sh_size || strcmp(names + sh.sh_name, name) != 0)
			continue;
		r = 0;
		if (out) {
			*out = ms_elf_blob(f, sh.sh_offset, sh.sh_size, 1u << 24);
			r = *out ? 0 : -errno;
			*len = sh.sh_size;
		}
		break;
	}
	free(names);
	return r;
}
