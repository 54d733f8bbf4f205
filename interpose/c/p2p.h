/*
 * p2p.h: the receives, MPI_Sendrecv(_replace) and the matched probes
 * (p2p.c), each of which makes the MPI call itself.
 */
#ifndef LATMAP_P2P_H
#define LATMAP_P2P_H

#include "state.h"

int lm_recv(int id, uint64_t t0, void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm, MPI_Status *status);
int lm_irecv(int id, uint64_t t0, void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm, MPI_Request *request);
int lm_sendrecv(int id, uint64_t t0, const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
		void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status);
int lm_sendrecv_replace(int id, uint64_t t0, void *buf, int count, MPI_Datatype dt, int dest, int sendtag,
			int source, int recvtag, MPI_Comm comm, MPI_Status *status);
int lm_Mprobe(int id, uint64_t t0, int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status);
int lm_Improbe(int id, uint64_t t0, int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message, MPI_Status *status);

#endif
