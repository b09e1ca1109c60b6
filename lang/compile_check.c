/* SPDX-License-Identifier: MIT */
/*
 * The compiler's checks (compile_check.h): expect_*(FN, PARAM, ...), the call
 * order (expect_function_call(s), ignore_function_calls, expect_no_call)
 * and when()'s conditions, which every statement takes.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "compile_check.h"
#include "lang.h"
#include "catalog/catalog.h"

/* ---- when(PARAM OP VALUE, ...) ---- */

/* A condition as written, and what its parameter is. */
struct cond_in {
	const struct ms_cond_src *cs;
	const struct ms_val *v;
	const char *op;
	const struct ms_param *p;
	int isint, isstr, isfd, isaddr, isfile, out;
};

/* An integer parameter that holds a file descriptor: ~ matches its path. */
static int is_fd_param(const struct ms_param *p)
{
	size_t n = strlen(p->name);

	return n >= 2 && ((p->name[n - 2] == 'f' && p->name[n - 1] == 'd') ||
			  strncmp(p->name, "fd_", 3) == 0);
}

/* == and !=: integers, strings, addresses, NULL. */
static int cond_eq(struct ms_parser *ps, const struct cond_in *k, struct ms_cond *c)
{
	const struct ms_val *v = k->v;
	const struct ms_param *p = k->p;
	int eq = k->op[0] == '=';

	if (v->kind == V_NULL && !k->isint) {
		c->op = eq ? MS_C_ISNULL : MS_C_NOTNULL;
		c->arg = k->isaddr ? MS_CA_ADDR : MS_CA_STR;
	} else if (v->kind == V_STR && (k->isstr || k->isaddr)) {
		c->op = eq ? MS_C_STREQ : MS_C_STRNE;
		c->arg = k->isaddr ? MS_CA_ADDR : MS_CA_STR;
		c->str = v->str;
	} else if (k->isint && (v->kind == V_INT || v->kind == V_BOOL)) {
		if (ms_check_int_range(ps, v, &p->type, "value"))
			return -1;
		c->op = eq ? MS_C_EQ : MS_C_NE;
		c->value = v->i;
	} else if (k->isint) {
		return ms_fail_at(&ps->lx, v->line, v->col, "'%s' is %s: %s takes an integer, not %s",
				  p->name, p->type.text, k->op, ms_val_kind_name(v->kind));
	} else {
		return ms_fail_at(&ps->lx, v->line, v->col, "'%s' is %s%s: %s takes %s or NULL, not %s",
				  p->name, p->type.text, k->out ? " (an output)" : "", k->op,
				  k->isstr || k->isaddr ? "a string" : "NULL", ms_val_kind_name(v->kind));
	}
	return 0;
}

/* < <= > >=: integers. */
static int cond_order(struct ms_parser *ps, const struct cond_in *k, struct ms_cond *c)
{
	const struct ms_val *v = k->v;
	const struct ms_param *p = k->p;
	const char *op = k->op;

	if (!k->isint)
		return ms_fail_at(&ps->lx, k->cs->op_line, k->cs->op_col,
				  "'%s' compares integers; '%s' is %s", op, p->name, p->type.text);
	if (v->kind != V_INT)
		return ms_fail_at(&ps->lx, v->line, v->col, "'%s' takes an integer, not %s", op,
				  ms_val_kind_name(v->kind));
	if (ms_check_int_range(ps, v, &p->type, "value"))
		return -1;
	if (p->type.tclass == MS_T_UINT && v->i < 0)
		return ms_fail_at(&ps->lx, v->line, v->col, "'%s' is %s: no value of it is %s %lld",
				  p->name, p->type.text, op, (long long)v->i);
	c->op = !strcmp(op, "<") ? MS_C_LT : !strcmp(op, "<=") ? MS_C_LE : !strcmp(op, ">") ? MS_C_GT
												: MS_C_GE;
	c->value = v->i;
	return 0;
}

/* ~ and !~: strings, an fd's path (a FILE *'s through its fd), a socket
 * address. */
