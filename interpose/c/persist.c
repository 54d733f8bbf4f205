/*
 * persist.c: persistent point-to-point requests (MPI_Send_init and the
 * like, MPI_Recv_init): tracked from their creation (requests.c); each
 * start of a send counts its bytes and, under --slt, sends its token;
 * each start of a receive posts its token receive. Their completion is
 * the Wait and Test families' (waits.c).
 */
#include "persist.h"
#include "commtab.h"
#include "hooks.h"
#include "requests.h"
#include "tokens.h"

static void persistent_init(int kind, int id, MPI_Count count, MPI_Datatype dt, int peer, int tag, MPI_Comm comm, MPI_Request req)
{
	if (!lm.enabled)
		return;
	struct lm_req *e = lm_req_add(req, lm_comm_get(comm));
	e->kind = kind;
	e->fn = id;
	e->peer = peer;
	e->tag = tag;
	e->count = count;
	e->dt = dt;
	e->tok = MPI_REQUEST_NULL;
}

void lm_psend_init(int id, MPI_Count count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm, MPI_Request req)
{
	persistent_init(RQ_PSEND, id, count, dt, dest, tag, comm, req);
}

void lm_precv_init(int id, MPI_Count count, MPI_Datatype dt, int source, int tag, MPI_Comm comm, MPI_Request req)
{
	persistent_init(RQ_PRECV, id, count, dt, source, tag, comm, req);
}

/* start_one does what starting a tracked persistent request needs before
 * PMPI_Start: the token of a send (and its bytes), the token receive of a
 * receive. */
static void start_one(int id, MPI_Request r, uint64_t d)
{
	if (!lm.nreq)
		return;
	struct lm_req *e = lm_req_find(r);
	/* The entry is this thread's: only the owner of a persistent request
	 * starts or frees it. */
	if (!e || (e->kind != RQ_PSEND && e->kind != RQ_PRECV))
		return;
	e->active = 1;
	if (e->kind == RQ_PSEND) {
		if (lm.slt)
			lm_token_send(e->comm->comm, e->peer, e->tag);
		if (lm.on && e->peer != MPI_PROC_NULL) {
			int64_t b = (int64_t)e->count * lm_tsize(e->dt);
			LM_LOCK();
			lm.fn[id].bsent += b;
			lm.fn[id].rsent++;
			struct lm_bin *bin = &lm.bins[id][lm_bin_of(b)];
			bin->calls++;
			bin->ticks += d;
			lm_sendto_add(e->comm, lm_world_of(e->comm, e->peer), b, d);
			LM_UNLOCK();
		}
		return;
	}
	e->fn = id;
	e->tok = lm_token_post(e->comm, e->peer, e->tag);
	e->tokstate = e->tok != MPI_REQUEST_NULL ? TOK_PENDING : TOK_NONE;
}

int lm_Start(int id, uint64_t t0, MPI_Request *request)
{
	start_one(id, *request, 0);
	int rc = PMPI_Start(request);
	lm_plain(id, t0);
	return rc;
}

int lm_Startall(int id, uint64_t t0, int count, MPI_Request reqs[])
{
	for (int i = 0; i < count; i++)
		start_one(id, reqs[i], 0);
	int rc = PMPI_Startall(count, reqs);
	lm_plain(id, t0);
	return rc;
}

int lm_Request_free(int id, uint64_t t0, MPI_Request *request)
{
	struct lm_req *e = lm_req_take(*request);
	if (!e && lm.nreq) /* an inactive persistent request */
		e = lm_req_detach(*request, 1);
	if (e) {
		if (e->tokstate == TOK_PENDING)
			lm_orphan(e->tok);
		lm_req_del(e);
		lm_req_give_back(e);
	}
	int rc = PMPI_Request_free(request);
	lm_plain(id, t0);
	return rc;
}
