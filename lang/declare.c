/* SPDX-License-Identifier: MIT */
/*
 * Functions from outside the catalog: those a handler module provides
 * (ms_spec_declare) and tier 3's declared prototypes (ms_spec_mock),
 *	mock int chef_cook(const char *order, char **dish_out)
 * with the struct declarations their outputs fill (ms_spec_struct),
 *	struct dish { int id; char name[16]; const char *chef; double price; }
 *
 * A declared prototype is all the shim's generic stubs (libmockshim/
 * declared.c) know of a function: which arguments come in integer and
 * which in SSE registers, and whether the reply goes to rax or xmm0.  So
 * only what the x86-64 System V convention passes in registers is taken:
 * up to 6 integer or pointer and 8 double parameters, a scalar, pointer or
 * double return.  Everything else (a struct by value, variadics, float,
 * long double, more parameters) is refused here, with where and why.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "catalog/catalog.h"
#include "declare.h"

#define MAX_DECL_FIELDS 32
#define MAX_NAME 127		/* of a declared function */
#define MAX_STRUCT_SIZE 1024	/* what a STORE output may write (the validator's bound) */

/* A new function: metadata, then "ret\0name\0(params)\0" in one block,
 * its name and parameter names in the pool.  NULL: out of memory. */
static struct ms_fn_meta *dyn_new(struct ms_spec *spec, const char *ret, size_t lr,
				  const char *name, size_t ln, const char *params, size_t lp)
{
	struct ms_fn_meta *m = spec->realloc_fn(NULL, sizeof(*m) + lr + ln + lp + 5);
	char *text;

	if (!m)
		return NULL;
	memset(m, 0, sizeof(*m));
	text = (char *)(m + 1);
	memcpy(text, ret, lr);
	text[lr] = '\0';
	memcpy(text + lr + 1, name, ln);
	text[lr + 1 + ln] = '\0';
	text[lr + ln + 2] = '(';
	memcpy(text + lr + ln + 3, params, lp);
	memcpy(text + lr + ln + 3 + lp, ")", 2);
	m->ret_text = text;
	m->name = text + lr + 1;
	m->proto = text + lr + ln + 2;
	m->outs_text = "";
	m->fail_kind = MS_FK_NEVER;
	return m;
}

/* Pool strings and the table slot of m (parsed): 0 or -ENOMEM (m freed). */
static int dyn_add(struct ms_spec *spec, struct ms_fn_meta *m)
{
	char names[MS_MAX_PARAMS * 25] = "";
	size_t off = 0;

	for (unsigned i = 0; i < m->nparams; i++)
		off += (size_t)snprintf(names + off, sizeof(names) - off, "%s%s", i ? "," : "",
					m->params[i].name);
	m->pool_name = ms_spec_str(spec, m->name, strlen(m->name));
	m->pool_params = ms_spec_str(spec, names, off);
	{
		size_t lr = strlen(m->ret_text), ln = strlen(m->name), lp = strlen(m->proto);
		char decl[MS_MAX_PARAMS * 70 + MAX_NAME + 160];
		int sp = lr && m->ret_text[lr - 1] != '*';

		if (lr + ln + lp + 2 < sizeof(decl)) {
			snprintf(decl, sizeof(decl), "%s%s%s%s", m->ret_text, sp ? " " : "", m->name,
				 m->proto);
			m->pool_decl = ms_spec_str(spec, decl, strlen(decl));
		}
	}
	if (!m->pool_name || !m->pool_params || !m->pool_decl ||
	    ms_spec_grow(spec, (void **)&spec->dyn, &spec->cap_dyn, spec->ndyn + 1, sizeof(*spec->dyn))) {
		spec->free_fn(m);
		return -ENOMEM;
	}
	spec->dyn[spec->ndyn++] = m;
	return 0;
}

int ms_spec_declare(struct ms_spec *spec, const char *ret, const char *name, const char *params)
{
	size_t lr = strlen(ret), ln = strlen(name), lp = strlen(params);
	struct ms_fn_meta *m;
	int id = ms_spec_find(spec, name, ln);

	if (id >= 0 && id < (int)MS_FN_COUNT)
		return -EEXIST;
	if (id >= 0) {
		const struct ms_fn_meta *d = spec->dyn[id - MS_FN_COUNT];

		return d->handler && strcmp(d->ret_text, ret) == 0 && strlen(d->proto) == lp + 2 &&
			       memcmp(d->proto + 1, params, lp) == 0
			       ? 0
			       : -EEXIST;
	}
	if (ln == 0 || lr == 0)
		return -EINVAL;
	m = dyn_new(spec, ret, lr, name, ln, params, lp);
	if (!m)
		return -ENOMEM;
	m->group = "module";
	m->handler = 1;
	if (ms_meta_parse(m) != 0) {
		spec->free_fn(m);
		return -EINVAL;
	}
	return dyn_add(spec, m);
}

