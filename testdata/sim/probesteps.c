/* probesteps: the survey's probe of flows at once (latmap survey --probe
 * on) inside SimGrid SMPI, its steps chosen one at a time, as the survey
 * chooses them, by bench/probe's Prober in the go test that runs it
 * (placement's simCluster.probe). Rank 0 reads each step from STEPS (a
 * FIFO), one line "N S1 D1 ... SN DN" (flows by rank, one rank a host),
 * and broadcasts it; each flow moves MSGS messages of SIZE bytes from S
 * to D, all at once after a barrier, as the survey's step does; rank 0
 * prints "times T1 ... TN" (each flow's time at its receiver, in
 * simulated seconds) and flushes. A line "0" ends it.
 *
 * usage: probesteps STEPS SIZE MSGS (at most MAXS flows a step) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define MAXS 64
#define MAXM 64

int main(int argc, char **argv)
{
	int me, np, size, msgs, step[1 + 2 * MAXS];
	FILE *in = NULL;
	char *buf;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &np);
	if (argc != 4 || (size = atoi(argv[2])) <= 0 || (msgs = atoi(argv[3])) <= 0 || msgs > MAXM) {
		if (me == 0)
			fprintf(stderr, "usage: probesteps STEPS SIZE MSGS (MSGS at most %d)\n", MAXM);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	if (me == 0 && !(in = fopen(argv[1], "r"))) {
		perror(argv[1]);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	buf = malloc((size_t)size * 2);
	for (;;) {
		int n = 0, k, m, nr = 0;
		double mine[MAXS] = {0}, t[MAXS], s;
		MPI_Request rq[2 * MAXS * MAXM];
		int who[2 * MAXS * MAXM];
		if (me == 0) {
			if (fscanf(in, "%d", &step[0]) != 1 || step[0] < 0 || step[0] > MAXS)
				step[0] = 0;
			for (k = 0; k < 2 * step[0]; k++)
				if (fscanf(in, "%d", &step[1 + k]) != 1 || step[1 + k] < 0 || step[1 + k] >= np)
					step[0] = 0;
		}
		MPI_Bcast(step, 1 + 2 * MAXS, MPI_INT, 0, MPI_COMM_WORLD);
		if ((n = step[0]) == 0)
			break;
		MPI_Barrier(MPI_COMM_WORLD);
		s = MPI_Wtime();
		for (k = 0; k < n; k++)
			for (m = 0; m < msgs; m++) {
				if (me == step[1 + 2 * k]) {
					who[nr] = -1;
					MPI_Isend(buf, size, MPI_CHAR, step[2 + 2 * k], k, MPI_COMM_WORLD, &rq[nr++]);
				}
				if (me == step[2 + 2 * k]) {
					who[nr] = k;
					MPI_Irecv(buf + size, size, MPI_CHAR, step[1 + 2 * k], k, MPI_COMM_WORLD, &rq[nr++]);
				}
			}
		for (k = 0; k < nr; k++) {
			int x;
			MPI_Waitany(nr, rq, &x, MPI_STATUS_IGNORE);
			if (who[x] >= 0)
				mine[who[x]] = MPI_Wtime() - s;
		}
		MPI_Reduce(mine, t, n, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
		if (me == 0) {
			printf("times");
			for (k = 0; k < n; k++)
				printf(" %.9g", t[k]);
			printf("\n");
			fflush(stdout);
		}
	}
	free(buf);
	if (in)
		fclose(in);
	MPI_Finalize();
	return 0;
}
