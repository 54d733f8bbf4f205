/*
 * latmap.c: the hand-written part of latmap's PMPI interposition library:
 * start-up and the profile written at MPI_Finalize, communicator tables,
 * the request side table, the send-late token protocol (--slt), the
 * collective wait (--collective-wait) and the observation window.
 *
 * Environment (set by latmap profile):
 *   LATMAP_PROFILE_DIR  directory rank 0 writes the raw profile into
 *   LATMAP_SLT=1        send-late time by tokens on shadow communicators
 *   LATMAP_COLLWAIT=1   timed PMPI_Barrier before each blocking collective
 *   LATMAP_COLLMATRIX=1 collectives in the matrix (collmatrix.c)
 *   LATMAP_WINDOW       FUNC:START:END collective heartbeat window
 *   LATMAP_CLOCK        tsc (default on x86 with an invariant TSC) or monotonic
 */
#define _GNU_SOURCE
#include "latmap.h"
#include "cpufacts.h"

#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct lm_state lm = {.use_tsc = 1, .last_dt = MPI_DATATYPE_NULL};
pthread_mutex_t lm_mu = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

/* Things met that cannot be measured exactly (reported in meta.json). */
enum {
	LM_W_THREAD_MULTIPLE = 1,
	LM_W_NO_SHADOW = 2,
	LM_W_SENDRECV_REPLACE = 4,
	LM_W_UNTRANSLATABLE = 8,
	LM_W_DISABLED_WINDOW = 16,
	LM_W_COLL_INTER = 32,
	LM_W_SITES_THREADS = 64,
	LM_W_COMM_GROUPS = 128,
};

static struct {
	MPI_Comm priv; /* private duplicate of MPI_COMM_WORLD for the gather */
	MPI_Group wgroup;
	int warn;
	int64_t mismatch; /* --slt: token and payload from different senders */
	int pc_on, win_open;
	int win_fn, win_start, win_end, win_count;
	char win_spec[128];
	uint64_t on_since, elapsed;
	uint64_t tsc0, tsc1;
	struct timespec mono0, mono1;
	/* LATMAP_APPTIME: the file rank 0 writes the run's time to (MPI_Init
	 * to MPI_Finalize, slowest rank) when not profiling. */
	const char *apptime;
	uint64_t toklat; /* --slt: calibrated one-way token latency, ticks */
	int thread_level;
	char host[256];
	int cpu0;
	const char *dir;
	struct lm_comm *cworld, *cself;
	/* communicator hash, keyed by handle */
	struct lm_comm **ctab;
	int ccap, cn;
	/* orphaned token receives (their payload completed first) */
	MPI_Request *orph;
	int norph, corph;
} g = {.pc_on = 1, .win_open = 1, .win_fn = -1};

/* ---------------------------------------------------------------- hashes */

static inline uint32_t lm_hash64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return (uint32_t)k;
}

static void pairs_grow(struct lm_pairs *p)
{
	int ncap = p->cap ? p->cap * 2 : 64;
	struct lm_pair *nt = malloc(sizeof(*nt) * (size_t)ncap);
	if (!nt)
		return;
	for (int i = 0; i < ncap; i++)
		nt[i].key = -1;
	for (int i = 0; i < p->cap; i++) {
		if (p->t[i].key < 0)
			continue;
		uint32_t h = lm_hash64((uint64_t)p->t[i].key) & (uint32_t)(ncap - 1);
		while (nt[h].key >= 0)
			h = (h + 1) & (uint32_t)(ncap - 1);
		nt[h] = p->t[i];
	}
	free(p->t);
	p->t = nt;
	p->cap = ncap;
}

/* lm_pair_add adds one message to p; the caller holds LM_LOCK. */
void lm_pair_add(struct lm_pairs *p, int key, int64_t bytes, uint64_t ticks, uint64_t late)
{
	if (key < 0) {
		g.warn |= LM_W_UNTRANSLATABLE;
		return;
	}
	if (p->n * 10 >= p->cap * 7) {
		pairs_grow(p);
		if (p->n * 10 >= p->cap * 7)
			return; /* out of memory: drop rather than crash the app */
	}
	uint32_t m = (uint32_t)(p->cap - 1), h = lm_hash64((uint64_t)key) & m;
	while (p->t[h].key >= 0 && p->t[h].key != key)
		h = (h + 1) & m;
	struct lm_pair *e = &p->t[h];
	if (e->key < 0) {
		memset(e, 0, sizeof(*e));
		e->key = key;
		p->n++;
	}
	e->bytes += bytes;
	e->msgs++;
	e->ticks += ticks;
	e->late += late;
}

/* ---------------------------------------------------------- communicators */

static uint64_t comm_key(MPI_Comm c)
{
	uint64_t k = 0;
	memcpy(&k, &c, sizeof(c) < sizeof(k) ? sizeof(c) : sizeof(k));
	return k;
}

static struct lm_comm *comm_build(MPI_Comm comm)
{
	static int ids;
	struct lm_comm *c = calloc(1, sizeof(*c));
	if (!c)
		abort();
	c->id = __atomic_add_fetch(&ids, 1, __ATOMIC_RELAXED);
	c->comm = comm;
	c->grp = comm == MPI_COMM_WORLD ? -1 : 0; /* 0: of unknown origin until lm_comm_new says */
	c->shadow = MPI_COMM_NULL;
	PMPI_Comm_test_inter(comm, &c->inter);
	PMPI_Comm_rank(comm, &c->rank);
	MPI_Group grp;
	if (c->inter) {
		PMPI_Comm_remote_size(comm, &c->size);
		PMPI_Comm_remote_group(comm, &grp);
	} else {
		PMPI_Comm_size(comm, &c->size);
		PMPI_Comm_group(comm, &grp);
	}
	if (comm != MPI_COMM_WORLD) {
		int *in = malloc(sizeof(int) * (size_t)c->size);
		c->world = malloc(sizeof(int) * (size_t)c->size);
		if (!in || !c->world)
			abort();
		for (int i = 0; i < c->size; i++)
			in[i] = i;
		PMPI_Group_translate_ranks(grp, c->size, in, g.wgroup, c->world);
		for (int i = 0; i < c->size; i++)
			if (c->world[i] == MPI_UNDEFINED)
				c->world[i] = -1;
		free(in);
	}
	PMPI_Group_free(&grp);
	return c;
}

/* comm_destroy frees a table whose communicator was freed and that no
 * tracked request points to any more. */
static void comm_destroy(struct lm_comm *c)
{
	free(c->world);
	free(c);
}

/* comm_unref drops a tracked request's reference to c (under LM_LOCK). */
static void comm_unref(struct lm_comm *c)
{
	if (--c->refs == 0 && c->comm == MPI_COMM_NULL)
		comm_destroy(c);
}

static void ctab_put(struct lm_comm *c)
{
	if ((g.cn + 1) * 2 > g.ccap) {
		int ncap = g.ccap ? g.ccap * 2 : 32;
		struct lm_comm **nt = calloc((size_t)ncap, sizeof(*nt));
		if (!nt)
			abort();
		for (int i = 0; i < g.ccap; i++) {
			if (!g.ctab[i])
				continue;
			uint32_t h = lm_hash64(comm_key(g.ctab[i]->comm)) & (uint32_t)(ncap - 1);
			while (nt[h])
				h = (h + 1) & (uint32_t)(ncap - 1);
			nt[h] = g.ctab[i];
		}
		free(g.ctab);
		g.ctab = nt;
		g.ccap = ncap;
	}
	uint32_t m = (uint32_t)(g.ccap - 1), h = lm_hash64(comm_key(c->comm)) & m;
	while (g.ctab[h])
		h = (h + 1) & m;
	g.ctab[h] = c;
	g.cn++;
}

static int ctab_slot(MPI_Comm comm)
{
	if (!g.ccap)
		return -1;
	uint32_t m = (uint32_t)(g.ccap - 1), h = lm_hash64(comm_key(comm)) & m;
	while (g.ctab[h]) {
		if (g.ctab[h]->comm == comm)
			return (int)h;
		h = (h + 1) & m;
	}
	return -1;
}

/* lm_comm_get returns the table of comm, building it on first use (a
 * communicator made by a function latmap does not wrap has no shadow). */
static struct lm_comm *comm_lookup(MPI_Comm comm)
{
	if (lm.last_comm && lm.last_comm->comm == comm)
		return lm.last_comm;
	if (comm == MPI_COMM_WORLD && g.cworld)
		return lm.last_comm = g.cworld;
	int s = ctab_slot(comm);
	struct lm_comm *c;
	if (s >= 0) {
		c = g.ctab[s];
	} else {
		c = comm_build(comm);
		ctab_put(c);
	}
	return lm.last_comm = c;
}

struct lm_comm *lm_comm_get(MPI_Comm comm)
{
	LM_LOCK();
	struct lm_comm *c = comm_lookup(comm);
	LM_UNLOCK();
	return c;
}

