/* SPDX-License-Identifier: MIT */
/* Channel layout and validation: a valid channel passes, every corrupted
 * field is rejected, and random corruption never crashes the validator. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include "catalog/catalog.h"
#include "channel/channel.h"
#include "chan_text.h"
#include "lang/lang.h"

struct fixture {
	struct ms_spec spec;
	void *map;
	uint64_t size;
};

static const char spec_text[] =
	"will_return(read, _, buf=\"hello\")\n"
	"will_fail(open, ENOENT, in=\"cat\")\n"
	"will_return_count(getuid, 7, 3)\n"
	"will_return(clock_gettime, 0, *tp={1, 2})\n"
	"will_return(getuid, 8)\n";

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct ms_diag d;

	if (!f)
		return -1;
	ms_spec_init(&f->spec, realloc, free);
	if (ms_parse(&f->spec, "spec", spec_text, strlen(spec_text), &d) != 0)
		return -1;
	f->size = ms_channel_size(&f->spec, 16);
	f->map = calloc(1, f->size);
	if (!f->map)
		return -1;
	ms_channel_write(&f->spec, f->map, f->size, 16, 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	ms_spec_fini(&f->spec);
	free(f->map);
	free(f);
	return 0;
}

static void test_valid(void **state)
{
	struct fixture *f = *state;
	const struct ms_chan_hdr *h = f->map;
	const struct ms_chan_fn *fns = ms_chan_at(h, h->fns_off);
	const struct ms_rule *rules = ms_chan_at(h, h->rules_off);

	assert_null(ms_channel_validate(f->map, f->size));
	assert_int_equal(h->nrules, 5);
	assert_int_equal(h->nfns, MS_FN_COUNT);
	/* grouped by function, declaration order kept */
	assert_int_equal(fns[MS_ID_getuid].nrules, 2);
	assert_int_equal(rules[fns[MS_ID_getuid].first_rule].value, 7);
	assert_int_equal(rules[fns[MS_ID_getuid].first_rule + 1].value, 8);
	assert_int_equal(fns[MS_ID_write].nrules, 0);
	assert_string_equal(ms_chan_str(h, rules[fns[MS_ID_open].first_rule].stmt.in_glob), "cat");
	assert_int_equal(h->events_cap, 16);
	assert_true(h->st_events_off + 16 * sizeof(struct ms_event) <= h->state_size);
	assert_int_equal(h->st_rules_off % 64, 0);
	/* the lean marks: a plain value for any caller, and the functions
	 * that have nothing else */
	assert_true(rules[fns[MS_ID_getuid].first_rule].lean);
	assert_false(rules[fns[MS_ID_read].first_rule].lean);	/* an output */
	assert_false(rules[fns[MS_ID_open].first_rule].lean);	/* in= */
	assert_int_equal(fns[MS_ID_getuid].flags, MS_FF_LEAN);
	assert_int_equal(fns[MS_ID_read].flags, 0);
	assert_int_equal(fns[MS_ID_write].flags, 0);		/* no rule */
}

/* -v numbers every call: no function is lean then */
static void test_no_lean_function_under_v(void **state)
{
	struct fixture *f = *state;
	void *map = calloc(1, f->size);
	const struct ms_chan_fn *fns;

	assert_non_null(map);
	ms_channel_write(&f->spec, map, f->size, 16, MS_CHAN_LOG_CALLS);
	fns = ms_chan_at(map, ((struct ms_chan_hdr *)map)->fns_off);
	assert_int_equal(fns[MS_ID_getuid].flags, 0);
	assert_null(ms_channel_validate(map, f->size));
	free(map);
}

