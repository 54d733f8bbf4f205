/*
 * account.h: what a completed point-to-point call adds to the profile
 * (account.c): its time, a receive's bytes and source, a sendrecv's send,
 * and the completion of a tracked request.
 */
#ifndef LATMAP_ACCOUNT_H
#define LATMAP_ACCOUNT_H

#include "state.h"
#include "requests.h"

/* lm_account records one call of function id: total ticks, of which late. */
static inline void lm_account(int id, uint64_t total, uint64_t late)
{
	if (!lm.on)
		return;
	if (late > total)
		late = total;
	LM_LOCK();
	lm.fn[id].calls++;
	lm.fn[id].ticks += total - late;
	lm.fn[id].late += late;
	LM_UNLOCK();
}

/* lm_got records a completed receive described by st on communicator c,
 * charged to function id (its bytes), with its share of ticks and late. */
void lm_got(int id, struct lm_comm *c, MPI_Status *st, uint64_t ticks, uint64_t late);
/* lm_sendrecv_sent records the send of a sendrecv: sb bytes to rank dest
 * (not MPI_PROC_NULL) of comm, taking d ticks. */
void lm_sendrecv_sent(int id, MPI_Comm comm, int dest, int64_t sb, uint64_t d);
/* lm_done finishes a tracked request completed with status st: its token
 * paired (or dropped, or left as an orphan), its receive recorded. */
void lm_done(struct lm_req *e, MPI_Status *st, uint64_t ticks, uint64_t late);
/* lm_done_origin sets the start of the Wait-family call whose requests
 * lm_done is completing, the origin of send-late time (0 outside one). */
void lm_done_origin(uint64_t t0);

#endif
