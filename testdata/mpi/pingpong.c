/* pingpong.c: a minimal MPI ping-pong, the yardstick of latmap survey's
 * overhead (make bench-survey). Ranks A and B (default 0 and 1) exchange
 * SIZE-byte messages: WARMUP untimed round trips, then REPEATS round trips,
 * each timed with MPI_Wtime on rank A; the other ranks wait in MPI_Barrier.
 * Rank A prints the median, minimum and mean round trip in microseconds:
 *   mpirun -np N ./pingpong [REPEATS [SIZE [WARMUP [A B]]]]
 *   median_us 12.345 min_us 11.000 mean_us 12.500 repeats 1000 size 64
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int cmp(const void *a, const void *b) {
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv) {
	int rank, i, repeats = 1000, size = 64, warmup = 10, a = 0, b = 1;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (argc > 1) repeats = atoi(argv[1]);
	if (argc > 2) size = atoi(argv[2]);
	if (argc > 3) warmup = atoi(argv[3]);
	if (argc > 5) {
		a = atoi(argv[4]);
		b = atoi(argv[5]);
	}
	char *buf = calloc(size > 0 ? size : 1, 1);
	double *t = calloc(repeats, sizeof(double));
	MPI_Barrier(MPI_COMM_WORLD);
	for (i = 0; i < warmup + repeats; i++) {
		if (rank == a) {
			double t0 = MPI_Wtime();
			MPI_Send(buf, size, MPI_BYTE, b, 0, MPI_COMM_WORLD);
			MPI_Recv(buf, size, MPI_BYTE, b, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			if (i >= warmup) t[i - warmup] = (MPI_Wtime() - t0) * 1e6;
		} else if (rank == b) {
			MPI_Recv(buf, size, MPI_BYTE, a, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			MPI_Send(buf, size, MPI_BYTE, a, 0, MPI_COMM_WORLD);
		}
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == a) {
		double sum = 0, med;
		for (i = 0; i < repeats; i++) sum += t[i];
		qsort(t, repeats, sizeof(double), cmp);
		med = repeats % 2 ? t[repeats / 2] : (t[repeats / 2 - 1] + t[repeats / 2]) / 2;
		printf("median_us %.3f min_us %.3f mean_us %.3f repeats %d size %d\n", med, t[0], sum / repeats, repeats, size);
	}
	free(buf);
	free(t);
	MPI_Finalize();
	return 0;
}
