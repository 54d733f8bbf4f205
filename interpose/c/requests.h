/*
 * requests.h: the request side table (requests.c): what latmap keeps about
 * the application's receives and persistent requests until they complete.
 */
#ifndef LATMAP_REQUESTS_H
#define LATMAP_REQUESTS_H

#include "state.h"

enum { RQ_RECV = 1, RQ_PRECV, RQ_PSEND };
enum { TOK_NONE = 0, TOK_PENDING, TOK_ARRIVED };

struct lm_req {
	MPI_Request key;
	int kind, fn, active;
	int detached; /* taken out of the table by a Wait- or Test-family call */
	int dead;     /* a detached receive that completed: freed when given back */
	struct lm_comm *comm;
	int peer, tag;
	MPI_Count count;
	MPI_Datatype dt;
	MPI_Request tok;
	int tokstate, toksrc, toktag, tokmod;
	uint64_t tokat;
	struct lm_req *next; /* the free list */
};

/* lm_req_add returns a cleared entry for r, in the table, holding a
 * reference to c (a stale entry for a reused handle is dropped). */
struct lm_req *lm_req_add(MPI_Request r, struct lm_comm *c);
/* lm_req_track_recv tracks receive r of function id (kind RQ_RECV or
 * RQ_PRECV), active, with tok its token receive (or MPI_REQUEST_NULL). */
struct lm_req *lm_req_track_recv(int id, int kind, struct lm_comm *c, int source, int tag, MPI_Request r,
				 MPI_Request tok);
/* lm_req_del forgets a finished entry (a detached one when it is given
 * back). */
void lm_req_del(struct lm_req *e);
/* lm_req_find is the entry of r in the table, NULL when there is none. */
struct lm_req *lm_req_find(MPI_Request r);
/* lm_req_detach takes the entry of r out of the table (only an active one
 * unless any), marked detached; NULL when there is none. */
struct lm_req *lm_req_detach(MPI_Request r, int any);
/* lm_req_put_back frees a detached entry whose receive completed and puts
 * the others back (their handles still belong to the application). */
void lm_req_put_back(struct lm_req *e);

/* lm_req_take detaches the tracked, active entry of r; NULL when there is
 * none (at once when nothing is tracked). */
static inline struct lm_req *lm_req_take(MPI_Request r)
{
	if (!lm.nreq || r == MPI_REQUEST_NULL)
		return NULL;
	return lm_req_detach(r, 0);
}

/* lm_req_give_back gives back what lm_req_take took (NULL: nothing). */
static inline void lm_req_give_back(struct lm_req *e)
{
	if (e)
		lm_req_put_back(e);
}

#endif