/* lm_comm_new tracks comm, just created from parent by function fid (or
 * MPI_COMM_NULL, for a member of parent that is in no new communicator:
 * the creation still counts on parent, see comms.c). */
void lm_comm_new(MPI_Comm comm, MPI_Comm parent, int fid)
{
	if (!lm.enabled)
		return;
	LM_LOCK();
	int grp = lm_cgroup_child(comm_lookup(parent), fid);
	int s = comm == MPI_COMM_NULL ? -1 : ctab_slot(comm);
	LM_UNLOCK();
	if (comm == MPI_COMM_NULL)
		return;
	if (s >= 0) /* a stale entry for a reused handle */
		lm_comm_free(comm);
	struct lm_comm *c = comm_build(comm);
	if (lm.slt) /* collective: outside the lock */
		PMPI_Comm_dup(comm, &c->shadow);
	LM_LOCK();
	c->grp = grp;
	lm_cgroup_join(c);
	ctab_put(c);
	LM_UNLOCK();
}

int lm_Comm_set_name(int id, uint64_t t0, MPI_Comm comm, const char *comm_name)
{
	int rc = PMPI_Comm_set_name(comm, comm_name);
	if (rc == MPI_SUCCESS && lm.enabled && comm != MPI_COMM_WORLD) {
		LM_LOCK();
		lm_cgroup_name(comm_lookup(comm), comm_name);
		LM_UNLOCK();
	}
	lm_plain(id, t0);
	return rc;
}

void lm_comm_free(MPI_Comm comm)
{
	if (!lm.enabled || comm == MPI_COMM_NULL)
		return;
	LM_LOCK();
	int s = ctab_slot(comm);
	if (s < 0 || g.ctab[s] == g.cworld || g.ctab[s] == g.cself) {
		LM_UNLOCK();
		return;
	}
	struct lm_comm *c = g.ctab[s];
	MPI_Comm shadow = c->shadow;
	c->shadow = MPI_COMM_NULL;
	/* The slot is removed by re-inserting the rest of its cluster; the
	 * table itself is freed now, or by the last tracked request that
	 * still points to it. */
	c->comm = MPI_COMM_NULL;
	if (lm.last_comm == c)
		lm.last_comm = NULL;
	uint32_t m = (uint32_t)(g.ccap - 1), h = (uint32_t)s;
	g.ctab[h] = NULL;
	g.cn--;
	for (h = (h + 1) & m; g.ctab[h]; h = (h + 1) & m) {
		struct lm_comm *x = g.ctab[h];
		g.ctab[h] = NULL;
		g.cn--;
		ctab_put(x);
	}
	if (c->refs == 0)
		comm_destroy(c);
	LM_UNLOCK();
	if (shadow != MPI_COMM_NULL)
		PMPI_Comm_free(&shadow);
}

void lm_type_forget(MPI_Datatype dt)
{
	LM_LOCK();
	if (dt == lm.last_dt)
		lm.last_dt = MPI_DATATYPE_NULL;
	LM_UNLOCK();
}

/* ------------------------------------------------------------ collectives */

int64_t lm_sum(const int *counts, MPI_Comm comm)
{
	struct lm_comm *c = lm_comm_get(comm);
	int64_t s = 0;
	/* c->size is the remote group's size on an intercommunicator: the
	   size of the counts arrays there. */
	for (int i = 0; i < c->size; i++)
		s += counts[i];
	return s;
}

int64_t lm_sumw(const int *counts, const MPI_Datatype *types, MPI_Comm comm)
{
	struct lm_comm *c = lm_comm_get(comm);
	int64_t s = 0;
	for (int i = 0; i < c->size; i++)
		s += (int64_t)counts[i] * lm_tsize(types[i]);
	return s;
}

int lm_mine(const int *counts, MPI_Comm comm)
{
	return counts[lm_comm_get(comm)->rank];
}

/* The MPI-4 large-count (_c) forms of lm_sum and lm_mine. */
int64_t lm_sum_c(const MPI_Count *counts, MPI_Comm comm)
{
	struct lm_comm *c = lm_comm_get(comm);
	int64_t s = 0;
	for (int i = 0; i < c->size; i++)
		s += counts[i];
	return s;
}

int64_t lm_sumw_c(const MPI_Count *counts, const MPI_Datatype *types, MPI_Comm comm)
{
	struct lm_comm *c = lm_comm_get(comm);
	int64_t s = 0;
	for (int i = 0; i < c->size; i++)
		s += (int64_t)counts[i] * lm_tsize(types[i]);
	return s;
}

MPI_Count lm_mine_c(const MPI_Count *counts, MPI_Comm comm)
{
	return counts[lm_comm_get(comm)->rank];
}

int lm_is_root(int root, MPI_Comm comm)
{
	struct lm_comm *c = lm_comm_get(comm);
	if (c->inter)
		return root == MPI_ROOT;
	return root == c->rank;
}

int lm_degree(MPI_Comm comm, int in)
{
	int topo = MPI_UNDEFINED, n = 0;
	PMPI_Topo_test(comm, &topo);
	if (topo == MPI_CART) {
		PMPI_Cartdim_get(comm, &n);
		return 2 * n;
	}
	if (topo == MPI_GRAPH) {
		PMPI_Graph_neighbors_count(comm, lm_comm_get(comm)->rank, &n);
		return n;
	}
	if (topo == MPI_DIST_GRAPH) {
		int indeg = 0, outdeg = 0, w = 0;
		PMPI_Dist_graph_neighbors_count(comm, &indeg, &outdeg, &w);
		return in ? indeg : outdeg;
	}
	return 0;
}

static void set_on(void)
{
	int want = lm.enabled && g.pc_on && g.win_open;
	if (want && !lm.on) {
		g.on_since = lm_tick();
		lm.on = 1;
	} else if (!want && lm.on) {
		g.elapsed += lm_tick() - g.on_since;
		lm.on = 0;
	}
}

uint64_t lm_coll_pre(int id, MPI_Comm comm, int barrier, uint64_t *t0)
{
	if (id == g.win_fn) {
		LM_LOCK();
		g.win_count++;
		if (g.win_count == g.win_start) {
			g.win_open = 1;
			set_on();
			*t0 = lm_tick();
		} else if (g.win_count == g.win_end) {
			g.win_open = 0;
			set_on();
		}
		LM_UNLOCK();
	}
	/* The barrier is inserted whatever the window, so every rank of comm
	 * calls the same sequence of collectives. */
	if (barrier && lm.collwait) {
		uint64_t a = lm_tick();
		PMPI_Barrier(comm);
		uint64_t b = lm_tick();
		*t0 = b;
		return b - a;
	}
	return 0;
}

void lm_coll(int id, uint64_t t0, uint64_t t1, uint64_t sync, int64_t sent, int64_t recv)
{
	struct lm_fnstat *f = &lm.fn[id];
	LM_LOCK();
	f->calls++;
	f->ticks += t1 - t0;
	f->sync += sync;
	f->bsent += sent;
	f->brecv += recv;
	f->rsent += sent > 0;
	f->rrecv += recv > 0;
	struct lm_bin *b = &lm.bins[id][lm_bin_of(sent > recv ? sent : recv)];
	b->calls++;
	b->ticks += t1 - t0;
	LM_UNLOCK();
}

int lm_pcontrol(int level)
{
	LM_LOCK();
	g.pc_on = level != 0;
	set_on();
	LM_UNLOCK();
	return MPI_SUCCESS;
}

/* --------------------------------------------------------- request table */

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

/* The request table: open addressing with tombstones over pointers to
 * entries that never move (a pool with a free list). A Wait- or
 * Test-family call detaches the entries of its requests before it calls MPI
 * and gives them back after: the entries it works on are its own, and under
 * MPI_THREAD_MULTIPLE a thread that reuses a just-completed handle gets an
 * entry of its own. All of it under LM_LOCK. */
#define RQ_TOMB ((struct lm_req *)1)
static struct lm_req **rtab, *rfree;
static int rcap, rtomb;

static uint64_t req_key(MPI_Request r)
{
	uint64_t k = 0;
	memcpy(&k, &r, sizeof(r) < sizeof(k) ? sizeof(r) : sizeof(k));
	return k;
}

static struct lm_req *req_alloc(void)
{
	if (!rfree) {
		enum { CHUNK = 256 };
		struct lm_req *c = calloc(CHUNK, sizeof(*c));
		if (!c)
			abort();
		for (int i = 0; i < CHUNK; i++) {
			c[i].next = rfree;
			rfree = &c[i];
		}
	}
	struct lm_req *e = rfree;
	rfree = e->next;
	memset(e, 0, sizeof(*e));
	e->tok = MPI_REQUEST_NULL;
	return e;
}

static void req_free(struct lm_req *e)
{
	if (e->comm)
		comm_unref(e->comm);
	e->next = rfree;
	rfree = e;
}