static int cond_glob(struct ms_parser *ps, const struct cond_in *k, struct ms_cond *c)
{
	const struct ms_val *v = k->v;
	const struct ms_param *p = k->p;

	if (!k->isstr && !k->isfd && !k->isaddr && !k->isfile)
		return ms_fail_at(&ps->lx, k->cs->op_line, k->cs->op_col,
				  "'%s' matches strings, fd and FILE * parameters by their path and "
				  "socket addresses; '%s' is %s%s",
				  k->op, p->name, p->type.text,
				  k->out ? ", an output of the call" : k->isint ? ", not an fd" : "");
	if (v->kind != V_STR)
		return ms_fail_at(&ps->lx, v->line, v->col, "'%s' takes a glob string, not %s", k->op,
				  ms_val_kind_name(v->kind));
	c->op = k->op[0] == '~' ? MS_C_GLOB : MS_C_NOGLOB;
	c->arg = k->isstr ? MS_CA_STR : k->isfd ? MS_CA_FD : k->isfile ? MS_CA_FILE : MS_CA_ADDR;
	c->str = v->str;
	c->gform = (uint8_t)ms_glob_form(ps->spec->pool + v->str, &c->glen);
	return 0;
}

/* & and !(... & ...): the bits of an integer. */
static int cond_bits(struct ms_parser *ps, const struct cond_in *k, struct ms_cond *c)
{
	if (!k->isint)
		return ms_fail_tok(&ps->lx, &k->cs->param, "'&' tests the bits of an integer; '%s' is %s",
				   k->p->name, k->p->type.text);
	if (k->v->kind != V_INT)
		return ms_fail_at(&ps->lx, k->v->line, k->v->col, "'&' takes flags, not %s",
				  ms_val_kind_name(k->v->kind));
	c->op = k->op[0] == '&' ? MS_C_ANYBITS : MS_C_NOBITS;
	c->value = k->v->i;
	return 0;
}

/* in {A, B}: an integer in a set. */
static int cond_set(struct ms_parser *ps, const struct cond_in *k, struct ms_cond *c)
{
	const struct ms_val *v = k->v;
	int64_t set[MAX_FIELDS];

	if (!k->isint)
		return ms_fail_at(&ps->lx, k->cs->op_line, k->cs->op_col,
				  "'in' tests an integer against a set; '%s' is %s", k->p->name,
				  k->p->type.text);
	if (v->kind != V_STRUCT || !v->nfields)
		return ms_fail_at(&ps->lx, v->line, v->col, "'in' takes a set: {A, B, ...}");
	for (unsigned i = 0; i < v->nfields; i++) {
		const struct ms_val *e = v->fields[i].v;

		if (v->fields[i].name || (e->kind != V_INT && e->kind != V_BOOL))
			return ms_fail_at(&ps->lx, e->line, e->col, "a set holds integers, not %s",
					  v->fields[i].name ? "a named field" : ms_val_kind_name(e->kind));
		if (ms_check_int_range(ps, e, &k->p->type, "value"))
			return -1;
		set[i] = e->i;
	}
	c->op = MS_C_IN;
	c->nset = v->nfields;
	return ms_pool_store(ps, set, 8 * v->nfields, &c->set);
}

/* One condition of function m (list: its parameters, for messages). */
static int compile_cond(struct ms_parser *ps, const struct ms_cond_src *cs, const struct ms_fn_meta *m,
			const char *list, struct ms_cond *c)
{
	int pi = ms_catalog_param(m, cs->param.s, cs->param.n);
	const struct ms_param *p;
	struct cond_in k = { .cs = cs, .v = &cs->v, .op = cs->op };

	memset(c, 0, sizeof(*c));
	if (pi < 0)
		return ms_fail_tok(&ps->lx, &cs->param, "%s() has no parameter '%.*s' (parameters: %s)",
				   m->name, (int)cs->param.n, cs->param.s, list);
	if (k.v->kind == V_IDENT)
		return ms_unknown_name(ps, k.v);
	p = k.p = &m->params[pi];
	k.out = ms_find_out(m, pi) != NULL;
	k.isint = ms_is_int_class(&p->type);
	k.isstr = p->type.tclass == MS_T_STR && !k.out;
	k.isfd = k.isint && is_fd_param(p);
	k.isaddr = p->type.tclass == MS_T_PTR && !k.out && strstr(p->type.text, "sockaddr");
	k.isfile = p->type.tclass == MS_T_PTR && !k.out && !strcmp(p->type.text, "FILE *");
	c->param = (uint8_t)pi;
	c->psize = k.isint && (p->type.size == 1 || p->type.size == 2 || p->type.size == 4)
			   ? p->type.size : 8;
	c->psigned = p->type.tclass == MS_T_INT;
	if (p->type.tclass == MS_T_DOUBLE)
		return ms_fail_tok(&ps->lx, &cs->param,
				   "'%s' is a double: when() tests integers, strings, fds and addresses",
				   p->name);
	if (!strcmp(k.op, "==") || !strcmp(k.op, "!="))
		return cond_eq(ps, &k, c);
	if (k.op[0] == '<' || k.op[0] == '>')
		return cond_order(ps, &k, c);
	if (k.op[0] == '~' || !strcmp(k.op, "!~"))
		return cond_glob(ps, &k, c);
	if (!strcmp(k.op, "&") || !strcmp(k.op, "!&"))
		return cond_bits(ps, &k, c);
	return cond_set(ps, &k, c);
}

