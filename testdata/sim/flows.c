/* flows: which flows between a job's hosts share a link, the way a
 * survey phase of flows at once would find it (issue 69's probe, run
 * under SimGrid SMPI). FLOWS lists flows, one "SRC DST" (ranks) a line;
 * each flow moves a 4 MiB message alone, then every two flows of four
 * distinct ranks move theirs at once. Rank 0 prints each flow's time
 * alone ("alone I T") and each two's ("both I J TI TJ"), in simulated
 * seconds: a flow slowed about 2x shares a link with the other, the way
 * its bytes go.
 *
 * With STEPS, each line "N F1 ... FN" a set of flows of distinct ranks,
 * the flows move alone, then each step's flows at once: rank 0 prints
 * "step K F1 T1 ... FN TN" (group testing: a flow not slowed shares no
 * link with the others of its step).
 *
 * usage: flows FLOWS [STEPS] (at most MAXF flows, MAXS a step) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define SZ (4 << 20)
#define MAXF 1024
#define MAXS 64

static char *buf;
static int nf, src[MAXF], dst[MAXF];

/* runset moves the n flows f at once; t gets each one's time at rank 0
 * (from the barrier to its receiver's completion). */
static void runset(int me, const int *f, int n, double *t)
{
	int who[2 * MAXS], nr = 0, k;
	double mine[MAXS] = {0}, s;
	MPI_Request rq[2 * MAXS];
	MPI_Barrier(MPI_COMM_WORLD);
	s = MPI_Wtime();
	for (k = 0; k < n; k++) {
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
	MPI_Reduce(mine, t, n, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
}

/* run moves flows a and b (b < 0: a alone) at once. */
static void run(int me, int a, int b, double t[2])
{
	int f[2] = {a, b};
	runset(me, f, b < 0 ? 1 : 2, t);
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
	if (argc > 2) {
		FILE *sf = me == 0 ? fopen(argv[2], "r") : NULL;
		int st[MAXS + 1], k;
		double ts[MAXS];
		if (me == 0 && !sf) {
			fprintf(stderr, "flows: cannot read %s\n", argv[2]);
			MPI_Abort(MPI_COMM_WORLD, 2);
		}
		for (k = 0;; k++) {
			st[0] = 0;
			if (me == 0 && fscanf(sf, "%d", &st[0]) == 1) {
				if (st[0] < 1 || st[0] > MAXS) {
					fprintf(stderr, "flows: step %d of %s has %d flows, want 1 to %d\n", k, argv[2], st[0], MAXS);
					MPI_Abort(MPI_COMM_WORLD, 2);
				}
				for (j = 1; j <= st[0]; j++)
					if (fscanf(sf, "%d", &st[j]) != 1 || st[j] < 0 || st[j] >= nf) {
						fprintf(stderr, "flows: step %d of %s: flow %d of %d missing or not in FLOWS\n", k, argv[2], j, st[0]);
						MPI_Abort(MPI_COMM_WORLD, 2);
					}
			}
			MPI_Bcast(st, MAXS + 1, MPI_INT, 0, MPI_COMM_WORLD);
			if (st[0] == 0)
				break;
			runset(me, st + 1, st[0], ts);
			if (me == 0) {
				printf("step %d", k);
				for (j = 0; j < st[0]; j++)
					printf(" %d %.9f", st[j + 1], ts[j]);
				printf("\n");
			}
		}
		if (sf)
			fclose(sf);
		MPI_Finalize();
		return 0;
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