/* A lean mark that disagrees with what it marks is a corrupt channel. */
static void test_lean_marks_checked(void **state)
{
	struct fixture *f = *state;
	struct ms_chan_hdr *h = f->map;
	struct ms_chan_fn *fns = ms_chan_at(h, h->fns_off);
	struct ms_rule *rules = ms_chan_at(h, h->rules_off);
	struct ms_rule *uid = &rules[fns[MS_ID_getuid].first_rule];
	const char *why;

	uid->lean = 0;
	why = ms_channel_validate(f->map, f->size);
	assert_non_null(why);
	assert_non_null(strstr(why, "lean mark"));
	uid->lean = 1;
	fns[MS_ID_read].flags = MS_FF_LEAN;	/* its rule has an output */
	why = ms_channel_validate(f->map, f->size);
	assert_non_null(why);
	assert_non_null(strstr(why, "lean mark"));
	fns[MS_ID_read].flags = 0;
	fns[MS_ID_getuid].flags = MS_FF_LEAN | MS_FF_TRACED;
	assert_non_null(ms_channel_validate(f->map, f->size));
	fns[MS_ID_getuid].flags = MS_FF_LEAN;
	h->flags |= MS_CHAN_LOG_CALLS;
	assert_non_null(ms_channel_validate(f->map, f->size));
	h->flags &= ~(uint32_t)MS_CHAN_LOG_CALLS;
	assert_null(ms_channel_validate(f->map, f->size));
}

/*
 * The attach checks O(1) a function; a function's statements are checked
 * by their own check, which finds what the whole validation finds in
 * them, and nothing in another function's.
 */
static void test_checked_per_function(void **state)
{
	struct fixture *f = *state;
	struct ms_chan_hdr *h = f->map;
	struct ms_chan_fn *fns = ms_chan_at(h, h->fns_off);
	struct ms_rule *rules = ms_chan_at(h, h->rules_off);
	struct ms_out *outs = ms_chan_at(h, h->outs_off);
	struct ms_rule *uid = &rules[fns[MS_ID_getuid].first_rule];
	struct ms_rule saved = *uid;
	struct ms_out *o = &outs[rules[fns[MS_ID_read].first_rule].outs_first];
	struct ms_out osaved = *o;

	for (uint32_t fn = 0; fn < h->nfns; fn++)
		assert_null(ms_channel_fn_ok(h, fn));
	assert_null(ms_channel_orders_ok(h));
	uid->stmt.count = 0;
	assert_null(ms_channel_validate_attach(f->map, f->size));
	assert_string_equal(ms_channel_fn_ok(h, MS_ID_getuid), "bad rule count");
	assert_null(ms_channel_fn_ok(h, MS_ID_read));
	assert_null(ms_channel_fn_ok(h, MS_ID_open));
	assert_non_null(ms_channel_validate(f->map, f->size));
	*uid = saved;
	/* a rule moved under another function */
	uid->stmt.fn = MS_ID_getgid;
	assert_null(ms_channel_validate_attach(f->map, f->size));
	assert_string_equal(ms_channel_fn_ok(h, MS_ID_getuid), "function table inconsistent");
	*uid = saved;
	/* an output of read's rule */
	o->len = h->pool_size + 1;
	assert_null(ms_channel_validate_attach(f->map, f->size));
	assert_string_equal(ms_channel_fn_ok(h, MS_ID_read), "output data out of bounds");
	assert_null(ms_channel_fn_ok(h, MS_ID_getuid));
	*o = osaved;
	/* the function table's bounds are the attach's */
	{
		uint32_t n = fns[MS_ID_getuid].nrules;

		fns[MS_ID_getuid].nrules = h->nrules + 1;
		assert_non_null(ms_channel_validate_attach(f->map, f->size));
		fns[MS_ID_getuid].nrules = n;
	}
	assert_non_null(ms_channel_fn_ok(h, h->nfns));
	assert_null(ms_channel_validate(f->map, f->size));
}

static uint32_t h_first_rules(const struct fixture *f)
{
	return ((const struct ms_chan_hdr *)f->map)->rules_off;
}

#define CORRUPT(field, value, reason)                                             \
	do {                                                                      \
		struct ms_chan_hdr *h_ = f->map;                                  \
		const char *why_;                                                 \
		__typeof__(h_->field) saved_ = h_->field;                         \
		h_->field = (value);                                              \
		why_ = ms_channel_validate(f->map, f->size);                      \
		h_->field = saved_;                                               \
		if (!why_ || !strstr(why_, reason))                               \
			fail_msg(#field ": got '%s', expected '%s'",              \
				 why_ ? why_ : "(valid)", reason);                \
	} while (0)

