/*
 * hooks.h: the inline hooks of the hot path, which the generated wrappers
 * and the hand-written ones call on every call: what a call (lm_plain)
 * and a send (lm_sent, lm_sendto_add) add to the profile. They have no .c
 * file: they only update the shared state (state.h), the matrix
 * (pairs.c) and the sender's communicator group (comms.c).
 */
#ifndef LATMAP_HOOKS_H
#define LATMAP_HOOKS_H

#include "state.h"
#include "commtab.h"
#include "comms.h"
#include "pairs.h"

/* lm_sendto_add adds a message to world rank w, sent on c, to the matrix
 * and to c's group's; the caller holds LM_LOCK. */
static inline void lm_sendto_add(struct lm_comm *c, int w, int64_t b, uint64_t d)
{
	lm_pair_add(&lm.sendto, w, b, d, 0);
	if (c && c->grp >= 0)
		lm_cgroup_sent(c->grp, w, b, d);
}

/* lm_plain accounts a call of function id started at t0: its time. */
static inline void lm_plain(int id, uint64_t t0)
{
	uint64_t t1 = lm_tick();
	if (lm.on) {
		LM_LOCK();
		lm.fn[id].calls++;
		lm.fn[id].ticks += t1 - t0;
		LM_UNLOCK();
	}
}

/* lm_sent accounts a send of count elements to dest (after the call). */
static inline void lm_sent(int id, uint64_t t0, MPI_Count count, MPI_Datatype dt, int dest, MPI_Comm comm)
{
	uint64_t t1 = lm_tick();
	if (!lm.on)
		return;
	struct lm_fnstat *f = &lm.fn[id];
	uint64_t d = t1 - t0;
	if (dest == MPI_PROC_NULL) {
		LM_LOCK();
		f->calls++;
		f->ticks += d;
		LM_UNLOCK();
		return;
	}
	int64_t b = (int64_t)count * lm_tsize(dt);
	struct lm_comm *c = lm_comm_of(comm);
	int w = lm_world_of(c, dest);
	LM_LOCK();
	f->calls++;
	f->ticks += d;
	f->bsent += b;
	f->rsent++;
	struct lm_bin *bin = &lm.bins[id][lm_bin_of(b)];
	bin->calls++;
	bin->ticks += d;
	lm_sendto_add(c, w, b, d);
	LM_UNLOCK();
}

#endif