int ms_spec_syscall(struct ms_spec *spec, const char *name, size_t len)
{
	const struct ms_fn_meta *sm;
	struct ms_fn_meta *m;
	int id = ms_spec_find(spec, name, len), r;

	if (id >= 0)
		return id;
	if (len <= 4 || memcmp(name, "SYS_", 4) != 0)
		return -ENOENT;
	sm = ms_syscall_find(name + 4, len - 4);
	if (!sm)
		return -ENOENT;
	m = spec->realloc_fn(NULL, sizeof(*m));
	if (!m)
		return -ENOMEM;
	*m = *sm;
	r = dyn_add(spec, m);
	return r < 0 ? r : (int)(MS_FN_COUNT + spec->ndyn - 1);
}

/* ---- C declarations ---- */

struct dscan {
	const char *text;	/* the whole declaration, for offsets */
	char *msg;
	size_t cap;
	size_t *at;
};

static int dfail(struct dscan *d, const char *where, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int dfail(struct dscan *d, const char *where, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(d->msg, d->cap, fmt, ap);
	va_end(ap);
	*d->at = (size_t)(where - d->text);
	return -EINVAL;
}

/* A declared type: the one parser's (ctype.c), its errors at their place
 * in the declaration. */
static int parse_ctype(struct dscan *d, const char *p, const char *e, struct ms_ctype *ct,
		       const char **name, size_t *name_n, unsigned *dims)
{
	struct ms_ctype_err err = { d->msg, d->cap, NULL };
	int r = ms_ctype_parse(p, e, ct, name, name_n, dims, 0, &err);

	if (r)
		*d->at = (size_t)(err.where - d->text);
	return r;
}

/* What `*param=...` writes for a declared parameter of type ct, if anything. */
static int out_of(const struct ms_ctype *ct, unsigned param, struct ms_out_desc *o)
{
	memset(o, 0, sizeof(*o));
	o->param = (uint8_t)param;
	o->cap1 = o->cap2 = MS_NONE8;
	if (!ct->depth || ct->konst[ct->depth - 1])
		return 0; /* not a pointer, or to something const */
	if (ct->depth == 1) {
		if (ct->is_struct && ct->base[0]) {
			o->kind = MS_OK_STRUCT;
			snprintf(o->strct, sizeof(o->strct), "%s", ct->base);
			return 1;
		}
		if (ct->is_void || ct->is_char || ct->base_class == MS_T_PTR)
			return 0; /* a buffer of unknown size, or opaque */
		o->kind = MS_OK_SCALAR;
		o->size = ct->base_size;
		o->dbl = ct->is_double;
		return 1;
	}
	if (ct->depth == 2 && ct->is_char) {
		o->kind = MS_OK_STRPTR;
		o->owned = !ct->konst[0];
		return 1;
	}
	o->kind = MS_OK_SCALAR; /* a pointer: NULL or an address */
	o->size = 8;
	return 1;
}

/* The function of a `mock` prototype, with its normalised declaration:
 * "int" "chef_cook" "(const char *order, ...)".  0, -ENOMEM, or dfail()'s. */
static int mock_fn(struct ms_spec *spec, struct dscan *d, const char *open, const struct ms_ctype *ret,
		   const char *name, size_t name_n, const struct ms_ctype *ct, const char **pnames,
		   const size_t *pnames_n, unsigned n, struct ms_fn_meta **m)
{
	char params[MS_MAX_PARAMS * 70];
	size_t off = 0;

	params[0] = '\0';
	for (unsigned k = 0; k < n; k++) {
		const char *t = ct[k].t.text;
		size_t tl = strlen(t);

		off += (size_t)snprintf(params + off, sizeof(params) - off, "%s%s%s%.*s",
					k ? ", " : "", t,
					tl && t[tl - 1] == '*' ? "" : " ", (int)pnames_n[k],
					pnames[k]);
	}
	if (off >= sizeof(params))
		return dfail(d, open, "prototype too long");
	*m = dyn_new(spec, ret->t.text, strlen(ret->t.text), name, name_n, params, off);
	return *m ? 0 : -ENOMEM;
}

/* The parameters of a `mock` prototype, between open and close: their
 * types, names and number *n.  0, or dfail()'s. */
static int mock_params(struct dscan *d, const char *open, const char *close, struct ms_ctype *ct,
		       const char **pnames, size_t *pnames_n, unsigned *np)
{
	unsigned nint = 0, ndbl = 0, n = 0;
	const char *p;
	int r;

	p = ms_ctype_skip_ws(open + 1, close);
	if (p < close) {
		const char *q = p;
		int only_void = 0;

		{
			const char *v = ms_ctype_skip_ws(p, close);

			only_void = close - v >= 4 && memcmp(v, "void", 4) == 0 &&
				    ms_ctype_skip_ws(v + 4, close) == close;
		}
		while (!only_void && q <= close) {
			const char *comma = memchr(q, ',', (size_t)(close - q));
			const char *pe = comma ? comma : close;

			q = ms_ctype_skip_ws(q, pe);

			if (n == MS_MAX_PARAMS)
				return dfail(d, q, "too many parameters (at most 6 integer or pointer "
						    "and 8 double ones)");
			pnames[n] = "";
			r = parse_ctype(d, q, pe, &ct[n], &pnames[n], &pnames_n[n], NULL);
			if (r)
				return r;
			if (ct[n].t.tclass == MS_T_VOID)
				return dfail(d, q, "a parameter cannot be void");
			if (pnames_n[n] >= sizeof(((struct ms_param *)0)->name))
				return dfail(d, pnames[n], "parameter name too long");
			for (unsigned k = 0; k < n; k++)
				if (pnames_n[k] == pnames_n[n] &&
				    memcmp(pnames[k], pnames[n], pnames_n[n]) == 0)
					return dfail(d, pnames[n], "parameter '%.*s' given twice",
						     (int)pnames_n[n], pnames[n]);
			if (ct[n].t.tclass == MS_T_DOUBLE ? ++ndbl > 8 : ++nint > 6)
				return dfail(d, q,
					     ct[n].t.tclass == MS_T_DOUBLE
						     ? "more than 8 double parameters: the 9th is passed "
						       "on the stack, which the stubs do not read"
						     : "more than 6 integer or pointer parameters: the 7th "
						       "is passed on the stack, which the stubs do not read");
			n++;
			if (!comma)
				break;
			q = comma + 1;
		}
	}
	*np = n;
	return 0;
}

int ms_spec_mock(struct ms_spec *spec, const char *text, size_t len, char *msg, size_t cap,
		 size_t *at)
{
	struct dscan d = { text, msg, cap, at };
	const char *e = text + len, *open, *close, *name, *p;
	size_t name_n;
	unsigned n = 0;
	struct ms_ctype ret, ct[MS_MAX_PARAMS];
	const char *pnames[MS_MAX_PARAMS];
	size_t pnames_n[MS_MAX_PARAMS];
	struct ms_fn_meta *m = NULL;
	int id, r;

	open = memchr(text, '(', len);
	if (!open)
		return dfail(&d, e, "expected a prototype: mock RET NAME(PARAMS)");
	close = e;
	while (close > open && close[-1] != ')')
		close--;
	if (close == open || ms_ctype_skip_ws(close, e) != e)
		return dfail(&d, close == open ? e : close, "expected ')' at the end of the prototype");
	close--;
	/* RET NAME */
	name = open;
	while (name > text && (name[-1] == ' ' || name[-1] == '\t'))
		name--;
	p = name;
	while (name > text && ms_ctype_is_id(name[-1]))
		name--;
	name_n = (size_t)(p - name);
	if (!name_n || (*name >= '0' && *name <= '9'))
		return dfail(&d, name_n ? name : open, "expected the function's name before '('");
	if (name_n > MAX_NAME)
		return dfail(&d, name, "function name too long (at most %d characters)", MAX_NAME);
	r = parse_ctype(&d, text, name, &ret, NULL, NULL, NULL);
	if (r)
		return r;
	if (ret.t.tclass == MS_T_VOID && ret.depth == 0)
		ret.t.size = 0;
	id = ms_spec_find(spec, name, name_n);
	/* a spec written before the catalog had it (renameat2): the catalog's
	 * row is used, a warning says so (MS_DECL_CATALOG) */
	if (id >= 0 && id < (int)MS_FN_COUNT) {
		dfail(&d, name,
		      "%.*s() is in the catalog now: its row is used and this declaration "
		      "is ignored (mockrun --list %.*s); remove it",
		      (int)name_n, name, (int)name_n, name);
		return MS_DECL_CATALOG;
	}
	if (id >= 0 && spec->dyn[id - MS_FN_COUNT]->handler)
		return dfail(&d, name, "%.*s() comes from a handler module already", (int)name_n,
			     name);
	if (id < 0 && spec->ndyn >= MS_DECL_MAX)
		return dfail(&d, name, "too many declared functions (at most %d in a session)",
			     MS_DECL_MAX);
	/* PARAMS */
	r = mock_params(&d, open, close, ct, pnames, pnames_n, &n);
	if (r)
		return r;
	r = mock_fn(spec, &d, open, &ret, name, name_n, ct, pnames, pnames_n, n, &m);
	if (r)
		return r;
	if (id >= 0) {
		/* declared again (another spec file, say): the same way only */
		const struct ms_fn_meta *o = spec->dyn[id - MS_FN_COUNT];
		int same = strcmp(o->ret_text, m->ret_text) == 0 && strcmp(o->proto, m->proto) == 0;

		spec->free_fn(m);
		if (same)
			return 0;
		return dfail(&d, name, "%.*s() is declared already, otherwise: %s %s%s", (int)name_n,
			     name, o->ret_text, o->name, o->proto);
	}
	m->group = "declared";
	m->declared = 1;
	m->ret = ret.t;
	m->ret_owned = ret.t.tclass == MS_T_STR && !ret.konst[0];
	m->nparams = (uint8_t)n;
	for (unsigned k = 0; k < n; k++) {
		memcpy(m->params[k].name, pnames[k], pnames_n[k]);
		m->params[k].name[pnames_n[k]] = '\0';
		m->params[k].type = ct[k].t;
		if (out_of(&ct[k], k, &m->outs[m->nouts]))
			m->nouts++;
	}
	if (m->ret.tclass == MS_T_VOID) {
		m->rd_kind = MS_RD_CONST;
		m->rd_const = 0;
	}
	r = dyn_add(spec, m);
	if (!r)
		spec->ndeclared++;
	return r;
}

/* ---- struct declarations ---- */

/* A field of type ct (not an array): its kind, size and range. */
static void field_of(const struct ms_ctype *ct, struct ms_field_desc *f)
{
	f->size = ct->t.size;
	switch (ct->t.tclass) {
	case MS_T_DOUBLE:
		f->kind = MS_FD_DOUBLE;
		break;
	case MS_T_STR:
		f->kind = MS_FD_STR;
		break;
	case MS_T_PTR:
		f->kind = MS_FD_PTR;
		break;
	case MS_T_INT:
		f->kind = MS_FD_INT;
		f->min = ct->t.size == 8 ? INT64_MIN : -((int64_t)1 << (8 * ct->t.size - 1));
		f->max = ct->t.size == 8 ? INT64_MAX : ((int64_t)1 << (8 * ct->t.size - 1)) - 1;
		break;
	default:
		f->kind = MS_FD_UINT;
		f->min = ct->t.size == 8 ? INT64_MIN : 0;
		f->max = ct->t.size == 8 ? INT64_MAX : ((int64_t)1 << (8 * ct->t.size)) - 1;
		if (ct->is_bool)
			f->max = 1;
		break;
	}
}

/* The struct tag (tag_n bytes) of size bytes with fields (names), into
 * the spec as one block: the description, its fields, then the names.
 * 0 or -ENOMEM. */
static int struct_add(struct ms_spec *spec, const char *tag, size_t tag_n, uint32_t size,
		      const struct ms_field_desc *fields, char (*names)[24], unsigned nf)
{
	struct ms_struct_desc *sd;
	char *strings;

	sd = spec->realloc_fn(NULL, sizeof(*sd) + nf * sizeof(*fields) + tag_n + 1 + nf * 24);
	if (!sd)
		return -ENOMEM;
	memcpy(sd + 1, fields, nf * sizeof(*fields));
	strings = (char *)((struct ms_field_desc *)(sd + 1) + nf);
	memcpy(strings, tag, tag_n);
	strings[tag_n] = '\0';
	sd->name = strings;
	sd->size = size;
	sd->fields = (const struct ms_field_desc *)(sd + 1);
	sd->nfields = nf;
	strings += tag_n + 1;
	for (unsigned k = 0; k < nf; k++) {
		memcpy(strings + 24 * k, names[k], 24);
		((struct ms_field_desc *)(sd + 1))[k].name = strings + 24 * k;
	}
	if (ms_spec_add(spec, (void **)&spec->structs, &spec->nstructs, &spec->cap_structs, &sd,
			sizeof(sd))) {
		spec->free_fn(sd);
		return -ENOMEM;
	}
	return 0;
}

int ms_spec_struct(struct ms_spec *spec, const char *text, size_t len, char *msg, size_t cap,
		   size_t *at)
{
	struct dscan d = { text, msg, cap, at };
	const char *e = text + len, *p = ms_ctype_skip_ws(text, e), *tag = p, *body, *end;
	struct ms_field_desc fields[MAX_DECL_FIELDS];
	char names[MAX_DECL_FIELDS][24];
	unsigned nf = 0;
	uint32_t off = 0, align = 1;
	size_t tag_n;

	while (p < e && ms_ctype_is_id(*p))
		p++;
	tag_n = (size_t)(p - tag);
	if (!tag_n)
		return dfail(&d, tag, "expected the struct's tag: struct NAME { TYPE FIELD; ... }");
	if (tag_n >= sizeof(((struct ms_out_desc *)0)->strct))
		return dfail(&d, tag, "struct tag too long");
	body = ms_ctype_skip_ws(p, e);
	if (body >= e || *body != '{')
		return dfail(&d, body, "expected '{' after struct %.*s", (int)tag_n, tag);
	end = e;
	while (end > body && end[-1] != '}')
		end--;
	if (end == body)
		return dfail(&d, body, "'{' without its '}'");
	if (ms_ctype_skip_ws(end, e) != e)
		return dfail(&d, end, "expected the end of the statement after '}'");
	end--;
	for (uint32_t i = 0; i < spec->nstructs; i++)
		if (strlen(spec->structs[i]->name) == tag_n &&
		    memcmp(spec->structs[i]->name, tag, tag_n) == 0)
			return dfail(&d, tag, "struct %.*s is declared already", (int)tag_n, tag);
	{
		char t[24];

		memcpy(t, tag, tag_n);
		t[tag_n] = '\0';
		if (ms_struct_find(t))
			return dfail(&d, tag,
				     "struct %s is the catalog's already: its literals need no declaration",
				     t);
	}
	p = body + 1;
	while ((p = ms_ctype_skip_ws(p, end)) < end) {
		const char *semi = memchr(p, ';', (size_t)(end - p)), *fname;
		size_t fname_n;
		unsigned dims;
		struct ms_ctype ct;
		struct ms_field_desc *f;
		uint32_t fa;
		int r;

		if (!semi)
			return dfail(&d, end, "expected ';' after the field");
		if (nf == MAX_DECL_FIELDS)
			return dfail(&d, p, "too many fields (at most %d)", MAX_DECL_FIELDS);
		r = parse_ctype(&d, p, semi, &ct, &fname, &fname_n, &dims);
		if (r)
			return r;
		if (!fname)
			return dfail(&d, semi, "expected the field's name");
		if (fname_n >= sizeof(names[0]))
			return dfail(&d, fname, "field name too long");
		f = &fields[nf];
		memset(f, 0, sizeof(*f));
		memcpy(names[nf], fname, fname_n);
		names[nf][fname_n] = '\0';
		for (unsigned k = 0; k < nf; k++)
			if (strcmp(names[k], names[nf]) == 0)
				return dfail(&d, fname, "field '%s' given twice", names[nf]);
		if (dims) {
			if (ct.depth || !ct.is_char)
				return dfail(&d, p, "only char arrays can be fields (char %s[N])",
					     names[nf]);
			f->kind = MS_FD_CHARS;
			f->size = (uint16_t)(dims > MAX_STRUCT_SIZE ? MAX_STRUCT_SIZE + 1 : dims);
			fa = 1;
		} else if (ct.t.tclass == MS_T_VOID) {
			return dfail(&d, p, "a field cannot be void");
		} else {
			field_of(&ct, f);
			fa = ct.t.size;
		}
		off = (off + fa - 1) / fa * fa;
		if (fa > align)
			align = fa;
		f->off = (uint16_t)off;
		off += f->size;
		if (off > MAX_STRUCT_SIZE)
			return dfail(&d, p, "struct %.*s is larger than %d bytes", (int)tag_n, tag,
				     MAX_STRUCT_SIZE);
		nf++;
		p = semi + 1;
	}
	if (!nf)
		return dfail(&d, body, "struct %.*s has no fields", (int)tag_n, tag);
	off = (off + align - 1) / align * align;
	return struct_add(spec, tag, tag_n, off, fields, names, nf);
}

const struct ms_struct_desc *ms_spec_struct_find(const struct ms_spec *spec, const char *name)
{
	for (uint32_t i = 0; spec && i < spec->nstructs; i++)
		if (strcmp(spec->structs[i]->name, name) == 0)
			return spec->structs[i];
	return ms_struct_find(name);
}
