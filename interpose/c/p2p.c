/*
 * p2p.c: the receives (MPI_Recv, MPI_Irecv), MPI_Sendrecv and
 * MPI_Sendrecv_replace, and the matched probes. A receive's bytes are
 * counted when it completes (account.c); a nonblocking one is tracked
 * (requests.c) until a Wait- or Test-family call completes it (waits.c).
 * Under --slt each also takes part in the token protocol (tokens.c).
 */
#include "p2p.h"
#include "account.h"
#include "commtab.h"
#include "hooks.h"
#include "requests.h"
#include "tokens.h"
#include "waits.h"

int lm_irecv(int id, uint64_t t0, void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm, MPI_Request *request)
{
	if (!lm.enabled || source == MPI_PROC_NULL) {
		int rc = PMPI_Irecv(buf, count, dt, source, tag, comm, request);
		lm_plain(id, t0);
		return rc;
	}
	struct lm_comm *c = lm_comm_get(comm);
	MPI_Request tok = lm_token_post(c, source, tag);
	int rc = PMPI_Irecv(buf, count, dt, source, tag, comm, request);
	if (rc == MPI_SUCCESS)
		lm_req_track_recv(id, RQ_RECV, c, source, tag, *request, tok);
	lm_plain(id, t0);
	return rc;
}

int lm_recv(int id, uint64_t t0, void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm, MPI_Status *status)
{
	MPI_Status st;
	if (status == MPI_STATUS_IGNORE)
		status = &st;
	if (!lm.enabled || source == MPI_PROC_NULL || !lm.slt) {
		int rc = PMPI_Recv(buf, count, dt, source, tag, comm, status);
		uint64_t d = lm_tick() - t0;
		if (lm.on) {
			lm_account(id, d, 0);
			lm_got(id, lm_comm_get(comm), status, d, 0);
		}
		return rc;
	}
	/* --slt: the receive becomes Irecv + a wait that also takes the token. */
	struct lm_comm *c = lm_comm_get(comm);
	MPI_Request tok = lm_token_post(c, source, tag), r;
	int rc = PMPI_Irecv(buf, count, dt, source, tag, comm, &r);
	if (rc != MPI_SUCCESS) {
		if (tok != MPI_REQUEST_NULL)
			lm_orphan(tok);
		return rc;
	}
	lm_req_track_recv(id, RQ_RECV, c, source, tag, r, tok);
	struct lm_req *e = lm_req_take(r);
	if (e->tokstate != TOK_PENDING) {
		rc = PMPI_Wait(&r, status);
		uint64_t d = lm_tick() - t0;
		lm_account(id, d, 0);
		lm_done(e, status, d, 0);
	} else {
		rc = lm_wait_one(id, t0, e, &r, status);
	}
	lm_req_give_back(e);
	return rc;
}

/* ------------------------------------------------------------- sendrecv */

/* sendrecv_account records a Sendrecv(_replace) of function id that took
 * d ticks, late of them send-late: sb bytes sent to dest, and what status
 * says arrived on c. */
static void sendrecv_account(int id, uint64_t d, uint64_t late, int64_t sb, int dest, MPI_Comm comm, struct lm_comm *c,
			     MPI_Status *status)
{
	if (!lm.on)
		return;
	lm_account(id, d, late);
	if (dest != MPI_PROC_NULL)
		lm_sendrecv_sent(id, comm, dest, sb, d);
	lm_got(id, c, status, d, late);
}

/* A token taken by sendrecv_wait: its status, number and arrival. */
struct taken_token {
	int taken, mod;
	MPI_Status st;
	uint64_t at;
};

/* sendrecv_wait completes all's receive (0) and send (1), taking the token
 * (2) if it comes meanwhile; it returns the send-late time that token
 * says. */
static uint64_t sendrecv_wait(MPI_Request all[3], uint64_t t0, MPI_Status *status, struct taken_token *tt)
{
	uint64_t late = 0, lat = lm_token_latency();
	int left = 2;
	while (left > 0) {
		int k;
		MPI_Status s;
		PMPI_Waitany(3, all, &k, &s);
		if (k == MPI_UNDEFINED)
			break;
		if (k == 2) {
			tt->at = lm_tick();
			uint64_t w = tt->at - t0;
			late = w > lat ? w - lat : 0;
			tt->taken = 1;
			tt->st = s;
			tt->mod = lm_token_len(&s);
			continue;
		}
		if (k == 0)
			*status = s;
		left--;
	}
	return late;
}

/* sendrecv_slt is Sendrecv under --slt: Isend + Irecv + Waitall; written
 * so, the wait can also take the token. *late is the send-late time. */
