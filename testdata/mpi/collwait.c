/* collwait.c: ranks arrive at MPI_Allreduce staggered: before each of ITER
 * calls rank r sleeps r*SLEEP_MS ms, so with a barrier before the
 * collective rank r waits (size-1-r)*SLEEP_MS per call.
 * With PAUSE_AT, MPI_Pcontrol(0) is called before call PAUSE_AT (counted
 * from 0) and MPI_Pcontrol(1) never again, so a profiler sees PAUSE_AT calls.
 * Usage: collwait ITER SLEEP_MS [PAUSE_AT]. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, iter = argc > 1 ? atoi(argv[1]) : 10, ms = argc > 2 ? atoi(argv[2]) : 10;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	int pause = argc > 3 ? atoi(argv[3]) : -1;
	double x = rank, y = 0, acc = 0, slept = 0;
	for (int i = 0; i < iter; i++) {
		if (i == pause)
			MPI_Pcontrol(0);
		long ns = (long)rank * ms * 1000000L;
		struct timespec ts = {ns / 1000000000L, ns % 1000000000L};
		double t0 = MPI_Wtime();
		nanosleep(&ts, NULL);
		slept += MPI_Wtime() - t0;
		MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		acc += y;
	}
	printf("rank %d acc %.0f\n", rank, acc);
	printf("slept %d %.6f\n", rank, slept); /* the real sleep, overshoot included */
	MPI_Finalize();
	return 0;
}
