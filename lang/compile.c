/* SPDX-License-Identifier: MIT */
/*
 * The statement compiler (compile.h): the kinds of statement, the header
 * every statement opens with (struct ms_stmt), the options, and replies
 * (will_return*, will_fail*, will_call_real).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "compile.h"
#include "compile_check.h"
#include "compile_out.h"
#include "declare.h"
#include "catalog/catalog.h"

/* a name and its length, for ms_find_stmt_kind */
#define K(name) name, sizeof(name) - 1
static const struct ms_stmt_kind stmt_kinds[] = {
	{ K("will_return"), ST_RULE, MS_R_RETURN, 1, 1, 1, "will_return(FN, VALUE [, OUT=...] [, OPTION=...])" },
	{ K("will_return_count"), ST_RULE, MS_R_RETURN, 0, 2, 2, "will_return_count(FN, VALUE, COUNT [, ...])" },
	{ K("will_return_always"), ST_RULE, MS_R_RETURN, MS_COUNT_ALWAYS, 1, 1, "will_return_always(FN, VALUE [, ...])" },
	{ K("will_return_maybe"), ST_RULE, MS_R_RETURN, MS_COUNT_MAYBE, 1, 1, "will_return_maybe(FN, VALUE [, ...])" },
	{ K("will_fail"), ST_RULE, MS_R_FAIL, 1, 0, 1, "will_fail(FN [, ERR] [, ...])" },
	{ K("will_fail_count"), ST_RULE, MS_R_FAIL, 0, 2, 2, "will_fail_count(FN, ERR, COUNT [, ...])" },
	{ K("will_call_real"), ST_RULE, MS_R_REAL, 1, 0, 1, "will_call_real(FN [, COUNT] [, ...])" },
	{ K("will_hold"), ST_RULE, MS_R_HOLD, 1, 0, 1, "will_hold(FN, name=\"NAME\" [, COUNT] [, ...])" },
	{ K("will_signal"), ST_RULE, MS_R_SIGNAL, 1, 1, 2, "will_signal(FN, SIG [, COUNT] [, ...])" },
	/* a turn taken as will_call_real's, at which the power goes out
	 * (MS_RF_POWER) before the call runs */
	{ K("power_loss"), ST_RULE, MS_R_REAL, 1, 0, 1, "power_loss(FN [, COUNT], paths=\"GLOB\" [, mode=MODE] [, ...])" },
#define X(name, kind, n, args)                                                              \
	{ K(name), ST_EXPECT, kind, 1, n, n, name "(FN, PARAM" args ")" },                      \
	{ K(name "_count"), ST_EXPECT, kind, 0, n + 1, n + 1, name "_count(FN, PARAM" args ", COUNT)" },
	X("expect_value", MS_X_VALUE, 2, ", VALUE")
	X("expect_not_value", MS_X_NOT_VALUE, 2, ", VALUE")
	X("expect_string", MS_X_STRING, 2, ", STRING")
	X("expect_not_string", MS_X_NOT_STRING, 2, ", STRING")
	X("expect_memory", MS_X_MEMORY, 3, ", BYTES, SIZE")
	X("expect_not_memory", MS_X_NOT_MEMORY, 3, ", BYTES, SIZE")
	X("expect_in_range", MS_X_RANGE, 3, ", MIN, MAX")
	X("expect_not_in_range", MS_X_NOT_RANGE, 3, ", MIN, MAX")
	X("expect_in_set", MS_X_SET, 2, ", {A, B, ...}")
	X("expect_not_in_set", MS_X_NOT_SET, 2, ", {A, B, ...}")
	X("expect_any", MS_X_ANY, 1, "")
	{ K("expect_function_call"), ST_ORDER, MS_ORD_CALL, 1, 0, 0, "expect_function_call(FN)" },
	{ K("expect_function_calls"), ST_ORDER, MS_ORD_CALL, 0, 1, 1, "expect_function_calls(FN, COUNT)" },
	{ K("ignore_function_calls"), ST_ORDER, MS_ORD_IGNORE, 1, 0, 0, "ignore_function_calls(FN)" },
	{ K("expect_no_call"), ST_ORDER, MS_ORD_NO_CALL, 1, 0, 0, "expect_no_call(FN)" },
	/*
	 * CMocka's other spellings (cmocka 1.1 and 2.0), each one of the
	 * kinds above with CMocka's meaning: the store, the channel and the
	 * shim see only the kind; the report quotes the statement as the
	 * user wrote it.  doc/mockrun.1 has the table ("CMocka's names").
	 */
	/* a check function of a handler module: int NAME(uintmax_t value,
	 * uintmax_t data), non-zero when the parameter passes */
	{ K("expect_check"), ST_EXPECT, MS_X_CHECK, 1, 2, 3, "expect_check(FN, PARAM, CHECKFN [, DATA])" },
	{ K("expect_check_count"), ST_EXPECT, MS_X_CHECK, 0, 4, 4, "expect_check_count(FN, PARAM, CHECKFN, DATA, COUNT)" },
	{ K("expect_check_data"), ST_EXPECT, MS_X_CHECK, 1, 3, 3, "expect_check_data(FN, PARAM, CHECKFN, DATA)" },
	{ K("expect_check_data_count"), ST_EXPECT, MS_X_CHECK, 0, 4, 4, "expect_check_data_count(FN, PARAM, CHECKFN, DATA, COUNT)" },
	{ K("expect_any_always"), ST_EXPECT, MS_X_ANY, MS_COUNT_ALWAYS, 1, 1, "expect_any_always(FN, PARAM)" },
	/* one or more calls, at its place in the sequence */
	{ K("expect_function_call_any"), ST_ORDER, MS_ORD_CALL, MS_COUNT_ALWAYS, 0, 0, "expect_function_call_any(FN)" },
	/* 2.0's typed expectations: the prototype types the parameter */
#define TYPED(what, kind, n, args) X("expect_int_" what, kind, n, args) X("expect_uint_" what, kind, n, args)
	TYPED("value", MS_X_VALUE, 2, ", VALUE")
	TYPED("not_value", MS_X_NOT_VALUE, 2, ", VALUE")
	TYPED("in_range", MS_X_RANGE, 3, ", MIN, MAX")
	TYPED("not_in_range", MS_X_NOT_RANGE, 3, ", MIN, MAX")
	TYPED("in_set", MS_X_SET, 2, ", {A, B, ...}")
	TYPED("not_in_set", MS_X_NOT_SET, 2, ", {A, B, ...}")
#undef TYPED
#undef X
	/* 2.0's typed replies: the prototype types the value */
#define X(type)                                                                                  \
	{ K("will_return_" type), ST_RULE, MS_R_RETURN, 1, 1, 1, "will_return_" type "(FN, VALUE [, ...])" }, \
	{ K("will_return_" type "_count"), ST_RULE, MS_R_RETURN, 0, 2, 2,                        \
	  "will_return_" type "_count(FN, VALUE, COUNT [, ...])" },                              \
	{ K("will_return_" type "_always"), ST_RULE, MS_R_RETURN, MS_COUNT_ALWAYS, 1, 1,         \
	  "will_return_" type "_always(FN, VALUE [, ...])" },                                    \
	{ K("will_return_" type "_maybe"), ST_RULE, MS_R_RETURN, MS_COUNT_MAYBE, 1, 1,           \
	  "will_return_" type "_maybe(FN, VALUE [, ...])" },
	X("int") X("uint") X("ptr") X("float") X("double")
#undef X
};
#undef K

