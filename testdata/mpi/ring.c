/* ring.c: each rank sends ITER messages of BYTES bytes to rank+1 (blocking
 * Send/Recv, receives from MPI_ANY_SOURCE with MPI_STATUS_IGNORE).
 * Usage: ring ITER BYTES. Expected: matrix (r, r+1 mod n) = ITER messages,
 * ITER*BYTES bytes; MPI_Send and MPI_Recv ITER calls per rank. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int iter = argc > 1 ? atoi(argv[1]) : 10, bytes = argc > 2 ? atoi(argv[2]) : 1000;
	char *buf = calloc((size_t)bytes + 1, 1), *in = calloc((size_t)bytes + 1, 1);
	long sum = 0;
	for (int i = 0; i < iter; i++) {
		buf[0] = (char)(rank + i);
		if (rank % 2 == 0) {
			MPI_Send(buf, bytes, MPI_CHAR, (rank + 1) % size, i, MPI_COMM_WORLD);
			MPI_Recv(in, bytes, MPI_CHAR, MPI_ANY_SOURCE, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else {
			MPI_Recv(in, bytes, MPI_CHAR, MPI_ANY_SOURCE, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			MPI_Send(buf, bytes, MPI_CHAR, (rank + 1) % size, i, MPI_COMM_WORLD);
		}
		sum += in[0];
	}
	printf("rank %d sum %ld\n", rank, sum);
	MPI_Finalize();
	return 0;
}
