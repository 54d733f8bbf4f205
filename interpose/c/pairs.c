/*
 * pairs.c: the sparse per-peer traffic hashes (struct lm_pairs, keyed by
 * world rank): the matrix's rows lm.sendto, lm.recvfrom and lm.collto, and
 * the per-communicator rows of comms.c. A peer that has no world rank
 * (dynamic processes) is left out and reported (LM_W_UNTRANSLATABLE).
 */
#include "pairs.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

static void pairs_grow(struct lm_pairs *p)
{
	int ncap = p->cap ? p->cap * 2 : 64;
	struct lm_pair *nt = malloc(sizeof(*nt) * (size_t)ncap);
	if (!nt)
		return;
	for (int i = 0; i < ncap; i++)
		nt[i].key = -1;
	for (int i = 0; i < p->cap; i++) {
		if (p->t[i].key < 0)
			continue;
		uint32_t h = lm_hash64((uint64_t)p->t[i].key) & (uint32_t)(ncap - 1);
		while (nt[h].key >= 0)
			h = (h + 1) & (uint32_t)(ncap - 1);
		nt[h] = p->t[i];
	}
	free(p->t);
	p->t = nt;
	p->cap = ncap;
}

void lm_pair_add(struct lm_pairs *p, int key, int64_t bytes, uint64_t ticks, uint64_t late)
{
	if (key < 0) {
		lm.warn |= LM_W_UNTRANSLATABLE;
		return;
	}
	if (p->n * 10 >= p->cap * 7) {
		pairs_grow(p);
		if (p->n * 10 >= p->cap * 7)
			return; /* out of memory: drop rather than crash the app */
	}
	uint32_t m = (uint32_t)(p->cap - 1), h = lm_hash64((uint64_t)key) & m;
	while (p->t[h].key >= 0 && p->t[h].key != key)
		h = (h + 1) & m;
	struct lm_pair *e = &p->t[h];
	if (e->key < 0) {
		memset(e, 0, sizeof(*e));
		e->key = key;
		p->n++;
	}
	e->bytes += bytes;
	e->msgs++;
	e->ticks += ticks;
	e->late += late;
}
