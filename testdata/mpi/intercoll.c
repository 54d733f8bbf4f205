/* intercoll.c: an MPI_Allreduce of one int in each half of MPI_COMM_WORLD
 * (ranks below n/2, the others) and an MPI_Bcast of 10 ints from the first
 * half's rank 0 to the second half over an intercommunicator between them.
 * Usage: intercoll (an even number of ranks). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int wr, n, hr, x = 1, y = 0, buf[10] = {0};
	MPI_Comm_rank(MPI_COMM_WORLD, &wr);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	int first = wr < n / 2;
	MPI_Comm half, inter;
	MPI_Comm_split(MPI_COMM_WORLD, first, wr, &half);
	MPI_Comm_rank(half, &hr);
	MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, first ? n / 2 : 0, 7, &inter);
	MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, half);
	int root = first ? (hr == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
	MPI_Bcast(buf, 10, MPI_INT, root, inter);
	MPI_Comm_free(&inter);
	MPI_Comm_free(&half);
	if (wr == 0)
		printf("intercoll: sum %d\n", y);
	MPI_Finalize();
	return 0;
}
