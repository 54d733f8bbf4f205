/* collcost.c: the cost of cheap collectives, to measure what the
 * interposition library adds to them (with and without
 * --collectives-in-matrix). On MPI_COMM_SELF: BATCHES batches of N calls of
 * MPI_Bcast and of MPI_Allreduce of one int; prints the median ns per call.
 * Usage: collcost N BATCHES. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

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

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int n = argc > 1 ? atoi(argv[1]) : 1000000, batches = argc > 2 ? atoi(argv[2]) : 9, x = 1, y = 0;
	double *vb = malloc(sizeof(double) * (size_t)batches), *va = malloc(sizeof(double) * (size_t)batches);
	for (int k = 0; k < batches; k++) {
		double t = MPI_Wtime();
		for (int i = 0; i < n; i++)
			MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_SELF);
		vb[k] = (MPI_Wtime() - t) / n * 1e9;
		t = MPI_Wtime();
		for (int i = 0; i < n; i++)
			MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_SELF);
		va[k] = (MPI_Wtime() - t) / n * 1e9;
	}
	printf("bcast_ns %.2f\nallreduce_ns %.2f\n", median(vb, batches), median(va, batches));
	MPI_Finalize();
	return 0;
}
