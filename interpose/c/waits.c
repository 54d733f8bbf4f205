/*
 * waits.c: the Wait and Test families. A call whose requests latmap does
 * not track passes through (lm_plain). Otherwise the entries of its
 * tracked requests are detached (requests.c) into this thread's scratch
 * arrays, the call completes, each completed request is finished
 * (account.c) and the entries are given back. Under --slt a Wait-family
 * call whose receives have tokens pending waits for those tokens too
 * (wait_slt): a token that arrives before its payload marks the time the
 * sender started, and the wait until then, less the token latency, is
 * send-late time. Only the application's requests decide when the call
 * returns: a token never holds it back. A Test-family call notes the
 * tokens that arrived, without waiting.
 */
#include "waits.h"
#include "account.h"
#include "hooks.h"
#include "requests.h"
#include "tokens.h"

#include <stdlib.h>

/* Scratch arrays, per thread, grown on demand (never per call once large
 * enough). */
static __thread struct {
	struct lm_req **ents;
	MPI_Request *comb;
	MPI_Status *st, *st2;
	int *idx, *owner;
	uint64_t *late;
	MPI_Status *st3;
	int *ix;
	char *fin;
	int cap;
} sc;

static void scratch(int n)
{
	if (n <= sc.cap)
		return;
	int c = n < 64 ? 64 : n * 2;
	sc.ents = realloc(sc.ents, sizeof(*sc.ents) * (size_t)c);
	sc.comb = realloc(sc.comb, sizeof(*sc.comb) * (size_t)c * 2);
	sc.st = realloc(sc.st, sizeof(*sc.st) * (size_t)c * 2);
	sc.st2 = realloc(sc.st2, sizeof(*sc.st2) * (size_t)c * 2);
	sc.idx = realloc(sc.idx, sizeof(*sc.idx) * (size_t)c * 2);
	sc.owner = realloc(sc.owner, sizeof(*sc.owner) * (size_t)c * 2);
	sc.late = realloc(sc.late, sizeof(*sc.late) * (size_t)c);
	sc.st3 = realloc(sc.st3, sizeof(*sc.st3) * (size_t)c);
	sc.ix = realloc(sc.ix, sizeof(*sc.ix) * (size_t)c);
	sc.fin = realloc(sc.fin, (size_t)c);
	if (!sc.st3 || !sc.ix || !sc.fin)
		abort();
	if (!sc.ents || !sc.comb || !sc.st || !sc.st2 || !sc.idx || !sc.owner || !sc.late)
		abort();
	sc.cap = c;
}

static void tok_arrived(struct lm_req *e, MPI_Status *ts, uint64_t at)
{
	e->tokstate = TOK_ARRIVED;
	e->tok = MPI_REQUEST_NULL;
	e->toksrc = ts->MPI_SOURCE;
	e->toktag = ts->MPI_TAG;
	e->tokmod = lm_token_len(ts);
	e->tokat = at;
}

/* ------------------------------------------------------------- wait_slt */

/* One Wait-family call under --slt (mode 'w' Wait and Waitany, 'a'
 * Waitall, 's' Waitsome): the token receives of its pending tokens are
 * sc.comb[0..m) (sc.owner: whose), its n application requests follow
 * (app, a copy), and the persistent ones already finished are kept aside
 * (kept). Its completed requests are packed in completion order: nout of
 * them, their indices and statuses. */
struct slt_call {
	int id;
	uint64_t t0;
	char mode;
	int n, m;
	MPI_Request *app, *kept;
	MPI_Status *sts;
	int *indices, nout;
};

/* slt_begin lays the call's requests out: tokens first, so that a token
 * and its payload completed together are seen in that order (Waitany
 * reports the lowest index). */
