// pairs.c: ranks exchange with their partner (rank ^ 1) ITER messages of
// BYTES bytes each way, bandwidth-bound: the placement test of latmap
// verify (pairs on one node share memory; across nodes, a link).
// usage: pairs [ITER [BYTES]]
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int iter = argc > 1 ? atoi(argv[1]) : 20, bytes = argc > 2 ? atoi(argv[2]) : 1 << 20;
	char *sbuf = calloc((size_t)bytes, 1), *rbuf = calloc((size_t)bytes, 1);
	int peer = rank ^ 1;
	if (peer < size)
		for (int i = 0; i < iter; i++)
			MPI_Sendrecv(sbuf, bytes, MPI_BYTE, peer, 7, rbuf, bytes, MPI_BYTE, peer, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	free(sbuf);
	free(rbuf);
	MPI_Finalize();
	return 0;
}
