/*
 * latmap.h: state and inline hooks of latmap's PMPI interposition library.
 * The wrappers themselves are generated (wrappers.gen.c); the hooks they
 * call live here (the hot, inline ones) and in one .c file per concern,
 * named at each declaration below. Those files' own interfaces to each
 * other are in their headers (util.h, commtab.h, requests.h, tokens.h,
 * account.h, waits.h, window.h, clock.h, output.h); they call each other
 * in one direction only (docs/architecture.md lists the files).
 */
#ifndef LATMAP_H
#define LATMAP_H

#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define LM_HAVE_TSC 1
#endif

#include "fnids.gen.h"

/* Functions that only the library's own files call: not exported. */
#define LM_HIDDEN __attribute__((visibility("hidden")))

/* lm_world is the program's MPI_COMM_WORLD: the MPI's own, or under
 * latmap profile --remap its processes renumbered (remap.c). Every
 * wrapper hands a communicator parameter through LM_WORLD first, and the
 * library's own code names lm_world, never MPI_COMM_WORLD. */
extern MPI_Comm lm_world;
#define LM_WORLD(c) ((c) == MPI_COMM_WORLD ? lm_world : (c))

/* Message-size bins: [0,128), [128,256), ..., [32768,65536), [65536,inf). */
#define LM_NBIN 11

struct lm_fnstat {
	uint64_t calls, ticks, late, sync;
	int64_t bsent, brecv, rsent, rrecv;
};

struct lm_bin {
	uint64_t calls, ticks;
};

/* One peer's traffic (sparse, per destination or per source). */
struct lm_pair {
	int key; /* world rank, -1 when the slot is empty */
	int64_t bytes, msgs;
	uint64_t ticks, late;
};

struct lm_pairs {
	int cap, n;
	struct lm_pair *t;
};

/* A communicator: world ranks of its (remote) group, built once. */
struct lm_comm {
	MPI_Comm comm;
	int size, rank, inter;
	int *world;      /* NULL for MPI_COMM_WORLD (identity) */
	MPI_Comm shadow; /* --slt: the duplicate that carries tokens */
	int refs;        /* tracked requests on it: freed when 0 after MPI_Comm_free */
	int id;          /* a number of its own, for the --slt token sequences */
	int grp;         /* its group's per-communicator matrix (comms.c); -1 for MPI_COMM_WORLD */
	int nchild;      /* communicators created from it so far */
};

/* Things met that cannot be measured exactly (lm.warn, reported in
 * library.json). */
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

/* The state every part shares (state.c). */
struct lm_state {
	int on;      /* accounting: initialised, window open, Pcontrol on (window.c) */
	int enabled; /* LATMAP_PROFILE_DIR set and MPI initialised */
	int slt, collwait;
	int collmat;  /* --collectives-in-matrix: collectives add to collto */
	int sites;    /* --call-sites depth (0: off) */
	/* Under --call-sites, while latmap's forwarder of an MPICH use mpi_f08
	 * call with a buffer (fortran.gen.c: mpi_send_f08ts_) is in MPICH's own,
	 * whose MPIR_*_cdesc calls the C wrapper: the Fortran program's return
	 * address, the call's site. */
	void *f08_caller;
	int cm_inter; /* a collective on an intercommunicator was left out */
	int flush_due; /* a snapshot is due (partial profiles; output.c's timer) */
	int cg_over;  /* more communicator groups than comms.c keeps */
	int warn;     /* LM_W_* met on this rank */
	int use_tsc;
	int mt; /* MPI_THREAD_MULTIPLE granted: shared state behind lm_mu */
	int wrank, wsize;
	int nreq; /* tracked requests (receives and persistent ones) */
	MPI_Datatype last_dt;
	int64_t last_sz;
	struct lm_fnstat fn[LM_NFN];
	struct lm_bin bins[LM_NFN][LM_NBIN];
	unsigned char seen[LM_NFN];
	struct lm_pairs sendto, recvfrom;
	struct lm_pairs collto; /* generic point-to-point equivalent of collectives, per destination */
	struct lm_comm *last_comm;
};

extern struct lm_state lm;

/* Threads: with MPI_THREAD_MULTIPLE granted (lm.mt) every change of shared
 * state (counters, pair hashes, communicator and request tables, orphans)
 * happens under lm_mu, a recursive mutex, which is never held across a
 * blocking MPI call. Other thread levels pay one predictable branch. */
extern pthread_mutex_t lm_mu;
#define LM_LOCK()                                 \
	do {                                      \
		if (__builtin_expect(lm.mt, 0))   \
			pthread_mutex_lock(&lm_mu); \
	} while (0)
