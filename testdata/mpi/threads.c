/* threads.c: MPI_THREAD_MULTIPLE with 4 threads per rank. Run on an even
 * number of ranks; rank r pairs with rank r^1. Thread t exchanges N
 * messages (argv[1], default 2500, so 10,000 per rank) with the same thread
 * of the peer rank, on tag t, of (t+1)*8 bytes each, by MPI_Irecv +
 * MPI_Isend completed by polling: MPI_Test on each request for even
 * iterations, MPI_Testall for odd ones (Open MPI's blocking calls spin
 * against each other when 8 threads share 2 cores; polling with
 * sched_yield keeps the run short). So, per rank, 4N calls of Isend and of
 * Irecv, and the bytes sent to the peer are N*8*(1+2+3+4) in 4N messages.
 * Every payload is checked; a wrong one exits with status 3. Prints
 * "rank R provided P". */
#include <mpi.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

enum { THREADS = 4, MAXW = 4 };
static int rank, peer, n = 2500;

static void check(const long *b, int words, long want)
{
	for (int k = 0; k < words; k++)
		if (b[k] != want) {
			fprintf(stderr, "rank %d: got %ld, want %ld\n", rank, b[k], want);
			exit(3);
		}
}

static void test_each(MPI_Request r[2])
{
	for (int k = 0; k < 2; k++) {
		int f = 0;
		for (;;) {
			MPI_Test(&r[k], &f, MPI_STATUS_IGNORE);
			if (f)
				break;
			sched_yield();
		}
	}
}

static void test_all(MPI_Request r[2])
{
	int f = 0;
	for (;;) {
		MPI_Testall(2, r, &f, MPI_STATUSES_IGNORE);
		if (f)
			break;
		sched_yield();
	}
}

static void *run(void *arg)
{
	int t = (int)(long)arg, words = t + 1;
	long out[MAXW], in[MAXW];
	for (int i = 0; i < n; i++) {
		long v = (long)i * 100 + t;
		for (int k = 0; k < words; k++)
			out[k] = v;
		MPI_Request r[2];
		MPI_Irecv(in, words, MPI_LONG, peer, t, MPI_COMM_WORLD, &r[0]);
		MPI_Isend(out, words, MPI_LONG, peer, t, MPI_COMM_WORLD, &r[1]);
		if (i % 2 == 0)
			test_each(r);
		else
			test_all(r);
		check(in, words, v);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int provided, size;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc > 1)
		n = atoi(argv[1]);
	peer = rank ^ 1;
	if (size % 2 || provided != MPI_THREAD_MULTIPLE) {
		if (rank == 0)
			fprintf(stderr, "threads: needs an even number of ranks and MPI_THREAD_MULTIPLE (got %d)\n", provided);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	pthread_t th[THREADS];
	for (long t = 0; t < THREADS; t++)
		pthread_create(&th[t], NULL, run, (void *)t);
	for (int t = 0; t < THREADS; t++)
		pthread_join(th[t], NULL);
	printf("rank %d provided %d\n", rank, provided);
	MPI_Finalize();
	return 0;
}