int ms_compile_conds(struct ms_parser *ps, const struct ms_src_stmt *st, const struct ms_fn_meta *m,
		     struct ms_stmt *hdr)
{
	struct ms_spec *spec = ps->spec;
	char list[200];

	hdr->cond_first = spec->nconds;
	hdr->ncond = 0;
	if (!st->has_when)
		return 0;
	if (m->handler)
		return ms_fail_at(&ps->lx, st->when_line, st->when_col,
				  "%s() comes from a handler module: the shim never sees its arguments, "
				  "so when() cannot test them (test them in the handler)",
				  m->name);
	ms_param_list(m, list, sizeof(list));
	for (unsigned i = 0; i < st->nconds; i++) {
		struct ms_cond c;

		if (compile_cond(ps, &st->conds[i], m, list, &c))
			return -1;
		if (ms_append(ps, (void **)&spec->conds, &spec->nconds, &spec->cap_conds, &c, sizeof(c)))
			return -1;
	}
	hdr->ncond = st->nconds;
	return 0;
}

/* ---- at="SITE" ---- */

/* "OBJ+0xHEX": 1 with the object's length and the offset; 0: not that
 * form (a name for the resolver); -1: that form, misspelt. */
static int site_offset_form(const char *t, size_t n, size_t *objn, uint64_t *off)
{
	const char *plus = memchr(t, '+', n);
	size_t k, digits = 0;
	uint64_t v = 0;

	if (!plus)
		return 0;
	*objn = (size_t)(plus - t);
	k = *objn + 1;
	if (k + 2 > n || t[k] != '0' || (t[k + 1] != 'x' && t[k + 1] != 'X'))
		return -1;
	for (k += 2; k < n; k++, digits++) {
		char ch = t[k];
		unsigned d = ch >= '0' && ch <= '9'   ? (unsigned)(ch - '0')
			     : ch >= 'a' && ch <= 'f' ? (unsigned)(ch - 'a' + 10)
			     : ch >= 'A' && ch <= 'F' ? (unsigned)(ch - 'A' + 10)
						      : 16u;

		if (d == 16 || digits >= 16)
			return -1;
		v = v << 4 | d;
	}
	if (!digits || !*objn || memchr(t, '/', *objn))
		return -1;
	*off = v;
	return 1;
}

static int store_ranges(struct ms_parser *ps, const struct ms_arg *a, const struct ms_site_range *r,
			unsigned n, struct ms_cond *c)
{
	struct ms_site_rng g[MS_AT_RANGES_MAX];

	for (unsigned i = 0; i < n; i++) {
		const char *obj = r[i].object ? r[i].object : "";
		const char *base = strrchr(obj, '/');

		base = base ? base + 1 : obj;
		memset(&g[i], 0, sizeof(g[i]));
		g[i].lo = r[i].lo;
		g[i].hi = r[i].hi;
		if (!*base || r[i].lo > r[i].hi)
			return ms_fail_at(&ps->lx, a->v.line, a->v.col,
					  "at=: the resolver gave an empty object or range");
		if (ms_pool_store(ps, base, strlen(base), &g[i].object))
			return -1;
	}
	c->nset = n;
	if (!n) {
		c->set = 0;
		return 0;
	}
	return ms_pool_store(ps, g, n * sizeof(g[0]), &c->set);
}