#define LM_UNLOCK()                                 \
	do {                                        \
		if (__builtin_expect(lm.mt, 0))     \
			pthread_mutex_unlock(&lm_mu); \
	} while (0)
extern const char *const lm_fn_names[LM_NFN];
extern const unsigned char lm_fn_flags[LM_NFN];

static inline uint64_t lm_tick(void)
{
#ifdef LM_HAVE_TSC
	if (__builtin_expect(lm.use_tsc, 1))
		return __rdtsc();
#endif
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline int64_t lm_tsize(MPI_Datatype dt)
{
	if (__builtin_expect(lm.mt, 0)) { /* the one-entry cache is not shared */
		int s = 0;
		PMPI_Type_size(dt, &s);
		return s;
	}
	if (dt != lm.last_dt) {
		int s = 0;
		PMPI_Type_size(dt, &s);
		lm.last_dt = dt;
		lm.last_sz = s;
	}
	return lm.last_sz;
}

static inline int lm_bin_of(int64_t b)
{
	if (b < 128)
		return 0;
	int k = 63 - __builtin_clzll((unsigned long long)b) - 6;
	return k >= LM_NBIN ? LM_NBIN - 1 : k;
}

/* The per-peer hashes (pairs.c) and the communicator table (commtab.c). */
void lm_pair_add(struct lm_pairs *p, int key, int64_t bytes, uint64_t ticks, uint64_t late);
struct lm_comm *lm_comm_get(MPI_Comm comm);

/* Per-communicator matrices (comms.c). */
void lm_cgroup_self(struct lm_comm *self);
int lm_cgroup_child(struct lm_comm *parent, int fid);
void lm_cgroup_join(struct lm_comm *c);
void lm_cgroup_sent(int grp, int w, int64_t bytes, uint64_t ticks);
void lm_cgroup_name(struct lm_comm *c, const char *name);
const char *lm_cgroup_key(int grp);

/* lm_comm_of is comm's table, or NULL for the world (no lookup). */
static inline struct lm_comm *lm_comm_of(MPI_Comm comm)
{
	return comm == lm_world ? NULL : lm_comm_get(comm);
}

/* lm_world_of is the world rank of rank r of c (lm_comm_of's). */
static inline int lm_world_of(struct lm_comm *c, int r)
{
	if (!c || !c->world)
		return r;
	return r >= 0 && r < c->size ? c->world[r] : -1;
}

/* lm_sendto_add adds a message to world rank w, sent on c, to the matrix
 * and to c's group's; the caller holds LM_LOCK. */
static inline void lm_sendto_add(struct lm_comm *c, int w, int64_t b, uint64_t d)
{
	lm_pair_add(&lm.sendto, w, b, d, 0);
	if (c && c->grp >= 0)
		lm_cgroup_sent(c->grp, w, b, d);
}

static inline void lm_plain(int id, uint64_t t0)
{
	uint64_t t1 = lm_tick();
	if (lm.on) {
		LM_LOCK();
		lm.fn[id].calls++;
		lm.fn[id].ticks += t1 - t0;
		LM_UNLOCK();
	}
}

/* lm_sent accounts a send of count elements to dest (after the call). */
static inline void lm_sent(int id, uint64_t t0, MPI_Count count, MPI_Datatype dt, int dest, MPI_Comm comm)
{
	uint64_t t1 = lm_tick();
	if (!lm.on)
		return;
	struct lm_fnstat *f = &lm.fn[id];
	uint64_t d = t1 - t0;
	if (dest == MPI_PROC_NULL) {
		LM_LOCK();
		f->calls++;
		f->ticks += d;
		LM_UNLOCK();
		return;
	}
	int64_t b = (int64_t)count * lm_tsize(dt);
	struct lm_comm *c = lm_comm_of(comm);
	int w = lm_world_of(c, dest);
	LM_LOCK();
	f->calls++;
	f->ticks += d;
	f->bsent += b;
	f->rsent++;
	struct lm_bin *bin = &lm.bins[id][lm_bin_of(b)];
	bin->calls++;
	bin->ticks += d;
	lm_sendto_add(c, w, b, d);
	LM_UNLOCK();
}

/* Call sites (sites.c): a wrapper's snapshot of its function's counters
 * when it started, and the entry of its call site. */
#define LM_SITE_MAXDEPTH 16
struct lm_site;
struct lm_snap {
	int id; /* -1: not recorded */
	struct lm_site *site;
	struct lm_fnstat before;
};
void lm_sites_setup(void) LM_HIDDEN;
void lm_site_enter(struct lm_snap *sn, int id, void *ra, MPI_Comm comm) LM_HIDDEN;
void lm_site_exit(struct lm_snap *sn) LM_HIDDEN;
#define LM_SITE_ENTER(fid, comm)                                              \
	struct lm_snap lm_snap;                                               \
	lm_snap.id = -1;                                                      \
	if (__builtin_expect(lm.sites, 0))                                    \
	lm_site_enter(&lm_snap, (fid), __builtin_return_address(0), (comm))
#define LM_SITE_EXIT()                                       \
	do {                                                 \
		if (__builtin_expect(lm_snap.id >= 0, 0))        \
			lm_site_exit(&lm_snap);              \
		if (__builtin_expect(__atomic_load_n(&lm.flush_due, __ATOMIC_RELAXED), 0)) \
			lm_snapshot_poll();                  \
	} while (0)
/* Partial profiles (output.c): a timer thread raises lm.flush_due every
 * LATMAP_FLUSH_SECONDS, and the next wrapped call on the application's
 * thread writes the rank's snapshot (lm_snapshot_poll). */
void lm_snapshot_poll(void) LM_HIDDEN;

/* Output rows: bprintf (util.c) appends to a buffer that output.c's
 * gather writes; comms.c and sites.c write their own files through it. */
struct buf {
	char *p;
	size_t n, cap;
};
void bprintf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* lm_sink writes rows after a header into a file of the profile: the
 * gather at MPI_Finalize, or a rank's own partial snapshot (output.c). */
typedef int (*lm_sink)(struct buf *, const char *, const char *);
int lm_write_sites(double tk, lm_sink gather);
int lm_write_comms(double tk, lm_sink gather);

/* Start-up and shut-down (init.c). */
int lm_Init(int id, int *argc, char ***argv);
int lm_Init_thread(int id, int *argc, char ***argv, int required, int *provided);
int lm_Finalize(int id);
#define LM_HOSTLEN 256 /* as output.c keeps it: a host name of Linux's full 64 bytes fits */

/* lm_slot is where a process runs: its host and the one cpu it is bound
 * to (-1 when it is not bound to exactly one); lm_my_slot is this
 * process's (reorder.c). */
struct lm_slot {
	char host[LM_HOSTLEN];
	int cpu;
};
struct lm_slot lm_my_slot(void);

/* lm_reorder_note appends a line about a renumbered call (call, its
 * index, ranks, outcome: NULL for renumbered, the predicted speedup, the
 * new rank of each old one) to reorders.tsv of the raw profile (reorder.c). */
void lm_reorder_note(const char *call, int k, int n, const char *why, double speedup, const int nw[]);

/* The topology constructors' calls under latmap profile --reorder: the processes renumbered by latmap's model,
 * or MPI's own (reorder.c). */
int lm_cart_create(MPI_Comm old, int ndims, const int dims[], const int periods[], int reorder, MPI_Comm *cart);
int lm_dist_graph_create_adjacent(MPI_Comm old, int indeg, const int src[], const int sw[], int outdeg, const int dst[], const int dw[], MPI_Info info, int reorder, MPI_Comm *comm);
int lm_graph_create(MPI_Comm old, int nnodes, const int index[], const int edges[], int reorder, MPI_Comm *comm);
int lm_dist_graph_create(MPI_Comm old, int n, const int nodes[], const int degrees[], const int targets[], const int weights[], MPI_Info info, int reorder, MPI_Comm *comm);

/* latmap profile --remap ADVICE (remap.c): lm_remap renumbers the world at
 * MPI_Init, before anything else is set up; lm_comm_get_attr finds the
 * MPI's predefined attributes (MPI_TAG_UB, ...) on its own world. */
void lm_remap(void);
int lm_comm_get_attr(MPI_Comm comm, int keyval, void *val, int *flag);

/* The observation window and the hook before a collective (window.c). */
int lm_pcontrol(int level);
uint64_t lm_coll_pre(int id, MPI_Comm comm, int barrier, uint64_t *t0);
/* --slt's tokens (tokens.c). */
void lm_token_send(MPI_Comm comm, int dest, int tag);
/* Receives, sendrecv and matched probes (p2p.c). */
int lm_recv(int id, uint64_t t0, void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm, MPI_Status *status);
int lm_irecv(int id, uint64_t t0, void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm, MPI_Request *request);
int lm_sendrecv(int id, uint64_t t0, const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
		void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status);
int lm_sendrecv_replace(int id, uint64_t t0, void *buf, int count, MPI_Datatype dt, int dest, int sendtag,
			int source, int recvtag, MPI_Comm comm, MPI_Status *status);
int lm_Mprobe(int id, uint64_t t0, int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status);
int lm_Improbe(int id, uint64_t t0, int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message, MPI_Status *status);
/* The Wait and Test families (waits.c). */
int lm_Wait(int id, uint64_t t0, MPI_Request *request, MPI_Status *status);
int lm_Waitall(int id, uint64_t t0, int count, MPI_Request reqs[], MPI_Status *statuses);
int lm_Waitany(int id, uint64_t t0, int count, MPI_Request reqs[], int *index, MPI_Status *status);
int lm_Waitsome(int id, uint64_t t0, int incount, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[]);
int lm_Test(int id, uint64_t t0, MPI_Request *request, int *flag, MPI_Status *status);
int lm_Testall(int id, uint64_t t0, int count, MPI_Request reqs[], int *flag, MPI_Status statuses[]);
int lm_Testany(int id, uint64_t t0, int count, MPI_Request reqs[], int *index, int *flag, MPI_Status *status);
int lm_Testsome(int id, uint64_t t0, int incount, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[]);
/* Persistent requests (persist.c). */
void lm_psend_init(int id, MPI_Count count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm, MPI_Request req);
void lm_precv_init(int id, MPI_Count count, MPI_Datatype dt, int source, int tag, MPI_Comm comm, MPI_Request req);
int lm_Start(int id, uint64_t t0, MPI_Request *request);
int lm_Startall(int id, uint64_t t0, int count, MPI_Request reqs[]);
int lm_Request_free(int id, uint64_t t0, MPI_Request *request);
/* Communicators created and freed (commtab.c). */
void lm_comm_new(MPI_Comm comm, MPI_Comm parent, int fid);
int lm_Comm_set_name(int id, uint64_t t0, MPI_Comm comm, const char *comm_name);
void lm_comm_free(MPI_Comm comm);
/* A freed datatype leaves the size cache (state.c). */
void lm_type_forget(MPI_Datatype dt);

/* Collectives: the accounting after the call and the byte-expression
 * helpers of the generated wrappers (collectives.c). */
void lm_coll(int id, uint64_t t0, uint64_t t1, uint64_t sync, int64_t sent, int64_t recv);
int64_t lm_sum(const int *counts, MPI_Comm comm);
int64_t lm_sumw(const int *counts, const MPI_Datatype *types, MPI_Comm comm);
int lm_mine(const int *counts, MPI_Comm comm);
int64_t lm_sum_c(const MPI_Count *counts, MPI_Comm comm);
int64_t lm_sumw_c(const MPI_Count *counts, const MPI_Datatype *types, MPI_Comm comm);
MPI_Count lm_mine_c(const MPI_Count *counts, MPI_Comm comm);
int lm_is_root(int root, MPI_Comm comm);
int lm_degree(MPI_Comm comm, int in);
/* The MPI-4 large-count (_c) point-to-point calls (largecount.c). */
void lm_recv_done(int id, uint64_t t0, MPI_Comm comm, MPI_Status *status);
void lm_irecv_track(int id, MPI_Comm comm, int source, int tag, MPI_Request r);
void lm_sendrecv_done(int id, uint64_t t0, MPI_Count sendcount, MPI_Datatype sendtype, int dest, MPI_Comm comm, MPI_Status *status);
#define TS(t) lm_tsize(t)
#define CS(c) ((int64_t)lm_comm_get(c)->size)
#define ROOT(r, c) lm_is_root((r), (c))
/* SUM and MINE take int counts, or MPI_Count ones (the _c calls). */
#define SUM(a, c) _Generic((a), const MPI_Count *: lm_sum_c, MPI_Count *: lm_sum_c, default: lm_sum)((a), (c))
#define SUMW(a, t, c) _Generic((a), const MPI_Count *: lm_sumw_c, MPI_Count *: lm_sumw_c, default: lm_sumw)((a), (t), (c))
#define MINE(a, c) _Generic((a), const MPI_Count *: lm_mine_c, MPI_Count *: lm_mine_c, default: lm_mine)((a), (c))
#define INPLACE(b) ((const void *)(b) == (const void *)MPI_IN_PLACE)
#define INDEG(c) ((int64_t)lm_degree((c), 1))
#define OUTDEG(c) ((int64_t)lm_degree((c), 0))

#endif
