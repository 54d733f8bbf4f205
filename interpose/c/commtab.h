/*
 * commtab.h: the communicator table (commtab.c): struct lm_comm (state.h)
 * of every communicator the application uses, found by handle, and the
 * hooks of the calls that create, name and free communicators.
 */
#ifndef LATMAP_COMMTAB_H
#define LATMAP_COMMTAB_H

#include "state.h"

/* lm_commtab_setup builds the tables of MPI_COMM_WORLD and MPI_COMM_SELF
 * (with their shadows under --slt: collective) at start-up. */
void lm_commtab_setup(void);
/* lm_comm_get is comm's table, built on first use. */
struct lm_comm *lm_comm_get(MPI_Comm comm);
/* lm_comm_unref drops a tracked request's reference to c (under LM_LOCK). */
void lm_comm_unref(struct lm_comm *c);
/* Communicators created and freed, and named (the wrappers). */
void lm_comm_new(MPI_Comm comm, MPI_Comm parent, int fid);
int lm_Comm_set_name(int id, uint64_t t0, MPI_Comm comm, const char *comm_name);
void lm_comm_free(MPI_Comm comm);

/* lm_comm_of is comm's table, or NULL for the world (no lookup). */
static inline struct lm_comm *lm_comm_of(MPI_Comm comm)
{
	return comm == lm_world ? NULL : lm_comm_get(comm);
}

/* lm_world_of is the world rank of rank r of c (lm_comm_of's). */
static inline int lm_world_of(struct lm_comm *c, int r)
{
	if (!c || !c->world)
		return r;
	return r >= 0 && r < c->size ? c->world[r] : -1;
}

#endif
