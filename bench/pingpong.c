//go:build mpi

// pingpong.c: MPI calls of latmap survey. The timed ping-pong loop is here,
// in C, so that a measured round trip costs what it costs in a bare C
// program; Go only decides who meets whom.

#define _GNU_SOURCE
#include <mpi.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include "pingpong.h"

static MPI_Comm comm = MPI_COMM_NULL;
static const int tag = 42;
// goTag carries the sequential schedule's hand-offs (lm_signal).
static const int goTag = 43;
// bwTag carries the node bandwidth phase's messages (lm_exchange).
static const int bwTag = 44;

int lm_init(void) {
	int ok = 0, provided;
	MPI_Initialized(&ok);
	// Only the thread that calls MPI_Init (locked to its goroutine) ever
	// calls MPI; the Go runtime's other threads never do. MPI_THREAD_SINGLE
	// rather than FUNNELED: with Open MPI 4.1 a bare C ping-pong that asks
	// for FUNNELED is often slower (same-node median round trip 1.35-1.82
	// us against 1.35-1.46 us with MPI_Init, 5 alternating runs each), and
	// the survey must measure what applications get.
	// SIGTERM and SIGINT stay Go's (bench/stop.go: the survey stops after
	// its pass and writes what it measured): MPICH's MPI_Init sets SIGTERM
	// back to its default, which would end the rank with nothing written.
	struct sigaction term, intr;
	sigaction(SIGTERM, NULL, &term);
	sigaction(SIGINT, NULL, &intr);
	if (!ok && MPI_Init_thread(NULL, NULL, MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) {
		return -1;
	}
	sigaction(SIGTERM, &term, NULL);
	sigaction(SIGINT, &intr, NULL);
	// A private communicator keeps our messages apart from anything else,
	// and errors end the job instead of returning half a survey.
	MPI_Comm_dup(MPI_COMM_WORLD, &comm);
	MPI_Comm_set_errhandler(comm, MPI_ERRORS_ARE_FATAL);
	// Sleeping waits should wake up when asked, not up to 50 us later.
	prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
	return 0;
}

int lm_rank(void) {
	int r = -1;
	MPI_Comm_rank(comm, &r);
	return r;
}

int lm_size(void) {
	int n = -1;
	MPI_Comm_size(comm, &n);
	return n;
}

double lm_wtick(void) { return MPI_Wtick(); }

void lm_library_version(char *buf, int cap) {
	char v[MPI_MAX_LIBRARY_VERSION_STRING];
	int len = 0;
	MPI_Get_library_version(v, &len);
	if (len >= cap) {
		len = cap - 1;
	}
	memcpy(buf, v, len);
	buf[len] = 0;
}

// lm_pingpong does warm untimed round trips of size bytes with peer (lo
// sends first), then ntimed round trips, each timed with MPI_Wtime on the lo
// side and stored in out[] in microseconds (out is unused on the hi side).
void lm_pingpong(int peer, int lo, void *buf, int size, int warm, int ntimed, double *out) {
	int i;
	double t0, t1;
	if (lo) {
		for (i = 0; i < warm; i++) {
			MPI_Send(buf, size, MPI_BYTE, peer, tag, comm);
			MPI_Recv(buf, size, MPI_BYTE, peer, tag, comm, MPI_STATUS_IGNORE);
		}
		for (i = 0; i < ntimed; i++) {
			t0 = MPI_Wtime();
			MPI_Send(buf, size, MPI_BYTE, peer, tag, comm);
			MPI_Recv(buf, size, MPI_BYTE, peer, tag, comm, MPI_STATUS_IGNORE);
			t1 = MPI_Wtime();
			out[i] = (t1 - t0) * 1e6;
		}
		return;
	}
	for (i = 0; i < warm + ntimed; i++) {
		MPI_Recv(buf, size, MPI_BYTE, peer, tag, comm, MPI_STATUS_IGNORE);
		MPI_Send(buf, size, MPI_BYTE, peer, tag, comm);
	}
}

// waitFor completes req without spinning for long: it tests the request in
// a loop for at most spin_ns nanoseconds (a rank that just measured, whose
// peers are about to arrive too), then after sleeps that start at min_ns
// and double up to max_ns, so that ranks that wait long (idle while others
// measure) leave the processor to those that measure.
static void waitFor(MPI_Request *req, long spin_ns, long min_ns, long max_ns) {
	int done = 0;
	long ns = min_ns;
	struct timespec ts;
	double until = MPI_Wtime() + spin_ns * 1e-9;
	MPI_Test(req, &done, MPI_STATUS_IGNORE);
	while (!done && spin_ns > 0 && MPI_Wtime() < until) {
		MPI_Test(req, &done, MPI_STATUS_IGNORE);
	}
	while (!done) {
		ts.tv_sec = ns / 1000000000L;
		ts.tv_nsec = ns % 1000000000L;
		nanosleep(&ts, NULL);
		if (ns < max_ns) {
			ns = ns * 2 < max_ns ? ns * 2 : max_ns;
		}
		MPI_Test(req, &done, MPI_STATUS_IGNORE);
	}
}

// lm_wait is a barrier that does not spin for long (waitFor).
int lm_wait(long spin_ns, long min_ns, long max_ns) {
	MPI_Request req;
	MPI_Ibarrier(comm, &req);
	waitFor(&req, spin_ns, min_ns, max_ns);
	return 0;
}

// lm_signal tells peer that it may start measuring: an empty message,
// sent eagerly, so the sender goes on at once.
int lm_signal(int peer) {
	return MPI_Send(NULL, 0, MPI_BYTE, peer, goTag, comm);
}

// lm_await waits, sleeping as lm_wait does, for peer's lm_signal.
int lm_await(int peer, long spin_ns, long min_ns, long max_ns) {
	MPI_Request req;
	MPI_Irecv(NULL, 0, MPI_BYTE, peer, goTag, comm, &req);
	waitFor(&req, spin_ns, min_ns, max_ns);
	return 0;
}

// lm_exchange_post posts lm_exchange's next message of slot i (a send
// to its destination or a receive from its source) and counts it.
static void lm_exchange_post(int i, int window, int nd, const int *dst, const int *src, void *sbuf, void *rbuf, int size, MPI_Request *req, int *posted) {
	int p = i / window;
	if (p < nd)
		MPI_Isend(sbuf, size, MPI_BYTE, dst[p], bwTag, comm, req);
	else
		MPI_Irecv((char *)rbuf + (size_t)(i - nd * window) * size, size, MPI_BYTE, src[p - nd], bwTag, comm, req);
	(*posted)++;
}

// lm_exchange sends count messages of size bytes to each of the nd ranks
// dst while receiving as many from each of the ns ranks src, window at a
// time in flight each way with each partner (rbuf holds ns * window
// messages), and returns the wall time in seconds until every message
// it sent and received completed: the node bandwidth, switch and fan-out
// phases. Several messages in flight keep a link busy while one
// message's acknowledgements are on their way; several partners at once
// are how one rank drives several links (a torus node's, the fan-out
// with one rank a node).
//
// Each partner's window refills as its own messages complete, sends and
// receives apart: when a window waited for both ways at once, a rank
// receiving from a slower host sent at that host's pace, and so the
// ranks that received from it, round the whole shift: on PSMN's fabric
// (simulated), three hosts of 4xDDR made every group of 4xQDR hosts
// measure 1.79 GB/s a host in the switch phase, where they move 3.58
// GB/s each way. Its time still ends with its receives: a send's
// completion may be its data's copy to the kernel's socket buffers
// (Open MPI over TCP), not its delivery. -1 when out of memory.
double lm_exchange(const int *dst, int nd, const int *src, int ns, void *sbuf, void *rbuf, int size, int count, int window) {
	int i, n;
	if (window < 1)
		window = 1;
	if (window > count)
		window = count > 0 ? count : 1;
	n = (nd + ns) * window;
	if (n == 0 || count <= 0)
		return 0;
	size_t most = (size_t)n + 1; // never malloc(0)
	MPI_Request *req = malloc(sizeof(MPI_Request) * most);
	MPI_Status *st = malloc(sizeof(MPI_Status) * most);
	int *posted = calloc((size_t)(nd + ns) + 1, sizeof(int));
	if (req == NULL || st == NULL || posted == NULL) {
		free(req);
		free(st);
		free(posted);
		return -1;
	}
	// Slot i is partner i / window's: a destination below nd, else the
	// source i / window - nd, whose messages land in rbuf's slot i - nd *
	// window.
	for (i = 0; i < n; i++)
		req[i] = MPI_REQUEST_NULL;
	double t0 = MPI_Wtime();
	for (i = 0; i < n; i++)
		if (posted[i / window] < count)
			lm_exchange_post(i, window, nd, dst, src, sbuf, rbuf, size, &req[i], &posted[i / window]);
	for (;;) {
		// One completion a call: SimGrid's MPI_Waitsome took 1.27x
		// as long over one flow of 16 MiB in 1 MiB messages.
		MPI_Waitany(n, req, &i, st);
		if (i == MPI_UNDEFINED)
			break;
		if (posted[i / window] < count)
			lm_exchange_post(i, window, nd, dst, src, sbuf, rbuf, size, &req[i], &posted[i / window]);
	}
	double t = MPI_Wtime() - t0;
	free(req);
	free(st);
	free(posted);
	return t;
}

int lm_gather_sizes(int len, int *lens) {
	return MPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, comm);
}