/* CMocka's names that have no mockshim statement, by prefix: what the
 * user writes instead, after "unknown statement". */
static const struct {
	const char *prefix, *hint;
} cmocka_hints[] = {
	{ "expect_float", "CMocka 2.0 compares within an epsilon; mockshim compares a double "
			  "bit for bit: expect_value" },
	{ "expect_double", "CMocka 2.0 compares within an epsilon; mockshim compares a double "
			   "bit for bit: expect_value" },
	{ "expect_not_float", "CMocka 2.0 compares within an epsilon; mockshim compares a "
			      "double bit for bit: expect_not_value" },
	{ "expect_not_double", "CMocka 2.0 compares within an epsilon; mockshim compares a "
			       "double bit for bit: expect_not_value" },
	{ "will_set_parameter", "CMocka 2.0's output of a handler: give the output on the reply, "
				"will_return(FN, VALUE, PARAM=...)" },
	{ "will_set_errno", "CMocka 2.0's: give errno=E on will_return, or will_fail(FN, E)" },
	{ "will_return_ptr_type", "CMocka 2.0's: use will_return_ptr(FN, VALUE)" },
	{ "expect_assert_failure", "CMocka's check of a mock_assert() in the test program: a "
				   "program run whole has none" },
};

const struct ms_stmt_kind *ms_find_stmt_kind(struct ms_parser *ps, const struct ms_tok *name)
{
	for (size_t i = 0; i < sizeof(stmt_kinds) / sizeof(stmt_kinds[0]); i++) {
		const struct ms_stmt_kind *k = &stmt_kinds[i];

		/* lengths first: no strlen of every kind's name per statement */
		if (k->len == name->n && name->type == T_IDENT && memcmp(k->name, name->s, k->len) == 0)
			return &stmt_kinds[i];
	}
	for (size_t i = 0; name->type == T_IDENT && i < sizeof(cmocka_hints) / sizeof(cmocka_hints[0]);
	     i++) {
		size_t n = strlen(cmocka_hints[i].prefix);

		if (name->n >= n && memcmp(name->s, cmocka_hints[i].prefix, n) == 0) {
			ms_fail_tok(&ps->lx, name, "unknown statement '%.*s' (%s)", (int)name->n,
				    name->s, cmocka_hints[i].hint);
			return NULL;
		}
	}
	ms_fail_tok(&ps->lx, name, "unknown statement '%.*s'", (int)name->n, name->s);
	return NULL;
}

