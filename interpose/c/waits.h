/*
 * waits.h: what the receives of p2p.c borrow from the Wait family
 * (waits.c); the Wait- and Test-family hooks are in latmap.h.
 */
#ifndef LATMAP_WAITS_H
#define LATMAP_WAITS_H

#include "latmap.h"
#include "requests.h"

/* lm_wait_one waits for request *r of function id (started at t0), whose
 * detached entry e has a token pending, and for its token; st receives
 * its status. */
int lm_wait_one(int id, uint64_t t0, struct lm_req *e, MPI_Request *r, MPI_Status *st) LM_HIDDEN;

#endif
