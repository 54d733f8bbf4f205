/*
 * util.c: bprintf, the growing buffer the output files' rows are written
 * into (output.c, comms.c, sites.c) before the gather.
 */
#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void bprintf(struct lm_buf *b, const char *fmt, ...)
{
	for (;;) {
		va_list ap;
		va_start(ap, fmt);
		size_t room = b->cap - b->n;
		int k = vsnprintf(b->p ? b->p + b->n : NULL, room, fmt, ap);
		va_end(ap);
		if (k < 0)
			return;
		if ((size_t)k < room) {
			b->n += (size_t)k;
			return;
		}
		size_t nc = b->cap ? b->cap * 2 : 4096;
		while (nc - b->n <= (size_t)k)
			nc *= 2;
		b->p = realloc(b->p, nc);
		if (!b->p)
			abort();
		b->cap = nc;
	}
}
