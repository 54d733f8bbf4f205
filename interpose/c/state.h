/*
 * state.h: the state every part of latmap's PMPI interposition library
 * shares (state.c): lm (the switches, counters and matrices), its lock
 * lm_mu, lm_world, the types they are made of (struct lm_comm, the
 * communicator table's entry, too), and the inline reads every hook makes:
 * the clock (lm_tick), a datatype's size (lm_tsize) and a message's size
 * bin (lm_bin_of). Each .c file's own interface is in the header named
 * after it; the files call each other in one direction only
 * (docs/architecture.md lists them, in that order), and this header is at
 * the bottom: it includes none of theirs.
 */
#ifndef LATMAP_STATE_H
#define LATMAP_STATE_H

#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define LM_HAVE_TSC 1
#endif

#include "fnids.gen.h"

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
/* The wrapped functions' names and LM_FLAG_* flags, by lm_fn_id
 * (wrappers.gen.c). */
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

/* lm_type_forget takes a freed datatype out of lm_tsize's cache. */
void lm_type_forget(MPI_Datatype dt);

#endif
