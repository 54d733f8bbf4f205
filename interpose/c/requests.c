/*
 * requests.c: the request side table: an entry (struct lm_req) for each
 * tracked receive and persistent request, found by its handle when a
 * Wait-, Test- or Start-family call meets it.
 *
 * Open addressing with tombstones over pointers to entries that never move
 * (a pool with a free list). A Wait- or Test-family call detaches the
 * entries of its requests before it calls MPI and gives them back after:
 * the entries it works on are its own, and under MPI_THREAD_MULTIPLE a
 * thread that reuses a just-completed handle gets an entry of its own. All
 * of it under LM_LOCK; lm.nreq counts the entries in the table.
 */
#include "requests.h"
#include "commtab.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

#define RQ_TOMB ((struct lm_req *)1)
static struct {
	struct lm_req **tab, *spare; /* the table; the free list */
	int cap, tomb;
} R;

static uint64_t req_key(MPI_Request r)
{
	uint64_t k = 0;
	memcpy(&k, &r, sizeof(r) < sizeof(k) ? sizeof(r) : sizeof(k));
	return k;
}

static struct lm_req *req_alloc(void)
{
	if (!R.spare) {
		enum { CHUNK = 256 };
		struct lm_req *c = calloc(CHUNK, sizeof(*c));
		if (!c)
			abort();
		for (int i = 0; i < CHUNK; i++) {
			c[i].next = R.spare;
			R.spare = &c[i];
		}
	}
	struct lm_req *e = R.spare;
	R.spare = e->next;
	memset(e, 0, sizeof(*e));
	e->tok = MPI_REQUEST_NULL;
	return e;
}

static void req_free(struct lm_req *e)
{
	if (e->comm)
		lm_comm_unref(e->comm);
	e->next = R.spare;
	R.spare = e;
}

static int req_index(MPI_Request r)
{
	if (!R.cap)
		return -1;
	uint32_t m = (uint32_t)(R.cap - 1), h = lm_hash64(req_key(r)) & m;
	while (R.tab[h]) {
		if (R.tab[h] != RQ_TOMB && R.tab[h]->key == r)
			return (int)h;
		h = (h + 1) & m;
	}
	return -1;
}

static void req_put(struct lm_req *e)
{
	uint32_t m = (uint32_t)(R.cap - 1), h = lm_hash64(req_key(e->key)) & m;
	while (R.tab[h] && R.tab[h] != RQ_TOMB)
		h = (h + 1) & m;
	if (R.tab[h] == RQ_TOMB)
		R.tomb--;
	R.tab[h] = e;
	e->detached = 0;
	lm.nreq++;
}

static void req_insert(struct lm_req *e)
{
	if ((lm.nreq + R.tomb + 1) * 2 > R.cap) {
		int ocap = R.cap;
		struct lm_req **ot = R.tab;
		if ((lm.nreq + 1) * 4 > R.cap)
			R.cap = R.cap ? R.cap * 2 : 256;
		R.tab = calloc((size_t)R.cap, sizeof(*R.tab));
		if (!R.tab)
			abort();
		lm.nreq = 0;
		R.tomb = 0;
		for (int i = 0; i < ocap; i++)
			if (ot[i] && ot[i] != RQ_TOMB)
				req_put(ot[i]);
		free(ot);
	}
	req_put(e);
}

static void req_unlink(int h)
{
	R.tab[h] = RQ_TOMB;
	R.tomb++;
	lm.nreq--;
}

struct lm_req *lm_req_add(MPI_Request r, struct lm_comm *c)
{
	LM_LOCK();
	int h = req_index(r);
	if (h >= 0) {
		struct lm_req *old = R.tab[h];
		req_unlink(h);
		req_free(old);
	}
	struct lm_req *e = req_alloc();
	e->key = r;
	e->comm = c;
	c->refs++;
	req_insert(e);
	LM_UNLOCK();
	return e;
}

struct lm_req *lm_req_track_recv(int id, int kind, struct lm_comm *c, int source, int tag, MPI_Request r, MPI_Request tok)
{
	struct lm_req *e = lm_req_add(r, c);
	e->kind = kind;
	e->fn = id;
	e->active = 1;
	e->peer = source;
	e->tag = tag;
	e->tok = tok;
	e->tokstate = tok != MPI_REQUEST_NULL ? TOK_PENDING : TOK_NONE;
	return e;
}

void lm_req_del(struct lm_req *e)
{
	LM_LOCK();
	if (e->detached) {
		e->dead = 1;
	} else {
		int h = req_index(e->key);
		if (h >= 0 && R.tab[h] == e)
			req_unlink(h);
		req_free(e);
	}
	LM_UNLOCK();
}

struct lm_req *lm_req_find(MPI_Request r)
{
	LM_LOCK();
	int h = req_index(r);
	struct lm_req *e = h >= 0 ? R.tab[h] : NULL;
	LM_UNLOCK();
	return e;
}

struct lm_req *lm_req_detach(MPI_Request r, int any)
{
	struct lm_req *e = NULL;
	LM_LOCK();
	int h = req_index(r);
	if (h >= 0 && (any || R.tab[h]->active)) {
		e = R.tab[h];
		req_unlink(h);
		e->detached = 1;
	}
	LM_UNLOCK();
	return e;
}

void lm_req_put_back(struct lm_req *e)
{
	LM_LOCK();
	if (e->dead)
		req_free(e);
	else
		req_insert(e);
	LM_UNLOCK();
}
