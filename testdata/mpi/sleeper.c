/* sleeper: rank 0 sleeps MS milliseconds between MPI_Init and
 * MPI_Finalize, the others wait for it at a barrier, so the application's
 * run (MPI_Init to MPI_Finalize, slowest rank) is MS ms plus a barrier,
 * whatever the launch costs. Usage: sleeper MS */
#include <mpi.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	long ms = argc > 1 ? atol(argv[1]) : 300;
	if (rank == 0) {
		struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
		while (nanosleep(&ts, &ts))
			;
	}
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