/* The function FN names (a SYS_ name is declared on first use): its id,
 * c->m its metadata; -1 with the error set. */
static int resolve_fn(struct ms_parser *ps, struct ms_compiling *c)
{
	const struct ms_src_stmt *st = c->st;
	int fn = ms_spec_find(ps->spec, st->fn.s, st->fn.n);

	if (fn < 0 && st->fn.n > 4 && memcmp(st->fn.s, "SYS_", 4) == 0) {
		char why[192];

		fn = ms_spec_syscall(ps->spec, st->fn.s, st->fn.n);
		if (fn == -ENOMEM) {
			ps->lx.err = -ENOMEM;
			return -1;
		}
		if (fn < 0 && ms_syscall_absent(st->fn.s, st->fn.n, why, sizeof(why)))
			return ms_fail_tok(&ps->lx, &st->fn, "%s", why);
		if (fn < 0)
			return ms_fail_tok(&ps->lx, &st->fn,
					   "unknown system call '%.*s': the syscall tier answers those "
					   "mockrun --list syscall names",
					   (int)st->fn.n, st->fn.s);
	}
	if (fn < 0)
		return ms_fail_tok(&ps->lx, &st->fn,
				   "unknown function '%.*s': not in the catalog (see mockrun --list) "
				   "nor in a loaded module",
				   (int)st->fn.n, st->fn.s);
	c->m = ms_spec_meta(ps->spec, (unsigned)fn);
	if (ps->spec->live && c->sk->type != ST_RULE)
		return ms_fail_tok(&ps->lx, &st->name,
				   "%.*s cannot be added to a running program: only replies "
				   "(will_return*, will_fail*, will_call_real) can",
				   (int)st->name.n, st->name.s);
	if (ps->spec->live && (fn >= MS_FN_COUNT || !ps->spec->counted[fn]))
		return ms_fail_tok(&ps->lx, &st->fn, "%s() cannot take a statement added live: %s",
				   c->m->name,
				   fn >= MS_FN_COUNT ? "only catalog functions can"
						     : "the allocator's functions are not armed under --control");
	return fn;
}

static int key_is(const struct ms_arg *a, const char *key)
{
	return !a->deref && a->key_n == strlen(key) && memcmp(a->key, key, a->key_n) == 0;
}

static int is_power(const struct ms_compiling *c)
{
	return strcmp(c->sk->name, "power_loss") == 0;
}

/* power_loss()'s paths= and mode= (DESIGN.md section 7.3) */
static int compile_power_option(struct ms_parser *ps, struct ms_compiling *c, const struct ms_arg *a)
{
	static const char *const modes[] = { "drop", "torn", "reorder" };

	if (key_is(a, "paths")) {
		if (a->v.kind != V_STR || a->v.len == 0)
			return ms_fail_at(&ps->lx, a->v.line, a->v.col,
					  "paths= needs a non-empty glob string (\"db/*\"), not %s",
					  ms_val_kind_name(a->v.kind));
		c->r.value_str = a->v.str;
		return 0;
	}
	if (key_is(a, "mode")) {
		for (int64_t k = 0; a->v.kind == V_IDENT && k < 3; k++)
			if (a->v.name_n == strlen(modes[k]) && memcmp(a->v.name, modes[k], a->v.name_n) == 0) {
				c->r.value = k;
				return 0;
			}
		if (a->v.kind == V_IDENT)
			return ms_fail_at(&ps->lx, a->v.line, a->v.col,
					  "unknown mode '%.*s': power_loss's mode= is drop, torn or reorder",
					  (int)a->v.name_n, a->v.name);
		return ms_fail_at(&ps->lx, a->v.line, a->v.col,
				  "mode= is drop, torn or reorder, not %s", ms_val_kind_name(a->v.kind));
	}
	return ms_fail_at(&ps->lx, a->line, a->col,
			  "power_loss takes no '%.*s=' (paths=, mode=, in=, from= and when())",
			  (int)a->key_n, a->key);
}

/* in= and from=, which every statement takes: into the header. */
static int compile_scope(struct ms_parser *ps, struct ms_compiling *c, const struct ms_arg *a)
{
	if (a->v.kind != V_STR || a->v.len == 0)
		return ms_fail_at(&ps->lx, a->v.line, a->v.col,
				  "%.*s= needs a non-empty glob string, not %s", (int)a->key_n, a->key,
				  ms_val_kind_name(a->v.kind));
	if (a->key_n == 4 && c->m->syscall)
		return ms_fail_at(&ps->lx, a->line, a->col,
				  "from= names the object that calls a libc function: "
				  "a system call has none the supervisor can tell; use "
				  "in= or when()");
	if (a->key_n == 2)
		c->r.stmt.in_glob = a->v.str;
	else
		c->r.stmt.from_glob = a->v.str;
	return 0;
}