static void test_header_checks(void **state)
{
	struct fixture *f = *state;

	CORRUPT(magic, 0x12345678u, "bad magic");
	CORRUPT(abi, MS_CHAN_ABI + 1, "ABI version");
	CORRUPT(size, f->size + 8, "size mismatch");
	CORRUPT(hdr_size, 8, "size mismatch");
	CORRUPT(nfns, MS_FN_COUNT - 1, "catalog mismatch");
	CORRUPT(catalog_hash, 0, "catalog mismatch");
	CORRUPT(rules_off, (uint32_t)f->size, "out of bounds");
	CORRUPT(nrules, 100000, "out of bounds");
	CORRUPT(outs_off, 4, "out of bounds");
	CORRUPT(pool_size, (uint32_t)f->size, "out of bounds");
	CORRUPT(events_cap, 1u << 30, "out of bounds");
	CORRUPT(fns_off, 0, "overlaps the header");
	CORRUPT(pool_off, h_first_rules(f), "sections overlap");
	/* the state's layout, which the shims write through */
	CORRUPT(state_size, 64, "state out of bounds");
	CORRUPT(st_fns_off, 0, "state out of bounds");
	CORRUPT(st_rules_off, 8, "state out of bounds");
	CORRUPT(st_events_off, ((struct ms_chan_hdr *)f->map)->st_rules_off, "state out of bounds");
	CORRUPT(st_pids_off, ((struct ms_chan_hdr *)f->map)->state_size, "state out of bounds");
	assert_non_null(ms_channel_validate(f->map, sizeof(struct ms_chan_hdr) - 1));
	assert_null(ms_channel_validate(f->map, f->size));
}

static void test_rule_checks(void **state)
{
	struct fixture *f = *state;
	struct ms_chan_hdr *h = f->map;
	struct ms_rule *r = ms_chan_at(h, h->rules_off);
	struct ms_rule saved = *r;

	r->stmt.fn = MS_FN_COUNT;
	assert_non_null(ms_channel_validate(f->map, f->size));
	*r = saved;
	r->stmt.count = 0;
	assert_non_null(ms_channel_validate(f->map, f->size));
	*r = saved;
	r->stmt.text = h->pool_size + 5;
	assert_non_null(ms_channel_validate(f->map, f->size));
	*r = saved;
	r->nouts = 1000;
	assert_non_null(ms_channel_validate(f->map, f->size));
	*r = saved;
	assert_null(ms_channel_validate(f->map, f->size));
}

/* Outputs must be the catalog's: the shim writes through program pointers. */
static void test_output_checks(void **state)
{
	struct fixture *f = *state;
	struct ms_chan_hdr *h = f->map;
	const struct ms_chan_fn *fns = ms_chan_at(h, h->fns_off);
	struct ms_rule *rules = ms_chan_at(h, h->rules_off);
	struct ms_rule *read_rule = &rules[fns[MS_ID_read].first_rule];
	struct ms_rule *getuid_rule = &rules[fns[MS_ID_getuid].first_rule];
	struct ms_out *outs = ms_chan_at(h, h->outs_off);
	struct ms_out *o = &outs[read_rule->outs_first], saved = *o;
	struct ms_rule saved_rule = *getuid_rule;

	assert_int_equal(read_rule->nouts, 1);
	o->cap1 = MS_NONE8; /* an unbounded copy into read's buf */
	assert_non_null(ms_channel_validate(f->map, f->size));
	*o = saved;
	o->kind = MS_O_STORE; /* a store through read's fd */
	o->param = 0;
	o->len = 8;
	assert_non_null(ms_channel_validate(f->map, f->size));
	*o = saved;
	o->param = 2; /* a copy into count */
	assert_non_null(ms_channel_validate(f->map, f->size));
	*o = saved;
	getuid_rule->flags |= MS_RF_STRVAL; /* getuid returns no string */
	assert_non_null(ms_channel_validate(f->map, f->size));
	*getuid_rule = saved_rule;
	getuid_rule->rd_kind = MS_RD_PARAM;
	getuid_rule->flags |= MS_RF_DEFAULT;
	assert_non_null(ms_channel_validate(f->map, f->size));
	*getuid_rule = saved_rule;
	assert_null(ms_channel_validate(f->map, f->size));
}

