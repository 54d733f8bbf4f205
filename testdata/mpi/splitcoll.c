/* splitcoll.c: MPI_Comm_split by rank parity with keys that reverse the
 * order (key = -rank), then per iteration: MPI_Sendrecv around the sub-ring
 * (to sub-rank+1, from sub-rank-1, 64*(world rank+1) ints), MPI_Allreduce
 * of one double and MPI_Bcast of 100 ints from sub-rank 0 on the split
 * communicator; one MPI_Allreduce on MPI_COMM_WORLD at the end.
 * Usage: splitcoll ITER. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int wr, iter = argc > 1 ? atoi(argv[1]) : 10;
	MPI_Comm_rank(MPI_COMM_WORLD, &wr);
	MPI_Comm sub;
	MPI_Comm_split(MPI_COMM_WORLD, wr % 2, -wr, &sub);
	int sr, ss;
	MPI_Comm_rank(sub, &sr);
	MPI_Comm_size(sub, &ss);
	int *sb = calloc(1024, sizeof(int)), *rb = calloc(1024, sizeof(int)), bc[100] = {0};
	double x = wr, y = 0, total = 0;
	for (int i = 0; i < iter; i++) {
		sb[0] = wr;
		MPI_Status st;
		MPI_Sendrecv(sb, 64 * (wr + 1), MPI_INT, (sr + 1) % ss, 3, rb, 1024, MPI_INT, (sr + ss - 1) % ss, 3, sub, &st);
		MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, sub);
		if (sr == 0)
			bc[0] = i;
		MPI_Bcast(bc, 100, MPI_INT, 0, sub);
		total += y + rb[0] + bc[0];
	}
	double all = 0;
	MPI_Allreduce(&total, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	printf("rank %d total %.0f all %.0f\n", wr, total, all);
	MPI_Comm_free(&sub);
	MPI_Finalize();
	return 0;
}
