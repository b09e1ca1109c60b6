/* SPDX-License-Identifier: MIT */
/* mockrun --list: the catalog, or one function's details. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "arch/arch.h"
#include "catalog/catalog.h"
#include "mockshim/driver.h"
#include "channel/channel.h"

static void fail_convention(const struct ms_fn_meta *m, char *buf, size_t n)
{
	const char *e = ms_errno_name(m->fail_errno);

	switch (m->fail_kind) {
	case MS_FK_NEVER:
		snprintf(buf, n, "cannot fail");
		break;
	case MS_FK_RC: {
		/* getaddrinfo's are negative EAI_* codes, pthread-style errno values */
		const char *c = m->fail_value < 0 ? ms_eai_name((int)m->fail_value)
						   : ms_errno_name((int)m->fail_value);

		snprintf(buf, n, "returns the error code (default %s)", c ? c : "?");
		break;
	}
	default:
		if (m->ret.tclass == MS_T_PTR || m->ret.tclass == MS_T_STR)
			snprintf(buf, n, "returns NULL%s%s", e ? ", errno " : "", e ? e : "");
		else
			snprintf(buf, n, "returns %lld%s%s", (long long)m->fail_value,
				 e ? ", errno " : "", e ? e : "");
	}
}

/* *param={.field, ...}: the fields a struct literal takes, a nested
 * struct's in braces (stx_mtime = {tv_sec, tv_nsec}) */
static void list_struct(FILE *out, const char *param, const char *tag)
{
	const struct ms_struct_desc *sd = ms_struct_find(tag);

	if (!sd) {
		fprintf(out, " *%s={struct %s}", param, tag);
		return;
	}
	fprintf(out, " *%s={struct %s:", param, tag);
	for (unsigned i = 0; i < sd->nfields; i++) {
		const struct ms_field_desc *f = &sd->fields[i];

		fprintf(out, "%s .%s", i ? "," : "", f->name);
		if (f->kind == MS_FD_NESTED && f->sub) {
			fputs(" = {", out);
			for (unsigned k = 0; k < f->sub->nfields; k++)
				fprintf(out, "%s%s", k ? ", " : "", f->sub->fields[k].name);
			fputc('}', out);
		} else if (f->kind == MS_FD_CHARS || f->kind == MS_FD_STR) {
			fputs(" = \"...\"", out);
		}
	}
	fputc('}', out);
}