static void test_string_must_end_in_pool(void **state)
{
	struct fixture *f = *state;
	struct ms_chan_hdr *h = f->map;
	char *pool = ms_chan_at(h, h->pool_off);
	char last = pool[h->pool_size - 1];

	pool[h->pool_size - 1] = 'x'; /* the last string loses its NUL */
	assert_non_null(ms_channel_validate(f->map, f->size));
	pool[h->pool_size - 1] = last;
	assert_null(ms_channel_validate(f->map, f->size));
}

/* A channel for declared functions: what each rule may write, and the
 * stubs' register classes, are checked before the shim trusts them. */
static void test_declared_checks(void **state)
{
	static const char text[] =
		"struct rec { int id; const char *tag; }\n"
		"mock int get(int id, struct rec *out, char **name)\n"
		"mock double scale(double x, int k)\n"
		"will_return(get, 0, *out={.id = 1, .tag = \"t\"}, *name=\"n\")\n"
		"will_return(scale, 2.5)\n";
	struct ms_spec spec;
	struct ms_chan_hdr *h;
	struct ms_chan_dyn *dyn, saved;
	struct ms_rule *rules;
	struct ms_out *outs, saved_out;
	uint64_t size;
	void *map;

	(void)state;
	map = h = chan_from_text(&spec, text, 16, &size);
	dyn = ms_chan_at(h, h->dyn_off);
	rules = ms_chan_at(h, h->rules_off);
	outs = ms_chan_at(h, h->outs_off);
	assert_null(ms_channel_validate(map, size));
	assert_int_equal(dyn[0].kind, MS_DYN_DECLARED);
	assert_int_equal(dyn[0].ptrmask, 6);
	assert_int_equal(dyn[1].dblmask, 1);
	assert_int_equal(dyn[1].ret, MS_DYN_RET_DOUBLE);
	/* get's outputs: the struct, its string field, the name's copy */
	assert_int_equal(rules[0].nouts, 3);
	assert_int_equal(outs[rules[0].outs_first + 1].kind, MS_O_POOLPTR);
	assert_int_equal(outs[rules[0].outs_first + 2].kind, MS_O_STRDUP);
	saved = dyn[0];
	dyn[0].ptrmask |= 1u << 5; /* a parameter get does not have */
	assert_non_null(ms_channel_validate(map, size));
	dyn[0] = saved;
	dyn[0].ptrmask = 2; /* name is not a pointer: no store through it */
	assert_non_null(ms_channel_validate(map, size));
	dyn[0] = saved;
	dyn[1].dblmask = 3; /* both a pointer and a double */
	dyn[1].ptrmask = 2;
	assert_non_null(ms_channel_validate(map, size));
	dyn[1].dblmask = 1;
	dyn[1].ptrmask = 0;
	saved_out = outs[rules[0].outs_first];
	outs[rules[0].outs_first].len = 4096; /* a store past any struct */
	assert_non_null(ms_channel_validate(map, size));
	outs[rules[0].outs_first] = saved_out;
	outs[rules[0].outs_first].kind = MS_O_BYTES; /* not a declared output */
	assert_non_null(ms_channel_validate(map, size));
	outs[rules[0].outs_first] = saved_out;
	rules[1].flags &= (uint16_t)~MS_RF_DOUBLE; /* scale's value is a double */
	assert_non_null(ms_channel_validate(map, size));
	rules[1].flags |= MS_RF_DOUBLE;
	assert_null(ms_channel_validate(map, size));
	free(map);
	ms_spec_fini(&spec);
}

/* --record: the log is a section of its own, after every other. */
static void test_record_region(void **state)
{
	struct fixture *f = *state;
	struct ms_spec *spec = &f->spec;
	struct ms_chan_hdr *h;
	uint64_t size;
	void *map;

	spec->recorded[MS_ID_read] = 1;
	spec->record_cap = 4096;
	size = ms_channel_size(spec, 16);
	assert_int_equal(size, f->size);
	assert_int_equal(ms_channel_state_size(spec, 16),
			 ((const struct ms_chan_hdr *)f->map)->state_size + 4096);
	map = calloc(1, size);
	assert_non_null(map);
	ms_channel_write(spec, map, size, 16, 0);
	h = map;
	assert_int_equal(h->rec_cap, 4096);
	assert_true(h->st_rec_off + h->rec_cap == h->state_size);
	assert_true(((const struct ms_chan_fn *)ms_chan_at(h, h->fns_off))[MS_ID_read].flags &
		    MS_FF_RECORD);
	assert_null(ms_channel_validate(map, size));
	h->st_rec_off = h->st_pids_off; /* over the pid table */
	assert_non_null(ms_channel_validate(map, size));
	h->st_rec_off = h->state_size - 4096 + 8; /* past the end */
	assert_non_null(ms_channel_validate(map, size));
	free(map);
}

