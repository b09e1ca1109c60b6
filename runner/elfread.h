/* SPDX-License-Identifier: MIT */
/*
 * Reading 64-bit ELF files without loading them: handler modules'
 * "mockshim_mocks" section (module.c) and what --check asks of a
 * program (check.c).  Every reader returns -1 (or NULL) on a short or
 * malformed file; none trusts a size it has not bounded.
 */
#ifndef MS_ELFREAD_H
#define MS_ELFREAD_H

#include <elf.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

int ms_elf_at(FILE *f, uint64_t off, void *buf, size_t n);
/* 1 when eh is a 64-bit ELF header (its magic and class) */
int ms_elf_ehdr_ok(const Elf64_Ehdr *eh);
/* The header of a 64-bit ELF file, or -1. */
int ms_elf_ehdr(FILE *f, Elf64_Ehdr *eh);
int ms_elf_shdr(FILE *f, const Elf64_Ehdr *eh, unsigned i, Elf64_Shdr *sh);
/* size bytes at off, malloc'd and NUL-terminated; NULL with errno ENOMEM,
 * or ENOEXEC when size passes max or the file is short. */
char *ms_elf_blob(FILE *f, uint64_t off, uint64_t size, uint64_t max);
/* The bytes of section name in malloc'd *out (out NULL: only whether it
 * is there); 0, -ENOENT when there is no such section, -ENOEXEC. */
int ms_elf_section(FILE *f, const char *name, char **out, size_t *len);

#endif
