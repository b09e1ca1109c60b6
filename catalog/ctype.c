/* SPDX-License-Identifier: MIT */
/*
 * The one C type parser and type table (ctype.h).  Linked into the shim
 * too, where catalog rows are parsed on first use: the success path
 * calls nothing but memcpy and memcmp; only an error formats a message.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ctype.h"

static int ctfail(struct ms_ctype_err *d, const char *where, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int ctfail(struct ms_ctype_err *d, const char *where, const char *fmt, ...)
{
	va_list ap;

	if (d->cap) {
		va_start(ap, fmt);
		vsnprintf(d->msg, d->cap, fmt, ap);
		va_end(ap);
	}
	d->where = where;
	return -EINVAL;
}

static int word_is(const char *w, size_t n, const char *s)
{
	return strlen(s) == n && memcmp(w, s, n) == 0;
}

static void set_str(char *dst, size_t cap, const char *s, size_t n)
{
	if (n >= cap)
		n = cap - 1;
	memcpy(dst, s, n);
	dst[n] = '\0';
}

/* The type table (ctype.h's MS_CTYPE_TABLE) for the parser. */
static const struct {
	char name[30];	/* not a pointer: no relocation at load */
	uint8_t tclass, size;
} named_types[] = {
#define X(name, tclass, size) { #name, tclass, size },
	MS_CTYPE_TABLE(X)
#undef X
};

#define TYPES_TAKEN                                                                       \
	"int, long, short, char, unsigned, bool, (u)intN_t, size_t, ssize_t, double, "     \
	"pointers, struct NAME pointers"

/* What the words of a type said, as scan() reads them left to right. */
struct scan {
	const char *start;	/* the first word */
	const char *end;	/* where the scan stopped */
	const char *last;	/* the name after the type, or NULL */
	size_t last_n;
	const char *named;	/* the base type's word ("size_t", "char"), or NULL */
	size_t named_n;
	const char *base_at;	/* where the base type is written */
	unsigned n_long, n_unsigned, n_signed, n_short, n_int;
	int kw;			/* any of long, unsigned, signed, short, int */
	int have_base;		/* a named, struct, union or enum base */
	int want_name;
};

/* `char name[N]` (a field): the length, after the name; p at '['. */
static int scan_dims(struct scan *sc, const char *p, const char *e, unsigned *dims,
		     struct ms_ctype_err *d)
{
	const char *q = ms_ctype_skip_ws(p + 1, e);
	unsigned v = 0;

	if (!dims || !sc->last)
		return ctfail(d, p, "array parameters are not supported: write a pointer");
	while (q < e && *q >= '0' && *q <= '9' && v < 100000)
		v = v * 10 + (unsigned)(*q++ - '0');
	q = ms_ctype_skip_ws(q, e);
	if (!v || q >= e || *q != ']')
		return ctfail(d, p, "expected a length: char %.*s[N]", (int)sc->last_n, sc->last);
	*dims = v;
	q = ms_ctype_skip_ws(q + 1, e);
	if (q < e)
		return ctfail(d, q, "unexpected text after the array length");
	sc->end = q;
	return 0;
}

/* struct TAG, union TAG, enum TAG (w, n: the keyword); *pp after it. */
static int scan_tagged(struct scan *sc, struct ms_ctype *ct, const char *w, size_t n,
		       const char **pp, const char *e, struct ms_ctype_err *d)
{
	const char *p = ms_ctype_skip_ws(*pp, e), *t = p;

	while (p < e && ms_ctype_is_id(*p))
		p++;
	*pp = p;
	if (p == t)
		return ctfail(d, t, "expected the %.*s's tag", (int)n, w);
	if (word_is(w, n, "enum")) {
		/* an enum is an int */
		sc->named = "int";
		sc->named_n = 3;
	} else {
		/* a union is only ever pointed to: opaque */
		ct->is_struct = 1;
		if (word_is(w, n, "struct")) {
			if ((size_t)(p - t) >= sizeof(ct->base))
				return ctfail(d, t, "struct tag too long");
			memcpy(ct->base, t, (size_t)(p - t));
			ct->base[p - t] = '\0';
		}
	}
	sc->have_base = 1;
	sc->base_at = w;
	return 0;
}

