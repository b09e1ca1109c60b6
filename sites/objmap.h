/* SPDX-License-Identifier: MIT */
/* The helper's map of a run's objects: basename to file (objmap.c). */
#ifndef MS_OBJMAP_H
#define MS_OBJMAP_H

#include <stddef.h>

struct ms_obj {
	char *base;		/* the name a site gives: the file's basename as loaded */
	char *path;		/* the file */
	int system;		/* a system library (libc, libm, ld.so, libgcc_s, libstdc++) */
	void *sym;		/* the symbolizer's state of it (symbolize.c) */
};

struct ms_objmap {
	struct ms_obj *obj;
	size_t n, cap;
};

/* the program found as exec finds it (PATH), then its DT_NEEDED
 * libraries as the loader finds them: 0, or -1 with why in err */
int ms_objmap_add_program(struct ms_objmap *m, const char *program, char *err, size_t errlen);
/* the object a basename means: the map's, else one found in the
 * standard library directories (then added), else NULL */
struct ms_obj *ms_objmap_find(struct ms_objmap *m, const char *base);
/* a basename of a system library */
int ms_objmap_is_system(const char *base);

#endif