static void slt_begin(struct slt_call *w, MPI_Request reqs[])
{
	int n = w->n, m = 0;
	for (int i = 0; i < n; i++) {
		sc.late[i] = 0;
		sc.fin[i] = 0;
		if (sc.ents[i] && sc.ents[i]->tokstate == TOK_PENDING) {
			sc.comb[m] = sc.ents[i]->tok;
			sc.owner[m++] = i;
		}
	}
	w->m = m;
	w->app = sc.comb + m;
	w->kept = sc.comb + m + n;
	for (int i = 0; i < n; i++) {
		w->app[i] = reqs[i];
		w->kept[i] = MPI_REQUEST_NULL;
	}
}

/* finished records application request j as complete, once: a persistent
 * request (point to point, or an MPI-4 persistent collective) stays a
 * handle after it completes, inactive, and MPICH reports an inactive
 * persistent collective as complete again on every test; it is kept aside
 * (kept[j]) and nulled in the array waited on, so that the wait ends and
 * nothing is counted twice. */
static void finished(struct slt_call *w, int j, MPI_Status *st)
{
	if (sc.fin[j])
		return;
	sc.fin[j] = 1;
	w->sts[w->nout] = *st;
	w->indices[w->nout++] = j;
	if (w->app[j] != MPI_REQUEST_NULL) {
		w->kept[j] = w->app[j];
		w->app[j] = MPI_REQUEST_NULL;
	}
}

/* slt_poll_all (Waitall) asks MPI, without waiting, which application
 * requests completed: Waitall ends when every one is null or inactive
 * (persistent ones, collectives included), which only MPI knows, so the
 * wait that follows always has an application request to end it. It
 * returns -1 when none is left, 1 when some completed (perhaps the last
 * ones: ask again), 0 to wait. */
static int slt_poll_all(struct slt_call *w, int *rc)
{
	int out = 0;
	*rc = PMPI_Testsome(w->n, w->app, &out, sc.idx, sc.st2);
	if (out == MPI_UNDEFINED)
		return -1;
	for (int k = 0; k < out; k++)
		finished(w, sc.idx[k], &sc.st2[k]);
	return out > 0;
}

/* slt_wait waits for tokens and application requests: how many completed
 * (sc.idx, sc.st2), MPI_UNDEFINED when none is left. */
static int slt_wait(struct slt_call *w, int *rc)
{
	int out = 0;
	if (w->mode == 'w') {
		int k;
		MPI_Status s;
		*rc = PMPI_Waitany(w->n + w->m, sc.comb, &k, &s);
		if (k == MPI_UNDEFINED) {
			out = MPI_UNDEFINED;
		} else {
			out = 1;
			sc.idx[0] = k;
			sc.st2[0] = s;
		}
	} else {
		*rc = PMPI_Waitsome(w->n + w->m, sc.comb, &out, sc.idx, sc.st2);
	}
	return out;
}

/* slt_note notes what slt_wait completed: a token's arrival (the send-late
 * time of its receive, when it came before its payload) or an application
 * request finished. It returns how many of the latter. */
static int slt_note(struct slt_call *w, int out)
{
	uint64_t now = lm_tick(), lat = lm_token_latency();
	int app = 0;
	for (int k = 0; k < out; k++) {
		int j = sc.idx[k];
		if (j < w->m) {
			int o = sc.owner[j];
			tok_arrived(sc.ents[o], &sc.st2[k], now);
			uint64_t dt = now - w->t0;
			if (!sc.fin[o]) /* a token after its payload says nothing */
				sc.late[o] = dt > lat ? dt - lat : 0;
			continue;
		}
		app++;
		finished(w, j - w->m, &sc.st2[k]);
	}
	return app;
}

/* slt_end hands the application its requests back and accounts the call:
 * its send-late time is its latest receive's, shared among the receives
 * in proportion to their own. Tokens still pending stay with their
 * (uncompleted) owner; their handles did not change. */
