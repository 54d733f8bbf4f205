/* unmeasured.c: things latmap cannot measure exactly and must say so:
 * MPI_Init_thread(MPI_THREAD_MULTIPLE), one-sided MPI_Put in a fence
 * epoch, and point-to-point on a communicator made by MPI_Comm_idup (no
 * shadow for --slt). Run on 2 ranks. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int provided, rank;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	int win_buf = 0, one = 1;
	MPI_Win win;
	MPI_Win_create(&win_buf, sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
	MPI_Win_fence(0, win);
	MPI_Put(&one, 1, MPI_INT, (rank + 1) % 2, 0, 1, MPI_INT, win);
	MPI_Win_fence(0, win);
	MPI_Win_free(&win);
	MPI_Comm dup;
	MPI_Request r;
	MPI_Comm_idup(MPI_COMM_WORLD, &dup, &r);
	MPI_Wait(&r, MPI_STATUS_IGNORE);
	int x = rank;
	if (rank == 0)
		MPI_Send(&x, 1, MPI_INT, 1, 0, dup);
	else
		MPI_Recv(&x, 1, MPI_INT, 0, 0, dup, MPI_STATUS_IGNORE);
	MPI_Comm_free(&dup);
	printf("rank %d provided %d put %d\n", rank, provided, win_buf);
	MPI_Finalize();
	return 0;
}
