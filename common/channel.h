/* SPDX-License-Identifier: MIT */
/*
 * The channel: one shared mapping (a memfd under mockrun, an anonymous
 * shared mapping in standalone mode) that carries the compiled rules to
 * every process of a session and carries what happened back.
 *
 * +--------------------------------------------------------------------+
 * | Layout rules (the shim trusts nothing it has not validated):       |
 * | - fixed-width fields only, no pointers: offsets from the mapping's |
 * |   start, or indices; pool offset 0 means "none".                   |
 * | - every offset and count is checked by ms_channel_validate()       |
 * |   before the first rule is read.                                   |
 * | - fields marked (shared) are written by the programs at run time,  |
 * |   with atomic operations only; everything else is read-only after  |
 * |   the driver wrote it.                                             |
 * | Bump MS_CHAN_ABI whenever a struct below changes.                  |
 * +--------------------------------------------------------------------+
 */
#ifndef MS_CHANNEL_H
#define MS_CHANNEL_H

#include <stddef.h>
#include <stdint.h>

#define MS_CHAN_MAGIC 0x4e48434du /* "MCHN" */
#define MS_CHAN_ABI 13u
#define MS_CHAN_ENV "MOCKSHIM_CHANNEL"
/* "FD:INODE": the same channel as an inherited descriptor, for processes
 * that cannot see the path (a new /proc, no /proc); MS_CHAN_FD_FLOOR is
 * where it goes, out of the program's way */
#define MS_CHAN_FD_ENV "MOCKSHIM_CHANNEL_FD"
#define MS_CHAN_FD_FLOOR 500
#define MS_CHAN_PIDS 4096	/* processes a session tells apart */

enum ms_chan_flags {
	MS_CHAN_ABORT_ON_FAIL = 1u << 0,	/* --on-fail=abort: SIGABRT at a failed check */
	MS_CHAN_STANDALONE = 1u << 1,	/* made by a shim from MOCKSHIM=: owner_pid reports */
	MS_CHAN_TRACE = 1u << 2,	/* --trace: trace_path (pool, 0: stderr) */
	MS_CHAN_LOG_CALLS = 1u << 3,	/* -v: a consume event for every call, not */
					/* only each process's first of each rule */
};

struct ms_chan_hdr {
	uint32_t magic;
	uint32_t abi;
	uint64_t size;		/* bytes of the whole mapping */
	uint32_t hdr_size;	/* sizeof(struct ms_chan_hdr) */
	uint32_t nfns;		/* MS_FN_COUNT of the writer */
	uint32_t catalog_hash;	/* ms_catalog_hash() of the writer */
	uint32_t flags;		/* enum ms_chan_flags */
	uint32_t fns_off;	/* struct ms_chan_fn[nfns] */
	uint32_t rules_off, nrules;	/* struct ms_rule[nrules] */
	uint32_t outs_off, nouts;	/* struct ms_out[nouts] */
	uint32_t expects_off, nexpects;	/* struct ms_expect[nexpects] */
	uint32_t orders_off, norders;	/* struct ms_order[norders], declaration order */
	uint32_t dyn_off, ndyn;	/* struct ms_chan_dyn[ndyn]: ids nfns - ndyn .. nfns */
	uint32_t pool_off, pool_size;	/* bytes; strings are NUL-terminated */
	uint32_t events_off, events_cap;	/* struct ms_event[events_cap] */
	uint32_t pids_off, pids_cap;	/* int32_t[pids_cap]: processes announced */
	uint32_t trace_path;	/* pool: --trace-file, 0: the program's stderr */
	uint32_t reserved1;
	uint64_t rec_off, rec_cap;	/* --record: the record log, bytes (0: none) */
	/* (shared) */
	uint32_t events_next;	/* next event slot; > events_cap: dropped */
	uint32_t attached;	/* processes whose shim attached */
	uint32_t failures;	/* failed checks recorded by the shims */
	uint32_t order_cursor;	/* first call-order entry not yet done */
	uint32_t order_seq;	/* calls that took part in call ordering */
	uint32_t consume_dropped;	/* consume events not logged, to keep room */
	uint32_t npids;		/* pids[] used; > pids_cap: full */
	int32_t owner_pid;	/* MS_CHAN_STANDALONE: the process that reports */
	uint64_t rec_next;	/* next free byte of the record log; > rec_cap: full */
	uint32_t rec_seq;	/* calls recorded, for their order */
	uint32_t rec_dropped;	/* calls not recorded: the log was full */
};