int ms_compile_at(struct ms_parser *ps, const struct ms_compiling *c, struct ms_stmt *hdr)
{
	const struct ms_arg *a = c->at;
	struct ms_spec *spec = ps->spec;
	struct ms_site_range r[MS_AT_RANGES_MAX];
	struct ms_cond k;
	const char *t;
	char text[512], msg[256];
	unsigned n = 0;
	size_t objn;
	uint64_t off;
	int form;

	if (!a)
		return 0;
	if (a->v.kind != V_STR || a->v.len == 0)
		return ms_fail_at(&ps->lx, a->v.line, a->v.col,
				  "at= needs a call site as a string: \"OBJ+0xHEX\", a function "
				  "or \"FILE:LINE\", not %s",
				  ms_val_kind_name(a->v.kind));
	if (c->m->syscall)
		return ms_fail_at(&ps->lx, a->line, a->col,
				  "at= names the program's code that makes a call: a system call "
				  "the supervisor answers has no site it can tell; use in= or when()");
	if (c->m->handler)
		return ms_fail_at(&ps->lx, a->line, a->col,
				  "%s() comes from a handler module: the shim does not see its "
				  "calls' sites (test them in the handler)",
				  c->m->name);
	t = spec->pool + a->v.str;
	if (a->v.len >= sizeof(text) || memchr(t, '\0', a->v.len))
		return ms_fail_at(&ps->lx, a->v.line, a->v.col, "at= is too long or holds a NUL");
	memcpy(text, t, a->v.len);
	text[a->v.len] = '\0';
	memset(&k, 0, sizeof(k));
	k.op = MS_C_IN;
	k.arg = MS_CA_SITE;
	k.param = MS_SITE_PARAM;
	form = site_offset_form(text, a->v.len, &objn, &off);
	if (form < 0)
		return ms_fail_at(&ps->lx, a->v.line, a->v.col,
				  "at=\"%s\" is not a call site: write at=\"OBJ+0xHEX\" (an object's "
				  "basename and a return address's offset in it, as --trace shows "
				  "them: \"cat+0x4a2b\"), a function name or \"FILE:LINE\"",
				  text);
	if (form > 0) {
		text[objn] = '\0';
		r[0].object = text;
		r[0].lo = r[0].hi = off;
		n = 1;
	} else if (!spec->at_fn) {
		return ms_fail_at(&ps->lx, a->v.line, a->v.col,
				  "at=\"%s\" names a function or a line, which needs the "
				  "symbolizer, not available here: write at=\"OBJ+0xHEX\" (--trace "
				  "shows each call's site)",
				  text);
	} else {
		int rc;

		msg[0] = '\0';
		rc = spec->at_fn(spec->at_ctx, text, r, MS_AT_RANGES_MAX, &n, msg, sizeof(msg));
		if (rc < 0 || n > MS_AT_RANGES_MAX)
			return ms_fail_at(&ps->lx, a->v.line, a->v.col, "at=\"%s\": %s", text,
					  msg[0] ? msg : "cannot be resolved");
	}
	if (store_ranges(ps, a, r, n, &k))
		return -1;
	if (ms_append(ps, (void **)&spec->conds, &spec->nconds, &spec->cap_conds, &k, sizeof(k)))
		return -1;
	hdr->ncond++;
	return 0;
}

/* ---- expect_*(FN, PARAM, ...) ---- */

/* expect_value, expect_not_value: VALUE as the parameter holds it. */
static int expect_value(struct ms_parser *ps, const struct ms_param *p, const struct ms_val *v,
			struct ms_expect *x)
{
	if (p->type.tclass == MS_T_DOUBLE) {
		/* compared bit for bit: 0.1 is what the program's 0.1 is */
		if (ms_double_bits(ps, v, p->name, 0, &x->lo))
			return -1;
	} else if (ms_is_int_class(&p->type)) {
		if (v->kind != V_INT && v->kind != V_BOOL)
			return ms_fail_at(&ps->lx, v->line, v->col,
					  "'%s' is %s: expected an integer, not %s", p->name,
					  p->type.text, ms_val_kind_name(v->kind));
		if (ms_check_int_range(ps, v, &p->type, "value"))
			return -1;
		x->lo = v->i;
	} else if (v->kind == V_NULL) {
		x->lo = 0;
	} else if (v->kind == V_INT) {
		x->lo = v->i;
	} else {
		return ms_fail_at(&ps->lx, v->line, v->col,
				  "'%s' is %s: expected NULL or an address, not %s%s", p->name,
				  p->type.text, ms_val_kind_name(v->kind),
				  v->kind == V_STR ? " (use expect_string or expect_memory)" : "");
	}
	return 0;
}

/* expect_check: a check function of a handler module, by its name, and
 * its data (an integer, or a string passed as a pointer). */
