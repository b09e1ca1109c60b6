/* SPDX-License-Identifier: MIT */
/*
 * The compiler's base (compile_base.h): what its files share, at the
 * bottom of them: messages' pieces, COUNT, integer ranges, outputs.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "compile_base.h"
#include "catalog/catalog.h"

int ms_unknown_name(struct ms_parser *ps, const struct ms_val *v)
{
	return ms_fail_at(&ps->lx, v->line, v->col, "unknown name '%.*s'", (int)v->name_n, v->name);
}

int ms_parse_count(struct ms_parser *ps, const struct ms_val *c, int specials, int32_t *out)
{
	if (c->kind != V_INT || c->i == 0 || c->i > INT32_MAX ||
	    c->i < (specials ? MS_COUNT_MAYBE : 1))
		return ms_fail_at(&ps->lx, c->line, c->col,
				  specials ? "COUNT must be a positive integer, -1 (always) or -2 (maybe)"
					: "COUNT must be a positive integer");
	*out = (int32_t)c->i;
	return 0;
}

int ms_check_int_range(struct ms_parser *ps, const struct ms_val *v, const struct ms_type *t,
		       const char *what)
{
	int64_t lo, hi;

	if (t->size >= 8)
		return 0;
	if (t->tclass == MS_T_UINT) {
		/* Accept -1 and friends for unsigned types, as C does ((uid_t)-1). */
		lo = -(INT64_C(1) << (t->size * 8 - 1));
		hi = (INT64_C(1) << (t->size * 8)) - 1;
	} else {
		lo = -(INT64_C(1) << (t->size * 8 - 1));
		hi = (INT64_C(1) << (t->size * 8 - 1)) - 1;
	}
	if (v->i < lo || v->i > hi)
		return ms_fail_at(&ps->lx, v->line, v->col, "%s %lld does not fit in %s", what,
				  (long long)v->i, t->text);
	return 0;
}

void ms_param_list(const struct ms_fn_meta *m, char *buf, size_t cap)
{
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < m->nparams; i++)
		n += (size_t)snprintf(buf + n, n < cap ? cap - n : 0, "%s%s", i ? ", " : "",
				      m->params[i].name);
	if (m->nparams == 0)
		snprintf(buf, cap, "none");
}

const struct ms_out_desc *ms_find_out(const struct ms_fn_meta *m, int param)
{
	for (unsigned i = 0; i < m->nouts; i++)
		if (m->outs[i].param == param && m->outs[i].kind != MS_OK_FERROR)
			return &m->outs[i];
	return NULL;
}

int ms_add_out(struct ms_parser *ps, const struct ms_out *o)
{
	struct ms_spec *spec = ps->spec;

	return ms_append(ps, (void **)&spec->outs, &spec->nouts, &spec->cap_outs, o, sizeof(*o));
}

uint32_t ms_stmt_text(struct ms_parser *ps, const struct ms_src_stmt *st)
{
	uint32_t off = ms_spec_str(ps->spec, st->start, (size_t)(st->stop - st->start));

	if (!off)
		ps->lx.err = -ENOMEM;
	return off;
}

int ms_is_int_class(const struct ms_type *t)
{
	return t->tclass == MS_T_INT || t->tclass == MS_T_UINT;
}

int ms_double_bits(struct ms_parser *ps, const struct ms_val *v, const char *name, int ret,
		   int64_t *bits)
{
	double d;

	if (v->kind != V_DBL && v->kind != V_INT)
		return ms_fail_at(&ps->lx, v->line, v->col,
				  ret ? "%s() returns double: expected a number, not %s"
				      : "'%s' is a double: expected a number, not %s",
				  name, ms_val_kind_name(v->kind));
	d = v->kind == V_DBL ? v->d : (double)v->i;
	memcpy(bits, &d, sizeof(d));
	return 0;
}
