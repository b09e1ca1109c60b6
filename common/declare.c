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

#include "spec.h"

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

static int is_id(int c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9');
}

static const char *skip_ws(const char *p, const char *e)
{
	while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

static int word_is(const char *w, size_t n, const char *s)
{
	return strlen(s) == n && memcmp(w, s, n) == 0;
}

/* A declared type, as far as the stubs and outputs need it. */
struct ctype {
	struct ms_type t;	/* class and size as the rules see them */
	unsigned depth;		/* '*'s */
	uint8_t is_void, is_char, is_bool, is_double, is_struct;
	uint8_t konst[8];	/* konst[k]: what k '*'s point through is const */
	uint8_t base_class, base_size;	/* of the type under the '*'s */
	char base[24];		/* the struct tag, or the scalar's name */
};

static const struct {
	const char *name;
	uint8_t tclass, size;
} named_types[] = {
	{ "int8_t", MS_T_INT, 1 },	  { "uint8_t", MS_T_UINT, 1 },
	{ "int16_t", MS_T_INT, 2 },	  { "uint16_t", MS_T_UINT, 2 },
	{ "int32_t", MS_T_INT, 4 },	  { "uint32_t", MS_T_UINT, 4 },
	{ "int64_t", MS_T_INT, 8 },	  { "uint64_t", MS_T_UINT, 8 },
	{ "intptr_t", MS_T_INT, 8 },	  { "uintptr_t", MS_T_UINT, 8 },
	{ "intmax_t", MS_T_INT, 8 },	  { "uintmax_t", MS_T_UINT, 8 },
	{ "ptrdiff_t", MS_T_INT, 8 },	  { "size_t", MS_T_UINT, 8 },
	{ "ssize_t", MS_T_INT, 8 },	  { "off_t", MS_T_INT, 8 },
	{ "pid_t", MS_T_INT, 4 },	  { "uid_t", MS_T_UINT, 4 },
	{ "gid_t", MS_T_UINT, 4 },	  { "mode_t", MS_T_UINT, 4 },
	{ "time_t", MS_T_INT, 8 },	  { "socklen_t", MS_T_UINT, 4 },
	{ "bool", MS_T_UINT, 1 },	  { "_Bool", MS_T_UINT, 1 },
};

#define TYPES_TAKEN                                                                       \
	"int, long, short, char, unsigned, bool, (u)intN_t, size_t, ssize_t, double, "     \
	"pointers, struct NAME pointers"

/*
 * Parses [p, e) as a C type, with a trailing name when *name is non-NULL
 * on entry (a parameter or a field).  Fills *ct; *name and *name_n are the
 * name's, and *dims the array length of `char name[N]` (fields only).
 */
static int parse_ctype(struct dscan *d, const char *p, const char *e, struct ctype *ct,
		       const char **name, size_t *name_n, unsigned *dims)
{
	const char *start = skip_ws(p, e), *last = NULL, *base_at = NULL;
	size_t last_n = 0;
	unsigned n_long = 0, n_unsigned = 0, n_signed = 0, n_short = 0, n_int = 0, kw = 0;
	int want_name = name != NULL, have_base = 0;
	const char *named = NULL;
	size_t named_n = 0;

	memset(ct, 0, sizeof(*ct));
	if (dims)
		*dims = 0;
	p = start;
	while (p < e) {
		const char *w = p;
		size_t n;

		p = skip_ws(p, e);
		if (p >= e)
			break;
		if (*p == '*') {
			if (last)
				return dfail(d, p, "unexpected '*' after the name");
			if (!have_base && !kw)
				return dfail(d, p, "a '*' before any type");
			if (++ct->depth >= sizeof(ct->konst))
				return dfail(d, p, "too many '*'");
			p++;
			continue;
		}
		if (*p == '[') {
			const char *q = p + 1;
			unsigned v = 0;

			if (!dims || !last)
				return dfail(d, p, "array parameters are not supported: write a pointer");
			q = skip_ws(q, e);
			while (q < e && *q >= '0' && *q <= '9' && v < 100000)
				v = v * 10 + (unsigned)(*q++ - '0');
			q = skip_ws(q, e);
			if (!v || q >= e || *q != ']')
				return dfail(d, p, "expected a length: char %.*s[N]", (int)last_n, last);
			*dims = v;
			p = skip_ws(q + 1, e);
			if (p < e)
				return dfail(d, p, "unexpected text after the array length");
			break;
		}
		if (*p == '.' && e - p >= 3 && memcmp(p, "...", 3) == 0)
			return dfail(d, p, "variadic functions cannot be declared (the stubs "
					   "cannot know what the '...' holds)");
		if (!is_id(*p) || (*p >= '0' && *p <= '9'))
			return dfail(d, p, "unexpected character '%c' in a type", *p);
		w = p;
		while (p < e && is_id(*p))
			p++;
		n = (size_t)(p - w);
		if (last) {
			/* the previous word was a name after all: only a name
			 * may follow a complete type */
			return dfail(d, w, "unexpected '%.*s' after '%.*s'", (int)n, w, (int)last_n,
				     last);
		}
		if (word_is(w, n, "const")) {
			ct->konst[ct->depth] = 1;
			continue;
		}
		if (word_is(w, n, "volatile") || word_is(w, n, "restrict") ||
		    word_is(w, n, "__restrict") || word_is(w, n, "extern"))
			continue;
		if (ct->depth || have_base) {
			/* after a complete type: the name */
			if (!want_name)
				return dfail(d, w, "unexpected '%.*s' after the type", (int)n, w);
			last = w;
			last_n = n;
		} else if (word_is(w, n, "long")) {
			n_long++, kw = 1;
		} else if (word_is(w, n, "unsigned")) {
			n_unsigned++, kw = 1;
		} else if (word_is(w, n, "signed")) {
			n_signed++, kw = 1;
		} else if (word_is(w, n, "short")) {
			n_short++, kw = 1;
		} else if (word_is(w, n, "int")) {
			n_int++, kw = 1;
		} else if (kw && !word_is(w, n, "char") && !word_is(w, n, "double")) {
			if (!want_name)
				return dfail(d, w, "unexpected '%.*s' after the type", (int)n, w);
			last = w;
			last_n = n;
		} else if (word_is(w, n, "struct") || word_is(w, n, "union") ||
			   word_is(w, n, "enum")) {
			const char *t;

			p = skip_ws(p, e);
			t = p;
			while (p < e && is_id(*p))
				p++;
			if (p == t)
				return dfail(d, t, "expected the %.*s's tag", (int)n, w);
			if (word_is(w, n, "enum")) {
				/* an enum is an int */
				named = "int";
				named_n = 3;
			} else {
				/* a union is only ever pointed to: opaque */
				ct->is_struct = 1;
				if (word_is(w, n, "struct")) {
					if ((size_t)(p - t) >= sizeof(ct->base))
						return dfail(d, t, "struct tag too long");
					memcpy(ct->base, t, (size_t)(p - t));
					ct->base[p - t] = '\0';
				}
			}
			have_base = 1;
			base_at = w;
		} else {
			named = w;
			named_n = n;
			have_base = 1;
			base_at = w;
		}
	}
	if (!have_base && !kw)
		return dfail(d, start, "expected a type");
	if (want_name && !last && !(ct->depth == 0 && !kw && named && word_is(named, named_n, "void")))
		return dfail(d, p > start ? p - 1 : start, "expected a name after the type");
	if (name) {
		*name = last;
		*name_n = last_n;
	}
	if (!base_at)
		base_at = start;
	/* the type under the '*'s */
	if (kw) {
		if (named && !word_is(named, named_n, "char") && !word_is(named, named_n, "int") &&
		    !word_is(named, named_n, "double"))
			return dfail(d, start, "'%.*s' does not go with short, long, signed or unsigned",
				     (int)named_n, named);
		if (named && word_is(named, named_n, "double"))
			return dfail(d, start, "long double is not supported (only double)");
		ct->base_class = n_unsigned ? MS_T_UINT : MS_T_INT;
		ct->base_size = named && word_is(named, named_n, "char") ? 1
				: n_short			      ? 2
				: n_long			      ? 8
								      : 4;
		ct->is_char = ct->base_size == 1;
		snprintf(ct->base, sizeof(ct->base), "%s", n_unsigned ? "unsigned" : "int");
	} else if (ct->is_struct) {
		ct->base_class = MS_T_PTR;
	} else if (word_is(named, named_n, "void")) {
		ct->is_void = 1;
		ct->base_class = MS_T_VOID;
	} else if (word_is(named, named_n, "char")) {
		ct->is_char = 1;
		ct->base_class = MS_T_INT;
		ct->base_size = 1;
	} else if (word_is(named, named_n, "double")) {
		ct->is_double = 1;
		ct->base_class = MS_T_DOUBLE;
		ct->base_size = 8;
	} else if (word_is(named, named_n, "float")) {
		return dfail(d, base_at, "float is not supported (only double)");
	} else if (word_is(named, named_n, "int")) {
		ct->base_class = MS_T_INT;
		ct->base_size = 4;
	} else {
		size_t i;

		for (i = 0; i < sizeof(named_types) / sizeof(named_types[0]); i++)
			if (word_is(named, named_n, named_types[i].name))
				break;
		if (i == sizeof(named_types) / sizeof(named_types[0])) {
			if (ct->depth)
				/* a pointer to what we cannot know: opaque */
				ct->base_class = MS_T_PTR;
			else
				return dfail(d, base_at,
					     "unknown type '%.*s' (declared prototypes take " TYPES_TAKEN
					     "; an opaque pointer is void *)",
					     (int)named_n, named);
		} else {
			ct->base_class = named_types[i].tclass;
			ct->base_size = named_types[i].size;
			ct->is_bool = named_types[i].name[0] == 'b' || named_types[i].name[0] == '_';
		}
		if (named_n < sizeof(ct->base)) {
			memcpy(ct->base, named, named_n);
			ct->base[named_n] = '\0';
		}
	}
	/* the type as the rules see it */
	if (ct->depth == 1 && ct->is_char) {
		ct->t.tclass = MS_T_STR;
		ct->t.size = 8;
	} else if (ct->depth) {
		ct->t.tclass = MS_T_PTR;
		ct->t.size = 8;
		if (ct->depth == 1 && ct->is_struct)
			snprintf(ct->t.strct, sizeof(ct->t.strct), "%s", ct->base);
	} else if (ct->is_struct) {
		return dfail(d, base_at, "a struct is passed or returned by value: not supported "
					 "(only through a pointer)");
	} else {
		ct->t.tclass = ct->base_class;
		ct->t.size = ct->base_size;
	}
	{
		/* the text, normalised: "const char *" */
		const char *s = start, *stop = last ? last : p;
		size_t k = 0;

		while (stop > s && (stop[-1] == ' ' || stop[-1] == '\t' || stop[-1] == '\n'))
			stop--;
		for (; s < stop && k + 1 < sizeof(ct->t.text); s++) {
			char c = *s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s;

			if (c == ' ' && (k == 0 || ct->t.text[k - 1] == ' '))
				continue;
			ct->t.text[k++] = c;
		}
		ct->t.text[k] = '\0';
	}
	return 0;
}

/* What `*param=...` writes for a declared parameter of type ct, if anything. */
static int out_of(const struct ctype *ct, unsigned param, struct ms_out_desc *o)
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

int ms_spec_mock(struct ms_spec *spec, const char *text, size_t len, char *msg, size_t cap,
		 size_t *at)
{
	struct dscan d = { text, msg, cap, at };
	const char *e = text + len, *open, *close, *name, *p;
	size_t name_n;
	unsigned nint = 0, ndbl = 0, n = 0;
	struct ctype ret, ct[MS_MAX_PARAMS];
	const char *pnames[MS_MAX_PARAMS];
	size_t pnames_n[MS_MAX_PARAMS];
	struct ms_fn_meta *m;
	int id, r;

	open = memchr(text, '(', len);
	if (!open)
		return dfail(&d, e, "expected a prototype: mock RET NAME(PARAMS)");
	close = e;
	while (close > open && close[-1] != ')')
		close--;
	if (close == open || skip_ws(close, e) != e)
		return dfail(&d, close == open ? e : close, "expected ')' at the end of the prototype");
	close--;
	/* RET NAME */
	name = open;
	while (name > text && (name[-1] == ' ' || name[-1] == '\t'))
		name--;
	p = name;
	while (name > text && is_id(name[-1]))
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
	if (id >= 0 && id < (int)MS_FN_COUNT)
		return dfail(&d, name,
			     "%.*s() is in the catalog already: its rules need no declaration "
			     "(mockrun --list %.*s)",
			     (int)name_n, name, (int)name_n, name);
	if (id >= 0 && spec->dyn[id - MS_FN_COUNT]->handler)
		return dfail(&d, name, "%.*s() comes from a handler module already", (int)name_n,
			     name);
	if (id < 0 && spec->ndyn >= MS_DECL_MAX)
		return dfail(&d, name, "too many declared functions (at most %d in a session)",
			     MS_DECL_MAX);
	/* PARAMS */
	p = skip_ws(open + 1, close);
	if (p < close) {
		const char *q = p;
		int only_void = 0;

		{
			const char *v = skip_ws(p, close);

			only_void = close - v >= 4 && memcmp(v, "void", 4) == 0 &&
				    skip_ws(v + 4, close) == close;
		}
		while (!only_void && q <= close) {
			const char *comma = memchr(q, ',', (size_t)(close - q));
			const char *pe = comma ? comma : close;

			q = skip_ws(q, pe);

			if (n == MS_MAX_PARAMS)
				return dfail(&d, q, "too many parameters (at most 6 integer or pointer "
						    "and 8 double ones)");
			pnames[n] = "";
			r = parse_ctype(&d, q, pe, &ct[n], &pnames[n], &pnames_n[n], NULL);
			if (r)
				return r;
			if (ct[n].t.tclass == MS_T_VOID)
				return dfail(&d, q, "a parameter cannot be void");
			if (pnames_n[n] >= sizeof(((struct ms_param *)0)->name))
				return dfail(&d, pnames[n], "parameter name too long");
			for (unsigned k = 0; k < n; k++)
				if (pnames_n[k] == pnames_n[n] &&
				    memcmp(pnames[k], pnames[n], pnames_n[n]) == 0)
					return dfail(&d, pnames[n], "parameter '%.*s' given twice",
						     (int)pnames_n[n], pnames[n]);
			if (ct[n].t.tclass == MS_T_DOUBLE ? ++ndbl > 8 : ++nint > 6)
				return dfail(&d, q,
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
	{
		/* the normalised declaration: "int" "chef_cook" "(const char *order, ...)" */
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
			return dfail(&d, open, "prototype too long");
		m = dyn_new(spec, ret.t.text, strlen(ret.t.text), name, name_n, params, off);
	}
	if (!m)
		return -ENOMEM;
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

int ms_spec_struct(struct ms_spec *spec, const char *text, size_t len, char *msg, size_t cap,
		   size_t *at)
{
	struct dscan d = { text, msg, cap, at };
	const char *e = text + len, *p = skip_ws(text, e), *tag = p, *body, *end;
	struct ms_field_desc fields[MAX_DECL_FIELDS];
	char names[MAX_DECL_FIELDS][24];
	unsigned nf = 0;
	uint32_t off = 0, align = 1;
	size_t tag_n;
	struct ms_struct_desc *sd;
	char *strings;

	while (p < e && is_id(*p))
		p++;
	tag_n = (size_t)(p - tag);
	if (!tag_n)
		return dfail(&d, tag, "expected the struct's tag: struct NAME { TYPE FIELD; ... }");
	if (tag_n >= sizeof(((struct ms_out_desc *)0)->strct))
		return dfail(&d, tag, "struct tag too long");
	body = skip_ws(p, e);
	if (body >= e || *body != '{')
		return dfail(&d, body, "expected '{' after struct %.*s", (int)tag_n, tag);
	end = e;
	while (end > body && end[-1] != '}')
		end--;
	if (end == body)
		return dfail(&d, body, "'{' without its '}'");
	if (skip_ws(end, e) != e)
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
	while ((p = skip_ws(p, end)) < end) {
		const char *semi = memchr(p, ';', (size_t)(end - p)), *fname;
		size_t fname_n;
		unsigned dims;
		struct ctype ct;
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
			f->size = ct.t.size;
			fa = ct.t.size;
			switch (ct.t.tclass) {
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
				f->min = ct.t.size == 8 ? INT64_MIN : -((int64_t)1 << (8 * ct.t.size - 1));
				f->max = ct.t.size == 8 ? INT64_MAX : ((int64_t)1 << (8 * ct.t.size - 1)) - 1;
				break;
			default:
				f->kind = MS_FD_UINT;
				f->min = ct.t.size == 8 ? INT64_MIN : 0;
				f->max = ct.t.size == 8 ? INT64_MAX : ((int64_t)1 << (8 * ct.t.size)) - 1;
				if (ct.is_bool)
					f->max = 1;
				break;
			}
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
	/* one block: the description, its fields, then the names */
	sd = spec->realloc_fn(NULL, sizeof(*sd) + nf * sizeof(*fields) + tag_n + 1 + nf * 24);
	if (!sd)
		return -ENOMEM;
	memcpy(sd + 1, fields, nf * sizeof(*fields));
	strings = (char *)((struct ms_field_desc *)(sd + 1) + nf);
	memcpy(strings, tag, tag_n);
	strings[tag_n] = '\0';
	sd->name = strings;
	sd->size = off;
	sd->fields = (const struct ms_field_desc *)(sd + 1);
	sd->nfields = nf;
	strings += tag_n + 1;
	for (unsigned k = 0; k < nf; k++) {
		memcpy(strings + 24 * k, names[k], 24);
		((struct ms_field_desc *)(sd + 1))[k].name = strings + 24 * k;
	}
	if (ms_spec_grow(spec, (void **)&spec->structs, &spec->cap_structs, spec->nstructs + 1,
		       sizeof(*spec->structs))) {
		spec->free_fn(sd);
		return -ENOMEM;
	}
	spec->structs[spec->nstructs++] = sd;
	return 0;
}

const struct ms_struct_desc *ms_spec_struct_find(const struct ms_spec *spec, const char *name)
{
	for (uint32_t i = 0; spec && i < spec->nstructs; i++)
		if (strcmp(spec->structs[i]->name, name) == 0)
			return spec->structs[i];
	return ms_struct_find(name);
}