static int expect_check(struct ms_parser *ps, const struct ms_compiling *c, struct ms_expect *x)
{
	const struct ms_val *fv = &c->pos[1]->v;
	const struct ms_val *dv = c->npos > 2 && !(c->sk->count == 0 && c->npos == 3) ? &c->pos[2]->v
										       : NULL;
	char name[128];

	if (c->m->syscall)
		return ms_fail_tok(&ps->lx, &c->st->name,
				   "%.*s runs a check function of a handler module in the process; "
				   "a system call is checked by mockrun's supervisor, which has none",
				   (int)c->st->name.n, c->st->name.s);
	if (fv->kind != V_IDENT || fv->name_n >= sizeof(name))
		return ms_fail_at(&ps->lx, fv->line, fv->col,
				  "expected the name of a check function a handler module exports "
				  "(int NAME(uintmax_t value, uintmax_t data)), not %s",
				  ms_val_kind_name(fv->kind));
	memcpy(name, fv->name, fv->name_n);
	name[fv->name_n] = '\0';
	x->len = (uint32_t)fv->name_n + 1;
	if (ms_pool_store(ps, name, x->len, &x->data))
		return -1;
	if (!dv || dv->kind == V_NULL)
		x->lo = 0;
	else if (dv->kind == V_INT || dv->kind == V_BOOL)
		x->lo = dv->i;
	else if (dv->kind == V_STR) {
		x->lo = dv->str;
		x->hi = 1;
	} else
		return ms_fail_at(&ps->lx, dv->line, dv->col,
				  "the check function's data is an integer or a string, not %s",
				  ms_val_kind_name(dv->kind));
	return 0;
}

/* expect_string, expect_memory and their nots: the bytes (and SIZE). */
static int expect_bytes(struct ms_parser *ps, const struct ms_compiling *c, const struct ms_param *p,
			struct ms_expect *x)
{
	const struct ms_val *pv = &c->pos[0]->v, *v = &c->pos[1]->v;

	if (ms_is_int_class(&p->type))
		return ms_fail_at(&ps->lx, pv->line, pv->col,
				  "'%s' is %s, not a pointer: use expect_value", p->name, p->type.text);
	if (v->kind != V_STR)
		return ms_fail_at(&ps->lx, v->line, v->col, "expected a string, not %s",
				  ms_val_kind_name(v->kind));
	x->data = v->str;
	x->len = v->len;
	if (x->kind == MS_X_STRING || x->kind == MS_X_NOT_STRING) {
		if (memchr(ps->spec->pool + v->str, '\0', v->len))
			return ms_fail_at(&ps->lx, v->line, v->col,
					  "the string has a NUL byte: use expect_memory");
		if (v->len >= MS_STRING_BOUND)
			return ms_fail_at(&ps->lx, v->line, v->col, "strings are compared up to %d bytes",
					  MS_STRING_BOUND - 1);
	} else {
		const struct ms_val *n = &c->pos[2]->v;

		if (n->kind != V_INT || n->i < 1 || n->i > (int64_t)v->len)
			return ms_fail_at(&ps->lx, n->line, n->col,
					  "SIZE must be 1..%u, the length of the bytes given", v->len);
		x->len = (uint32_t)n->i;
	}
	return 0;
}

/* expect_in_range, expect_not_in_range: MIN and MAX. */
static int expect_range(struct ms_parser *ps, const struct ms_compiling *c, const struct ms_param *p,
			struct ms_expect *x)
{
	const struct ms_val *pv = &c->pos[0]->v, *v = &c->pos[1]->v, *hi = &c->pos[2]->v;

	if (!ms_is_int_class(&p->type))
		return ms_fail_at(&ps->lx, pv->line, pv->col, "'%s' is %s, not an integer", p->name,
				  p->type.text);
	if (v->kind != V_INT || hi->kind != V_INT)
		return ms_fail_at(&ps->lx, (v->kind != V_INT ? v : hi)->line,
				  (v->kind != V_INT ? v : hi)->col, "MIN and MAX must be integers");
	if (ms_check_int_range(ps, v, &p->type, "MIN") || ms_check_int_range(ps, hi, &p->type, "MAX"))
		return -1;
	if (v->i > hi->i)
		return ms_fail_at(&ps->lx, v->line, v->col, "MIN %lld is greater than MAX %lld",
				  (long long)v->i, (long long)hi->i);
	x->lo = v->i;
	x->hi = hi->i;
	return 0;
}

/* expect_in_set, expect_not_in_set: the set, in the pool. */
static int expect_set(struct ms_parser *ps, const struct ms_param *p, const struct ms_val *v,
		      struct ms_expect *x)
{
	int64_t vals[MAX_FIELDS];