/* The fake clock saturates at the ends of int64 nanoseconds (1677-09-21
 * .. 2262-04-11): a rate or an offset past them stops there, never wraps. */
static void test_time_saturates(void **state)
{
	const int64_t sec = 1000000000;
	struct ms_time_now n;
	int64_t r0;

	(void)state;
	memset(&n, 0, sizeof(n));
	r0 = n.r0[MS_TC_REALTIME] = 1700000000 * sec;
	/* the fake clock is r0 + off at r0: a second before the end */
	n.off[MS_TC_REALTIME] = INT64_MAX - sec - r0;
	n.rate = 1e6;
	assert_true(ms_time_fake(&n, MS_TC_REALTIME, r0 + 500) == INT64_MAX - sec / 2);
	assert_true(ms_time_fake(&n, MS_TC_REALTIME, r0 + 1000) == INT64_MAX);
	assert_true(ms_time_fake(&n, MS_TC_REALTIME, r0 + 2000) == INT64_MAX);
	assert_true(ms_time_fake(&n, MS_TC_REALTIME, r0 + 3600 * sec) == INT64_MAX);
	n.rate = 1;
	assert_true(ms_time_fake(&n, MS_TC_REALTIME, r0 + sec / 2) == INT64_MAX - sec / 2);
	assert_true(ms_time_fake(&n, MS_TC_REALTIME, r0 + 2 * sec) == INT64_MAX);
	n.rate = 0;
	assert_true(ms_time_fake(&n, MS_TC_REALTIME, r0 + 3600 * sec) == INT64_MAX - sec);
	/* near the start the shift does not fit in 64 bits: it is kept
	 * modulo 2^64, and the clock is exact inside the range */
	n.off[MS_TC_REALTIME] = (int64_t)((uint64_t)(INT64_MIN + sec) - (uint64_t)r0);
	n.rate = 1;
	assert_true(ms_time_fake(&n, MS_TC_REALTIME, r0) == INT64_MIN + sec);
	assert_true(ms_time_fake(&n, MS_TC_REALTIME, r0 + sec) == INT64_MIN + 2 * sec);
	assert_true(ms_time_fake(&n, MS_TC_REALTIME, r0 - 2 * sec) == INT64_MIN);
	n.rate = 10;
	assert_true(ms_time_fake(&n, MS_TC_REALTIME, r0 + sec) == INT64_MIN + 11 * sec);
	assert_true(ms_time_fake(&n, MS_TC_REALTIME, r0 - sec) == INT64_MIN);
}

/* mockrun ctl's moves: one that would leave the range is refused and
 * leaves the clock as it was; the others saturate the clocks that follow
 * (CLOCK_TAI, ahead of CLOCK_REALTIME) rather than wrap them. */