static void slt_end(struct slt_call *w, MPI_Request reqs[])
{
	for (int i = 0; i < w->n; i++)
		reqs[i] = w->kept[i] != MPI_REQUEST_NULL ? w->kept[i] : w->app[i];
	uint64_t total = lm_tick() - w->t0, late = 0, suml = 0;
	for (int k = 0; k < w->nout; k++) {
		uint64_t l = sc.late[w->indices[k]];
		if (l > late)
			late = l;
		suml += l;
	}
	if (late > total)
		late = total;
	lm_account(w->id, total, late);
	int nrecv = 0;
	for (int k = 0; k < w->nout; k++)
		if (sc.ents[w->indices[k]] && sc.ents[w->indices[k]]->kind != RQ_PSEND)
			nrecv++;
	for (int k = 0; k < w->nout; k++) {
		struct lm_req *e = sc.ents[w->indices[k]];
		if (!e)
			continue;
		uint64_t l = suml ? (uint64_t)((double)sc.late[w->indices[k]] * (double)late / (double)suml) : 0;
		lm_done(e, &w->sts[k], nrecv ? total / (uint64_t)nrecv : 0, l);
	}
}

/* wait_slt completes the n requests reqs of a Wait-family call (their
 * entries in sc.ents) and their pending tokens: sts and indices receive
 * the completed ones in completion order, *outcount how many
 * (MPI_UNDEFINED: none). */
static int wait_slt(int id, uint64_t t0, char mode, int n, MPI_Request reqs[], MPI_Status *sts, int *outcount, int *indices)
{
	struct slt_call w = {.id = id, .t0 = t0, .mode = mode, .n = n, .sts = sts, .indices = indices};
	int rc = MPI_SUCCESS;
	lm_done_origin(t0);
	slt_begin(&w, reqs);
	for (;;) {
		if (mode == 'a') {
			int p = slt_poll_all(&w, &rc);
			if (p < 0)
				break;
			if (p > 0)
				continue;
		}
		int out = slt_wait(&w, &rc);
		if (out == MPI_UNDEFINED)
			break;
		if (slt_note(&w, out) && mode != 'a')
			break;
	}
	slt_end(&w, reqs);
	lm_done_origin(0);
	*outcount = w.nout == 0 ? MPI_UNDEFINED : w.nout;
	return rc;
}

/* --------------------------------------------------------- Wait family */

/* lookup detaches the entries of reqs into sc.ents and returns how many
 * are tracked; give_all gives them back. */
static int lookup(int n, MPI_Request reqs[])
{
	scratch(2 * n); /* wait_slt keeps finished persistent requests in sc.comb[m+n..m+2n) */
	int k = 0;
	for (int i = 0; i < n; i++) {
		sc.ents[i] = lm_req_take(reqs[i]);
		if (sc.ents[i])
			k++;
	}
	return k;
}

static void give_all(int n)
{
	for (int i = 0; i < n; i++)
		lm_req_give_back(sc.ents[i]);
}

/* done_some completes the tracked requests of a Waitsome or Testsome
 * (out of them finished, at indices, statuses in sts), each charged each
 * ticks of the call. */
static void done_some(int out, const int indices[], MPI_Status sts[], uint64_t each)
{
	if (out == MPI_UNDEFINED)
		return;
	for (int k = 0; k < out; k++)
		if (sc.ents[indices[k]])
			lm_done(sc.ents[indices[k]], &sts[k], each, 0);
}

static int any_pending_token(int n)
{
	if (!lm.slt)
		return 0;
	for (int i = 0; i < n; i++)
		if (sc.ents[i] && sc.ents[i]->tokstate == TOK_PENDING)
			return 1;
	return 0;
}

int lm_wait_one(int id, uint64_t t0, struct lm_req *e, MPI_Request *r, MPI_Status *st)
{
	scratch(2);
	sc.ents[0] = e;
	int out, idx;
	return wait_slt(id, t0, 'w', 1, r, st, &out, &idx);
}

