/* flows: which flows between a job's hosts share a link, the way a
 * survey phase of flows at once would find it (issue 69's probe, run
 * under SimGrid SMPI). FLOWS lists flows, one "SRC DST" (ranks) a line;
 * each flow moves a 4 MiB message alone, then every two flows of four
 * distinct ranks move theirs at once. Rank 0 prints each flow's time
 * alone ("alone I T") and each two's ("both I J TI TJ"), in simulated
 * seconds: a flow slowed about 2x shares a link with the other, the way
 * its bytes go.
 *
 * usage: flows FLOWS (at most MAXF flows) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define SZ (4 << 20)
#define MAXF 1024

static char *buf;
static int nf, src[MAXF], dst[MAXF];

/* run moves flows a and b (b < 0: a alone) at once; t gets each one's
 * time at rank 0 (from the barrier to its receiver's completion). */
static void run(int me, int a, int b, double t[2])
{
	int f[2] = {a, b}, who[4], nr = 0, k;
	double mine[2] = {0, 0}, s;
	MPI_Request rq[4];
	MPI_Barrier(MPI_COMM_WORLD);
	s = MPI_Wtime();
	for (k = 0; k < 2; k++) {
		if (f[k] < 0)
			continue;
		if (me == src[f[k]]) {
			who[nr] = -1;
			MPI_Isend(buf, SZ, MPI_CHAR, dst[f[k]], k, MPI_COMM_WORLD, &rq[nr++]);
		}
		if (me == dst[f[k]]) {
			who[nr] = k;
			MPI_Irecv(buf + SZ, SZ, MPI_CHAR, src[f[k]], k, MPI_COMM_WORLD, &rq[nr++]);
		}
	}
	for (k = 0; k < nr; k++) {
		int x;
		MPI_Waitany(nr, rq, &x, MPI_STATUS_IGNORE);
		if (who[x] >= 0)
			mine[who[x]] = MPI_Wtime() - s;
	}
	MPI_Reduce(mine, t, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
	int me, i, j;
	double t[2];
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	buf = malloc(2 * SZ);
	if (me == 0) {
		FILE *f = argc > 1 ? fopen(argv[1], "r") : NULL;
		if (!f) {
			fprintf(stderr, "usage: flows FLOWS\n");
			MPI_Abort(MPI_COMM_WORLD, 2);
		}
		while (nf < MAXF && fscanf(f, "%d %d", &src[nf], &dst[nf]) == 2)
			nf++;
		fclose(f);
	}
	MPI_Bcast(&nf, 1, MPI_INT, 0, MPI_COMM_WORLD);
	MPI_Bcast(src, nf, MPI_INT, 0, MPI_COMM_WORLD);
	MPI_Bcast(dst, nf, MPI_INT, 0, MPI_COMM_WORLD);
	for (i = 0; i < nf; i++) {
		run(me, i, -1, t);
		if (me == 0)
			printf("alone %d %.9f\n", i, t[0]);
	}
	for (i = 0; i < nf; i++)
		for (j = i + 1; j < nf; j++) {
			if (src[i] == src[j] || dst[i] == dst[j] || src[i] == dst[j] || dst[i] == src[j])
				continue;
			run(me, i, j, t);
			if (me == 0)
				printf("both %d %d %.9f %.9f\n", i, j, t[0], t[1]);
		}
	MPI_Finalize();
	return 0;
}
