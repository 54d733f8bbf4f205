/*
 * util.h: small helpers the library's tables and completions share (no
 * state): the hash of the open-addressing tables (pairs.c, commtab.c,
 * requests.c, tokens.c) and whether a status says its request was
 * cancelled. bprintf, the row buffer, is in util.c (declared in latmap.h).
 */
#ifndef LATMAP_UTIL_H
#define LATMAP_UTIL_H

#include "latmap.h"

static inline uint32_t lm_hash64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return (uint32_t)k;
}

static inline int lm_is_cancelled(MPI_Status *st)
{
	int cancelled = 0;
	PMPI_Test_cancelled(st, &cancelled);
	return cancelled;
}

#endif