int lm_Wait(int id, uint64_t t0, MPI_Request *request, MPI_Status *status)
{
	struct lm_req *e = lm_req_take(*request);
	if (!e) {
		int rc = PMPI_Wait(request, status);
		lm_plain(id, t0);
		return rc;
	}
	MPI_Status st;
	if (status == MPI_STATUS_IGNORE)
		status = &st;
	int rc;
	if (lm.slt && e->tokstate == TOK_PENDING) {
		MPI_Status s[1];
		rc = lm_wait_one(id, t0, e, request, s);
		*status = s[0];
	} else {
		rc = PMPI_Wait(request, status);
		uint64_t d = lm_tick() - t0;
		lm_account(id, d, 0);
		lm_done(e, status, d, 0);
	}
	lm_req_give_back(e);
	return rc;
}

int lm_Waitany(int id, uint64_t t0, int count, MPI_Request reqs[], int *index, MPI_Status *status)
{
	if (!lm.nreq || !lookup(count, reqs)) {
		int rc = PMPI_Waitany(count, reqs, index, status);
		lm_plain(id, t0);
		return rc;
	}
	MPI_Status st;
	if (status == MPI_STATUS_IGNORE)
		status = &st;
	int rc;
	if (any_pending_token(count)) {
		int out, idx = MPI_UNDEFINED;
		rc = wait_slt(id, t0, 'w', count, reqs, status, &out, &idx);
		*index = out == MPI_UNDEFINED ? MPI_UNDEFINED : idx;
	} else {
		rc = PMPI_Waitany(count, reqs, index, status);
		uint64_t d = lm_tick() - t0;
		lm_account(id, d, 0);
		if (*index != MPI_UNDEFINED && sc.ents[*index])
			lm_done(sc.ents[*index], status, d, 0);
	}
	give_all(count);
	return rc;
}

int lm_Waitall(int id, uint64_t t0, int count, MPI_Request reqs[], MPI_Status *statuses)
{
	if (!lm.nreq || !lookup(count, reqs)) {
		int rc = PMPI_Waitall(count, reqs, statuses);
		lm_plain(id, t0);
		return rc;
	}
	MPI_Status *sts = statuses == MPI_STATUSES_IGNORE ? sc.st : statuses;
	int rc;
	if (any_pending_token(count)) {
		int out;
		/* wait_slt packs statuses by completion; unpack by index. */
		rc = wait_slt(id, t0, 'a', count, reqs, sc.st3, &out, sc.ix);
		if (statuses != MPI_STATUSES_IGNORE && out != MPI_UNDEFINED)
			for (int k = 0; k < out; k++)
				statuses[sc.ix[k]] = sc.st3[k];
	} else {
		rc = PMPI_Waitall(count, reqs, sts);
		uint64_t d = lm_tick() - t0;
		lm_account(id, d, 0);
		int k = 0;
		for (int i = 0; i < count; i++)
			if (sc.ents[i] && sc.ents[i]->kind != RQ_PSEND)
				k++;
		for (int i = 0; i < count; i++)
			if (sc.ents[i])
				lm_done(sc.ents[i], &sts[i], k ? d / (uint64_t)k : 0, 0);
	}
	give_all(count);
	return rc;
}

int lm_Waitsome(int id, uint64_t t0, int incount, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[])
{
	if (!lm.nreq || !lookup(incount, reqs)) {
		int rc = PMPI_Waitsome(incount, reqs, outcount, indices, statuses);
		lm_plain(id, t0);
		return rc;
	}
	MPI_Status *sts = statuses == MPI_STATUSES_IGNORE ? sc.st : statuses;
	int rc;
	if (any_pending_token(incount)) {
		rc = wait_slt(id, t0, 's', incount, reqs, sts, outcount, indices);
	} else {
		rc = PMPI_Waitsome(incount, reqs, outcount, indices, sts);
		uint64_t d = lm_tick() - t0;
		lm_account(id, d, 0);
		done_some(*outcount, indices, sts, *outcount > 0 ? d / (uint64_t)*outcount : 0);
	}
	give_all(incount);
	return rc;
}