/* errno=, probability= and delay=, which replies take. */
static int compile_reply_option(struct ms_parser *ps, struct ms_compiling *c, const struct ms_arg *a)
{
	if (key_is(a, "errno")) {
		if (a->v.kind != V_INT)
			return ms_fail_at(&ps->lx, a->v.line, a->v.col,
					  "errno= needs an errno name or number, not %s",
					  ms_val_kind_name(a->v.kind));
		if (a->v.i < 0 || a->v.i > 4095)
			return ms_fail_at(&ps->lx, a->v.line, a->v.col, "errno %lld out of range",
					  (long long)a->v.i);
		c->r.flags |= MS_RF_ERRNO;
		c->r.err = (int32_t)a->v.i;
	} else if (key_is(a, "probability")) {
		double p = a->v.kind == V_DBL ? a->v.d : a->v.kind == V_INT ? (double)a->v.i : -1;

		if (!(p > 0 && p <= 1))
			return ms_fail_at(&ps->lx, a->v.line, a->v.col,
					  "probability= takes a number in (0, 1] or a percentage "
					  "(0.05, 5%%)");
		/* 1: every call, as without it */
		c->r.prob = p >= 1 ? 0 : (uint32_t)(p * 4294967296.0) ? (uint32_t)(p * 4294967296.0) : 1;
		ps->spec->has_prob |= p < 1;
	} else {
		if (a->v.kind != V_DUR)
			return ms_fail_at(&ps->lx, a->v.line, a->v.col,
					  "delay= needs a duration with a unit (250ms, 2s, 10us)");
		c->r.delay_ns = (uint64_t)a->v.i;
	}
	return 0;
}

/* name= and timeout= of will_hold; probability= and delay= of both
 * will_hold and will_signal, which answer nothing (no errno=, no
 * outputs). */
static int compile_stop_option(struct ms_parser *ps, struct ms_compiling *c, const struct ms_arg *a)
{
	int hold = c->sk->kind == MS_R_HOLD;

	if (key_is(a, "probability") || key_is(a, "delay"))
		return compile_reply_option(ps, c, a);
	if (hold && key_is(a, "name")) {
		const char *p = ps->spec->pool + a->v.str;

		if (a->v.kind != V_STR || a->v.len == 0 || a->v.len > 64)
			return ms_fail_at(&ps->lx, a->v.line, a->v.col,
					  "name= needs a string of 1 to 64 bytes (what mockrun ctl "
					  "--wait-held and --release call the hold)");
		for (uint32_t k = 0; k < a->v.len; k++)
			if ((unsigned char)p[k] <= 0x20 || p[k] == 0x7f || p[k] == '"' || p[k] == '\\')
				return ms_fail_at(&ps->lx, a->v.line, a->v.col,
						  "name= takes no spaces, quotes, backslashes or "
						  "control characters");
		c->r.value_str = a->v.str;
		return 0;
	}
	if (hold && key_is(a, "timeout")) {
		if (a->v.kind != V_DUR || a->v.i <= 0)
			return ms_fail_at(&ps->lx, a->v.line, a->v.col,
					  "timeout= needs a duration with a unit (500ms, 2s)");
		c->r.value = a->v.i;
		return 0;
	}
	return ms_fail_at(&ps->lx, a->line, a->col,
			  "%s takes no '%.*s=' (%s in=, from=, probability=, delay=%s): it "
			  "answers nothing, the call goes on%s",
			  hold ? "will_hold" : "will_signal", (int)a->key_n, a->key,
			  hold ? "options: name=, timeout=," : "options:", hold ? "" : " and when()",
			  hold ? " once released" : " if the signal returns");
}

/* One KEY=VALUE argument: an option, an output, or (will_call_real) an
 * argument the real call gets instead. */
