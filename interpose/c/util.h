/*
 * util.h: small helpers the library's files share (no state): the row
 * buffer the output files are written into (bprintf, util.c) and where
 * its rows go (lm_sink), the hash of the open-addressing tables (pairs.c,
 * commtab.c, requests.c, tokens.c) and whether a status says its request
 * was cancelled.
 */
#ifndef LATMAP_UTIL_H
#define LATMAP_UTIL_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

/* Output rows: bprintf appends to a buffer that output.c's gather writes;
 * comms.c and sites.c write their own files through it. */
struct lm_buf {
	char *p;
	size_t n, cap;
};
void bprintf(struct lm_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* lm_sink writes rows after a header into a file of the profile: the
 * gather at MPI_Finalize, or a rank's own partial snapshot (output.c). */
typedef int (*lm_sink)(struct lm_buf *, const char *, const char *);

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
