/* SPDX-License-Identifier: MIT */
#ifndef GREET_H
#define GREET_H
/* The name to greet: the first line of FILE, or "world". */
const char *greet_name(const char *file);
#endif
