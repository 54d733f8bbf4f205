/*
 * waits.h: the Wait and Test families (waits.c), and what the receives of
 * p2p.c borrow from them.
 */
#ifndef LATMAP_WAITS_H
#define LATMAP_WAITS_H

#include "state.h"
#include "requests.h"

int lm_Wait(int id, uint64_t t0, MPI_Request *request, MPI_Status *status);
int lm_Waitall(int id, uint64_t t0, int count, MPI_Request reqs[], MPI_Status *statuses);
int lm_Waitany(int id, uint64_t t0, int count, MPI_Request reqs[], int *index, MPI_Status *status);
int lm_Waitsome(int id, uint64_t t0, int incount, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[]);
int lm_Test(int id, uint64_t t0, MPI_Request *request, int *flag, MPI_Status *status);
int lm_Testall(int id, uint64_t t0, int count, MPI_Request reqs[], int *flag, MPI_Status statuses[]);
int lm_Testany(int id, uint64_t t0, int count, MPI_Request reqs[], int *index, int *flag, MPI_Status *status);
int lm_Testsome(int id, uint64_t t0, int incount, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[]);

/* lm_wait_one waits for request *r of function id (started at t0), whose
 * detached entry e has a token pending, and for its token; st receives
 * its status. */
int lm_wait_one(int id, uint64_t t0, struct lm_req *e, MPI_Request *r, MPI_Status *st);

#endif
