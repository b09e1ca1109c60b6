/* SPDX-License-Identifier: MIT */
/*
 * The statement language's face to the other folders (DESIGN.md section
 * 3): the parser (parser.h: text into the store), the declarations of
 * functions outside the catalog (declare.h) and the dates of fake_time
 * (datetime.h).  The lexer, the reader and the compiler are its inside.
 */
#ifndef MS_LANG_H
#define MS_LANG_H

#include "datetime.h"
#include "declare.h"
#include "parser.h"

/*
 * at="SITE" (DESIGN.md 7.1): "OBJ+0xHEX" is read here; a name (a
 * function "jv_mem_alloc", a line "jv_alloc.c:41") is the resolver's,
 * which mockrun's symbolizer gives (spec->at_fn, spec->at_ctx: the
 * program's path(s)).  A range: return-address offsets lo..hi
 * (inclusive) in object (a basename), as a call site's offset is (from
 * the object's load bias: the ELF vaddr).  The resolver returns 0 with
 * *n ranges in out (at most max); 1: a warning in msg, still *n ranges
 * (maybe 0: the statement then matches no call); -1: an error in msg
 * ("no function jv_mem_aloc in jq or its libraries; closest:
 * jv_mem_alloc"), which the parser reports with a caret at the value.
 * A warning is the resolver's to show (the parser has no stdio).
 */
struct ms_site_range {
	const char *object;
	uint64_t lo, hi;
};
typedef int (*ms_at_resolver)(void *ctx, const char *text, struct ms_site_range *out, unsigned max,
			      unsigned *n, char *msg, size_t msglen);
#define MS_AT_RANGES_MAX 64	/* ranges one at= takes */

/* Sets the resolver of at="NAME" for what spec parses next (NULL: only
 * at="OBJ+0xHEX" is understood). */
static inline void ms_parse_set_at_resolver(struct ms_spec *spec, ms_at_resolver fn, void *ctx)
{
	spec->at_fn = fn;
	spec->at_ctx = ctx;
}

#endif
