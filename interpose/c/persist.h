/*
 * persist.h: persistent point-to-point requests (persist.c): their
 * creation (after the MPI call), MPI_Start(all) and MPI_Request_free.
 */
#ifndef LATMAP_PERSIST_H
#define LATMAP_PERSIST_H

#include "state.h"

void lm_psend_init(int id, MPI_Count count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm, MPI_Request req);
void lm_precv_init(int id, MPI_Count count, MPI_Datatype dt, int source, int tag, MPI_Comm comm, MPI_Request req);
int lm_Start(int id, uint64_t t0, MPI_Request *request);
int lm_Startall(int id, uint64_t t0, int count, MPI_Request reqs[]);
int lm_Request_free(int id, uint64_t t0, MPI_Request *request);

#endif
