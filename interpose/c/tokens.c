/*
 * tokens.c: --slt's send-late tokens. Every send also sends a token (an
 * empty-ish message) on its communicator's shadow before the payload;
 * every tracked receive posts the token receive beside it. A token that
 * arrives before its payload marks the time its sender started: the wait
 * until then, less the token latency (calibrated at start-up), is
 * send-late time. This file keeps the token sequences, pairs a completed
 * receive with its token, and keeps the orphaned token receives (their
 * payload completed first); the waits that take tokens are waits.c's and
 * p2p.c's.
 *
 * Token sequence numbers. Each token says which message it stands for:
 * its length, 0..TOK_MOD-1 bytes of zeros, is the message's number modulo
 * TOK_MOD among the messages its sender sent to that receiver on that
 * communicator and tag (messages with the same sender, communicator and tag
 * are received in the order they were sent, so the receiver counts them the
 * same way). A receive that took another message's token (a wildcard token
 * receive matched another sender, or an orphaned token receive had taken
 * this one) is detected, the token it took is kept for its own message,
 * and the receive uses its own token if an earlier receive kept it: the
 * pairing recovers instead of staying shifted.
 */
#include "tokens.h"
#include "commtab.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

enum { TOK_MOD = 64, STASH_MAX = 4096 };
static const char tok_zero[TOK_MOD];
static char tok_sink[TOK_MOD]; /* token payloads are zeros: never read */

struct seqent {
	int used, cid, rank, tag;
	uint64_t seq; /* seqs: the next number; stash: the token's number */
	uint64_t at;  /* stash: when the token arrived */
};

struct seqtab {
	struct seqent *t;
	int cap, n;
};

static struct {
	struct seqtab seq_out, seq_in, stash;
	int64_t mismatch;   /* receives whose token and payload came from different messages */
	long long resynced; /* receives that got their own token back */
	uint64_t lat;       /* calibrated one-way token latency, ticks */
	/* orphaned token receives (their payload completed first) */
	MPI_Request *orph;
	int norph, corph;
} tk;

static uint32_t seq_hash(int cid, int rank, int tag, uint64_t seq)
{
	return lm_hash64(((uint64_t)(uint32_t)cid << 40) ^ ((uint64_t)(uint32_t)rank << 20) ^ (uint64_t)(uint32_t)tag ^
			 (seq * 0x9e3779b97f4a7c15ULL));
}

/* seq_find returns the entry of (cid, rank, tag[, seq]) in s, adding it
 * when add is set (NULL when absent and not added). Under LM_LOCK. */
static struct seqent *seq_find(struct seqtab *s, int cid, int rank, int tag, uint64_t seq, int add)
{
	if ((s->n + 1) * 2 > s->cap) {
		if (!add)
			goto look;
		struct seqtab o = *s;
		s->cap = s->cap ? s->cap * 2 : 64;
		s->t = calloc((size_t)s->cap, sizeof(*s->t));
		if (!s->t)
			abort();
		s->n = 0;
		for (int i = 0; i < o.cap; i++)
			if (o.t[i].used == 1) {
				struct seqent *x = seq_find(s, o.t[i].cid, o.t[i].rank, o.t[i].tag, o.t[i].seq, 1);
				*x = o.t[i];
			}
		free(o.t);
	}
look:
	if (!s->cap)
		return NULL;
	uint32_t m = (uint32_t)(s->cap - 1), h = seq_hash(cid, rank, tag, s == &tk.stash ? seq : 0) & m;
	for (; s->t[h].used; h = (h + 1) & m) {
		struct seqent *x = &s->t[h];
		if (x->used == 1 && x->cid == cid && x->rank == rank && x->tag == tag && (s != &tk.stash || x->seq == seq))
			return x;
	}
	if (!add)
		return NULL;
	struct seqent *x = &s->t[h];
	memset(x, 0, sizeof(*x));
	x->used = 1;
	x->cid = cid;
	x->rank = rank;
	x->tag = tag;
	x->seq = seq;
	s->n++;
	return x;
}

/* stash_put keeps a token that another receive took, under its full
 * number: the one within TOK_MOD of what its sender's messages have reached. */
static void stash_put(int cid, int src, int tag, int mod, uint64_t at)
{
	if (tk.stash.n >= STASH_MAX) { /* tokens whose messages never came: forget them */
		free(tk.stash.t);
		memset(&tk.stash, 0, sizeof(tk.stash));
	}
	struct seqent *in = seq_find(&tk.seq_in, cid, src, tag, 0, 1);
	uint64_t base = in->seq, full = base + (uint64_t)(((mod - (int)(base % TOK_MOD)) % TOK_MOD + TOK_MOD) % TOK_MOD);
	seq_find(&tk.stash, cid, src, tag, full, 1)->at = at;
}

int lm_pair_token(struct lm_comm *c, int src, int tag, int taken, int toksrc, int toktag, int tokmod, uint64_t tokat,
		  uint64_t *own_at)
{
	struct seqent *in = seq_find(&tk.seq_in, c->id, src, tag, 0, 1);
	uint64_t n = in->seq++;
	int r = 0;
	if (taken && (toksrc != src || toktag != tag || tokmod != (int)(n % TOK_MOD))) {
		tk.mismatch++;
		stash_put(c->id, toksrc, toktag, tokmod, tokat);
		r = 2;
	}
	if (r || !taken) {
		struct seqent *x = seq_find(&tk.stash, c->id, src, tag, n, 0);
		if (x) {
			*own_at = x->at;
			x->used = 2; /* a tombstone */
			if (r)
				tk.resynced++;
			r = r ? 1 : 3;
		}
	}
	return r;
}

