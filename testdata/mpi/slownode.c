/* slownode.c: every rank "computes" (sleeps) BASE_MS before each of ITER
 * MPI_Allreduce calls; the ranks on host SLOW_HOST (their gethostname; "-"
 * for none) sleep PCT percent longer. Each rank prints its host and the
 * computation its own clock measured ("computed RANK HOST SECONDS"), so a
 * test can tell what the other ranks should have waited for them.
 * Usage: slownode ITER BASE_MS SLOW_HOST PCT. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	if (argc < 5) {
		fprintf(stderr, "usage: slownode ITER BASE_MS SLOW_HOST PCT\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	int rank, iter = atoi(argv[1]);
	double ms = atof(argv[2]), pct = atof(argv[4]);
	char host[256] = "";
	gethostname(host, sizeof host - 1);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (strcmp(host, argv[3]) == 0)
		ms *= 1 + pct / 100;
	long ns = (long)(ms * 1e6);
	double x = rank, y = 0, acc = 0, computed = 0;
	for (int i = 0; i < iter; i++) {
		struct timespec ts = {ns / 1000000000L, ns % 1000000000L};
		double t0 = MPI_Wtime();
		nanosleep(&ts, NULL);
		computed += MPI_Wtime() - t0;
		MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		acc += y;
	}
	printf("rank %d acc %.0f\n", rank, acc);
	printf("computed %d %s %.6f\n", rank, host, computed);
	MPI_Finalize();
	return 0;
}
