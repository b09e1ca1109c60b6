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

#endif