enum ms_fn_flags {
	MS_FF_ORDERED = 1u << 0,	/* has expect_function_call entries */
	MS_FF_IGNORED = 1u << 1,	/* ignore_function_calls */
	MS_FF_NO_CALL = 1u << 2,	/* expect_no_call */
	MS_FF_TRACED = 1u << 3,		/* --trace: a line per call */
	MS_FF_LEAN = 1u << 4,		/* alone: every rule ms_rule_lean(), no */
					/* expectation, order or trace, no -v: */
					/* the shim answers without numbering calls */
	MS_FF_RECORD = 1u << 5,		/* --record-fns: each real call's result */
					/* goes to the record log */
};

/* Flags whose real calls the shim follows up (ms_consult returns 2). */
#define MS_FF_AFTER (MS_FF_TRACED | MS_FF_RECORD)

/* Declared prototypes a session may have: the shim has a stub for each. */
#define MS_DECL_MAX 64

enum ms_dyn_kind {
	MS_DYN_MODULE = 0,	/* a handler module's: its handler consults */
	MS_DYN_DECLARED,	/* `mock RET NAME(PARAMS)`: stub i (i < MS_DECL_MAX) */
};

enum ms_dyn_ret {
	MS_DYN_RET_INT = 0,	/* integers, pointers, void: in rax */
	MS_DYN_RET_DOUBLE,	/* in xmm0 */
};

/* A function outside the catalog (id MS_FN_COUNT + i). */
struct ms_chan_dyn {
	uint32_t name;		/* pool */
	uint32_t params;	/* pool: the parameter names, comma separated */
	uint32_t proto;		/* pool: the declaration, for reports ("int f(int x)") */
	uint8_t nparams;
	uint8_t kind;		/* enum ms_dyn_kind */
	uint8_t ret;		/* enum ms_dyn_ret */
	uint8_t reserved0;
	uint16_t ptrmask;	/* bit i: parameter i is a pointer */
	uint16_t dblmask;	/* bit i: parameter i is a double (an SSE register) */
};

/* Per catalog function: its rules are rules[first_rule .. +nrules), its
 * expectations expects[first_expect .. +nexpects).  A cache line each, so
 * that threads calling different functions do not share the calls
 * counter's line (the table starts on a 64-byte boundary). */
struct ms_chan_fn {
	uint32_t first_rule;
	uint32_t nrules;
	uint32_t first_expect;
	uint32_t nexpects;
	uint32_t flags;		/* enum ms_fn_flags */
	uint32_t calls;		/* (shared) armed calls seen; module functions: mock() calls */
	uint32_t bound;		/* (shared) declared functions: processes that found */
				/* a definition to stand in for */
	uint32_t reserved[9];
};

enum ms_rule_kind {
	MS_R_RETURN = 1,	/* will_return*: reply with value and outputs */
	MS_R_FAIL,		/* will_fail*: the row's failure value */
	MS_R_REAL,		/* will_call_real: pass through, taking a turn */
};

enum ms_rule_flags {
	MS_RF_ERRNO = 1u << 0,		/* set errno to err */
	MS_RF_DEFAULT = 1u << 1,	/* value is `_`: derived, see rd_kind */
	MS_RF_STRVAL = 1u << 2,		/* value is a string: pool offset value_str */
	MS_RF_DOUBLE = 1u << 3,		/* value holds a double's bits (module and declared */
					/* functions) */
	MS_RF_PASSWD = 1u << 4,		/* value_str: a struct ms_passwd_rec (getpwuid, getpwnam) */
	MS_RF_GROUP = 1u << 6,		/* value_str: a struct ms_group_rec (getgrnam, getgrgid) */
	MS_RF_HOSTENT = 1u << 7,	/* value_str: value struct ms_addr (gethostbyname*):
					 * a struct hostent of those of the first's family */
	MS_RF_OWNED = 1u << 5,		/* MS_RF_STRVAL, returned as a copy from the */
					/* program's malloc (strdup: the caller frees it) */
};

