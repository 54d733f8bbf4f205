/*
 * pairs.h: the per-peer traffic hashes (pairs.c); struct lm_pairs itself
 * is in state.h, since lm holds three of them.
 */
#ifndef LATMAP_PAIRS_H
#define LATMAP_PAIRS_H

#include "state.h"

/* lm_pair_add adds one message to p; the caller holds LM_LOCK. */
void lm_pair_add(struct lm_pairs *p, int key, int64_t bytes, uint64_t ticks, uint64_t late);

#endif