int lm_gatherv(const void *sbuf, int len, void *rbuf, const int *lens, const int *displs) {
	return MPI_Gatherv(sbuf, len, MPI_BYTE, rbuf, lens, displs, MPI_BYTE, 0, comm);
}

int lm_bcast_len(int *len) { return MPI_Bcast(len, 1, MPI_INT, 0, comm); }

int lm_bcast(void *buf, int len) { return MPI_Bcast(buf, len, MPI_BYTE, 0, comm); }

int lm_cpu(void) { return sched_getcpu(); }

// lm_affinity writes the calling thread's allowed CPUs as a bit mask of cap
// bytes and returns how many bytes are valid, or -1.
int lm_affinity(unsigned char *mask, int cap) {
	cpu_set_t set;
	int i, n = 0;
	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(set), &set) != 0) {
		return -1;
	}
	memset(mask, 0, cap);
	for (i = 0; i < CPU_SETSIZE && i / 8 < cap; i++) {
		if (CPU_ISSET(i, &set)) {
			mask[i / 8] |= (unsigned char)(1 << (i % 8));
			n = i / 8 + 1;
		}
	}
	return n;
}

void lm_abort(int code) { MPI_Abort(MPI_COMM_WORLD, code); }

int lm_finalize(void) {
	if (comm != MPI_COMM_NULL) {
		MPI_Comm_free(&comm);
	}
	return MPI_Finalize();
}
