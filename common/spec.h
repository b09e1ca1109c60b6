/* SPDX-License-Identifier: MIT */
/*
 * A compiled spec: the rules, outputs and string pool that the parser
 * produces and the channel carries.  The parser runs in the driver and,
 * in standalone mode, in the shim, so it allocates only through the
 * callbacks given here.
 */
#ifndef MS_SPEC_H
#define MS_SPEC_H

#include <stddef.h>
#include <stdint.h>

#include "catalog.h"
#include "channel.h"

struct ms_spec {
	struct ms_rule *rules;
	uint32_t nrules, cap_rules;
	struct ms_out *outs;
	uint32_t nouts, cap_outs;
	struct ms_expect *expects;
	uint32_t nexpects, cap_expects;
	struct ms_order *orders;
	uint32_t norders, cap_orders;
	struct ms_cond *conds;		/* when(): statements' cond_first/ncond */
	uint32_t nconds, cap_conds;
	struct ms_ftime *ftimes;	/* fake_time() */
	uint32_t nftimes, cap_ftimes;
	struct ms_fn_meta **dyn;	/* functions of handler modules and declared */
	uint32_t ndyn, cap_dyn;		/* prototypes: ids MS_FN_COUNT + i */
	uint32_t ndeclared;		/* of them `mock` prototypes (< MS_DECL_MAX each) */
	struct ms_struct_desc **structs;	/* `struct NAME { ... }` declarations */
	uint32_t nstructs, cap_structs;
	char *pool;
	uint32_t pool_len, pool_cap;
	void *(*realloc_fn)(void *, size_t);
	void (*free_fn)(void *);
	/* module "path": loads a handler module named in source src and
	 * declares its functions (ms_spec_declare); 0, or -1 with msg set */
	int (*module_fn)(void *ctx, const char *src, const char *path, char *msg, size_t cap);
	void *module_ctx;
	uint32_t nsources;
	uint8_t traced[MS_FN_COUNT];	/* --trace */
	uint8_t recorded[MS_FN_COUNT];	/* --record-fns */
	uint8_t counted[MS_FN_COUNT];	/* --control: calls ctl --wait-call counts */
	uint64_t record_cap;		/* --record: bytes of the record log, 0: none */
	uint64_t seed;			/* --seed: probability= draws */
	int has_prob;			/* a statement has probability= */
	uint32_t trace_path;		/* pool, 0: stderr */
	int trace;			/* any traced */
	uint32_t live_cap;		/* --control: rules mockrun ctl may add */
	int live;			/* parsing for mockrun ctl: replies only, on */
					/* the counted functions */
};

/* Where and why a statement was rejected.  line/col are 1-based. */
struct ms_diag {
	uint32_t line, col;
	char msg[320];
};

void ms_spec_init(struct ms_spec *spec, void *(*realloc_fn)(void *, size_t),
		  void (*free_fn)(void *));
void ms_spec_fini(struct ms_spec *spec);
/* Grows the array *p of *cap elems of elem bytes to hold need: 0 or -ENOMEM. */
int ms_spec_grow(struct ms_spec *spec, void **p, uint32_t *cap, uint32_t need, size_t elem);
/* Copies n bytes plus a NUL into the pool: offset, or 0 when out of memory. */
uint32_t ms_spec_str(struct ms_spec *spec, const char *s, size_t n);

/*
 * Declares a function a handler module provides, "int" "chef_cook"
 * "const char *order, char **dish_out": statements may then name it.
 * 0, -EEXIST (a catalog function, or declared otherwise already),
 * -EINVAL (a bad declaration), -ENOMEM.  Declaring it again the same way
 * is a no-op.
 */
int ms_spec_declare(struct ms_spec *spec, const char *ret, const char *name, const char *params);
/*
 * SYS_NAME (len bytes), a system call of common/syscall.def: its id,
 * declared on first use for the syscall tier.  -ENOENT (not a known
 * SYS_ name), -ENOMEM.
 */
int ms_spec_syscall(struct ms_spec *spec, const char *name, size_t len);
/*
 * `mock RET NAME(PARAMS)`: the text after `mock` (len bytes), declared
 * for the shim's generic stubs.  0, -ENOMEM, or -EINVAL with msg set and
 * *at the offset in text it is about.
 */
int ms_spec_mock(struct ms_spec *spec, const char *text, size_t len, char *msg, size_t cap,
		 size_t *at);
/* `struct NAME { TYPE FIELD; ... }`: the text after `struct`, the same way. */
int ms_spec_struct(struct ms_spec *spec, const char *text, size_t len, char *msg, size_t cap,
		   size_t *at);
/* A struct for literals: declared in the spec, else a known one; or NULL. */
const struct ms_struct_desc *ms_spec_struct_find(const struct ms_spec *spec, const char *name);

/* A function's id by name, alias or declared: -1 when unknown. */
int ms_spec_find(const struct ms_spec *spec, const char *name, size_t len);
/* Metadata of a catalog or declared function, or NULL. */
const struct ms_fn_meta *ms_spec_meta(const struct ms_spec *spec, unsigned id);
/* Statement i in one numbering of them all: the rules, then the
 * expectations, then the call-order entries (i < ms_spec_nstmts(spec)). */