static void test_time_move_range(void **state)
{
	static const char text[] = "fake_time(\"2262-04-10 00:00:00\", rate=0)";
	const int64_t sec = 1000000000, day = 86400 * sec;
	struct ms_time_now before, after;
	struct ms_time_state *ts;
	struct ms_chan_hdr *h;
	struct ms_spec spec;
	struct ms_diag d;
	uint64_t size;
	void *map, *st;

	(void)state;
	ms_spec_init(&spec, realloc, free);
	assert_int_equal(ms_parse(&spec, "t", text, strlen(text), &d), 0);
	size = ms_channel_size(&spec, 16);
	map = calloc(1, size);
	assert_non_null(map);
	ms_channel_write(&spec, map, size, 16, 0);
	h = map;
	st = calloc(1, h->state_size);
	assert_non_null(st);
	ms_state_init(h, st, 1);
	ts = ms_state_at(st, h->st_times_off);
	ms_time_read(ts, &before);
	assert_true(ms_time_fake(&before, MS_TC_REALTIME, 0) == 9223200000ll * sec);
	assert_int_equal(ms_time_move(h, st, MS_TIME_ADVANCE, 2 * day, 0), -ERANGE);
	ms_time_read(ts, &after);
	assert_memory_equal(&before, &after, sizeof(before));
	assert_int_equal(ts->moves, 0);
	assert_int_equal(ms_time_move(h, st, MS_TIME_ADVANCE, day, 0), 0);
	ms_time_read(ts, &after);
	assert_true(ms_time_fake(&after, MS_TC_REALTIME, 0) == 9223286400ll * sec);
	assert_int_equal(ms_time_move(h, st, MS_TIME_SET, INT64_MAX, 0), 0);
	ms_time_read(ts, &after);
	assert_true(ms_time_fake(&after, MS_TC_REALTIME, 0) == INT64_MAX);
	assert_true(ms_time_fake(&after, MS_TC_TAI, 0) >= INT64_MAX - sec);
	assert_int_equal(ms_time_move(h, st, MS_TIME_ADVANCE, 1, 0), -ERANGE);
	assert_int_equal(ms_time_move(h, st, MS_TIME_SET, -8000000000ll * sec, 0), 0);
	assert_int_equal(ms_time_move(h, st, MS_TIME_ADVANCE, -2000000000ll * sec, 0), -ERANGE);
	ms_time_read(ts, &after);
	assert_true(ms_time_fake(&after, MS_TC_REALTIME, 0) == -8000000000ll * sec);
	assert_int_equal(ts->moves, 3);
	free(st);
	free(map);
	ms_spec_fini(&spec);
}

/* Flip random bytes: the validator must either accept or reject, never
 * read out of bounds (run under ASan/valgrind to see it). */
/* --control's room for live statements: checked like every section, so
 * that a shim reading up to live_cap added rules stays inside the spec. */
static void test_live_room(void **state)
{
	struct fixture *f = *state;
	struct ms_chan_hdr *h;
	void *map;
	uint64_t size;

	f->spec.live_cap = 8;
	size = ms_channel_size(&f->spec, 16);
	map = calloc(1, size);
	assert_non_null(map);
	ms_channel_write(&f->spec, map, size, 16, 0);
	h = map;
	assert_null(ms_channel_validate(map, size));
	assert_int_equal(h->live_first, f->spec.nrules);
	assert_int_equal(h->live_cap, 8);
	assert_true(h->outs_cap > h->nouts && h->pool_cap > h->pool_size);
	h->live_n = 9;
	assert_string_equal(ms_channel_validate(map, size), "room for live statements out of bounds");
	h->live_n = 0;
	h->live_cap = 1u << 30;
	assert_non_null(ms_channel_validate(map, size));
	h->live_cap = 8;
	h->pool_cap = (uint32_t)size;
	assert_string_equal(ms_channel_validate(map, size), "room for live statements out of bounds");
	h->pool_cap = h->pool_size;
	h->outs_cap = h->nouts - 1;
	assert_non_null(ms_channel_validate(map, size));
	free(map);
	/* without --control there is no room, and the spec still validates */
	assert_int_equal(((struct ms_chan_hdr *)f->map)->live_cap, 0);
	assert_null(ms_channel_validate(f->map, f->size));
}

static void test_random_corruption(void **state)
{
	struct fixture *f = *state;
	unsigned char *copy = malloc(f->size);
	unsigned seed = 12345, rejected = 0;

	assert_non_null(copy);
	for (int round = 0; round < 20000; round++) {
		memcpy(copy, f->map, f->size);
		for (int k = 0; k < 1 + round % 4; k++) {
			seed = seed * 1103515245u + 12345u;
			/* bias towards the header and tables, where offsets live */
			size_t at = (seed >> 8) % (round % 2 ? f->size : 512);

			seed = seed * 1103515245u + 12345u;
			copy[at] = (unsigned char)(seed >> 16);
		}
		rejected += ms_channel_validate(copy, f->size) != NULL;
	}
	free(copy);
	assert_true(rejected > 0);
}

/* The exec family's functions, and no others, are marked MS_FF_EXEC, by
 * either writer: into a mapping, and streamed into a memfd (mockrun's). */
