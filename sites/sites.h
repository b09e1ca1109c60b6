/* SPDX-License-Identifier: MIT */
/*
 * Call sites in mockrun: `OBJECT+0xOFFSET` (the calling object's basename
 * and a return address's offset from the object's load bias, the ELF
 * vaddr) to `OBJECT+0xOFFSET (FUNC, FILE:LINE)`, and `at="FUNC"` or
 * `at="FILE:LINE"` to ranges of such offsets.
 *
 * mockrun is static (glibc or musl) and the shim never symbolizes: the
 * work is done by a dynamic helper, mockshim-symbolize (libdwfl),
 * started as a coprocess on first need and spoken to over a socket pair
 * with the line protocol below.  Without the helper sites stay raw and a
 * name in at= is an error saying what is missing.
 *
 * The protocol, one request line, its answer lines (version 1):
 *	hello 1			ok mockshim-symbolize 1
 *	obj PATH		ok N			(PATH and its DT_NEEDED
 *				err MESSAGE		 libraries in the map: N objects)
 *	sym OBJECT+0xOFF	= FUNC, FILE:LINE	(or "= FUNC+0xN")
 *				-			(nothing known)
 *	pc OBJECT+0xOFF		as sym, for an instruction's own address (a
 *				crash's faulting one), not a return address
 *	at TEXT			range OBJECT 0xLO 0xHI	(zero or more; inclusive
 *							 return-address offsets)
 *				end 0|1|-1 MESSAGE	(ok | warning | error)
 *	quit			(the helper exits; so does it at end of input)
 * Lines end with '\n'; PATH and TEXT are the rest of the line.
 *
 * Error-site coverage (--sites, mockrun sites): coverage.h, below.
 */
#ifndef MS_SITES_H
#define MS_SITES_H

#include <stddef.h>
#include <stdint.h>

#define MS_SYM_HELPER "mockshim-symbolize"
#define MS_SYM_PROTO 1

/* a range of return-address offsets in an object (basename), inclusive */
struct ms_sym_range {
	char object[64];
	uint64_t lo, hi;
};

/* ---- the protocol's pieces (proto.c: no allocation, no I/O) ---- */

/* "OBJ+0xOFF" at s (up to its end or a space): the object into obj,
 * the offset in *off; the length read, 0 when s is no site */
size_t ms_site_parse(const char *s, char *obj, size_t objlen, uint64_t *off);
/* the site a trace line ends with (" at OBJ+0xOFF", before a newline):
 * its start in line, or NULL */
const char *ms_site_in_line(const char *line, size_t len);
/* "range OBJ 0xLO 0xHI": 0, or -1 */
int ms_sym_parse_range(const char *line, struct ms_sym_range *r);
/* "end N MESSAGE": N (0, 1, -1) and the message's start in *msg; -2 when
 * line is no end line */
int ms_sym_parse_end(const char *line, const char **msg);
/* edit distance of a and b, or limit + 1 when above limit */
unsigned ms_sym_distance(const char *a, const char *b, unsigned limit);

/* ---- the client (client.c: in mockrun, no libdw) ---- */

struct ms_sym;

/* the helper: $MOCKSHIM_SYMBOLIZER, beside mockrun (the build tree's
 * sites/, ../LIBEXECDIR/ of an installed one) or LIBEXECDIR; malloc'd,
 * NULL when there is none */
char *ms_sym_find_helper(void);
/* a client for helper (NULL: ms_sym_find_helper()'s); starts nothing */
struct ms_sym *ms_sym_new(const char *helper);
void ms_sym_free(struct ms_sym *s);
/* add a program (found in PATH as exec finds it) and its libraries to
 * the map: sent now when the helper runs, else at its start */
int ms_sym_add_program(struct ms_sym *s, const char *program);
/* start the helper now (before a run: mockrun is the tree's subreaper
 * while it runs, so the helper is started outside it, by a double fork).
 * 0, or -1 with the reason in ms_sym_error() */
int ms_sym_start(struct ms_sym *s);
/* why the helper is not there ("" when it is) */
const char *ms_sym_error(const struct ms_sym *s);
/* " (FUNC, FILE:LINE)" or " (FUNC+0xN)" for a site into out: its length,
 * 0 when nothing is known (the helper absent included) */
int ms_sym_site(struct ms_sym *s, const char *object, uint64_t offset, char *out, size_t outlen);
/* the same for an instruction's own address (a crash's faulting one) */
int ms_sym_site_pc(struct ms_sym *s, const char *object, uint64_t offset, char *out, size_t outlen);
/* at="FUNC" or at="FILE:LINE": 0 with *n ranges in out, 1 with a warning
 * in msg (still *n ranges), -1 with the error in msg */
int ms_sym_at(struct ms_sym *s, const char *text, struct ms_sym_range *out, unsigned max, unsigned *n,
	      char *msg, size_t msglen);
/* a trace line (len bytes, its newline included or not) with its site
 * symbolized into out (NUL-terminated, the newline kept): its length;
 * the line as it was when nothing is known */
size_t ms_sym_line(struct ms_sym *s, const char *line, size_t len, char *out, size_t outlen);

/* ---- error-site coverage (--sites, mockrun sites) ---- */
#include "coverage.h"

#endif