static int compile_keyed(struct ms_parser *ps, struct ms_compiling *c, const struct ms_arg *a)
{
	const struct ms_src_stmt *st = c->st;
	const struct ms_fn_meta *m = c->m;

	if (key_is(a, "in") || key_is(a, "from"))
		return compile_scope(ps, c, a);
	if (key_is(a, "at")) {
		if (c->at)
			return ms_fail_at(&ps->lx, a->line, a->col, "at= given twice");
		c->at = a;
		return 0;
	}
	if (c->sk->type == ST_EXPECT && key_is(a, "delay")) {
		/* the call the expectation checks waits, whatever answers it */
		if (compile_reply_option(ps, c, a))
			return -1;
		if (c->r.delay_ns / 1000 > UINT32_MAX)
			return ms_fail_at(&ps->lx, a->v.line, a->v.col,
					  "an expectation's delay= is at most 4294s");
		return 0;
	}
	if (c->sk->type != ST_RULE && (key_is(a, "errno") || key_is(a, "delay")))
		/* an expectation checks a call and answers nothing: the errno
		 * it would set belongs to the reply; a call-order entry
		 * checks no one call it could hold */
		return ms_fail_at(&ps->lx, a->line, a->col,
				  "%.*s takes no '%.*s=': an expectation checks the call and does not "
				  "answer it; put %.*s= on the will_* statement that replies "
				  "(will_call_real(%.*s, %.*s=...) for the real call)",
				  (int)st->name.n, st->name.s, (int)a->key_n, a->key, (int)a->key_n,
				  a->key, (int)st->fn.n, st->fn.s, (int)a->key_n, a->key);
	if (c->sk->type != ST_RULE)
		return ms_fail_at(&ps->lx, a->line, a->col,
				  "%.*s takes no '%.*s=' (only the options in=, from= and at=)",
				  (int)st->name.n, st->name.s, (int)a->key_n, a->key);
	if (is_power(c))
		return compile_power_option(ps, c, a);
	if (c->sk->kind == MS_R_HOLD || c->sk->kind == MS_R_SIGNAL)
		return compile_stop_option(ps, c, a);
	if (key_is(a, "errno") || key_is(a, "probability") || key_is(a, "delay"))
		return compile_reply_option(ps, c, a);
	if (c->sk->kind == MS_R_REAL)
		return ms_compile_rewrite(ps, m, a);
	if (m->handler)
		return ms_fail_at(&ps->lx, a->line, a->col,
				  "%s() comes from a handler module: its handler writes the outputs "
				  "(queue the values with will_return)",
				  m->name);
	return ms_compile_output(ps, c, a);
}

/* The arguments after FN: positional values first (c->pos), then
 * KEY=VALUE ones. */
static int compile_args(struct ms_parser *ps, struct ms_compiling *c)
{
	const struct ms_src_stmt *st = c->st;
	int named = 0;

	/* Names that are no constant are only a parameter of expect_*. */
	for (unsigned i = 1; i < st->nargs; i++) {
		const struct ms_val *v = &st->args[i].v;

		if (v->kind == V_IDENT && !(c->sk->type == ST_EXPECT && !st->args[i].key &&
					    (i == 1 || (i == 2 && c->sk->kind == MS_X_CHECK))) &&
		    !(is_power(c) && key_is(&st->args[i], "mode")))
			return ms_unknown_name(ps, v);
		for (unsigned k = 0; v->kind == V_STRUCT && k < v->nfields; k++)
			if (v->fields[k].v->kind == V_IDENT)
				return ms_unknown_name(ps, v->fields[k].v);
	}
	for (unsigned i = 1; i < st->nargs; i++) {
		const struct ms_arg *a = &st->args[i];

		if (!a->key) {
			/* will_hold(FN, name="NAME", COUNT): the contract's order */
			if (named && !(named == 1 && c->sk->kind == MS_R_HOLD && c->r.value_str &&
				       c->npos == 0))
				return ms_fail_at(&ps->lx, a->line, a->col,
						  "positional value after a named one: %s", c->sk->usage);
			c->pos[c->npos++] = a;
			continue;
		}
		named++;
		if (compile_keyed(ps, c, a))
			return -1;
	}
	if (c->npos < c->sk->npos_min || c->npos > c->sk->npos_max)
		return ms_fail_tok(&ps->lx, &st->name, "wrong number of arguments: %s", c->sk->usage);
	return 0;
}

static int compile_rule(struct ms_parser *ps, struct ms_compiling *c, uint32_t outs_first);

int ms_compile(struct ms_parser *ps, struct ms_src_stmt *st)
{
	struct ms_compiling c;
	uint32_t outs_first = ps->spec->nouts;
	int fn;

	memset(&c, 0, sizeof(c));
	c.st = st;
	c.sk = ms_find_stmt_kind(ps, &st->name);
	if (!c.sk)
		return -1;
	if (st->nargs == 0)
		return ms_fail_tok(&ps->lx, &st->name, "missing function name: %s", c.sk->usage);
	fn = resolve_fn(ps, &c);
	if (fn < 0)
		return -1;
	/* the header every kind of statement shares: filled in here, once;
	 * the kinds' own compilers copy it and add their tails */
	c.r.stmt.fn = (uint32_t)fn;
	c.r.stmt.count = c.sk->count;
	c.r.stmt.src = ps->src_off;
	c.r.stmt.line = st->name.line;
	c.r.stmt.col = st->name.col;
	c.r.kind = c.sk->kind;
	c.r.rd_kind = MS_RD_NONE;
	if (compile_args(ps, &c) || ms_compile_conds(ps, st, c.m, &c.r.stmt) ||
	    ms_compile_at(ps, &c, &c.r.stmt))
		return -1;
	c.r.stmt.text = ms_stmt_text(ps, st);
	if (!c.r.stmt.text)
		return -1;
	if (c.sk->type == ST_EXPECT)
		return ms_compile_expect(ps, &c);
	if (c.sk->type == ST_ORDER)
		return ms_compile_order(ps, &c);
	return compile_rule(ps, &c, outs_first);
}

