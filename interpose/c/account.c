/*
 * account.c: receive accounting: what a completed receive adds to the
 * profile (its bytes, its size bin, its source's row of the matrix, its
 * send-late share), the send side of a sendrecv, and the completion of a
 * tracked request (lm_done): under --slt its token is paired with it
 * (tokens.c), which can correct the send-late time the wait measured.
 */
#include "account.h"
#include "commtab.h"
#include "hooks.h"
#include "pairs.h"
#include "requests.h"
#include "tokens.h"
#include "util.h"

/* origin: the start of the Wait-family call wait_slt (waits.c) is
 * completing (0 outside it), the origin of send-late time. */
static __thread uint64_t origin;

void lm_done_origin(uint64_t t0)
{
	origin = t0;
}

void lm_got(int id, struct lm_comm *c, MPI_Status *st, uint64_t ticks, uint64_t late)
{
	if (!lm.on || st->MPI_SOURCE == MPI_PROC_NULL || st->MPI_SOURCE < 0)
		return;
	int cancelled = 0;
	PMPI_Test_cancelled(st, &cancelled);
	if (cancelled)
		return;
	/* Elements of MPI_BYTE in a 64-bit count: PMPI_Get_count's int says
	   MPI_UNDEFINED beyond 2 GiB. */
	MPI_Count n = 0;
	PMPI_Get_elements_x(st, MPI_BYTE, &n);
	if (n == MPI_UNDEFINED || n < 0)
		n = 0;
	struct lm_fnstat *f = &lm.fn[id];
	int w = c->world ? (st->MPI_SOURCE < c->size ? c->world[st->MPI_SOURCE] : -1) : st->MPI_SOURCE;
	LM_LOCK();
	f->brecv += n;
	f->rrecv++;
	struct lm_bin *b = &lm.bins[id][lm_bin_of(n)];
	b->calls++;
	b->ticks += ticks;
	lm_pair_add(&lm.recvfrom, w, n, ticks > late ? ticks - late : 0, late);
	LM_UNLOCK();
}

void lm_sendrecv_sent(int id, MPI_Comm comm, int dest, int64_t sb, uint64_t d)
{
	struct lm_comm *cc = lm_comm_of(comm);
	int w = lm_world_of(cc, dest);
	LM_LOCK();
	lm.fn[id].bsent += sb;
	lm.fn[id].rsent++;
	lm_sendto_add(cc, w, sb, d);
	LM_UNLOCK();
}

void lm_done(struct lm_req *e, MPI_Status *st, uint64_t ticks, uint64_t late)
{
	if (e->kind == RQ_PSEND) {
		e->active = 0;
		return;
	}
	int cancelled = (lm.slt || e->tokstate == TOK_PENDING) && lm_is_cancelled(st), r = -1;
	uint64_t own = 0;
	if (lm.slt && e->comm->shadow != MPI_COMM_NULL && st->MPI_SOURCE >= 0 && !cancelled) {
		LM_LOCK();
		r = lm_pair_token(e->comm, st->MPI_SOURCE, st->MPI_TAG, e->tokstate == TOK_ARRIVED, e->toksrc, e->toktag,
				  e->tokmod, e->tokat, &own);
		LM_UNLOCK();
		uint64_t lat = lm_token_latency();
		if ((r == 1 || r == 3) && origin) /* its own token, kept by an earlier receive */
			late = own > origin + lat ? own - origin - lat : 0;
		else if (r == 2) /* its own token is not known */
			late = 0;
		if (late > ticks)
			late = ticks;
	}
	if (e->tokstate == TOK_PENDING) {
		if (cancelled) {
			PMPI_Cancel(&e->tok);
			PMPI_Wait(&e->tok, MPI_STATUS_IGNORE);
		} else if (r == 3) {
			lm_token_drop(e->comm->id, &e->tok);
		} else {
			lm_orphan(e->tok);
		}
		e->tok = MPI_REQUEST_NULL;
	}
	e->tokstate = TOK_NONE;
	lm_got(e->fn, e->comm, st, ticks, late);
	if (e->kind == RQ_RECV)
		lm_req_del(e);
	else
		e->active = 0;
}
