/*
 * largecount.c: the MPI-4 large-count (_c) point-to-point calls, accounted
 * after the generated wrapper made the call. They take no part in --slt's
 * tokens.
 */
#include "largecount.h"
#include "account.h"
#include "commtab.h"
#include "requests.h"

/* lm_recv_done accounts a large-count receive (MPI_Recv_c) after the call:
 * its time and what status says arrived. */
void lm_recv_done(int id, uint64_t t0, MPI_Comm comm, MPI_Status *status)
{
	uint64_t d = lm_tick() - t0;
	if (lm.on) {
		lm_account(id, d, 0);
		lm_got(id, lm_comm_get(comm), status, d, 0);
	}
}

/* lm_irecv_track tracks a large-count nonblocking receive (MPI_Irecv_c):
 * its completion counts its bytes like MPI_Irecv's. */
void lm_irecv_track(int id, MPI_Comm comm, int source, int tag, MPI_Request r)
{
	if (!lm.enabled || source == MPI_PROC_NULL)
		return;
	lm_req_track_recv(id, RQ_RECV, lm_comm_get(comm), source, tag, r, MPI_REQUEST_NULL);
}

/* lm_sendrecv_done accounts MPI_Sendrecv_c and MPI_Sendrecv_replace_c
 * after the call: one call, the bytes sent to dest, what status says
 * arrived. */
void lm_sendrecv_done(int id, uint64_t t0, MPI_Count sendcount, MPI_Datatype sendtype, int dest, MPI_Comm comm, MPI_Status *status)
{
	uint64_t d = lm_tick() - t0;
	if (!lm.on)
		return;
	lm_account(id, d, 0);
	if (dest != MPI_PROC_NULL)
		lm_sendrecv_sent(id, comm, dest, (int64_t)sendcount * lm_tsize(sendtype), d);
	lm_got(id, lm_comm_get(comm), status, d, 0);
}
