/* simsurvey: latmap survey's measuring core (bench/pingpong.c, included
 * as it is) inside a SimGrid SMPI simulation. Every rank pair of the
 * scope is measured one pair at a time (the others wait at a barrier), at
 * each size, and rank 0 writes what latmap survey writes: ranks.csv (host
 * from MPI_Get_processor_name, the simulated host; cpu = the rank's index
 * among its host's ranks), pairs.csv and meta.json. fit.csv is left to
 * latmap's own fit (the test harness runs it).
 *
 * usage: simsurvey OUTDIR SCOPE SIZES REPEATS
 *   SCOPE all (every pair) or nodes (every pair inside each host, and
 *   every pair of host leaders, each host's lowest rank); SIZES comma
 *   separated bytes (64,65536). */
#include "../../bench/pingpong.c"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define HOSTLEN 64
#define WARM 5

static int cmpd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* stats of n round trips (us): mean, std, min, median, p99. */
static void stats(double *v, int n, double *out)
{
	double s = 0, ss = 0;
	for (int i = 0; i < n; i++)
		s += v[i];
	double mean = s / n;
	for (int i = 0; i < n; i++)
		ss += (v[i] - mean) * (v[i] - mean);
	qsort(v, (size_t)n, sizeof *v, cmpd);
	out[0] = mean;
	out[1] = n > 1 ? sqrt(ss / (n - 1)) : 0;
	out[2] = v[0];
	out[3] = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	out[4] = v[(int)ceil(0.99 * n) - 1];
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	if (argc < 5) {
		fprintf(stderr, "usage: simsurvey OUTDIR SCOPE SIZES REPEATS\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	lm_init();
	int me = lm_rank(), n = lm_size();
	const char *out = argv[1], *scope = argv[2];
	int sizes[16], nsizes = 0, repeats = atoi(argv[4]);
	for (char *s = argv[3]; *s && nsizes < 16;) {
		sizes[nsizes++] = (int)strtol(s, &s, 10);
		if (*s == ',')
			s++;
	}
	char host[HOSTLEN] = {0}, *hosts = malloc((size_t)n * HOSTLEN);
	int len;
	MPI_Get_processor_name(host, &len);
	MPI_Allgather(host, HOSTLEN, MPI_CHAR, hosts, HOSTLEN, MPI_CHAR, MPI_COMM_WORLD);
	/* Each rank's host index (first appearance), its cpu (index on the
	 * host) and each host's leader. */
	int *hid = malloc((size_t)n * sizeof *hid), *cpu = malloc((size_t)n * sizeof *cpu), *leader = malloc((size_t)n * sizeof *leader);
	int nh = 0;
	for (int r = 0; r < n; r++) {
		hid[r] = -1;
		for (int q = 0; q < r; q++)
			if (!strcmp(hosts + q * HOSTLEN, hosts + r * HOSTLEN)) {
				hid[r] = hid[q];
				break;
			}
		if (hid[r] < 0) {
			hid[r] = nh;
			leader[nh++] = r;
		}
		cpu[r] = 0;
		for (int q = 0; q < r; q++)
			cpu[r] += hid[q] == hid[r];
	}
	int maxsize = 0;
	for (int k = 0; k < nsizes; k++)
		maxsize = sizes[k] > maxsize ? sizes[k] : maxsize;
	char *buf = calloc((size_t)maxsize, 1);
	double *rtt = malloc((size_t)repeats * sizeof *rtt);
	/* Rows measured by this rank (as the lower rank): a, b, size, 5 stats. */
	int cap = 1024, nrows = 0;
	double *rows = malloc((size_t)cap * 8 * sizeof *rows);
	int all = !strcmp(scope, "all");
	for (int a = 0; a < n; a++)
		for (int b = a + 1; b < n; b++) {
			int want = all || hid[a] == hid[b] || (leader[hid[a]] == a && leader[hid[b]] == b);
			if (!want)
				continue;
			for (int k = 0; k < nsizes; k++) {
				if (me == a || me == b)
					lm_pingpong(me == a ? b : a, me == a, buf, sizes[k], WARM, repeats, rtt);
				if (me == a) {
					if (nrows == cap) {
						cap *= 2;
						rows = realloc(rows, (size_t)cap * 8 * sizeof *rows);
					}
					double *row = rows + 8 * nrows++;
					row[0] = a, row[1] = b, row[2] = sizes[k];
					stats(rtt, repeats, row + 3);
				}
			}
			MPI_Barrier(MPI_COMM_WORLD);
		}
	int cnt = nrows * 8, *cnts = malloc((size_t)n * sizeof *cnts), *displs = malloc((size_t)n * sizeof *displs);
	MPI_Gather(&cnt, 1, MPI_INT, cnts, 1, MPI_INT, 0, MPI_COMM_WORLD);
	int total = 0;
	if (me == 0)
		for (int r = 0; r < n; r++) {
			displs[r] = total;
			total += cnts[r];
		}
	double *allrows = me == 0 ? malloc((size_t)(total > 0 ? total : 1) * sizeof *allrows) : NULL;
	MPI_Gatherv(rows, cnt, MPI_DOUBLE, allrows, cnts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	if (me == 0) {
		char path[4096];
		snprintf(path, sizeof path, "%s/ranks.csv", out);
		FILE *f = fopen(path, "w");
		fprintf(f, "rank,host,cpu,cpu_end,cpuset,socket,numa,l3,migrated\n");
		for (int r = 0; r < n; r++)
			fprintf(f, "%d,%s,%d,%d,%d,0,0,0,false\n", r, hosts + r * HOSTLEN, cpu[r], cpu[r], cpu[r]);
		fclose(f);
		snprintf(path, sizeof path, "%s/pairs.csv", out);
		f = fopen(path, "w");
		fprintf(f, "rank_a,rank_b,size_bytes,samples,rtt_mean_us,rtt_std_us,rtt_min_us,rtt_median_us,rtt_p99_us,rtt_isolated_median_us\n");
		/* rows come by measuring rank; latmap sorts what it reads. */
		for (int i = 0; i < total; i += 8)
			fprintf(f, "%d,%d,%d,%d,%.4f,%.4f,%.4f,%.4f,%.4f,\n", (int)allrows[i], (int)allrows[i + 1], (int)allrows[i + 2], repeats,
				allrows[i + 3], allrows[i + 4], allrows[i + 5], allrows[i + 6], allrows[i + 7]);
		fclose(f);
		snprintf(path, sizeof path, "%s/meta.json", out);
		f = fopen(path, "w");
		fprintf(f, "{\n  \"tool\": \"latmap simsurvey (SimGrid SMPI)\",\n  \"ranks\": %d,\n  \"sizes\": [", n);
		for (int k = 0; k < nsizes; k++)
			fprintf(f, "%s%d", k ? ", " : "", sizes[k]);
		fprintf(f, "],\n  \"repeats\": %d,\n  \"warmup\": %d,\n  \"schedule\": \"sequential\",\n  \"scope\": \"%s\"\n}\n", repeats, WARM, scope);
		fclose(f);
	}
	lm_finalize();
	return 0;
}