/* One word w (n bytes) of the type, in its place. */
static int scan_word(struct scan *sc, struct ms_ctype *ct, const char *w, size_t n,
		     const char **pp, const char *e, struct ms_ctype_err *d)
{
	if (sc->last) {
		/* the previous word was a name after all: only a name
		 * may follow a complete type */
		return ctfail(d, w, "unexpected '%.*s' after '%.*s'", (int)n, w, (int)sc->last_n,
			      sc->last);
	}
	if (word_is(w, n, "const")) {
		ct->konst[ct->depth] = 1;
	} else if (word_is(w, n, "volatile") || word_is(w, n, "restrict") ||
		   word_is(w, n, "__restrict") || word_is(w, n, "extern")) {
		/* nothing the rules see */
	} else if (ct->depth || sc->have_base ||
		   (sc->kw && !word_is(w, n, "char") && !word_is(w, n, "double") &&
		    !word_is(w, n, "long") && !word_is(w, n, "unsigned") &&
		    !word_is(w, n, "signed") && !word_is(w, n, "short") && !word_is(w, n, "int"))) {
		/* after a complete type: the name */
		if (!sc->want_name)
			return ctfail(d, w, "unexpected '%.*s' after the type", (int)n, w);
		sc->last = w;
		sc->last_n = n;
	} else if (word_is(w, n, "long")) {
		sc->n_long++, sc->kw = 1;
	} else if (word_is(w, n, "unsigned")) {
		sc->n_unsigned++, sc->kw = 1;
	} else if (word_is(w, n, "signed")) {
		sc->n_signed++, sc->kw = 1;
	} else if (word_is(w, n, "short")) {
		sc->n_short++, sc->kw = 1;
	} else if (word_is(w, n, "int")) {
		sc->n_int++, sc->kw = 1;
	} else if (word_is(w, n, "struct") || word_is(w, n, "union") || word_is(w, n, "enum")) {
		return scan_tagged(sc, ct, w, n, pp, e, d);
	} else {
		sc->named = w;
		sc->named_n = n;
		sc->have_base = 1;
		sc->base_at = w;
	}
	return 0;
}

/* The words and '*'s of [p, e): what they say goes into *sc and the
 * const-ness and depth into *ct. */
static int scan(struct scan *sc, struct ms_ctype *ct, const char *p, const char *e,
		unsigned *dims, struct ms_ctype_err *d)
{
	sc->start = p = ms_ctype_skip_ws(p, e);
	while (p < e) {
		const char *w;
		int r;

		p = ms_ctype_skip_ws(p, e);
		if (p >= e)
			break;
		if (*p == '*') {
			if (sc->last)
				return ctfail(d, p, "unexpected '*' after the name");
			if (!sc->have_base && !sc->kw)
				return ctfail(d, p, "a '*' before any type");
			if (++ct->depth >= sizeof(ct->konst))
				return ctfail(d, p, "too many '*'");
			p++;
			continue;
		}
		if (*p == '[')
			return scan_dims(sc, p, e, dims, d);
		if (*p == '.' && e - p >= 3 && memcmp(p, "...", 3) == 0)
			return ctfail(d, p, "variadic functions cannot be declared (the stubs "
					    "cannot know what the '...' holds)");
		if (!ms_ctype_is_id(*p) || (*p >= '0' && *p <= '9'))
			return ctfail(d, p, "unexpected character '%c' in a type", *p);
		w = p;
		while (p < e && ms_ctype_is_id(*p))
			p++;
		r = scan_word(sc, ct, w, (size_t)(p - w), &p, e, d);
		if (r)
			return r;
	}
	sc->end = p;
	return 0;
}

/* A base type named by a word of the type table (size_t, FILE, ...). */
static int table_base(const struct scan *sc, struct ms_ctype *ct, unsigned flags,
		      struct ms_ctype_err *d)
{
	size_t i;

	for (i = 0; i < sizeof(named_types) / sizeof(named_types[0]); i++)
		if (word_is(sc->named, sc->named_n, named_types[i].name))
			break;
	if (i == sizeof(named_types) / sizeof(named_types[0])) {
		if (ct->depth && !(flags & MS_CT_STRICT))
			/* a pointer to what we cannot know: opaque */
			ct->base_class = MS_T_PTR;
		else if (flags & MS_CT_STRICT)
			return ctfail(d, sc->base_at,
				      "unknown type '%.*s': add it to the type table (catalog/ctype.h)",
				      (int)sc->named_n, sc->named);
		else
			return ctfail(d, sc->base_at,
				      "unknown type '%.*s' (declared prototypes take " TYPES_TAKEN
				      "; an opaque pointer is void *)",
				      (int)sc->named_n, sc->named);
	} else if (named_types[i].tclass == MS_T_PTR && !named_types[i].size && !ct->depth) {
		return ctfail(d, sc->base_at, "%s is passed by pointer only: write %s *",
			      named_types[i].name, named_types[i].name);
	} else {
		ct->base_class = named_types[i].tclass;
		ct->base_size = named_types[i].size;
		ct->is_bool = named_types[i].name[0] == 'b' || named_types[i].name[0] == '_';
	}
	if (sc->named_n < sizeof(ct->base))
		set_str(ct->base, sizeof(ct->base), sc->named, sc->named_n);
	return 0;
}

