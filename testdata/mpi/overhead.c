/* overhead.c: the cost of cheap MPI calls, to measure what an
 * interposition library adds. On one rank: BATCHES batches of N calls of
 * MPI_Send to MPI_PROC_NULL, and of MPI_Irecv + MPI_Wait from
 * MPI_PROC_NULL; prints the median ns per call (per Irecv+Wait pair).
 * With 2 ranks it also runs a ping-pong of 8-byte messages and prints the
 * median round trip in microseconds.
 * With a third argument "pingpong" only the ping-pong runs; with "coll"
 * only batches of N MPI_Bcast and of N MPI_Allreduce of one int on
 * MPI_COMM_SELF (median ns per call).
 * With OVERHEAD_THREAD_MULTIPLE=1 in the environment it asks for
 * MPI_THREAD_MULTIPLE (what a threaded program pays).
 * Every mode ends with the cost of one clock read on rank 0
 * (clock_gettime_ns, rdtsc_ns).
 * Usage: overhead N BATCHES [pingpong|coll]. */
#include <string.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* clocks prints the cost of reading the clocks an interposer can use
 * (median ns per read over batches of n). */
static void clocks(double *v, int n, int batches)
{
	volatile unsigned long long sink = 0;
	for (int b = 0; b < batches; b++) {
		double t = now();
		for (int i = 0; i < n; i++) {
			struct timespec ts;
			clock_gettime(CLOCK_MONOTONIC, &ts);
			sink += (unsigned long long)ts.tv_nsec;
		}
		v[b] = (now() - t) / n * 1e9;
	}
	printf("clock_gettime_ns %.2f\n", median(v, batches));
#if defined(__x86_64__)
	for (int b = 0; b < batches; b++) {
		double t = now();
		for (int i = 0; i < n; i++)
			sink += __rdtsc();
		v[b] = (now() - t) / n * 1e9;
	}
	printf("rdtsc_ns %.2f\n", median(v, batches));
#endif
}

int main(int argc, char **argv)
{
	const char *mt = getenv("OVERHEAD_THREAD_MULTIPLE");
	if (mt && !strcmp(mt, "1")) {
		int provided;
		MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	} else {
		MPI_Init(&argc, &argv);
	}
	int rank, size, n = argc > 1 ? atoi(argv[1]) : 1000000, batches = argc > 2 ? atoi(argv[2]) : 9;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	double *v = malloc(sizeof(double) * (size_t)batches);
	char buf[8] = {0};
	int only_pp = argc > 3 && !strcmp(argv[3], "pingpong");
	if (argc > 3 && !strcmp(argv[3], "coll")) {
		int x = 1, y = 0;
		double *va = malloc(sizeof(double) * (size_t)batches);
		for (int b = 0; b < batches; b++) {
			double t = now();
			for (int i = 0; i < n; i++)
				MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_SELF);
			v[b] = (now() - t) / n * 1e9;
			t = now();
			for (int i = 0; i < n; i++)
				MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_SELF);
			va[b] = (now() - t) / n * 1e9;
		}
		printf("bcast_ns %.2f\nallreduce_ns %.2f\n", median(v, batches), median(va, batches));
		clocks(v, n, batches);
		MPI_Finalize();
		return 0;
	}
	if (rank == 0 && !only_pp) {
		for (int b = 0; b < batches; b++) {
			double t = now();
			for (int i = 0; i < n; i++)
				MPI_Send(buf, 8, MPI_CHAR, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
			v[b] = (now() - t) / n * 1e9;
		}
		printf("send_ns %.2f\n", median(v, batches));
		for (int b = 0; b < batches; b++) {
			double t = now();
			for (int i = 0; i < n; i++) {
				MPI_Request r;
				MPI_Irecv(buf, 8, MPI_CHAR, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r);
				MPI_Wait(&r, MPI_STATUS_IGNORE);
			}
			v[b] = (now() - t) / n * 1e9;
		}
		printf("irecvwait_ns %.2f\n", median(v, batches));
	}
	if (size >= 2 && rank < 2) {
		int m = n / 100 > 1000 ? n / 100 : 1000;
		for (int b = 0; b < batches; b++) {
			MPI_Barrier(MPI_COMM_WORLD);
			double t = now();
			for (int i = 0; i < m; i++) {
				if (rank == 0) {
					MPI_Send(buf, 8, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
					MPI_Recv(buf, 8, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
				} else {
					MPI_Recv(buf, 8, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
					MPI_Send(buf, 8, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
				}
			}
			v[b] = (now() - t) / m * 1e6;
		}
		if (rank == 0)
			printf("pingpong_us %.3f\n", median(v, batches));
	} else if (size >= 2) {
		for (int b = 0; b < batches; b++)
			MPI_Barrier(MPI_COMM_WORLD);
	}
	if (rank == 0)
		clocks(v, n, batches);
	MPI_Finalize();
	return 0;
}