static void exec_marks(const struct ms_chan_hdr *h)
{
	const struct ms_chan_fn *fns = ms_chan_at(h, h->fns_off);
	unsigned marked = 0;

	for (unsigned fn = 0; fn < MS_FN_COUNT; fn++) {
		assert_int_equal(!!(fns[fn].flags & MS_FF_EXEC), ms_exec_row(fn) != NULL);
		marked += !!(fns[fn].flags & MS_FF_EXEC);
	}
	assert_true(marked >= 10);
	assert_true(fns[MS_ID_execve].flags & MS_FF_EXEC);
	assert_true(fns[MS_ID_popen].flags & MS_FF_EXEC);
	assert_false(fns[MS_ID_getuid].flags & MS_FF_EXEC);
}

/* ms_channel_create_own()'s own_alloc; arg counts the calls by read */
static void *own_alloc(void *arg, uint64_t size, int read)
{
	unsigned *calls = arg;

	if (calls)
		calls[!!read]++;
	return read ? malloc(size) : calloc(1, size);
}

/* mockrun's copy and the memfd hold ms_channel_write()'s bytes, whether
 * the spec was composed in the copy (small) or written in pieces from
 * its arrays and read back (large) */
static void test_own_copy_paths(void **state)
{
	struct fixture *f = *state;
	char stmt[64];

	for (int large = 0; large < 2; large++) {
		struct ms_chan_pair p;
		unsigned calls[2] = { 0, 0 };
		uint64_t size;
		void *own = NULL, *want, *got;
		struct ms_diag d;

		for (int i = 0; large && i < 3000; i++) {
			snprintf(stmt, sizeof(stmt), "will_return_maybe(getegid, %d)", i);
			assert_int_equal(ms_parse(&f->spec, "more", stmt, strlen(stmt), &d), 0);
		}
		size = ms_channel_size(&f->spec, 16);
		assert_true(large ? size > (256u << 10) : size < (64u << 10));
		want = calloc(1, size);
		assert_non_null(want);
		ms_channel_write(&f->spec, want, size, 16, 0);
		assert_int_equal(ms_channel_create_own(&f->spec, 16, 0, 1, &own, own_alloc, calls, &p),
				 0);
		assert_int_equal(calls[0], !large);
		assert_int_equal(calls[1], large);
		assert_null(p.spec);
		assert_int_equal(p.spec_size, size);
		got = mmap(NULL, size, PROT_READ, MAP_SHARED, p.spec_fd, 0);
		assert_true(got != MAP_FAILED);
		assert_memory_equal(own, want, size);
		assert_memory_equal(got, want, size);
		assert_int_equal(ms_channel_seals_ok(p.spec_fd, 0), 1);
		munmap(got, size);
		free(want);
		free(own);
		ms_channel_unmap(&p);
		close(p.spec_fd);
		close(p.state_fd);
	}
}

/* Lanes (channel.h): the first MS_LANES rules of MS_LANE_MIN turns or
 * more, in the spec's order, whichever writer; their blocks in the
 * state; and the validator's checks of both. */