static int req_index(MPI_Request r)
{
	if (!rcap)
		return -1;
	uint32_t m = (uint32_t)(rcap - 1), h = lm_hash64(req_key(r)) & m;
	while (rtab[h]) {
		if (rtab[h] != RQ_TOMB && rtab[h]->key == r)
			return (int)h;
		h = (h + 1) & m;
	}
	return -1;
}

static void req_put(struct lm_req *e)
{
	uint32_t m = (uint32_t)(rcap - 1), h = lm_hash64(req_key(e->key)) & m;
	while (rtab[h] && rtab[h] != RQ_TOMB)
		h = (h + 1) & m;
	if (rtab[h] == RQ_TOMB)
		rtomb--;
	rtab[h] = e;
	e->detached = 0;
	lm.nreq++;
}

static void req_insert(struct lm_req *e)
{
	if ((lm.nreq + rtomb + 1) * 2 > rcap) {
		int ocap = rcap;
		struct lm_req **ot = rtab;
		if ((lm.nreq + 1) * 4 > rcap)
			rcap = rcap ? rcap * 2 : 256;
		rtab = calloc((size_t)rcap, sizeof(*rtab));
		if (!rtab)
			abort();
		lm.nreq = 0;
		rtomb = 0;
		for (int i = 0; i < ocap; i++)
			if (ot[i] && ot[i] != RQ_TOMB)
				req_put(ot[i]);
		free(ot);
	}
	req_put(e);
}

static void req_unlink(int h)
{
	rtab[h] = RQ_TOMB;
	rtomb++;
	lm.nreq--;
}

/* req_add returns a cleared entry for r, in the table, holding a reference
 * to c (a stale entry for a reused handle is dropped). */
