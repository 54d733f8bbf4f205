/* commloop: 2 ranks; 70 times, a dup of MPI_COMM_WORLD carries one
 * 100-byte message from rank 0 to rank 1 and is freed. latmap keeps 63
 * kinds of communicator; the rest of the traffic is counted under
 * "other" (interpose TestCommMatricesOverflow). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank;
	char buf[100] = {0};
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	for (int i = 0; i < 70; i++) {
		MPI_Comm c;
		MPI_Comm_dup(MPI_COMM_WORLD, &c);
		if (rank == 0)
			MPI_Send(buf, 100, MPI_BYTE, 1, 0, c);
		else if (rank == 1)
			MPI_Recv(buf, 100, MPI_BYTE, 0, 0, c, MPI_STATUS_IGNORE);
		MPI_Comm_free(&c);
	}
	if (rank == 0)
		printf("commloop ok\n");
	MPI_Finalize();
	return 0;
}