/* The type under the '*'s: its class and size. */
static int base_type(const struct scan *sc, struct ms_ctype *ct, unsigned flags,
		     struct ms_ctype_err *d)
{
	const char *named = sc->named;
	size_t named_n = sc->named_n;

	if (sc->kw) {
		if (named && !word_is(named, named_n, "char") && !word_is(named, named_n, "int") &&
		    !word_is(named, named_n, "double"))
			return ctfail(d, sc->start, "'%.*s' does not go with short, long, signed or unsigned",
				      (int)named_n, named);
		if (named && word_is(named, named_n, "double"))
			return ctfail(d, sc->start, "long double is not supported (only double)");
		ct->base_class = sc->n_unsigned ? MS_T_UINT : MS_T_INT;
		ct->base_size = named && word_is(named, named_n, "char") ? 1
				: sc->n_short				      ? 2
				: sc->n_long				      ? 8
									      : 4;
		ct->is_char = ct->base_size == 1;
		set_str(ct->base, sizeof(ct->base), sc->n_unsigned ? "unsigned" : "int",
			sc->n_unsigned ? 8 : 3);
	} else if (ct->is_struct) {
		ct->base_class = MS_T_PTR;
	} else if (word_is(named, named_n, "void")) {
		ct->is_void = 1;
		ct->base_class = MS_T_VOID;
	} else if (word_is(named, named_n, "char")) {
		ct->is_char = 1;
		ct->base_class = MS_CHAR_CLASS;
		ct->base_size = 1;
	} else if (word_is(named, named_n, "double")) {
		ct->is_double = 1;
		ct->base_class = MS_T_DOUBLE;
		ct->base_size = 8;
	} else if (word_is(named, named_n, "float")) {
		return ctfail(d, sc->base_at, "float is not supported (only double)");
	} else if (word_is(named, named_n, "int")) {
		ct->base_class = MS_T_INT;
		ct->base_size = 4;
	} else {
		return table_base(sc, ct, flags, d);
	}
	return 0;
}

/* The text of [s, stop), normalised ("const char *"). */
static void norm_text(char *out, size_t cap, const char *s, const char *stop)
{
	size_t k = 0;

	while (stop > s && (stop[-1] == ' ' || stop[-1] == '\t' || stop[-1] == '\n'))
		stop--;
	for (; s < stop && k + 1 < cap; s++) {
		char c = *s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s;

		if (c == ' ' && (k == 0 || out[k - 1] == ' '))
			continue;
		out[k++] = c;
	}
	out[k] = '\0';
}

/*
 * Parses [p, e) as a C type, with a trailing name when *name is non-NULL
 * on entry (a parameter or a field).  Fills *ct; *name and *name_n are the
 * name's, and *dims the array length of `char name[N]` (fields only).
 */
int ms_ctype_parse(const char *p, const char *e, struct ms_ctype *ct, const char **name,
		   size_t *name_n, unsigned *dims, unsigned flags, struct ms_ctype_err *d)
{
	struct scan sc = { .want_name = name != NULL };
	int r;

	memset(ct, 0, sizeof(*ct));
	if (dims)
		*dims = 0;
	r = scan(&sc, ct, p, e, dims, d);
	if (r)
		return r;
	if (!sc.have_base && !sc.kw)
		return ctfail(d, sc.start, "expected a type");
	if (sc.want_name && !sc.last &&
	    !(ct->depth == 0 && !sc.kw && sc.named && word_is(sc.named, sc.named_n, "void")))
		return ctfail(d, sc.end > sc.start ? sc.end - 1 : sc.start,
			      "expected a name after the type");
	if (name) {
		*name = sc.last;
		*name_n = sc.last_n;
	}
	if (!sc.base_at)
		sc.base_at = sc.start;
	r = base_type(&sc, ct, flags, d);
	if (r)
		return r;
	/* the type as the rules see it */
	if (ct->depth == 1 && ct->is_char) {
		ct->t.tclass = MS_T_STR;
		ct->t.size = 8;
	} else if (ct->depth) {
		ct->t.tclass = MS_T_PTR;
		ct->t.size = 8;
		if (ct->depth == 1 && ct->is_struct)
			set_str(ct->t.strct, sizeof(ct->t.strct), ct->base, strlen(ct->base));
	} else if (ct->is_struct) {
		return ctfail(d, sc.base_at, "a struct is passed or returned by value: not supported "
					     "(only through a pointer)");
	} else {
		ct->t.tclass = ct->base_class;
		ct->t.size = ct->base_size;
	}
	norm_text(ct->t.text, sizeof(ct->t.text), sc.start, sc.last ? sc.last : sc.end);
	return 0;
}