	if (v->kind != V_STRUCT || v->nfields == 0)
		return ms_fail_at(&ps->lx, v->line, v->col, "expected a set of integers {A, B, ...}");
	for (unsigned k = 0; k < v->nfields; k++) {
		const struct ms_field *f = &v->fields[k];

		if (f->name)
			return ms_fail_at(&ps->lx, f->line, f->col, "a set has no field names");
		if (f->v->kind == V_NULL && !ms_is_int_class(&p->type)) {
			vals[k] = 0;
			continue;
		}
		if (f->v->kind != V_INT && f->v->kind != V_BOOL)
			return ms_fail_at(&ps->lx, f->v->line, f->v->col,
					  "set members must be integers, not %s",
					  ms_val_kind_name(f->v->kind));
		if (ms_is_int_class(&p->type) && ms_check_int_range(ps, f->v, &p->type, "set member"))
			return -1;
		vals[k] = f->v->i;
	}
	x->len = v->nfields;
	return ms_pool_store(ps, vals, v->nfields * sizeof(vals[0]), &x->data);
}

int ms_compile_expect(struct ms_parser *ps, const struct ms_compiling *c)
{
	struct ms_spec *spec = ps->spec;
	const struct ms_fn_meta *m = c->m;
	const struct ms_stmt_kind *sk = c->sk;
	const struct ms_val *pv = &c->pos[0]->v, *v = c->npos > 1 ? &c->pos[1]->v : NULL;
	const struct ms_param *p;
	struct ms_expect x;
	char list[200];
	int pi, r = 0;

	memset(&x, 0, sizeof(x));
	ms_param_list(m, list, sizeof(list));
	if (pv->kind != V_IDENT)
		return ms_fail_at(&ps->lx, pv->line, pv->col,
				  "expected a parameter name of %s() (parameters: %s)", m->name, list);
	pi = ms_catalog_param(m, pv->name, pv->name_n);
	if (pi < 0)
		return ms_fail_at(&ps->lx, pv->line, pv->col,
				  "%s() has no parameter '%.*s' (parameters: %s)", m->name,
				  (int)pv->name_n, pv->name, list);
	p = &m->params[pi];
	x.stmt = c->r.stmt;
	x.kind = (uint8_t)sk->kind;
	x.param = (uint8_t)pi;
	x.psize = p->type.size == 4 || p->type.size == 2 || p->type.size == 1 ? p->type.size : 8;
	x.psigned = p->type.tclass == MS_T_INT;
	x.delay_us = (uint32_t)(c->r.delay_ns / 1000);
	if (sk->count == 0 && ms_parse_count(ps, &c->pos[c->npos - 1]->v, 1, &x.stmt.count))
		return -1;
	if (p->type.tclass == MS_T_DOUBLE && sk->kind != MS_X_VALUE && sk->kind != MS_X_NOT_VALUE &&
	    sk->kind != MS_X_ANY && sk->kind != MS_X_CHECK)
		return ms_fail_at(&ps->lx, pv->line, pv->col,
				  "'%s' is a double: expect_value, expect_not_value and expect_any "
				  "take it",
				  p->name);
	if (sk->kind == MS_X_VALUE || sk->kind == MS_X_NOT_VALUE)
		r = expect_value(ps, p, v, &x);
	else if (sk->kind >= MS_X_STRING && sk->kind <= MS_X_NOT_MEMORY)
		r = expect_bytes(ps, c, p, &x);
	else if (sk->kind == MS_X_RANGE || sk->kind == MS_X_NOT_RANGE)
		r = expect_range(ps, c, p, &x);
	else if (sk->kind == MS_X_SET || sk->kind == MS_X_NOT_SET)
		r = expect_set(ps, p, v, &x);
	else if (sk->kind == MS_X_CHECK)
		r = expect_check(ps, c, &x);
	if (r)
		return -1;
	return ms_append(ps, (void **)&spec->expects, &spec->nexpects, &spec->cap_expects, &x,
			 sizeof(x));
}

/* ---- the call order ---- */

int ms_compile_order(struct ms_parser *ps, const struct ms_compiling *c)
{
	struct ms_spec *spec = ps->spec;
	struct ms_order o;

	memset(&o, 0, sizeof(o));
	o.stmt = c->r.stmt;
	o.kind = c->sk->kind;
	if (c->sk->count == 0 && ms_parse_count(ps, &c->pos[c->npos - 1]->v, 0, &o.stmt.count))
		return -1;
	return ms_append(ps, (void **)&spec->orders, &spec->norders, &spec->cap_orders, &o,
			 sizeof(o));
}