#define MS_COUNT_ALWAYS (-1)
#define MS_COUNT_MAYBE (-2)
#define MS_NONE8 0xffu

/*
 * Two cache lines: what every call reads, written once by mockrun, then
 * what the calls write.  Rules sit 64-aligned (after the function table),
 * so threads taking turns of different rules (unrelated queues) never
 * write a line another one reads.
 */
struct ms_rule {
	uint32_t fn;		/* catalog id */
	uint16_t kind;		/* enum ms_rule_kind */
	uint16_t flags;		/* enum ms_rule_flags */
	int32_t count;		/* > 0, MS_COUNT_ALWAYS, MS_COUNT_MAYBE */
	int32_t err;
	int64_t value;
	uint32_t value_str;
	uint32_t outs_first, nouts;	/* outs[outs_first .. +nouts) */
	uint8_t rd_kind, rd_param, rd_div;	/* `_`: enum ms_ret_default */
	uint8_t lean;		/* ms_rule_lean(): the shim's fast path may answer */
	uint32_t in_glob;	/* pool: basename glob of the executable, 0 = any */
	uint32_t from_glob;	/* pool: basename glob of the calling object */
	uint32_t src;		/* pool: source name ("-e#1", "spec.mock") */
	uint32_t line, col;
	uint32_t text;		/* pool: the statement as written */
	/* the second line */
	uint64_t delay_ns;
	uint32_t consumed;	/* (shared) turns taken */
	int32_t logged_pid;	/* (shared) the last process that logged a turn of it */
	uint8_t reserved[48];
};

enum ms_out_kind_chan {
	MS_O_BYTES = 1,		/* copy len bytes, at most the capacity */
	MS_O_STR,		/* copy, NUL-terminate within the capacity */
	MS_O_STORE,		/* store len bytes through the pointer */
	MS_O_RETSTORE,		/* store the return value (len bytes) if not NULL */
	MS_O_FERROR,		/* on failure, set the FILE's error indicator */
	MS_O_REVENTS,		/* len / 2 int16 revents at data into the struct
				 * pollfd array at param, at most param + 1 of them */
	MS_O_SOCKADDR,		/* a struct sockaddr of len bytes at data: at most
				 * *(socklen_t *)param + 1 of them, and len there */
	MS_O_PASSWD_R,		/* getpw*_r: fill the struct passwd at param with
				 * the ms_passwd_rec at data, its strings in the
				 * caller's buffer (param + 1, size param + 2),
				 * and store it in *result (param + 3) */
	MS_O_ADDRINFO,		/* build an addrinfo list of len / sizeof(struct
				 * ms_addr) addresses, store it through the pointer */
	MS_O_STRDUP,		/* store a pointer to a copy of the string at data,
				 * made with the program's malloc (declared char **) */
	MS_O_POOLPTR,		/* store a pointer to the string at data at byte len
				 * of the pointee (a string field of a declared
				 * struct, or a const char ** output) */
};

/* A struct passwd to return: its strings are pool offsets (0: ""). */
/* A struct group to return: strings are pool offsets; mem lists the
 * members, comma separated ("" : none). */
struct ms_group_rec {
	uint32_t name, passwd, gid, mem;
};

struct ms_passwd_rec {
	uint32_t name, passwd, gecos, dir, shell;
	uint32_t uid, gid;
};

/* One address of an MS_O_ADDRINFO output. */
struct ms_addr {
	uint16_t family;	/* AF_INET or AF_INET6 */
	uint16_t port;		/* host order; 0: from the service argument */
	uint8_t addr[16];	/* network order */
};

struct ms_out {
	uint16_t kind;
	uint8_t param;		/* argument index */
	uint8_t cap1, cap2;	/* capacity = arg[cap1] (* arg[cap2]); MS_NONE8 */
	uint8_t reserved[3];
	uint32_t data, len;	/* pool */
};

