/* persist.c: a ring with persistent requests: MPI_Send_init to rank+1 and
 * MPI_Recv_init from rank-1 (BYTES bytes), ITER x (MPI_Startall +
 * MPI_Waitall), then MPI_Request_free of both. Usage: persist ITER BYTES. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size, iter = argc > 1 ? atoi(argv[1]) : 10, bytes = argc > 2 ? atoi(argv[2]) : 100;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	char *out = calloc((size_t)bytes, 1), *in = calloc((size_t)bytes, 1);
	MPI_Request r[2];
	MPI_Recv_init(in, bytes, MPI_CHAR, (rank + size - 1) % size, 9, MPI_COMM_WORLD, &r[0]);
	MPI_Send_init(out, bytes, MPI_CHAR, (rank + 1) % size, 9, MPI_COMM_WORLD, &r[1]);
	long sum = 0;
	for (int i = 0; i < iter; i++) {
		out[0] = (char)(rank + i);
		MPI_Startall(2, r);
		MPI_Status st[2];
		MPI_Waitall(2, r, st);
		sum += in[0];
	}
	MPI_Request_free(&r[0]);
	MPI_Request_free(&r[1]);
	printf("rank %d sum %ld\n", rank, sum);
	MPI_Finalize();
	return 0;
}