/* ---- replies: will_return*, will_fail*, will_call_real ---- */

/* A handler module's function: mock() pops untyped values (integers,
 * booleans, strings, NULL; doubles for mock_double()). */
static int reply_mock(struct ms_parser *ps, struct ms_compiling *c)
{
	const struct ms_val *value = &c->pos[0]->v;
	struct ms_rule *r = &c->r;

	if (c->sk->kind != MS_R_RETURN)
		return ms_fail_tok(&ps->lx, &c->st->name,
				   "%s() comes from a handler module: its handler pops values that "
				   "will_return queues (%.*s is for catalog functions)",
				   c->m->name, (int)c->st->name.n, c->st->name.s);
	if (c->sk->count == 0 && ms_parse_count(ps, &c->pos[1]->v, 1, &r->stmt.count))
		return -1;
	if (value->kind == V_STR) {
		r->flags |= MS_RF_STRVAL;
		r->value_str = value->str;
	} else if (value->kind == V_INT || value->kind == V_BOOL || value->kind == V_NULL) {
		r->value = value->kind == V_NULL ? 0 : value->i;
	} else if (value->kind == V_DBL) {
		r->flags |= MS_RF_DOUBLE;
		memcpy(&r->value, &value->d, sizeof(r->value));
	} else {
		return ms_fail_at(&ps->lx, value->line, value->col,
				  "mock() takes integers, booleans, doubles, strings and NULL, not %s",
				  ms_val_kind_name(value->kind));
	}
	return 0;
}

/* '_': the value the function's row derives (read's byte count, ...). */
static int return_default(struct ms_parser *ps, struct ms_compiling *c, const struct ms_val *value)
{
	const struct ms_fn_meta *m = c->m;
	struct ms_rule *r = &c->r;

	r->flags |= MS_RF_DEFAULT;
	r->rd_kind = m->rd_kind;
	r->rd_param = m->rd_param;
	r->rd_div = m->rd_div;
	if (m->ret.tclass == MS_T_VOID)
		r->rd_kind = MS_RD_CONST;
	else if (m->rd_kind == MS_RD_NONE)
		return ms_fail_at(&ps->lx, value->line, value->col,
				  "'_' has no meaning for %s(): give the return value", m->name);
	else if (m->rd_kind == MS_RD_BYTES && !c->have_bytes)
		return ms_fail_at(&ps->lx, value->line, value->col,
				  "'_' stands for the number of bytes copied: give %s=\"...\"",
				  m->params[m->outs[0].param].name);
	else if (m->rd_kind == MS_RD_CONST)
		r->value = m->rd_const;
	return 0;
}

/* A pointer to return: NULL, an address (declared functions), or a
 * record literal (struct passwd, struct group, struct hostent). */
static int return_pointer(struct ms_parser *ps, const struct ms_fn_meta *m, const struct ms_val *value,
			  struct ms_rule *r)
{
	if (m->declared && (value->kind == V_INT || value->kind == V_NULL)) {
		r->value = value->kind == V_NULL ? 0 : value->i;
		return 0;
	}
	if (value->kind == V_STRUCT && m->ret_passwd) {
		r->flags |= MS_RF_PASSWD;
		return ms_encode_passwd(ps, value, &r->value_str);
	}
	if (value->kind == V_STRUCT && m->ret_group) {
		r->flags |= MS_RF_GROUP;
		return ms_encode_group(ps, value, &r->value_str);
	}
	if (value->kind == V_STRUCT && m->ret_hostent) {
		struct ms_out ao;

		/* the addresses, as getaddrinfo's list */
		if (ms_encode_addrinfo(ps, value, &ao))
			return -1;
		r->value_str = ao.data;
		r->value = ao.len / (uint32_t)sizeof(struct ms_addr);
		r->flags |= MS_RF_HOSTENT;
		return 0;
	}
	if (value->kind != V_NULL)
		return ms_fail_at(&ps->lx, value->line, value->col,
				  "%s() returns %s: only NULL%s can be returned, not %s", m->name,
				  m->ret.text,
				  m->ret_passwd ? " or a {.pw_name = ...} literal"
				  : m->ret_group ? " or a {.gr_name = ...} literal"
				  : m->ret_hostent ? " or an address list {\"10.1.2.3\", ...}"
						   : "",
				  ms_val_kind_name(value->kind));
	return 0;
}