static void test_lanes(void **state)
{
	struct fixture *f = *state;
	char stmt[96];
	struct ms_diag d;

	for (int large = 0; large < 2; large++) {
		struct ms_spec spec;
		struct ms_chan_pair p;
		struct ms_chan_hdr *h;
		struct ms_rule *rules;
		uint64_t size;
		void *own = NULL, *want;
		int seen[MS_LANES + 1] = { 0 };

		ms_spec_init(&spec, realloc, free);
		assert_int_equal(ms_parse(&spec, "s", "will_return_count(getgid, 1, 100)", 33, &d), 0);
		/* two functions in turn: the writers go function by function */
		for (int i = 0; i < MS_LANES + 1; i++) {
			snprintf(stmt, sizeof(stmt), "will_return_count(%s, %d, %d)",
				 i % 2 ? "getuid" : "getpid", i, MS_LANE_MIN + i);
			assert_int_equal(ms_parse(&spec, "s", stmt, strlen(stmt), &d), 0);
		}
		snprintf(stmt, sizeof(stmt), "will_return_count(getppid, 1, %d, from=\"x*\")", MS_LANE_MIN);
		assert_int_equal(ms_parse(&spec, "s", stmt, strlen(stmt), &d), 0);
		for (int i = 0; large && i < 3000; i++) {
			snprintf(stmt, sizeof(stmt), "will_return_maybe(getegid, %d)", i);
			assert_int_equal(ms_parse(&spec, "more", stmt, strlen(stmt), &d), 0);
		}
		size = ms_channel_size(&spec, 16);
		want = calloc(1, size);
		assert_non_null(want);
		ms_channel_write(&spec, want, size, 16, 0);
		assert_int_equal(ms_channel_create_own(&spec, 16, 0, 1, &own, own_alloc, NULL, &p), 0);
		assert_memory_equal(own, want, size);
		h = want;
		rules = ms_chan_at(h, h->rules_off);
		assert_null(ms_channel_validate(want, size));
		assert_int_equal(h->lanes_cap, MS_LANE_BLOCKS);
		assert_int_equal(ms_lanes_off(h) % 64, 0);
		assert_true(ms_lanes_off(h) + (uint64_t)MS_LANE_BLOCKS * MS_LANES * sizeof(uint64_t) <= h->state_size);
		assert_true(ms_lanes_off(h) >= h->st_rec_off + h->rec_cap);
		for (uint32_t i = 0; i < h->nrules; i++) {
			const struct ms_rule *r = &rules[i];
			int k = r->stmt.count - MS_LANE_MIN;	/* the i of the loop above */

			if (r->stmt.fn == MS_ID_getuid || r->stmt.fn == MS_ID_getpid) {
				assert_int_equal(r->lane, k < MS_LANES ? (uint32_t)k + 1 : 0);
				seen[r->lane]++;
			} else {
				assert_int_equal(r->lane, 0);	/* few turns, from= */
			}
		}
		for (int k = 1; k <= MS_LANES; k++)
			assert_int_equal(seen[k], 1);
		/* the validator */
		for (uint32_t i = 0; i < h->nrules; i++)
			if (rules[i].lane == 1) {
				rules[i].lane = MS_LANES + 1;
				assert_non_null(strstr(ms_channel_validate(want, size), "its lane"));
				rules[i].lane = 1;
			} else if (rules[i].stmt.fn == MS_ID_getgid) {
				rules[i].lane = 2;	/* 100 turns */
				assert_non_null(strstr(ms_channel_validate(want, size), "its lane"));
				rules[i].lane = 0;
			}
		h->lanes_cap = MS_LANE_BLOCKS + 1;
		assert_non_null(ms_channel_validate(want, size));
		h->lanes_cap = MS_LANE_BLOCKS;
		h->state_size -= 4;
		assert_non_null(ms_channel_validate(want, size));
		h->state_size += 4;
		assert_null(ms_channel_validate(want, size));
		free(want);
		free(own);
		ms_channel_unmap(&p);
		close(p.spec_fd);
		close(p.state_fd);
		ms_spec_fini(&spec);
	}
	/* no rule long enough: no blocks, and no room for them */
	assert_int_equal(((struct ms_chan_hdr *)f->map)->lanes_cap, 0);
	assert_int_equal(((struct ms_chan_hdr *)f->map)->state_size,
			 ((struct ms_chan_hdr *)f->map)->st_rec_off);
}

static void test_exec_marks(void **state)
{
	struct fixture *f = *state;
	struct ms_chan_pair p;
	void *own = NULL;

	exec_marks(f->map);
	assert_int_equal(ms_channel_create_own(&f->spec, 16, 0, 1, &own, own_alloc, NULL, &p), 0);
	exec_marks(own);
	free(own);
	ms_channel_unmap(&p);
	close(p.spec_fd);
	close(p.state_fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
		T(test_valid),
		T(test_header_checks),
		T(test_rule_checks),
		T(test_checked_per_function),
		T(test_no_lean_function_under_v),
		T(test_lean_marks_checked),
		T(test_output_checks),
		T(test_string_must_end_in_pool),
		T(test_declared_checks),
		T(test_record_region),
		T(test_time_saturates),
		T(test_time_move_range),
		T(test_live_room),
		T(test_random_corruption),
		T(test_exec_marks),
		T(test_own_copy_paths),
		T(test_lanes),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
