/*
 * tokens.h: --slt's send-late tokens (tokens.c).
 */
#ifndef LATMAP_TOKENS_H
#define LATMAP_TOKENS_H

#include "state.h"

/* lm_token_send sends the token of a message to dest (the sender's side,
 * before the payload). */
void lm_token_send(MPI_Comm comm, int dest, int tag);
/* lm_token_post posts the token receive mirroring a payload receive
 * (MPI_REQUEST_NULL without --slt, from MPI_PROC_NULL or without a
 * shadow). */
MPI_Request lm_token_post(struct lm_comm *c, int source, int tag);
/* lm_token_len is the length of a received token: its number modulo
 * TOK_MOD (-1 when unknown). */
int lm_token_len(MPI_Status *ts);
/* lm_pair_token pairs the completed receive of message (src, tag) on c
 * with the token it took, if taken (its sender, tag, length and arrival):
 * 0 when it was its own or there was none to judge, 1 when it took another
 * message's token and its own was kept by an earlier receive (*own_at:
 * when that arrived), 2 when it took another's and its own is not known,
 * 3 when it took none and its own was kept by an earlier receive. Under
 * LM_LOCK. */
int lm_pair_token(struct lm_comm *c, int src, int tag, int taken, int toksrc, int toktag, int tokmod, uint64_t tokat,
		  uint64_t *own_at);
/* lm_token_drop cancels token receive *tok of a receive on communicator
 * cid whose own token is already known, so that it does not take the next
 * message's; a token it had taken meanwhile is kept for its message. */
void lm_token_drop(int cid, MPI_Request *tok);
/* lm_orphan keeps a token receive whose payload completed first: it will
 * absorb its token when that arrives; lm_orphans_cancel cancels those
 * left at MPI_Finalize. */
void lm_orphan(MPI_Request r);
void lm_orphans_cancel(void);
/* lm_tokens_calibrate measures the one-way token latency over priv
 * (collective); lm_token_latency is it, in ticks. */
void lm_tokens_calibrate(MPI_Comm priv);
uint64_t lm_token_latency(void);
/* lm_token_counts says how many receives took another message's token,
 * and of those how many got their own back. */
void lm_token_counts(long long *mismatch, long long *resynced);

#endif