/* will_return*(FN, VALUE, ...): VALUE as the function returns it. */
static int reply_return(struct ms_parser *ps, struct ms_compiling *c)
{
	const struct ms_fn_meta *m = c->m;
	const struct ms_val *value = &c->pos[0]->v;
	struct ms_rule *r = &c->r;

	if (c->sk->count == 0 && ms_parse_count(ps, &c->pos[1]->v, 1, &r->stmt.count))
		return -1;
	if (value->kind == V_PH)
		return return_default(ps, c, value);
	switch (m->ret.tclass) {
	case MS_T_VOID:
		return ms_fail_at(&ps->lx, value->line, value->col,
				  "%s() returns void: write will_return(%s, _)", m->name, m->name);
	case MS_T_INT:
	case MS_T_UINT:
		if (value->kind != V_INT && value->kind != V_BOOL)
			return ms_fail_at(&ps->lx, value->line, value->col,
					  "%s() returns %s: expected an integer, not %s", m->name,
					  m->ret.text, ms_val_kind_name(value->kind));
		if (ms_check_int_range(ps, value, &m->ret, "return value"))
			return -1;
		r->value = value->i;
		return 0;
	case MS_T_STR:
		if (value->kind == V_STR && m->rd_kind == MS_RD_PARAM)
			/* the caller owns and may edit the line it gets back: it
			 * must be its own buffer */
			return ms_fail_at(&ps->lx, value->line, value->col,
					  "%s() returns its %s argument: write will_return(%s, _, %s=\"...\")",
					  m->name, m->params[m->rd_param].name, m->name,
					  m->params[m->rd_param].name);
		if (value->kind == V_STR) {
			r->flags |= MS_RF_STRVAL | (m->ret_owned ? MS_RF_OWNED : 0);
			r->value_str = value->str;
		} else if (value->kind != V_NULL) {
			return ms_fail_at(&ps->lx, value->line, value->col,
					  "%s() returns %s: expected a string or NULL, not %s", m->name,
					  m->ret.text, ms_val_kind_name(value->kind));
		}
		return 0;
	case MS_T_DOUBLE:
		if (ms_double_bits(ps, value, m->name, 1, &r->value))
			return -1;
		r->flags |= MS_RF_DOUBLE;
		return 0;
	case MS_T_PTR:
		return return_pointer(ps, m, value, r);
	}
	return 0;
}

/* will_fail*(FN [, ERR]): the row's failure value, and ERR (or the
 * row's errno). */
static int reply_fail(struct ms_parser *ps, struct ms_compiling *c)
{
	const struct ms_fn_meta *m = c->m;
	const struct ms_val *e = c->npos > 0 ? &c->pos[0]->v : NULL;
	struct ms_rule *r = &c->r;
	int64_t code;

	if (m->fail_kind == MS_FK_NEVER)
		return ms_fail_tok(&ps->lx, &c->st->fn, "%s() cannot fail: use will_return(%s, VALUE)",
				   m->name, m->name);
	if (c->sk->count == 0 && ms_parse_count(ps, &c->pos[1]->v, 1, &r->stmt.count))
		return -1;
	if (e && e->kind == V_PH)
		e = NULL;
	if (e && e->kind != V_INT)
		return ms_fail_at(&ps->lx, e->line, e->col, "ERR must be an error name or number, not %s",
				  ms_val_kind_name(e->kind));
	if (m->fail_kind == MS_FK_RC && m->fail_value < 0 && e && !ms_eai_name((int)e->i))
		/* getaddrinfo and getnameinfo return EAI_* codes, which are
		 * negative; an errno (ENOENT is 2) would come back as an
		 * unknown code */
		return ms_fail_at(&ps->lx, e->line, e->col,
				  "%s() fails with an EAI_* code, not %lld (EAI_NONAME, EAI_AGAIN, "
				  "EAI_FAIL, EAI_MEMORY, EAI_SERVICE, EAI_FAMILY, EAI_SOCKTYPE, "
				  "EAI_BADFLAGS, EAI_OVERFLOW, EAI_NODATA, EAI_ADDRFAMILY, "
				  "EAI_SYSTEM with errno=)",
				  m->name, (long long)e->i);
	if (m->fail_kind == MS_FK_RC) {
		r->value = e ? e->i : m->fail_value;
	} else {
		code = e ? e->i : m->fail_errno;
		if (e && (code < 0 || code > 4095))
			return ms_fail_at(&ps->lx, e->line, e->col, "errno %lld out of range",
					  (long long)code);
		r->value = m->fail_value;
		if (e && (r->flags & MS_RF_ERRNO) && r->err != (int32_t)code)
			return ms_fail_at(&ps->lx, e->line, e->col,
					  "will_fail's error and errno= disagree (%lld and %d): give one",
					  (long long)code, r->err);
		if (code && !(r->flags & MS_RF_ERRNO)) {
			r->flags |= MS_RF_ERRNO;
			r->err = (int32_t)code;
		}
	}
	for (unsigned i = 0; i < m->nouts; i++) {
		if (m->outs[i].kind == MS_OK_FERROR) {
			struct ms_out o = { .kind = MS_O_FERROR, .param = m->outs[i].param,
					    .cap1 = MS_NONE8, .cap2 = MS_NONE8 };

			if (ms_add_out(ps, &o))
				return -1;
		}
	}
	return 0;
}