/* --------------------------------------------------------- Test family */

/* test_tokens notes the tokens that arrived, without waiting. */
static void test_tokens(int n)
{
	if (!lm.slt)
		return;
	int m = 0;
	for (int i = 0; i < n; i++)
		if (sc.ents[i] && sc.ents[i]->tokstate == TOK_PENDING) {
			sc.comb[m] = sc.ents[i]->tok;
			sc.owner[m++] = i;
		}
	if (!m)
		return;
	int out = 0;
	PMPI_Testsome(m, sc.comb, &out, sc.idx, sc.st2);
	uint64_t now = lm_tick();
	if (out != MPI_UNDEFINED)
		for (int k = 0; k < out; k++)
			tok_arrived(sc.ents[sc.owner[sc.idx[k]]], &sc.st2[k], now);
}

int lm_Test(int id, uint64_t t0, MPI_Request *request, int *flag, MPI_Status *status)
{
	struct lm_req *e = lm_req_take(*request);
	if (!e) {
		int rc = PMPI_Test(request, flag, status);
		lm_plain(id, t0);
		return rc;
	}
	MPI_Status st;
	if (status == MPI_STATUS_IGNORE)
		status = &st;
	scratch(2);
	sc.ents[0] = e;
	test_tokens(1);
	int rc = PMPI_Test(request, flag, status);
	uint64_t d = lm_tick() - t0;
	lm_account(id, d, 0);
	if (*flag)
		lm_done(e, status, d, 0);
	lm_req_give_back(e);
	return rc;
}

int lm_Testany(int id, uint64_t t0, int count, MPI_Request reqs[], int *index, int *flag, MPI_Status *status)
{
	if (!lm.nreq || !lookup(count, reqs)) {
		int rc = PMPI_Testany(count, reqs, index, flag, status);
		lm_plain(id, t0);
		return rc;
	}
	MPI_Status st;
	if (status == MPI_STATUS_IGNORE)
		status = &st;
	test_tokens(count);
	int rc = PMPI_Testany(count, reqs, index, flag, status);
	uint64_t d = lm_tick() - t0;
	lm_account(id, d, 0);
	if (*flag && *index != MPI_UNDEFINED && sc.ents[*index])
		lm_done(sc.ents[*index], status, d, 0);
	give_all(count);
	return rc;
}

int lm_Testall(int id, uint64_t t0, int count, MPI_Request reqs[], int *flag, MPI_Status statuses[])
{
	if (!lm.nreq || !lookup(count, reqs)) {
		int rc = PMPI_Testall(count, reqs, flag, statuses);
		lm_plain(id, t0);
		return rc;
	}
	MPI_Status *sts = statuses == MPI_STATUSES_IGNORE ? sc.st : statuses;
	test_tokens(count);
	int rc = PMPI_Testall(count, reqs, flag, sts);
	uint64_t d = lm_tick() - t0;
	lm_account(id, d, 0);
	if (*flag)
		for (int i = 0; i < count; i++)
			if (sc.ents[i])
				lm_done(sc.ents[i], &sts[i], 0, 0);
	give_all(count);
	return rc;
}

int lm_Testsome(int id, uint64_t t0, int incount, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[])
{
	if (!lm.nreq || !lookup(incount, reqs)) {
		int rc = PMPI_Testsome(incount, reqs, outcount, indices, statuses);
		lm_plain(id, t0);
		return rc;
	}
	MPI_Status *sts = statuses == MPI_STATUSES_IGNORE ? sc.st : statuses;
	test_tokens(incount);
	int rc = PMPI_Testsome(incount, reqs, outcount, indices, sts);
	uint64_t d = lm_tick() - t0;
	lm_account(id, d, 0);
	done_some(*outcount, indices, sts, 0);
	give_all(incount);
	return rc;
}