static struct lm_req *req_add(MPI_Request r, struct lm_comm *c)
{
	LM_LOCK();
	int h = req_index(r);
	if (h >= 0) {
		struct lm_req *old = rtab[h];
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

/* req_del forgets a finished entry (a detached one when it is given back). */
static void req_del(struct lm_req *e)
{
	LM_LOCK();
	if (e->detached) {
		e->dead = 1;
	} else {
		int h = req_index(e->key);
		if (h >= 0 && rtab[h] == e)
			req_unlink(h);
		req_free(e);
	}
	LM_UNLOCK();
}

/* take detaches the tracked, active entry of r; NULL when there is none. */
static struct lm_req *take(MPI_Request r)
{
	if (!lm.nreq || r == MPI_REQUEST_NULL)
		return NULL;
	struct lm_req *e = NULL;
	LM_LOCK();
	int h = req_index(r);
	if (h >= 0 && rtab[h]->active) {
		e = rtab[h];
		req_unlink(h);
		e->detached = 1;
	}
	LM_UNLOCK();
	return e;
}

/* give_back frees a detached entry whose receive completed and puts the
 * others back (their handles still belong to the application). */
static void give_back(struct lm_req *e)
{
	if (!e)
		return;
	LM_LOCK();
	if (e->dead)
		req_free(e);
	else
		req_insert(e);
	LM_UNLOCK();
}

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

/* ------------------------------------------------------------- tokens */

/* Token sequence numbers. Each token says which message it stands for:
 * its length, 0..TOK_MOD-1 bytes of zeros, is the message's number modulo
 * TOK_MOD among the messages its sender sent to that receiver on that
 * communicator and tag (messages with the same sender, communicator and tag
 * are received in the order they were sent, so the receiver counts them the
 * same way). A receive that took another message's token (a wildcard token
 * receive matched another sender, or an orphaned token receive had taken
 * this one) is detected, the token it took is kept for its own message,
 * and the receive uses its own token if an earlier receive kept it: the
 * pairing recovers instead of staying shifted. */
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

static struct seqtab seq_out, seq_in, stash;
static long long resynced; /* receives that got their own token back */

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
	uint32_t m = (uint32_t)(s->cap - 1), h = seq_hash(cid, rank, tag, s == &stash ? seq : 0) & m;
	for (; s->t[h].used; h = (h + 1) & m) {
		struct seqent *x = &s->t[h];
		if (x->used == 1 && x->cid == cid && x->rank == rank && x->tag == tag && (s != &stash || x->seq == seq))
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
	if (stash.n >= STASH_MAX) { /* tokens whose messages never came: forget them */
		free(stash.t);
		memset(&stash, 0, sizeof(stash));
	}
	struct seqent *in = seq_find(&seq_in, cid, src, tag, 0, 1);
	uint64_t base = in->seq, full = base + (uint64_t)(((mod - (int)(base % TOK_MOD)) % TOK_MOD + TOK_MOD) % TOK_MOD);
	seq_find(&stash, cid, src, tag, full, 1)->at = at;
}

/* pair_token pairs the completed receive of message (src, tag) on c with
 * its token. taken says whether a token was taken, and which (its sender,
 * tag, length and arrival). It returns 0 when the receive's token was its
 * own or there was none to judge, 1 when it took another message's token
 * and its own was kept by an earlier receive (*own_at: when that arrived),
 * 2 when it took another's and its own is not known, 3 when it took none
 * and its own was kept by an earlier receive. Under LM_LOCK. */
static int pair_token(struct lm_comm *c, int src, int tag, int taken, int toksrc, int toktag, int tokmod, uint64_t tokat,
		      uint64_t *own_at)
{
	struct seqent *in = seq_find(&seq_in, c->id, src, tag, 0, 1);
	uint64_t n = in->seq++;
	int r = 0;
	if (taken && (toksrc != src || toktag != tag || tokmod != (int)(n % TOK_MOD))) {
		g.mismatch++;
		stash_put(c->id, toksrc, toktag, tokmod, tokat);
		r = 2;
	}
	if (r || !taken) {
		struct seqent *x = seq_find(&stash, c->id, src, tag, n, 0);
		if (x) {
			*own_at = x->at;
			x->used = 2; /* a tombstone */
			if (r)
				resynced++;
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
		g.warn |= LM_W_NO_SHADOW;
		return;
	}
	LM_LOCK();
	uint64_t n = seq_find(&seq_out, c->id, dest, tag, 0, 1)->seq++;
	LM_UNLOCK();
	MPI_Request r;
	PMPI_Isend(tok_zero, (int)(n % TOK_MOD), MPI_BYTE, dest, tag, c->shadow, &r);
	PMPI_Request_free(&r);
}

/* token_post posts the token receive mirroring a payload receive. */
static MPI_Request token_post(struct lm_comm *c, int source, int tag)
{
	MPI_Request r = MPI_REQUEST_NULL;
	if (!lm.slt || source == MPI_PROC_NULL)
		return r;
	if (c->shadow == MPI_COMM_NULL) {
		g.warn |= LM_W_NO_SHADOW;
		return r;
	}
	PMPI_Irecv(tok_sink, TOK_MOD, MPI_BYTE, source, tag, c->shadow, &r);
	return r;
}

/* token_len returns the length of a received token (its number modulo
 * TOK_MOD). */
static int token_len(MPI_Status *ts)
{
	int n = 0;
	PMPI_Get_count(ts, MPI_BYTE, &n);
	return n == MPI_UNDEFINED ? -1 : n;
}

/* orphan keeps a token receive whose payload completed first: it will
 * absorb its token when that arrives (cancelled at MPI_Finalize). */
static void orphan(MPI_Request r)
{
	if (r == MPI_REQUEST_NULL)
		return;
	LM_LOCK();
	if (g.norph == g.corph) {
		for (int i = 0; i < g.norph; i++) {
			int f = 0;
			PMPI_Test(&g.orph[i], &f, MPI_STATUS_IGNORE);
		}
		int k = 0;
		for (int i = 0; i < g.norph; i++)
			if (g.orph[i] != MPI_REQUEST_NULL)
				g.orph[k++] = g.orph[i];
		g.norph = k;
		if (g.norph == g.corph || g.norph * 2 > g.corph) {
			g.corph = g.corph ? g.corph * 2 : 64;
			g.orph = realloc(g.orph, sizeof(*g.orph) * (size_t)g.corph);
			if (!g.orph)
				abort();
		}
	}
	g.orph[g.norph++] = r;
	LM_UNLOCK();
}

/* ------------------------------------------------------ receive accounting */

/* account records one call of function id: total ticks, of which late. */
static inline void account(int id, uint64_t total, uint64_t late)
{
	if (!lm.on)
		return;
	if (late > total)
		late = total;
	LM_LOCK();
	lm.fn[id].calls++;
	lm.fn[id].ticks += total - late;
	lm.fn[id].late += late;
	LM_UNLOCK();
}

/* got records a completed receive described by st on communicator c,
 * charged to function id (its bytes), with its share of ticks and late. */
static void got(int id, struct lm_comm *c, MPI_Status *st, uint64_t ticks, uint64_t late)
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

static int is_cancelled(MPI_Status *st)
{
	int cancelled = 0;
	PMPI_Test_cancelled(st, &cancelled);
	return cancelled;
}

/* cur_t0: the start of the Wait-family call wait_slt is completing (0
 * outside it), the origin of send-late time. */
static __thread uint64_t cur_t0;

/* drop_token cancels the token receive of a receive whose own token is
 * already known, so that it does not take the next message's; a token it
 * had taken meanwhile is kept for its message. */
static void drop_token(struct lm_req *e)
{
	MPI_Status ts;
	PMPI_Cancel(&e->tok);
	PMPI_Wait(&e->tok, &ts);
	if (!is_cancelled(&ts) && ts.MPI_SOURCE >= 0) {
		LM_LOCK();
		stash_put(e->comm->id, ts.MPI_SOURCE, ts.MPI_TAG, token_len(&ts), lm_tick());
		LM_UNLOCK();
	}
}

/* done finishes a tracked request completed with status st. */
static void done(struct lm_req *e, MPI_Status *st, uint64_t ticks, uint64_t late)
{
	if (e->kind == RQ_PSEND) {
		e->active = 0;
		return;
	}
	int cancelled = (lm.slt || e->tokstate == TOK_PENDING) && is_cancelled(st), r = -1;
	uint64_t own = 0;
	if (lm.slt && e->comm->shadow != MPI_COMM_NULL && st->MPI_SOURCE >= 0 && !cancelled) {
		LM_LOCK();
		r = pair_token(e->comm, st->MPI_SOURCE, st->MPI_TAG, e->tokstate == TOK_ARRIVED, e->toksrc, e->toktag,
			       e->tokmod, e->tokat, &own);
		LM_UNLOCK();
		if ((r == 1 || r == 3) && cur_t0) /* its own token, kept by an earlier receive */
			late = own > cur_t0 + g.toklat ? own - cur_t0 - g.toklat : 0;
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
			drop_token(e);
		} else {
			orphan(e->tok);
		}
		e->tok = MPI_REQUEST_NULL;
	}
	e->tokstate = TOK_NONE;
	got(e->fn, e->comm, st, ticks, late);
	if (e->kind == RQ_RECV)
		req_del(e);
	else
		e->active = 0;
}

static void tok_arrived(struct lm_req *e, MPI_Status *ts, uint64_t at)
{
	e->tokstate = TOK_ARRIVED;
	e->tok = MPI_REQUEST_NULL;
	e->toksrc = ts->MPI_SOURCE;
	e->toktag = ts->MPI_TAG;
	e->tokmod = token_len(ts);
	e->tokat = at;
}

/* ------------------------------------------------------------- receives */

static struct lm_req *track_recv(int id, int kind, struct lm_comm *c, int source, int tag, MPI_Request r, MPI_Request tok)
{
	struct lm_req *e = req_add(r, c);
	e->kind = kind;
	e->fn = id;
	e->active = 1;
	e->peer = source;
	e->tag = tag;
	e->tok = tok;
	e->tokstate = tok != MPI_REQUEST_NULL ? TOK_PENDING : TOK_NONE;
	return e;
}

int lm_irecv(int id, uint64_t t0, void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm, MPI_Request *request)
{
	if (!lm.enabled || source == MPI_PROC_NULL) {
		int rc = PMPI_Irecv(buf, count, dt, source, tag, comm, request);
		lm_plain(id, t0);
		return rc;
	}
	struct lm_comm *c = lm_comm_get(comm);
	MPI_Request tok = token_post(c, source, tag);
	int rc = PMPI_Irecv(buf, count, dt, source, tag, comm, request);
	if (rc == MPI_SUCCESS)
		track_recv(id, RQ_RECV, c, source, tag, *request, tok);
	lm_plain(id, t0);
	return rc;
}

/* wait_slt completes the requests of a Wait-family call (mode 'w' Wait and
 * Waitany, 'a' Waitall, 's' Waitsome) while also receiving the tokens of
 * its tracked receives: a token that arrives before its payload marks the
 * time the sender started; the wait until then, less the token latency, is
 * send-late time. Only the application's requests decide when the call
 * returns: a token never holds it back. */
/* finished records application request j of wait_slt as complete, once: a
 * persistent request (point to point, or an MPI-4 persistent collective)
 * stays a handle after it completes, inactive, and MPICH reports an
 * inactive persistent collective as complete again on every test; it is
 * kept aside (kept[j]) and nulled in the array waited on, so that the wait
 * ends and nothing is counted twice. */
static void finished(MPI_Request *app_reqs, MPI_Request *kept, int j, MPI_Status *st, MPI_Status *sts, int *indices,
		     int *nout)
{
	if (sc.fin[j])
		return;
	sc.fin[j] = 1;
	sts[*nout] = *st;
	indices[(*nout)++] = j;
	if (app_reqs[j] != MPI_REQUEST_NULL) {
		kept[j] = app_reqs[j];
		app_reqs[j] = MPI_REQUEST_NULL;
	}
}

static int wait_slt(int id, uint64_t t0, char mode, int n, MPI_Request reqs[], MPI_Status *sts,
		    int *outcount, int *indices)
{
	int m = 0, rc = MPI_SUCCESS;
	cur_t0 = t0;
	/* Tokens first, so that a token and its payload completed together
	 * are seen in that order (Waitany reports the lowest index). */
	for (int i = 0; i < n; i++) {
		sc.late[i] = 0;
		sc.fin[i] = 0;
		if (sc.ents[i] && sc.ents[i]->tokstate == TOK_PENDING) {
			sc.comb[m] = sc.ents[i]->tok;
			sc.owner[m++] = i;
		}
	}
	MPI_Request *app_reqs = sc.comb + m, *kept = sc.comb + m + n;
	for (int i = 0; i < n; i++) {
		app_reqs[i] = reqs[i];
		kept[i] = MPI_REQUEST_NULL;
	}
	int nout = 0;
	for (;;) {
		int out = 0;
		if (mode == 'a') {
			/* Waitall ends when every application request is null or
			 * inactive (persistent ones, collectives included), which
			 * only MPI knows: ask it without waiting, so the wait
			 * below always has an application request to end it. */
			rc = PMPI_Testsome(n, app_reqs, &out, sc.idx, sc.st2);
			if (out == MPI_UNDEFINED)
				break;
			for (int k = 0; k < out; k++)
				finished(app_reqs, kept, sc.idx[k], &sc.st2[k], sts, indices, &nout);
			if (out > 0)
				continue; /* perhaps the last ones: ask again */
		}
		if (mode == 'w') {
			int k;
			MPI_Status s;
			rc = PMPI_Waitany(n + m, sc.comb, &k, &s);
			if (k == MPI_UNDEFINED) {
				out = MPI_UNDEFINED;
			} else {
				out = 1;
				sc.idx[0] = k;
				sc.st2[0] = s;
			}
		} else {
			rc = PMPI_Waitsome(n + m, sc.comb, &out, sc.idx, sc.st2);
		}
		if (out == MPI_UNDEFINED)
			break;
		uint64_t now = lm_tick();
		int app = 0;
		for (int k = 0; k < out; k++) {
			int j = sc.idx[k];
			if (j < m) {
				int o = sc.owner[j];
				tok_arrived(sc.ents[o], &sc.st2[k], now);
				uint64_t w = now - t0;
				if (!sc.fin[o]) /* a token after its payload says nothing */
					sc.late[o] = w > g.toklat ? w - g.toklat : 0;
				continue;
			}
			app++;
			finished(app_reqs, kept, j - m, &sc.st2[k], sts, indices, &nout);
		}
		if (app && mode != 'a')
			break;
	}
	for (int i = 0; i < n; i++)
		reqs[i] = kept[i] != MPI_REQUEST_NULL ? kept[i] : app_reqs[i];
	/* Tokens still pending stay with their (uncompleted) owner; their
	 * handles did not change. */
	uint64_t total = lm_tick() - t0, late = 0, suml = 0;
	for (int k = 0; k < nout; k++) {
		uint64_t l = sc.late[indices[k]];
		if (l > late)
			late = l;
		suml += l;
	}
	if (late > total)
		late = total;
	account(id, total, late);
	int nrecv = 0;
	for (int k = 0; k < nout; k++)
		if (sc.ents[indices[k]] && sc.ents[indices[k]]->kind != RQ_PSEND)
			nrecv++;
	for (int k = 0; k < nout; k++) {
		struct lm_req *e = sc.ents[indices[k]];
		if (!e)
			continue;
		uint64_t l = suml ? (uint64_t)((double)sc.late[indices[k]] * (double)late / (double)suml) : 0;
		done(e, &sts[k], nrecv ? total / (uint64_t)nrecv : 0, l);
	}
	cur_t0 = 0;
	*outcount = nout == 0 ? MPI_UNDEFINED : nout;
	return rc;
}

/* lookup detaches the entries of reqs into sc.ents and returns how many
 * are tracked; give_all gives them back. */
static int lookup(int n, MPI_Request reqs[])
{
	scratch(2 * n); /* wait_slt keeps finished persistent requests in sc.comb[m+n..m+2n) */
	int k = 0;
	for (int i = 0; i < n; i++) {
		sc.ents[i] = take(reqs[i]);
		if (sc.ents[i])
			k++;
	}
	return k;
}

static void give_all(int n)
{
	for (int i = 0; i < n; i++)
		give_back(sc.ents[i]);
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

int lm_Wait(int id, uint64_t t0, MPI_Request *request, MPI_Status *status)
{
	struct lm_req *e = take(*request);
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
		scratch(2);
		sc.ents[0] = e;
		int out, idx;
		MPI_Status s[1];
		rc = wait_slt(id, t0, 'w', 1, request, s, &out, &idx);
		*status = s[0];
	} else {
		rc = PMPI_Wait(request, status);
		uint64_t d = lm_tick() - t0;
		account(id, d, 0);
		done(e, status, d, 0);
	}
	give_back(e);
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
			account(id, d, 0);
			got(id, lm_comm_get(comm), status, d, 0);
		}
		return rc;
	}
	/* --slt: the receive becomes Irecv + a wait that also takes the token. */
	struct lm_comm *c = lm_comm_get(comm);
	MPI_Request tok = token_post(c, source, tag), r;
	int rc = PMPI_Irecv(buf, count, dt, source, tag, comm, &r);
	if (rc != MPI_SUCCESS) {
		if (tok != MPI_REQUEST_NULL)
			orphan(tok);
		return rc;
	}
	track_recv(id, RQ_RECV, c, source, tag, r, tok);
	struct lm_req *e = take(r);
	if (e->tokstate != TOK_PENDING) {
		rc = PMPI_Wait(&r, status);
		uint64_t d = lm_tick() - t0;
		account(id, d, 0);
		done(e, status, d, 0);
	} else {
		scratch(2);
		sc.ents[0] = e;
		int out, idx;
		rc = wait_slt(id, t0, 'w', 1, &r, status, &out, &idx);
	}
	give_back(e);
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
		account(id, d, 0);
		if (*index != MPI_UNDEFINED && sc.ents[*index])
			done(sc.ents[*index], status, d, 0);
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
		account(id, d, 0);
		int k = 0;
		for (int i = 0; i < count; i++)
			if (sc.ents[i] && sc.ents[i]->kind != RQ_PSEND)
				k++;
		for (int i = 0; i < count; i++)
			if (sc.ents[i])
				done(sc.ents[i], &sts[i], k ? d / (uint64_t)k : 0, 0);
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
		account(id, d, 0);
		if (*outcount != MPI_UNDEFINED)
			for (int k = 0; k < *outcount; k++)
				if (sc.ents[indices[k]])
					done(sc.ents[indices[k]], &sts[k], d / (uint64_t)*outcount, 0);
	}
	give_all(incount);
	return rc;
}

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
	struct lm_req *e = take(*request);
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
	account(id, d, 0);
	if (*flag)
		done(e, status, d, 0);
	give_back(e);
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
	account(id, d, 0);
	if (*flag && *index != MPI_UNDEFINED && sc.ents[*index])
		done(sc.ents[*index], status, d, 0);
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
	account(id, d, 0);
	if (*flag)
		for (int i = 0; i < count; i++)
			if (sc.ents[i])
				done(sc.ents[i], &sts[i], 0, 0);
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
	account(id, d, 0);
	if (*outcount != MPI_UNDEFINED)
		for (int k = 0; k < *outcount; k++)
			if (sc.ents[indices[k]])
				done(sc.ents[indices[k]], &sts[k], 0, 0);
	give_all(incount);
	return rc;
}

