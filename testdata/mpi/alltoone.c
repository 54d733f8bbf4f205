/* alltoone.c: every rank r > 0 sends ITER messages of r*512 bytes to rank
 * 0, which receives them with MPI_Recv(MPI_ANY_SOURCE, MPI_ANY_TAG) and a
 * real status. Usage: alltoone ITER. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size, iter = argc > 1 ? atoi(argv[1]) : 10;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	char *buf = calloc((size_t)size * 512, 1);
	if (rank == 0) {
		long got = 0;
		for (int i = 0; i < iter * (size - 1); i++) {
			MPI_Status st;
			int n;
			MPI_Recv(buf, size * 512, MPI_CHAR, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
			MPI_Get_count(&st, MPI_CHAR, &n);
			if (n != st.MPI_SOURCE * 512 || buf[0] != (char)st.MPI_SOURCE) {
				fprintf(stderr, "alltoone: bad message from %d: %d bytes\n", st.MPI_SOURCE, n);
				MPI_Abort(MPI_COMM_WORLD, 3);
			}
			got += n;
		}
		printf("rank 0 received %ld bytes\n", got);
	} else {
		buf[0] = (char)rank;
		for (int i = 0; i < iter; i++)
			MPI_Send(buf, rank * 512, MPI_CHAR, 0, i % 7, MPI_COMM_WORLD);
	}
	MPI_Finalize();
	return 0;
}
