/* largecount.c: MPI-4 large-count calls (MPI_Send_c, MPI_Recv_c,
 * MPI_Allreduce_c) between ranks 0 and 1, ITER times; latmap must name
 * them in meta.json as not measured rather than miss them silently.
 * Built only where mpi.h is MPI 4 (MPICH 4); elsewhere it says so. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
#if MPI_VERSION >= 4
	int rank, iter = argc > 1 ? atoi(argv[1]) : 5;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	char buf[256] = {0};
	long long in = rank, out = 0;
	for (int i = 0; i < iter; i++) {
		if (rank == 0)
			MPI_Send_c(buf, (MPI_Count)sizeof buf, MPI_CHAR, 1, 3, MPI_COMM_WORLD);
		else if (rank == 1)
			MPI_Recv_c(buf, (MPI_Count)sizeof buf, MPI_CHAR, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Allreduce_c(&in, &out, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
	}
	printf("rank %d sum %lld\n", rank, out);
#else
	printf("MPI_VERSION %d: no large-count calls\n", MPI_VERSION);
#endif
	MPI_Finalize();
	return 0;
}
