/* callsites.c: MPI_Send from three call sites with counts of our choosing,
 * for latmap profile --call-sites. Rank 0 sends to rank 1: 3 x 400 bytes
 * from helper_send (a function of this file), 5 x 1000 bytes from main,
 * and 7 x 64 bytes from lib_send in a shared library (callsites_lib.c).
 * Rank 1 receives all 15 in main. Each site's line carries a SITE: marker
 * that the test looks up. Built -g as a position-independent executable.
 */
#include <mpi.h>
#include <stdio.h>

void lib_send(int dest, int n);

__attribute__((noinline)) static void helper_send(int dest)
{
	int v[100] = {0};
	for (int i = 0; i < 3; i++)
		MPI_Send(v, 100, MPI_INT, dest, 1, MPI_COMM_WORLD); /* SITE:helper */
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	char buf[1000] = {0};
	if (rank == 0 && size > 1) {
		helper_send(1);
		for (int i = 0; i < 5; i++)
			MPI_Send(buf, 1000, MPI_BYTE, 1, 2, MPI_COMM_WORLD); /* SITE:main */
		lib_send(1, 7);
	} else if (rank == 1) {
		for (int i = 0; i < 15; i++)
			MPI_Recv(buf, 1000, MPI_BYTE, 0, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* SITE:recv */
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0)
		printf("callsites ok\n");
	MPI_Finalize();
	return 0;
}