int mockshim_catalog_list(FILE *out, const char *fn)
{
	const char *group = NULL;
	char buf[200];

	ms_catalog_init();
	if (!fn) {
		for (unsigned i = 0; i < MS_FN_COUNT; i++) {
			const struct ms_fn_meta *m = ms_catalog_get(i);

			if (!group || strcmp(group, m->group) != 0) {
				fprintf(out, "%s%s:", group ? "\n" : "", m->group);
				group = m->group;
			}
			fprintf(out, " %s", m->name);
		}
		/* the syscall tier: static and Go programs, libc's own calls */
		fprintf(out, "\nsyscall (SYS_ statements, answered by mockrun's seccomp supervisor):");
		for (unsigned i = 0; ms_syscall_at(i); i++)
			fprintf(out, " %s", ms_syscall_at(i)->name);
		fputc('\n', out);
		return 0;
	}
	int id = ms_catalog_find(fn, strlen(fn));
	const struct ms_fn_meta *m;

	if (id < 0 && strncmp(fn, "SYS_", 4) == 0 && ms_syscall_find(fn + 4, strlen(fn + 4)))
		m = ms_syscall_find(fn + 4, strlen(fn + 4));
	else if (id < 0)
		return -ENOENT;
	else
		m = ms_catalog_get((unsigned)id);
	fprintf(out, "%s %s%s\n", m->ret.text, m->name, m->proto);
	fprintf(out, "  group: %s\n  parameters:", m->group);
	for (unsigned i = 0; i < m->nparams; i++)
		fprintf(out, " %s", m->params[i].name);
	fprintf(out, "%s\n", m->nparams ? "" : " none");
	if (m->nouts) {
		fprintf(out, "  outputs:");
		for (unsigned i = 0; i < m->nouts; i++) {
			const struct ms_out_desc *o = &m->outs[i];

			switch (o->kind) {
			case MS_OK_BYTES:
				fprintf(out, " %s=\"bytes\"", m->params[o->param].name);
				break;
			case MS_OK_STR:
				fprintf(out, " %s=\"string\"", m->params[o->param].name);
				break;
			case MS_OK_STRUCT:
				if (strcmp(o->strct, "addrinfo") == 0)
					fprintf(out, " *%s={\"ADDRESS\", ...}", m->params[o->param].name);
				else if (strcmp(o->strct, "revents") == 0)
					fprintf(out, " *%s={POLLIN, 0, ...} (each entry's revents, the rest 0; "
						     "`_`: how many are not 0)", m->params[o->param].name);
				else if (strcmp(o->strct, "sockaddr") == 0)
					fprintf(out, " *%s=\"127.0.0.1:80\" (or \"[::1]:80\", \"unix:/path\"; "
						     "its size in *%s)",
						m->params[o->param].name, m->params[o->param + 1].name);
				else if (strcmp(o->strct, "passwd_r") == 0)
					fprintf(out, " *%s={.pw_name, .pw_passwd, .pw_uid, .pw_gid, "
						     ".pw_gecos, .pw_dir, .pw_shell} (its strings in %s, "
						     "ERANGE when %s is too small; none given: not found)",
						m->params[o->param].name, m->params[o->param + 1].name,
						m->params[o->param + 2].name);
				else
					list_struct(out, m->params[o->param].name, o->strct);
				break;
			case MS_OK_SCALAR:
				fprintf(out, " *%s=INTEGER%s", m->params[o->param].name,
					o->mirror_ret ? " (the return value by default)" : "");
				break;
			default:
				break;
			}
		}
		fputc('\n', out);
	}
	if (m->ret_group)
		fprintf(out, "  returns: NULL, or a struct group {.gr_name, .gr_passwd, .gr_gid, "
			     ".gr_mem = \"alice,bob\"}\n");
	if (m->ret_hostent)
		fprintf(out, "  returns: NULL, or a struct hostent from an address list "
			     "{\"10.1.2.3\", \"10.1.2.4\"} (h_name: the %s asked for)\n",
			m->params[0].name);
	if (m->ret_owned)
		fprintf(out, "  returns: NULL, or a string: a copy from the program's malloc, "
			     "which the program frees\n");
	if (m->ret_passwd)
		fprintf(out, "  returns: NULL, or a struct passwd {.pw_name, .pw_passwd, .pw_uid, "
			     ".pw_gid, .pw_gecos, .pw_dir, .pw_shell}\n");
	fail_convention(m, buf, sizeof(buf));
	if (m->syscall)
		fprintf(out, "  failure: returns -errno, the kernel's way (default %s); libc then "
			     "returns -1 and sets errno\n"
			     "  answered by: the syscall tier (" MS_ARCH_NAME " system call %u), for every "
			     "process of the tree, static ones too\n",
			ms_errno_name(m->fail_errno), (unsigned)m->sysnr);
	else
		fprintf(out, "  failure: %s\n", buf);
	if (m->sys_flags & MS_SYSF_VDSO)
		fprintf(out, "  note: the vDSO answers most calls of it without entering the kernel "
			     "(CLOCK_REALTIME, CLOCK_MONOTONIC, ...): the filter never sees those; "
			     "for a dynamic program use the catalog's clock_gettime or fake_time\n");
	if (m->naliases) {
		fprintf(out, "  aliases:");
		for (unsigned i = 0; i < m->naliases; i++)
			fprintf(out, " %s", m->aliases[i]);
		fputc('\n', out);
	}
	if (m->fail_kind != MS_FK_NEVER)
		fprintf(out, "  example: will_fail(%s%s%s)\n", m->name,
			m->fail_kind == MS_FK_ERRNO && m->fail_errno ? ", " : "",
			m->fail_kind == MS_FK_ERRNO && m->fail_errno ? ms_errno_name(m->fail_errno) : "");
	else if (m->ret.tclass == MS_T_VOID)
		fprintf(out, "  example: will_return(%s, _)  (returns nothing: the real call is "
			     "skipped)\n", m->name);
	else
		fprintf(out, "  example: will_return(%s, 42)\n", m->name);
	return 0;
}