/* ------------------------------------------------------- sendrecv, probes */

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
	uint64_t d, late = 0;
	if (lm.slt && source != MPI_PROC_NULL && c->shadow != MPI_COMM_NULL) {
		/* Sendrecv is Isend + Irecv + Waitall; written so, the wait can
		 * also take the token. */
		lm_token_send(comm, dest, sendtag);
		MPI_Request tok = token_post(c, source, recvtag), rq[2];
		PMPI_Irecv(recvbuf, recvcount, recvtype, source, recvtag, comm, &rq[0]);
		rc = PMPI_Isend(sendbuf, sendcount, sendtype, dest, sendtag, comm, &rq[1]);
		MPI_Request all[3] = {rq[0], rq[1], tok};
		int left = 2, taken = 0, tmod = -1;
		MPI_Status ts = {0};
		uint64_t tat = 0;
		while (left > 0) {
			int k;
			MPI_Status s;
			PMPI_Waitany(3, all, &k, &s);
			if (k == MPI_UNDEFINED)
				break;
			if (k == 2) {
				tat = lm_tick();
				uint64_t w = tat - t0;
				late = w > g.toklat ? w - g.toklat : 0;
				taken = 1;
				ts = s;
				tmod = token_len(&s);
				continue;
			}
			if (k == 0)
				*status = s;
			left--;
		}
		if (all[2] != MPI_REQUEST_NULL)
			orphan(all[2]);
		if (status->MPI_SOURCE >= 0) {
			uint64_t own = 0;
			LM_LOCK();
			int r = pair_token(c, status->MPI_SOURCE, status->MPI_TAG, taken, ts.MPI_SOURCE, ts.MPI_TAG, tmod, tat, &own);
			LM_UNLOCK();
			if (r == 1)
				late = own > t0 + g.toklat ? own - t0 - g.toklat : 0;
			else if (r == 2)
				late = 0;
		}
	} else {
		if (lm.slt)
			lm_token_send(comm, dest, sendtag);
		rc = PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
				   source, recvtag, comm, status);
	}
	d = lm_tick() - t0;
	if (lm.on) {
		account(id, d, late);
		if (dest != MPI_PROC_NULL) {
			struct lm_comm *cc = lm_comm_of(comm);
			int w = lm_world_of(cc, dest);
			LM_LOCK();
			lm.fn[id].bsent += sb;
			lm.fn[id].rsent++;
			lm_sendto_add(cc, w, sb, d);
			LM_UNLOCK();
		}
		got(id, c, status, d, late);
	}
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
		tok = token_post(c, source, recvtag);
		if (tok != MPI_REQUEST_NULL)
			g.warn |= LM_W_SENDRECV_REPLACE;
	}
	int rc = PMPI_Sendrecv_replace(buf, count, dt, dest, sendtag, source, recvtag, comm, status);
	if (tok != MPI_REQUEST_NULL) {
		int f = 0;
		MPI_Status ts;
		PMPI_Test(&tok, &f, &ts);
		if (!f)
			orphan(tok);
		if (status->MPI_SOURCE >= 0) {
			uint64_t own;
			LM_LOCK();
			pair_token(c, status->MPI_SOURCE, status->MPI_TAG, f, ts.MPI_SOURCE, ts.MPI_TAG, f ? token_len(&ts) : -1, 0, &own);
			LM_UNLOCK();
		}
	}
	uint64_t d = lm_tick() - t0;
	if (lm.on) {
		account(id, d, 0);
		if (dest != MPI_PROC_NULL) {
			struct lm_comm *cc = lm_comm_of(comm);
			int w = lm_world_of(cc, dest);
			LM_LOCK();
			lm.fn[id].bsent += sb;
			lm.fn[id].rsent++;
			lm_sendto_add(cc, w, sb, d);
			LM_UNLOCK();
		}
		got(id, c, status, d, 0);
	}
	return rc;
}

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
		pair_token(c, st->MPI_SOURCE, st->MPI_TAG, 0, 0, 0, -1, 0, &own); /* the message is taken */
		LM_UNLOCK();
		orphan(token_post(c, st->MPI_SOURCE, st->MPI_TAG));
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

/* ----------------------------------------------------------- persistent */

static void persistent_init(int kind, int id, MPI_Count count, MPI_Datatype dt, int peer, int tag, MPI_Comm comm, MPI_Request req)
{
	if (!lm.enabled)
		return;
	struct lm_req *e = req_add(req, lm_comm_get(comm));
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
	LM_LOCK();
	int h = req_index(r);
	struct lm_req *e = h >= 0 ? rtab[h] : NULL;
	LM_UNLOCK();
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
	e->tok = token_post(e->comm, e->peer, e->tag);
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
	struct lm_req *e = take(*request);
	if (!e && lm.nreq) { /* an inactive persistent request */
		LM_LOCK();
		int h = req_index(*request);
		if (h >= 0) {
			e = rtab[h];
			req_unlink(h);
			e->detached = 1;
		}
		LM_UNLOCK();
	}
	if (e) {
		if (e->tokstate == TOK_PENDING)
			orphan(e->tok);
		req_del(e);
		give_back(e);
	}
	int rc = PMPI_Request_free(request);
	lm_plain(id, t0);
	return rc;
}

