/*
 * commtab.h: the communicator table's side that the other files use
 * (commtab.c); lm_comm_get and the hooks are declared in latmap.h.
 */
#ifndef LATMAP_COMMTAB_H
#define LATMAP_COMMTAB_H

#include "latmap.h"

/* lm_commtab_setup builds the tables of MPI_COMM_WORLD and MPI_COMM_SELF
 * (with their shadows under --slt: collective) at start-up. */
void lm_commtab_setup(void) LM_HIDDEN;
/* lm_comm_unref drops a tracked request's reference to c (under LM_LOCK). */
void lm_comm_unref(struct lm_comm *c) LM_HIDDEN;

#endif