enum ms_expect_kind {
	MS_X_VALUE = 1,
	MS_X_NOT_VALUE,
	MS_X_STRING,
	MS_X_NOT_STRING,
	MS_X_MEMORY,
	MS_X_NOT_MEMORY,
	MS_X_RANGE,
	MS_X_NOT_RANGE,
	MS_X_SET,
	MS_X_NOT_SET,
	MS_X_ANY,
};

/* expect_*(FN, PARAM, ...): checked against every call of FN. */
struct ms_expect {
	uint32_t fn;
	uint8_t kind;		/* enum ms_expect_kind */
	uint8_t param;		/* argument index */
	uint8_t psize;		/* bytes of an integer parameter (4 or 8) */
	uint8_t psigned;
	int32_t count;		/* > 0, MS_COUNT_ALWAYS, MS_COUNT_MAYBE */
	uint32_t reserved0;
	int64_t lo, hi;		/* VALUE: lo; RANGE: lo..hi */
	uint32_t data, len;	/* STRING/MEMORY: pool bytes; SET: len int64s */
	uint32_t in_glob, from_glob;
	uint32_t src, line, col, text;
	uint32_t consumed;	/* (shared) */
	uint32_t reserved1;
};

enum ms_order_kind {
	MS_ORD_CALL = 1,	/* expect_function_call(s): count calls, in sequence */
	MS_ORD_IGNORE,		/* ignore_function_calls: never out of order */
	MS_ORD_NO_CALL,		/* expect_no_call: any call fails */
};

struct ms_order {
	uint32_t fn;
	uint16_t kind;		/* enum ms_order_kind */
	uint16_t reserved0;
	int32_t count;		/* MS_ORD_CALL: > 0 */
	uint32_t in_glob, from_glob;
	uint32_t src, line, col, text;
	uint32_t consumed;	/* (shared) */
};

enum ms_event_type {
	MS_EV_ATTACH = 1,	/* a process attached: text = executable basename;
				 * value 0: at start (exec), 1: a forked child */
	MS_EV_CONSUME,		/* a rule took a turn: rule, value */
	MS_EV_FAIL,		/* a failed check: kind says which, see below */
	MS_EV_WARN,		/* something the user should know: text */
};

/*
 * Failure kinds.  "rule" indexes the table the kind names; the actual
 * value is in value (integers) or text[at..] (len bytes of a string or
 * memory, MS_EVF_TRUNCATED when longer).
 */
enum ms_failure_kind {
	MS_FAIL_OUTPUT_NULL = 1,	/* rules: an output pointer was NULL */
	MS_FAIL_CHECK,		/* expects: the parameter did not pass */
	MS_FAIL_NO_EXPECT,	/* expects (the last for the parameter): none left */
	MS_FAIL_ORDER,		/* orders: expected this entry; seq = actual position,
				 * value = expected position */
	MS_FAIL_ORDER_EXTRA,	/* orders (the function's last): more calls than expected */
	MS_FAIL_NO_CALL,	/* orders: a call expect_no_call forbids */
	MS_FAIL_MOCK_EMPTY,	/* rules (the function's last, or ~0u): mock() with
				 * nothing queued */
};

enum ms_event_flags {
	MS_EVF_NULL = 1u << 0,		/* the pointer was NULL */
	MS_EVF_FAULT = 1u << 1,		/* the pointer could not be read */
	MS_EVF_TRUNCATED = 1u << 2,	/* the actual bytes go on beyond text */
	MS_EVF_UNTERMINATED = 1u << 3,	/* no NUL within the bound */
};

#define MS_EV_TEXT 96
#define MS_EV_CALLER 64
#define MS_EV_SYM 40
#define MS_STRING_BOUND 4096	/* bytes of a string parameter read at most */