/* ---------------------------------------------------------------- start-up */

static void calibrate_tokens(void)
{
	/* One-way latency of a 0-byte message to a neighbour, median of 31
	 * round trips; a rank without a partner takes the largest of the others. */
	int partner = g.cworld->rank ^ 1;
	uint64_t mine = 0;
	if (partner < lm.wsize) {
		enum { N = 31, WARM = 5 };
		uint64_t rtt[N];
		for (int i = 0; i < N + WARM; i++) {
			uint64_t a = lm_tick();
			if (lm.wrank < partner) {
				PMPI_Send(NULL, 0, MPI_BYTE, partner, 7, g.priv);
				PMPI_Recv(NULL, 0, MPI_BYTE, partner, 7, g.priv, MPI_STATUS_IGNORE);
			} else {
				PMPI_Recv(NULL, 0, MPI_BYTE, partner, 7, g.priv, MPI_STATUS_IGNORE);
				PMPI_Send(NULL, 0, MPI_BYTE, partner, 7, g.priv);
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
	PMPI_Allreduce(&in, &mx, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, g.priv);
	g.toklat = partner < lm.wsize ? mine : mx;
}

static int has_invariant_tsc(void)
{
#ifdef LM_HAVE_TSC
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return 0;
	char line[4096];
	int ok = 0;
	while (fgets(line, sizeof line, f))
		if (!strncmp(line, "flags", 5)) {
			ok = strstr(line, " constant_tsc") && strstr(line, " nonstop_tsc");
			break;
		}
	fclose(f);
	return ok;
#else
	return 0;
#endif
}

static void setup(int provided)
{
	g.dir = getenv("LATMAP_PROFILE_DIR");
	PMPI_Comm_rank(MPI_COMM_WORLD, &lm.wrank);
	PMPI_Comm_size(MPI_COMM_WORLD, &lm.wsize);
	if (!g.dir || !*g.dir) {
		const char *at = getenv("LATMAP_APPTIME");
		if (at && *at) {
			/* Timing only (latmap verify): every wrapper passes through. */
			g.apptime = at;
			PMPI_Barrier(MPI_COMM_WORLD);
			clock_gettime(CLOCK_MONOTONIC, &g.mono0);
			return;
		}
		if (lm.wrank == 0)
			fprintf(stderr, "latmap: liblatmap.so loaded but LATMAP_PROFILE_DIR is not set; "
					"not profiling (run the program under latmap profile)\n");
		return;
	}
	const char *clk = getenv("LATMAP_CLOCK");
	lm.use_tsc = has_invariant_tsc() && !(clk && !strcmp(clk, "monotonic"));
	g.thread_level = provided;
	lm.mt = provided == MPI_THREAD_MULTIPLE;
	const char *s = getenv("LATMAP_SLT");
	lm.slt = s && !strcmp(s, "1");
	if (lm.mt && lm.slt)
		g.warn |= LM_W_THREAD_MULTIPLE;
	s = getenv("LATMAP_COLLWAIT");
	lm.collwait = s && !strcmp(s, "1");
	s = getenv("LATMAP_COLLMATRIX");
	lm.collmat = s && !strcmp(s, "1");
	s = getenv("LATMAP_CALL_SITES");
	int depth = s ? atoi(s) : 0;
	if (depth > 0) {
		lm.sites = depth > LM_SITE_MAXDEPTH ? LM_SITE_MAXDEPTH : depth;
		if (lm.mt)
			g.warn |= LM_W_SITES_THREADS;
		lm_sites_setup();
	}
	PMPI_Comm_group(MPI_COMM_WORLD, &g.wgroup);
	PMPI_Comm_dup(MPI_COMM_WORLD, &g.priv);
	g.cworld = comm_build(MPI_COMM_WORLD);
	g.cself = comm_build(MPI_COMM_SELF);
	ctab_put(g.cworld);
	ctab_put(g.cself);
	lm_cgroup_self(g.cself);
	if (lm.slt) {
		PMPI_Comm_dup(MPI_COMM_WORLD, &g.cworld->shadow);
		PMPI_Comm_dup(MPI_COMM_SELF, &g.cself->shadow);
	}
	s = getenv("LATMAP_WINDOW");
	if (s && *s) {
		char name[96];
		int a = 0, b = 0;
		snprintf(g.win_spec, sizeof g.win_spec, "%s", s);
		if (sscanf(s, "%95[^:]:%d:%d", name, &a, &b) == 3) {
			const char *n = strncmp(name, "MPI_", 4) ? name : name + 4;
			for (int i = 0; i < LM_NFN; i++)
				if (!strcmp(lm_fn_names[i] + 4, n))
					g.win_fn = i;
			g.win_start = a;
			g.win_end = b;
		}
		if (g.win_fn < 0 || !(lm_fn_flags[g.win_fn] & LM_FLAG_COLLECTIVE)) {
			g.win_fn = -1;
			g.warn |= LM_W_DISABLED_WINDOW;
		} else if (g.win_start > 0) {
			g.win_open = 0;
		}
	}
	gethostname(g.host, sizeof g.host - 1);
	g.cpu0 = sched_getcpu();
	lm.enabled = 1;
	if (lm.slt)
		calibrate_tokens();
	PMPI_Barrier(g.priv);
	clock_gettime(CLOCK_MONOTONIC, &g.mono0);
	g.tsc0 = lm_tick();
	set_on();
}

int lm_Init(int id, int *argc, char ***argv)
{
	(void)id;
	int rc = PMPI_Init(argc, argv);
	if (rc == MPI_SUCCESS)
		setup(MPI_THREAD_SINGLE);
	return rc;
}

int lm_Init_thread(int id, int *argc, char ***argv, int required, int *provided)
{
	(void)id;
	int rc = PMPI_Init_thread(argc, argv, required, provided);
	if (rc == MPI_SUCCESS)
		setup(*provided);
	return rc;
}

/* ---------------------------------------------------------------- output */

void bprintf(struct buf *b, const char *fmt, ...)
{
	for (;;) {
		va_list ap;
		va_start(ap, fmt);
		size_t room = b->cap - b->n;
		int k = vsnprintf(b->p ? b->p + b->n : NULL, room, fmt, ap);
		va_end(ap);
		if (k < 0)
			return;
		if ((size_t)k < room) {
			b->n += (size_t)k;
			return;
		}
		size_t nc = b->cap ? b->cap * 2 : 4096;
		while (nc - b->n <= (size_t)k)
			nc *= 2;
		b->p = realloc(b->p, nc);
		if (!b->p)
			abort();
		b->cap = nc;
	}
}

static void cpuset_string(char *out, size_t n)
{
	cpu_set_t set;
	out[0] = 0;
	if (sched_getaffinity(0, sizeof set, &set))
		return;
	size_t k = 0;
	for (int i = 0; i < CPU_SETSIZE && k + 24 < n; i++) {
		if (!CPU_ISSET(i, &set))
			continue;
		int j = i;
		while (j + 1 < CPU_SETSIZE && CPU_ISSET(j + 1, &set))
			j++;
		k += (size_t)snprintf(out + k, n - k, k ? ",%d" : "%d", i);
		if (j > i)
			k += (size_t)snprintf(out + k, n - k, "-%d", j);
		i = j;
	}
}

/* The gather at MPI_Finalize: rank 0 asks every other rank in turn for its
 * rows (asking the next one while it receives the current one) and writes
 * them straight to the file, in pieces of at most GATHER_PIECE bytes. Rank
 * 0 holds one piece at a time, whatever the number of ranks; no count or
 * displacement is limited to an int. */
enum { GATHER_TAG = 31, GATHER_PIECE = 64 << 20 };

static void send_rows(const struct buf *b)
{
	long long len = (long long)b->n;
	PMPI_Recv(NULL, 0, MPI_BYTE, 0, GATHER_TAG, g.priv, MPI_STATUS_IGNORE);
	PMPI_Send(&len, 1, MPI_LONG_LONG, 0, GATHER_TAG, g.priv);
	for (long long off = 0; off < len; off += GATHER_PIECE) {
		int k = len - off < GATHER_PIECE ? (int)(len - off) : GATHER_PIECE;
		PMPI_Send(b->p + off, k, MPI_CHAR, 0, GATHER_TAG, g.priv);
	}
}

/* recv_rows appends the rows of ranks 1.. to f (NULL: received and
 * dropped, so that no rank waits forever); 1 on a write error. */
static int recv_rows(FILE *f)
{
	char *piece = NULL;
	int cap = 0, err = 0;
	if (lm.wsize > 1)
		PMPI_Send(NULL, 0, MPI_BYTE, 1, GATHER_TAG, g.priv);
	for (int r = 1; r < lm.wsize; r++) {
		if (r + 1 < lm.wsize)
			PMPI_Send(NULL, 0, MPI_BYTE, r + 1, GATHER_TAG, g.priv);
		long long len = 0;
		PMPI_Recv(&len, 1, MPI_LONG_LONG, r, GATHER_TAG, g.priv, MPI_STATUS_IGNORE);
		for (long long off = 0; off < len; off += GATHER_PIECE) {
			int k = len - off < GATHER_PIECE ? (int)(len - off) : GATHER_PIECE;
			if (k > cap) {
				piece = realloc(piece, (size_t)k);
				if (!piece)
					abort();
				cap = k;
			}
			PMPI_Recv(piece, k, MPI_CHAR, r, GATHER_TAG, g.priv, MPI_STATUS_IGNORE);
			if (f && fwrite(piece, 1, (size_t)k, f) != (size_t)k)
				err = 1;
		}
	}
	free(piece);
	return err;
}

/* gather_write gathers every rank's rows (b) to rank 0, which writes them
 * after header into dir/name. Empties b. */
static int gather_write(struct buf *b, const char *name, const char *header)
{
	int err = 0;
	if (lm.wrank != 0) {
		send_rows(b);
	} else {
		char path[4096];
		snprintf(path, sizeof path, "%s/%s", g.dir, name);
		FILE *f = fopen(path, "w");
		if (!f || fputs(header, f) < 0 || (b->n && fwrite(b->p, 1, b->n, f) != b->n))
			err = 1;
		err |= recv_rows(f);
		if (f && fclose(f))
			err = 1;
		if (err)
			fprintf(stderr, "latmap: writing %s: %s\n", path, strerror(errno));
	}
	free(b->p);
	b->p = NULL;
	b->n = b->cap = 0;
	return err;
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* run_clock says how long the run took (wall seconds since MPI_Init
 * returned) and how many ticks a second the profile's clock has. */
static void run_clock(double *secs, double *hz)
{
	uint64_t tsc1 = lm_tick();
	struct timespec mono1;
	clock_gettime(CLOCK_MONOTONIC, &mono1);
	*secs = (double)(mono1.tv_sec - g.mono0.tv_sec) + 1e-9 * (double)(mono1.tv_nsec - g.mono0.tv_nsec);
	*hz = *secs > 0 && tsc1 > g.tsc0 ? (double)(tsc1 - g.tsc0) / *secs : 1e9;
	if (!lm.use_tsc)
		*hz = 1e9;
}

/* write_ranks writes ranks.csv: where each rank ran and its times. */
static int write_ranks(double tk)
{
	struct buf b = {0};
	int socket, numa, l3, cpu1 = sched_getcpu();
	lm_cpu_facts("/sys", g.cpu0, &socket, &numa, &l3);
	char cpuset[1024];
	cpuset_string(cpuset, sizeof cpuset);
	uint64_t inmpi = 0;
	for (int i = 0; i < LM_NFN; i++)
		inmpi += lm.fn[i].ticks + lm.fn[i].late + lm.fn[i].sync;
	double el = (double)g.elapsed * tk, comput = el - (double)inmpi * tk;
	if (comput < 0)
		comput = 0;
	bprintf(&b, "%d,%s,%d,%d,\"%s\",%d,%d,%d,%s,%.9f,%.9f\n", lm.wrank, g.host, g.cpu0, cpu1, cpuset, socket,
		numa, l3, g.cpu0 != cpu1 ? "true" : "false", el, comput);
	return gather_write(&b, "ranks.csv", "rank,host,cpu,cpu_end,cpuset,socket,numa,l3,migrated,elapsed_s,comput_s\n");
}

/* write_functions writes functions.csv: per rank and function. */
static int write_functions(double tk)
{
	struct buf b = {0};
	for (int i = 0; i < LM_NFN; i++) {
		struct lm_fnstat *f = &lm.fn[i];
		if (!f->calls)
			continue;
		bprintf(&b, "%d,%s,%llu,%.9g,%.9g,%.9g,%lld,%lld,%lld,%lld\n", lm.wrank, lm_fn_names[i],
			(unsigned long long)f->calls, (double)f->ticks * tk, (double)f->late * tk, (double)f->sync * tk,
			(long long)f->bsent, (long long)f->brecv, (long long)f->rsent, (long long)f->rrecv);
	}
	return gather_write(&b, "functions.csv", "rank,function,calls,time_s,late_s,sync_s,bytes_sent,bytes_recv,reqs_sent,reqs_recv\n");
}

/* write_sizes writes sizes.csv: per rank, function and message-size bin. */
static int write_sizes(double tk)
{
	struct buf b = {0};
	for (int i = 0; i < LM_NFN; i++)
		for (int k = 0; k < LM_NBIN; k++) {
			struct lm_bin *x = &lm.bins[i][k];
			if (!x->calls)
				continue;
			long long lo = k == 0 ? 0 : 64LL << k, hi = k == LM_NBIN - 1 ? -1 : 128LL << k;
			bprintf(&b, "%d,%s,%lld,%lld,%llu,%.9g\n", lm.wrank, lm_fn_names[i], lo, hi,
				(unsigned long long)x->calls, (double)x->ticks * tk);
		}
	return gather_write(&b, "sizes.csv", "rank,function,bin_low,bin_high,calls,time_s\n");
}

/* write_pairs writes sent.csv, received.csv and (with
 * --collectives-in-matrix) collective.csv: one row per peer. */
static int write_pairs(double tk)
{
	struct buf b = {0};
	for (int i = 0; i < lm.sendto.cap; i++) {
		struct lm_pair *p = &lm.sendto.t[i];
		if (p->key >= 0)
			bprintf(&b, "%d,%d,%lld,%lld,%.9g\n", lm.wrank, p->key, (long long)p->bytes, (long long)p->msgs,
				(double)p->ticks * tk);
	}
	int err = gather_write(&b, "sent.csv", "src,dst,bytes,messages,time_s\n");
	for (int i = 0; i < lm.recvfrom.cap; i++) {
		struct lm_pair *p = &lm.recvfrom.t[i];
		if (p->key >= 0)
			bprintf(&b, "%d,%d,%lld,%lld,%.9g,%.9g\n", p->key, lm.wrank, (long long)p->bytes, (long long)p->msgs,
				(double)p->ticks * tk, (double)p->late * tk);
	}
	err |= gather_write(&b, "received.csv", "src,dst,bytes,messages,time_s,late_s\n");
	if (lm.collmat) {
		for (int i = 0; i < lm.collto.cap; i++) {
			struct lm_pair *p = &lm.collto.t[i];
			if (p->key >= 0)
				bprintf(&b, "%d,%d,%lld,%lld\n", lm.wrank, p->key, (long long)p->bytes, (long long)p->msgs);
		}
		err |= gather_write(&b, "collective.csv", "src,dst,bytes,messages\n");
	}
	return err;
}

/* summary is what every rank met, reduced to rank 0 for library.json. */
struct summary {
	int seen[LM_NFN]; /* functions whose traffic is not measured */
	int warn;         /* LM_W_* */
	int thread_level;
	long long mismatch; /* --slt token mismatches */
	long long resynced; /* of which the receive got its own token back */
	double toklat_us;   /* --slt token latency */
	int err;            /* a file could not be written */
};

static void reduce_summary(int err, double tk, struct summary *all)
{
	struct summary mine = {.warn = g.warn | (lm.cm_inter ? LM_W_COLL_INTER : 0) | (lm.cg_over ? LM_W_COMM_GROUPS : 0),
			       .thread_level = g.thread_level,
			       .mismatch = g.mismatch,
			       .resynced = resynced,
			       .toklat_us = (double)g.toklat * tk * 1e6,
			       .err = err};
	for (int i = 0; i < LM_NFN; i++)
		mine.seen[i] = lm.seen[i];
	memset(all, 0, sizeof(*all));
	PMPI_Reduce(mine.seen, all->seen, LM_NFN, MPI_INT, MPI_MAX, 0, g.priv);
	PMPI_Reduce(&mine.warn, &all->warn, 1, MPI_INT, MPI_BOR, 0, g.priv);
	PMPI_Reduce(&mine.thread_level, &all->thread_level, 1, MPI_INT, MPI_MAX, 0, g.priv);
	PMPI_Reduce(&mine.mismatch, &all->mismatch, 1, MPI_LONG_LONG, MPI_SUM, 0, g.priv);
	PMPI_Reduce(&mine.resynced, &all->resynced, 1, MPI_LONG_LONG, MPI_SUM, 0, g.priv);
	PMPI_Reduce(&mine.toklat_us, &all->toklat_us, 1, MPI_DOUBLE, MPI_MAX, 0, g.priv);
	PMPI_Reduce(&mine.err, &all->err, 1, MPI_INT, MPI_MAX, 0, g.priv);
}

/* json_item writes one element of a JSON list of strings. */
static void json_item(FILE *f, int *first, const char *s)
{
	fprintf(f, "%s\n    ", *first ? "" : ",");
	*first = 0;
	json_str(f, s);
}

/* write_unmeasured writes library.json's "unmeasured": what was met that
 * cannot be measured exactly, on any rank. */
static void write_unmeasured(FILE *f, const struct summary *s)
{
	static const struct {
		int bit;
		const char *msg;
	} w[] = {
		{LM_W_THREAD_MULTIPLE, "--slt under MPI_THREAD_MULTIPLE: tokens of threads that share a peer, communicator and tag "
				       "can be paired with another thread's message; the counts and the matrix are exact, the send-late split is approximate"},
		{LM_W_NO_SHADOW, "--slt: point-to-point traffic on a communicator created by a function latmap does not wrap "
				 "(for example MPI_Comm_idup): its receives have no send-late split"},
		{LM_W_SENDRECV_REPLACE, "--slt: MPI_Sendrecv_replace time is not split into send-late and transfer"},
		{LM_W_UNTRANSLATABLE, "some peers could not be translated to MPI_COMM_WORLD ranks (dynamic processes); "
				      "their traffic is not in the matrix"},
		{LM_W_DISABLED_WINDOW, "--window names no wrapped collective; the whole run was profiled"},
		{LM_W_COLL_INTER, "--collectives-in-matrix: collectives on intercommunicators are not in the matrix"},
		{LM_W_SITES_THREADS, "--call-sites under MPI_THREAD_MULTIPLE: call sites are not recorded (threads' calls would mix)"},
		{LM_W_COMM_GROUPS, "more than 63 kinds of communicator were created: the later ones' traffic is in the communicator matrix \"other\""},
	};
	char m[256];
	int first = 1;
	fprintf(f, "  \"unmeasured\": [");
	for (int i = 0; i < LM_NFN; i++)
		if (s->seen[i]) {
			snprintf(m, sizeof m, "%s was called: it is timed, but its traffic is not in the byte counts or the matrix",
				 lm_fn_names[i]);
			json_item(f, &first, m);
		}
	for (size_t i = 0; i < sizeof w / sizeof w[0]; i++)
		if (s->warn & w[i].bit)
			json_item(f, &first, w[i].msg);
	if (s->mismatch) {
		snprintf(m, sizeof m, "--slt: %lld receives took the token of another message (%lld of them found their own, "
				      "kept by an earlier receive); the send-late split of the others is left out", s->mismatch, s->resynced);
		json_item(f, &first, m);
	}
	fprintf(f, "%s]\n", first ? "" : "\n  ");
}

/* write_library_json writes library.json (rank 0), last and atomically:
 * its presence says the raw profile is complete. */
static void write_library_json(const struct summary *s, double secs, double hz)
{
	char tmp[4096], path[4096];
	snprintf(tmp, sizeof tmp, "%s/.library.json.tmp", g.dir);
	snprintf(path, sizeof path, "%s/library.json", g.dir);
	FILE *f = fopen(tmp, "w");
	if (!f) {
		fprintf(stderr, "latmap: writing %s: %s\n", tmp, strerror(errno));
		return;
	}
	char ver[MPI_MAX_LIBRARY_VERSION_STRING];
	int vl = 0;
	PMPI_Get_library_version(ver, &vl);
	for (char *q = ver; *q; q++)
		if (*q == '\n')
			*q = ' ';
	fprintf(f, "{\n  \"mpi_version\": ");
	json_str(f, ver);
	fprintf(f, ",\n  \"ranks\": %d,\n  \"slt\": %s,\n  \"collective_wait\": %s,\n", lm.wsize,
		lm.slt ? "true" : "false", lm.collwait ? "true" : "false");
	fprintf(f, "  \"collectives_in_matrix\": %s,\n", lm.collmat ? "true" : "false");
	fprintf(f, "  \"window\": ");
	json_str(f, g.win_spec);
	fprintf(f, ",\n  \"clock\": \"%s\",\n  \"tick_hz\": %.0f,\n  \"token_latency_us\": %.4f,\n",
		lm.use_tsc ? "tsc" : "monotonic", hz, s->toklat_us);
	fprintf(f, "  \"thread_level\": %d,\n  \"wall_s\": %.9f,\n  \"token_mismatches\": %lld,\n  \"token_resynced\": %lld,\n",
		s->thread_level, secs, s->mismatch, s->resynced);
	write_unmeasured(f, s);
	fprintf(f, "}\n");
	if (fclose(f) || rename(tmp, path))
		fprintf(stderr, "latmap: writing %s: %s\n", path, strerror(errno));
}

/* write_profile writes the raw profile at MPI_Finalize: the per-rank files
 * gathered to rank 0, then library.json. */
static void write_profile(void)
{
	double secs, hz;
	run_clock(&secs, &hz);
	double tk = 1.0 / hz;
	int err = write_ranks(tk);
	err |= write_functions(tk);
	err |= write_sizes(tk);
	err |= write_pairs(tk);
	err |= lm_write_comms(tk, gather_write);
	if (lm.sites)
		err |= lm_write_sites(tk, gather_write);
	struct summary all;
	reduce_summary(err, tk, &all);
	if (lm.wrank == 0 && !all.err)
		write_library_json(&all, secs, hz);
}

/* write_apptime writes LATMAP_APPTIME's file on rank 0: the slowest and
 * the fastest rank's time from MPI_Init (after a barrier, as a profile's
 * elapsed time) to MPI_Finalize, and the number of ranks. */
static void write_apptime(void)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	double el = (double)(now.tv_sec - g.mono0.tv_sec) + 1e-9 * (double)(now.tv_nsec - g.mono0.tv_nsec);
	double mx = 0, mn = 0;
	PMPI_Reduce(&el, &mx, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
	PMPI_Reduce(&el, &mn, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
	if (lm.wrank != 0)
		return;
	char tmp[4096];
	snprintf(tmp, sizeof tmp, "%s.tmp", g.apptime);
	FILE *f = fopen(tmp, "w");
	if (!f) {
		fprintf(stderr, "latmap: writing %s: %s\n", tmp, strerror(errno));
		return;
	}
	fprintf(f, "slowest_s,fastest_s,ranks\n%.9f,%.9f,%d\n", mx, mn, lm.wsize);
	if (fclose(f) || rename(tmp, g.apptime))
		fprintf(stderr, "latmap: writing %s: %s\n", g.apptime, strerror(errno));
}

int lm_Finalize(int id)
{
	(void)id;
	if (g.apptime) {
		write_apptime();
		g.apptime = NULL;
	}
	if (lm.enabled) {
		if (lm.on) {
			g.elapsed += lm_tick() - g.on_since;
			lm.on = 0;
		}
		for (int i = 0; i < g.norph; i++)
			if (g.orph[i] != MPI_REQUEST_NULL) {
				PMPI_Cancel(&g.orph[i]);
				PMPI_Wait(&g.orph[i], MPI_STATUS_IGNORE);
			}
		g.norph = 0;
		write_profile();
		lm.enabled = 0;
		PMPI_Comm_free(&g.priv);
	}
	return PMPI_Finalize();
}

/* ---------------------------------------- MPI-4 large-count (_c) calls */

/* lm_recv_done accounts a large-count receive (MPI_Recv_c) after the call:
 * its time and what status says arrived. The _c calls take no part in
 * --slt's tokens. */
void lm_recv_done(int id, uint64_t t0, MPI_Comm comm, MPI_Status *status)
{
	uint64_t d = lm_tick() - t0;
	if (lm.on) {
		account(id, d, 0);
		got(id, lm_comm_get(comm), status, d, 0);
	}
}

/* lm_irecv_track tracks a large-count nonblocking receive (MPI_Irecv_c):
 * its completion counts its bytes like MPI_Irecv's. */
void lm_irecv_track(int id, MPI_Comm comm, int source, int tag, MPI_Request r)
{
	if (!lm.enabled || source == MPI_PROC_NULL)
		return;
	track_recv(id, RQ_RECV, lm_comm_get(comm), source, tag, r, MPI_REQUEST_NULL);
}

/* lm_sendrecv_done accounts MPI_Sendrecv_c and MPI_Sendrecv_replace_c
 * after the call: one call, the bytes sent to dest, what status says
 * arrived. */
void lm_sendrecv_done(int id, uint64_t t0, MPI_Count sendcount, MPI_Datatype sendtype, int dest, MPI_Comm comm, MPI_Status *status)
{
	uint64_t d = lm_tick() - t0;
	if (!lm.on)
		return;
	account(id, d, 0);
	if (dest != MPI_PROC_NULL) {
		int64_t sb = (int64_t)sendcount * lm_tsize(sendtype);
		struct lm_comm *cc = lm_comm_of(comm);
		int w = lm_world_of(cc, dest);
		LM_LOCK();
		lm.fn[id].bsent += sb;
		lm.fn[id].rsent++;
		lm_sendto_add(cc, w, sb, d);
		LM_UNLOCK();
	}
	got(id, lm_comm_get(comm), status, d, 0);
}