void lm_token_send(MPI_Comm comm, int dest, int tag)
{
	if (!lm.enabled || dest == MPI_PROC_NULL)
		return;
	struct lm_comm *c = lm_comm_get(comm);
	if (c->shadow == MPI_COMM_NULL) {
		lm.warn |= LM_W_NO_SHADOW;
		return;
	}
	LM_LOCK();
	uint64_t n = seq_find(&tk.seq_out, c->id, dest, tag, 0, 1)->seq++;
	LM_UNLOCK();
	MPI_Request r;
	PMPI_Isend(tok_zero, (int)(n % TOK_MOD), MPI_BYTE, dest, tag, c->shadow, &r);
	PMPI_Request_free(&r);
}

MPI_Request lm_token_post(struct lm_comm *c, int source, int tag)
{
	MPI_Request r = MPI_REQUEST_NULL;
	if (!lm.slt || source == MPI_PROC_NULL)
		return r;
	if (c->shadow == MPI_COMM_NULL) {
		lm.warn |= LM_W_NO_SHADOW;
		return r;
	}
	PMPI_Irecv(tok_sink, TOK_MOD, MPI_BYTE, source, tag, c->shadow, &r);
	return r;
}

int lm_token_len(MPI_Status *ts)
{
	int n = 0;
	PMPI_Get_count(ts, MPI_BYTE, &n);
	return n == MPI_UNDEFINED ? -1 : n;
}

void lm_token_drop(int cid, MPI_Request *tok)
{
	MPI_Status ts;
	PMPI_Cancel(tok);
	PMPI_Wait(tok, &ts);
	if (!lm_is_cancelled(&ts) && ts.MPI_SOURCE >= 0) {
		LM_LOCK();
		stash_put(cid, ts.MPI_SOURCE, ts.MPI_TAG, lm_token_len(&ts), lm_tick());
		LM_UNLOCK();
	}
}

void lm_orphan(MPI_Request r)
{
	if (r == MPI_REQUEST_NULL)
		return;
	LM_LOCK();
	if (tk.norph == tk.corph) {
		for (int i = 0; i < tk.norph; i++) {
			int f = 0;
			PMPI_Test(&tk.orph[i], &f, MPI_STATUS_IGNORE);
		}
		int k = 0;
		for (int i = 0; i < tk.norph; i++)
			if (tk.orph[i] != MPI_REQUEST_NULL)
				tk.orph[k++] = tk.orph[i];
		tk.norph = k;
		if (tk.norph == tk.corph || tk.norph * 2 > tk.corph) {
			tk.corph = tk.corph ? tk.corph * 2 : 64;
			tk.orph = realloc(tk.orph, sizeof(*tk.orph) * (size_t)tk.corph);
			if (!tk.orph)
				abort();
		}
	}
	tk.orph[tk.norph++] = r;
	LM_UNLOCK();
}

void lm_orphans_cancel(void)
{
	for (int i = 0; i < tk.norph; i++)
		if (tk.orph[i] != MPI_REQUEST_NULL) {
			PMPI_Cancel(&tk.orph[i]);
			PMPI_Wait(&tk.orph[i], MPI_STATUS_IGNORE);
		}
	tk.norph = 0;
}

void lm_tokens_calibrate(MPI_Comm priv)
{
	/* One-way latency of a 0-byte message to a neighbour, median of 31
	 * round trips; a rank without a partner takes the largest of the others. */
	int partner = lm.wrank ^ 1;
	uint64_t mine = 0;
	if (partner < lm.wsize) {
		enum { N = 31, WARM = 5 };
		uint64_t rtt[N];
		for (int i = 0; i < N + WARM; i++) {
			uint64_t a = lm_tick();
			if (lm.wrank < partner) {
				PMPI_Send(NULL, 0, MPI_BYTE, partner, 7, priv);
				PMPI_Recv(NULL, 0, MPI_BYTE, partner, 7, priv, MPI_STATUS_IGNORE);
			} else {
				PMPI_Recv(NULL, 0, MPI_BYTE, partner, 7, priv, MPI_STATUS_IGNORE);
				PMPI_Send(NULL, 0, MPI_BYTE, partner, 7, priv);
			}
			if (i >= WARM)
				rtt[i - WARM] = lm_tick() - a;
		}
		for (int i = 1; i < N; i++) /* insertion sort */
			for (int j = i; j > 0 && rtt[j] < rtt[j - 1]; j--) {
				uint64_t t = rtt[j];
				rtt[j] = rtt[j - 1];
				rtt[j - 1] = t;
			}
		mine = rtt[N / 2] / 2;
	}
	unsigned long long in = mine, mx = 0;
	PMPI_Allreduce(&in, &mx, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, priv);
	tk.lat = partner < lm.wsize ? mine : mx;
}

uint64_t lm_token_latency(void)
{
	return tk.lat;
}

void lm_token_counts(long long *mismatch, long long *resynced)
{
	*mismatch = tk.mismatch;
	*resynced = tk.resynced;
}
