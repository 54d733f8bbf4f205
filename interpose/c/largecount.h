/*
 * largecount.h: the MPI-4 large-count (_c) point-to-point calls
 * (largecount.c), accounted after the generated wrapper made the call.
 */
#ifndef LATMAP_LARGECOUNT_H
#define LATMAP_LARGECOUNT_H

#include "state.h"

void lm_recv_done(int id, uint64_t t0, MPI_Comm comm, MPI_Status *status);
void lm_irecv_track(int id, MPI_Comm comm, int source, int tag, MPI_Request r);
void lm_sendrecv_done(int id, uint64_t t0, MPI_Count sendcount, MPI_Datatype sendtype, int dest, MPI_Comm comm, MPI_Status *status);

#endif