uint32_t ms_spec_nstmts(const struct ms_spec *spec);
const struct ms_stmt *ms_spec_stmt(const struct ms_spec *spec, uint32_t i);

/*
 * Parses statements from text (len bytes) named src (for reports) and
 * appends their rules.  Returns 0, -ENOMEM, or -EINVAL with diag filled.
 * Nothing is appended when it fails.
 */
int ms_parse(struct ms_spec *spec, const char *src, const char *text, size_t len,
	     struct ms_diag *diag);

/* "SRC:LINE:COL: error: MSG", the line and a caret, into buf (NUL-terminated);
 * returns the length.  text/len are what was parsed. */
size_t ms_format_diag(char *buf, size_t cap, const char *src, const char *text, size_t len,
		      const struct ms_diag *d);

/* The channel that carries spec, with room for events_cap events: the
 * spec's bytes, and the state's. */
uint64_t ms_channel_size(const struct ms_spec *spec, uint32_t events_cap);
uint64_t ms_channel_state_size(const struct ms_spec *spec, uint32_t events_cap);
/* The session's two memfds, made by ms_channel_create(): the spec sealed
 * and mapped read-only, the state sealed against resizing and mapped
 * writable, its header written with token. */
struct ms_chan_pair {
	int spec_fd, state_fd;	/* close-on-exec */
	const struct ms_chan_hdr *spec;
	struct ms_chan_hdr *spec_rw;	/* with room for live statements: the */
					/* driver's own writable mapping, or NULL */
	struct ms_state_hdr *state;
	uint64_t spec_size, state_size;
};
/* 0 or -errno (nothing left open then); raw system calls only. */
int ms_channel_create(const struct ms_spec *spec, uint32_t events_cap, uint32_t flags,
		      uint64_t token, struct ms_chan_pair *out);
/* The same for a driver that keeps its own copy of the spec: own
 * (ms_channel_size() bytes, zeroed) gets the spec, and the memfd is
 * written from it; out->spec is then NULL (the memfd is not mapped)
 * unless spec has room for live statements, whose writable mapping stays. */
int ms_channel_create_own(const struct ms_spec *spec, uint32_t events_cap, uint32_t flags,
			  uint64_t token, void *own, struct ms_chan_pair *out);
/* Whether memfd fd still holds the size bytes at own: read in pieces, so
 * that the check maps and copies nothing of a large spec. */
int ms_channel_same(long fd, const void *own, uint64_t size);
/* Unmaps both (the descriptors are the caller's to close). */
void ms_channel_unmap(struct ms_chan_pair *p);
/* Whether memfd fd carries the seals of the spec (state 0) or the state. */
uint32_t ms_channel_seals_ok(long fd, int state);
/* Lays spec out in map (size bytes, zeroed), rules and expectations grouped
 * by function, call-order entries as declared; flags: enum ms_chan_flags. */
void ms_channel_write(const struct ms_spec *spec, void *map, uint64_t size,
		      uint32_t events_cap, uint32_t flags);

/*
 * C string escapes of the bytes [p, e) appended to buf (len bytes used, cap
 * at most).  NULL when done, else why, with *where at the offending byte.
 */
const char *ms_unescape(const char *p, const char *e, char *buf, size_t *len, size_t cap,
			const char **where);

/* Named integer constants: errno, EAI_*, O_*, S_*, SIG*, AF_*, SOCK_*, CLOCK_*. */
int ms_name_value(const char *name, size_t len, int64_t *value);
/* fake_time's WHEN in [s, e) into *ns: since the epoch, or an offset when
 * *offset; NULL, or why not with *at the offending byte. */
const char *ms_parse_when(const char *s, const char *e, int64_t *ns, int *offset, const char **at);
/* "ENOENT" for 2, or NULL. */
const char *ms_errno_name(int err);
const char *ms_eai_name(int code);

/* Known structs for struct literals. */
enum ms_field_kind {
	MS_FD_INT = 1,
	MS_FD_UINT,
	MS_FD_CHARS,		/* char name[N]: a string, NUL-terminated within */
	MS_FD_DOUBLE,		/* declared structs: double */
	MS_FD_STR,		/* declared structs: char *, the spec's string or NULL */
	MS_FD_PTR,		/* declared structs: another pointer, NULL or an address */
	MS_FD_NESTED,		/* a struct inside: a literal {...} of struct sub, or
				 * an integer for its first field (stx_mtime = {S, NS}) */
};

struct ms_field_desc {
	const char *name;
	uint16_t off, size;
	uint8_t kind;
	int64_t min, max;
	const struct ms_struct_desc *sub;	/* MS_FD_NESTED */
};

struct ms_struct_desc {
	const char *name;
	uint32_t size;
	const struct ms_field_desc *fields;
	unsigned nfields;
};

const struct ms_struct_desc *ms_struct_find(const char *name);
/* The catalog's structs, one by one (--list): NULL after the last. */
const struct ms_struct_desc *ms_struct_at(unsigned i);

/* Shell-style glob: '*', '?', '[...]'. */
int ms_glob_match(const char *pat, const char *s);
/* The shape of glob pat (enum ms_glob_form) and its literal's length in
 * *len (at most 65535: longer is MS_GF_ANY). */
unsigned ms_glob_form(const char *pat, uint16_t *len);

#endif