struct ms_event {
	uint32_t state;		/* (shared) 0 = being written, 1 = complete */
	uint16_t type;
	uint16_t fn;
	uint32_t rule;
	uint32_t call;		/* the function's armed call number, from 1 */
	int32_t pid;
	int32_t tid;
	int64_t value;
	uint16_t kind;		/* MS_EV_FAIL: enum ms_failure_kind */
	uint8_t param;
	uint8_t flags;		/* enum ms_event_flags */
	uint32_t len;		/* bytes of the actual string/memory */
	uint32_t at;		/* offset in it of text[0] */
	uint32_t seq;		/* call-order position */
	uint64_t caller_off;	/* return address offset in its object */
	char caller[MS_EV_CALLER];	/* the object's basename */
	char sym[MS_EV_SYM];	/* the nearest symbol, "" when unknown */
	char text[MS_EV_TEXT];
};

#define MS_REC_EXE 48
#define MS_REC_MAX_BYTES ((16u << 20) - 1)	/* of one output: what a spec string holds */

/*
 * --record: one real call of a recorded function, in the record log.
 * Entries are claimed with an atomic add on rec_next, so they are in
 * claim order, which seq gives exactly; each is 8-aligned, its outputs
 * follow it.
 */
struct ms_rec {
	uint32_t state;		/* (shared) 0: being written, 1: complete */
	uint32_t size;		/* bytes of the entry, outputs included */
	uint32_t seq;		/* the call's place among the recorded ones */
	uint16_t fn;
	uint16_t nouts;
	int32_t pid;
	int32_t err;		/* errno after the call */
	int64_t ret;
	char exe[MS_REC_EXE];	/* the program that made it (a pid may exec another) */
};

enum ms_rec_kind {
	MS_REC_BYTES = 1,	/* what the call wrote into the buffer param */
	MS_REC_STORE,		/* the struct or scalar at param, as it was left */
	MS_REC_ADDRINFO,	/* the list at *param, as struct ms_addr[] */
	MS_REC_SOCKADDR,	/* the struct sockaddr at param, *param + 1 bytes */
	MS_REC_REVENTS,		/* the revents of the pollfd array at param, int16_t[] */
	MS_REC_RETSTR,		/* the string returned */
};

struct ms_rec_out {
	uint8_t kind;		/* enum ms_rec_kind */
	uint8_t param;
	uint16_t reserved;
	uint32_t len;		/* bytes that follow, then padding to 8 */
};

_Static_assert(sizeof(struct ms_rec) % 8 == 0 && sizeof(struct ms_rec_out) == 8, "record layout");

/* Bytes an output of len takes after its ms_rec_out, and the next one. */
static inline uint32_t ms_rec_pad(uint32_t len)
{
	return (len + 7) & ~7u;
}

static inline const struct ms_rec_out *ms_rec_next(const struct ms_rec_out *o)
{
	return (const struct ms_rec_out *)((const char *)(o + 1) + ms_rec_pad(o->len));
}
_Static_assert(sizeof(struct ms_event) == 256, "event layout");
_Static_assert(sizeof(struct ms_rule) == 128 && offsetof(struct ms_rule, delay_ns) == 64,
	       "rule layout: two cache lines, the shared counters in the second");
_Static_assert(sizeof(struct ms_expect) % 8 == 0, "expect layout");

/* A rule with nothing but a value (and errno) to give: no outputs or
 * delay, not will_call_real. */
static inline int ms_rule_plain(const struct ms_rule *r)
{
	return r->kind != MS_R_REAL && !r->nouts && !r->delay_ns &&
	       !(r->flags & ~(MS_RF_ERRNO | MS_RF_DOUBLE));
}

/* ... for any caller (no in= or from=).  The writer sets ms_rule.lean to
 * this, the validator checks it. */
static inline uint8_t ms_rule_lean(const struct ms_rule *r)
{
	return ms_rule_plain(r) && !r->in_glob && !r->from_glob;
}

static inline void *ms_chan_at(const struct ms_chan_hdr *h, uint32_t off)
{
	return (char *)h + off;
}

static inline const char *ms_chan_str(const struct ms_chan_hdr *h, uint32_t off)
{
	return off ? (const char *)h + h->pool_off + off : NULL;
}

/* Checks every offset, count and index of a mapping of `size` bytes.
 * Returns NULL when it is valid, else a static reason. */
const char *ms_channel_validate(const void *map, uint64_t size);

#endif
