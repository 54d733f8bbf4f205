/* pcoll.c: an MPI-4 persistent collective (MPI_Allreduce_init) started
 * each iteration and completed in one MPI_Waitall with a ring's
 * MPI_Irecv/MPI_Isend of COUNT ints: the wait must end when the
 * application's requests are complete (the persistent one inactive), not
 * wait on latmap's --slt tokens. ITER iterations (argv[1], default 10);
 * prints "pcoll ok SUM" on rank 0. Built where mpi.h is MPI 4 (MPICH 4);
 * elsewhere it says so. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define COUNT 64

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
#if MPI_VERSION >= 4
	int rank, size, iter = argc > 1 ? atoi(argv[1]) : 10;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int left = (rank + size - 1) % size, right = (rank + 1) % size;
	long in = 0, sum = 0;
	int sbuf[COUNT], rbuf[COUNT];
	MPI_Request rq[3];
	MPI_Allreduce_init(&in, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &rq[2]);
	for (int i = 0; i < iter; i++) {
		in = rank + i;
		for (int k = 0; k < COUNT; k++)
			sbuf[k] = rank * 1000 + i;
		MPI_Irecv(rbuf, COUNT, MPI_INT, left, 7, MPI_COMM_WORLD, &rq[0]);
		MPI_Isend(sbuf, COUNT, MPI_INT, right, 7, MPI_COMM_WORLD, &rq[1]);
		MPI_Start(&rq[2]);
		MPI_Waitall(3, rq, MPI_STATUSES_IGNORE);
		long want = (long)size * (size - 1) / 2 + (long)size * i;
		if (sum != want || rbuf[COUNT - 1] != left * 1000 + i || rq[2] == MPI_REQUEST_NULL) {
			printf("rank %d iteration %d: sum %ld want %ld, got %d from the left\n", rank, i, sum, want, rbuf[COUNT - 1]);
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
	}
	MPI_Request_free(&rq[2]);
	if (rank == 0)
		printf("pcoll ok %ld\n", sum);
#else
	printf("MPI_VERSION %d: no persistent collectives\n", MPI_VERSION);
#endif
	MPI_Finalize();
	return 0;
}