/* will_hold(FN, name="NAME" [, COUNT]) and will_signal(FN, SIG [, COUNT]). */
static int stop_rule(struct ms_parser *ps, struct ms_compiling *c)
{
	struct ms_rule *r = &c->r;

	if (c->sk->kind == MS_R_HOLD) {
		if (!r->value_str)
			return ms_fail_tok(&ps->lx, &c->st->name,
					   "will_hold needs name=\"NAME\": what mockrun ctl --wait-held "
					   "and --release call it");
		return c->npos == 1 ? ms_parse_count(ps, &c->pos[0]->v, 1, &r->stmt.count) : 0;
	}
	if (c->pos[0]->v.kind != V_INT || c->pos[0]->v.i < 1 || c->pos[0]->v.i > 64)
		return ms_fail_at(&ps->lx, c->pos[0]->v.line, c->pos[0]->v.col,
				  "will_signal needs a signal (SIGKILL, SIGSEGV, 9), not %s",
				  c->pos[0]->v.kind == V_INT ? "that number" : ms_val_kind_name(c->pos[0]->v.kind));
	r->value = c->pos[0]->v.i;
	return c->npos == 2 ? ms_parse_count(ps, &c->pos[1]->v, 1, &r->stmt.count) : 0;
}

/* Outputs every mocked reply writes, like libc (time's *tloc). */
static int reply_implied_outs(struct ms_parser *ps, const struct ms_compiling *c)
{
	const struct ms_fn_meta *m = c->m;

	for (unsigned i = 0; i < m->nouts; i++) {
		const struct ms_out_desc *od = &m->outs[i];

		if (od->kind == MS_OK_SCALAR && od->mirror_ret && !c->given[od->param]) {
			struct ms_out o = { .kind = MS_O_RETSTORE, .param = od->param, .cap1 = MS_NONE8,
					    .cap2 = MS_NONE8, .len = od->size };

			if (ms_add_out(ps, &o))
				return -1;
		}
		/* getpw*_r with no entry given: *result = NULL, as glibc's
		 * "not found" and failures leave it */
		if (od->kind == MS_OK_STRUCT && strcmp(od->strct, "passwd_r") == 0 &&
		    !c->given[od->param]) {
			struct ms_out o = { .kind = MS_O_PASSWD_R, .param = od->param, .cap1 = MS_NONE8,
					    .cap2 = MS_NONE8 };

			if (ms_add_out(ps, &o))
				return -1;
		}
	}
	return 0;
}

/* A reply's rule, its outputs from outs_first on. */
static int compile_rule(struct ms_parser *ps, struct ms_compiling *c, uint32_t outs_first)
{
	struct ms_spec *spec = ps->spec;
	int r;

	if (c->m->handler && (c->sk->kind == MS_R_HOLD || c->sk->kind == MS_R_SIGNAL))
		return ms_fail_tok(&ps->lx, &c->st->name,
				   "%.*s cannot stop %s() yet: a handler module's stub enters its "
				   "handler directly; use a declared prototype (mock RET %s(...)) "
				   "without the module, or a call the handler makes",
				   (int)c->st->name.n, c->st->name.s, c->m->name, c->m->name);
	if (c->m->handler)
		r = reply_mock(ps, c);
	else if (c->sk->kind == MS_R_RETURN)
		r = reply_return(ps, c);
	else if (c->sk->kind == MS_R_FAIL)
		r = reply_fail(ps, c);
	else if (c->sk->kind == MS_R_HOLD || c->sk->kind == MS_R_SIGNAL)
		r = stop_rule(ps, c);
	else
		r = c->npos == 1 ? ms_parse_count(ps, &c->pos[0]->v, 1, &c->r.stmt.count) : 0;
	if (r || (c->sk->kind <= MS_R_FAIL && reply_implied_outs(ps, c)))
		return -1;
	if (is_power(c)) {
		if (!c->r.value_str)
			return ms_fail_tok(&ps->lx, &c->st->name,
					   "power_loss needs paths=\"GLOB\": the files and directories "
					   "the power cut rolls back (%s)", c->sk->usage);
		c->r.flags |= MS_RF_POWER;
	}
	c->r.outs_first = outs_first;
	c->r.nouts = spec->nouts - outs_first;
	return ms_append(ps, (void **)&spec->rules, &spec->nrules, &spec->cap_rules, &c->r,
			 sizeof(c->r));
}