static int sendrecv_slt(uint64_t t0, struct lm_comm *c, const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
			int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
			MPI_Comm comm, MPI_Status *status, uint64_t *late)
{
	lm_token_send(comm, dest, sendtag);
	MPI_Request tok = lm_token_post(c, source, recvtag), rq[2];
	PMPI_Irecv(recvbuf, recvcount, recvtype, source, recvtag, comm, &rq[0]);
	int rc = PMPI_Isend(sendbuf, sendcount, sendtype, dest, sendtag, comm, &rq[1]);
	MPI_Request all[3] = {rq[0], rq[1], tok};
	struct taken_token tt = {.mod = -1};
	*late = sendrecv_wait(all, t0, status, &tt);
	if (all[2] != MPI_REQUEST_NULL)
		lm_orphan(all[2]);
	if (status->MPI_SOURCE >= 0) {
		uint64_t own = 0, lat = lm_token_latency();
		LM_LOCK();
		int r = lm_pair_token(c, status->MPI_SOURCE, status->MPI_TAG, tt.taken, tt.st.MPI_SOURCE, tt.st.MPI_TAG, tt.mod,
				      tt.at, &own);
		LM_UNLOCK();
		if (r == 1)
			*late = own > t0 + lat ? own - t0 - lat : 0;
		else if (r == 2)
			*late = 0;
	}
	return rc;
}

int lm_sendrecv(int id, uint64_t t0, const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
		void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
	MPI_Status st;
	if (status == MPI_STATUS_IGNORE)
		status = &st;
	if (!lm.enabled) {
		return PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
				     source, recvtag, comm, status);
	}
	struct lm_comm *c = lm_comm_get(comm);
	int64_t sb = (int64_t)sendcount * lm_tsize(sendtype);
	int rc;
	uint64_t late = 0;
	if (lm.slt && source != MPI_PROC_NULL && c->shadow != MPI_COMM_NULL) {
		rc = sendrecv_slt(t0, c, sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source,
				  recvtag, comm, status, &late);
	} else {
		if (lm.slt)
			lm_token_send(comm, dest, sendtag);
		rc = PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
				   source, recvtag, comm, status);
	}
	sendrecv_account(id, lm_tick() - t0, late, sb, dest, comm, c, status);
	return rc;
}

int lm_sendrecv_replace(int id, uint64_t t0, void *buf, int count, MPI_Datatype dt, int dest, int sendtag,
			int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
	MPI_Status st;
	if (status == MPI_STATUS_IGNORE)
		status = &st;
	if (!lm.enabled)
		return PMPI_Sendrecv_replace(buf, count, dt, dest, sendtag, source, recvtag, comm, status);
	struct lm_comm *c = lm_comm_get(comm);
	int64_t sb = (int64_t)count * lm_tsize(dt);
	MPI_Request tok = MPI_REQUEST_NULL;
	if (lm.slt) {
		lm_token_send(comm, dest, sendtag);
		tok = lm_token_post(c, source, recvtag);
		if (tok != MPI_REQUEST_NULL)
			lm.warn |= LM_W_SENDRECV_REPLACE;
	}
	int rc = PMPI_Sendrecv_replace(buf, count, dt, dest, sendtag, source, recvtag, comm, status);
	if (tok != MPI_REQUEST_NULL) {
		int f = 0;
		MPI_Status ts;
		PMPI_Test(&tok, &f, &ts);
		if (!f)
			lm_orphan(tok);
		if (status->MPI_SOURCE >= 0) {
			uint64_t own;
			LM_LOCK();
			lm_pair_token(c, status->MPI_SOURCE, status->MPI_TAG, f, ts.MPI_SOURCE, ts.MPI_TAG, f ? lm_token_len(&ts) : -1, 0,
				      &own);
			LM_UNLOCK();
		}
	}
	sendrecv_account(id, lm_tick() - t0, 0, sb, dest, comm, c, status);
	return rc;
}

/* --------------------------------------------------------------- probes */

/* A matched probe takes a message out of the matching order; under --slt
 * its token is taken too (it was sent before the payload), so later
 * receives stay paired with their own tokens. The rule of the whole token
 * protocol: the library never waits for a token alone, only alongside the
 * application's own requests, so a token that went astray can cost
 * accuracy (counted in token_mismatches) but never a deadlock. */
static void probe_token(MPI_Comm comm, MPI_Status *st)
{
	if (!lm.slt || st->MPI_SOURCE < 0)
		return;
	struct lm_comm *c = lm_comm_get(comm);
	/* Never wait for a token: an earlier wildcard token receive may have
	 * taken it. The receive is left to absorb it (cancelled at Finalize). */
	if (c->shadow != MPI_COMM_NULL) {
		uint64_t own;
		LM_LOCK();
		lm_pair_token(c, st->MPI_SOURCE, st->MPI_TAG, 0, 0, 0, -1, 0, &own); /* the message is taken */
		LM_UNLOCK();
		lm_orphan(lm_token_post(c, st->MPI_SOURCE, st->MPI_TAG));
	}
}

int lm_Mprobe(int id, uint64_t t0, int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status)
{
	MPI_Status st;
	if (status == MPI_STATUS_IGNORE)
		status = &st;
	int rc = PMPI_Mprobe(source, tag, comm, message, status);
	if (rc == MPI_SUCCESS && lm.enabled)
		probe_token(comm, status);
	lm.seen[id] = 1;
	lm_plain(id, t0);
	return rc;
}

int lm_Improbe(int id, uint64_t t0, int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message, MPI_Status *status)
{
	MPI_Status st;
	if (status == MPI_STATUS_IGNORE)
		status = &st;
	int rc = PMPI_Improbe(source, tag, comm, flag, message, status);
	if (rc == MPI_SUCCESS && *flag && lm.enabled)
		probe_token(comm, status);
	lm.seen[id] = 1;
	lm_plain(id, t0);
	return rc;
}
