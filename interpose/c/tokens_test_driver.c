/* tokens_test_driver.c: drives the --slt token pairing of tokens.c
 * (lm_pair_token) through a fixed story and prints one line per receive,
 * "RESULT LATE_ORIGIN MISMATCHES RESYNCED", for interpose/tokens_test.go.
 * Built with the MPI compiler wrapper together with the library's C
 * sources (the Makefile's SRCS but the Fortran bindings); it needs no MPI
 * run. */
#include <stdio.h>

#include "tokens.h"

static void step(struct lm_comm *c, int src, int tag, int taken, int toksrc, int tokmod, uint64_t tokat)
{
	uint64_t own = 0;
	long long mismatch, resynced;
	int r = lm_pair_token(c, src, tag, taken, toksrc, tag, tokmod, tokat, &own);
	lm_token_counts(&mismatch, &resynced);
	printf("%d %llu %lld %lld\n", r, (unsigned long long)own, mismatch, resynced);
}

int main(void)
{
	struct lm_comm c = {.id = 7};
	/* Rank 1 sends messages #0..#4 on tag 5, rank 2 message #0; each
	 * token says its number by its length. */
	step(&c, 1, 5, 1, 1, 0, 100); /* 1#0 took its own token: 0 */
	step(&c, 2, 5, 1, 1, 1, 200); /* a wildcard got 2#0 but took 1#1's token: mismatch, own unknown: 2 */
	step(&c, 1, 5, 1, 1, 2, 300); /* 1#1 took 1#2's token (shifted): mismatch, its own kept at 200: 1 */
	step(&c, 1, 5, 1, 1, 3, 400); /* 1#2 took 1#3's: own kept at 300: 1 */
	step(&c, 1, 5, 0, 0, -1, 0);  /* 1#3's payload came first, its own kept at 400: 3 (its token receive is dropped) */
	step(&c, 1, 5, 1, 1, 4, 500); /* 1#4 takes its own token again: back in step, 0 */
	step(&c, 2, 5, 1, 2, 1, 600); /* 2#1 own: 0 */
	return 0;
}
