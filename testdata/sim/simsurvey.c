/* simsurvey: latmap survey's measuring core (bench/pingpong.c, included
 * as it is) inside a SimGrid SMPI simulation, running the schedules that
 * latmap's own Go code makes (the test harness writes them):
 *
 *   simsurvey OUTDIR pairs ROUNDS ISO SIZES REPEATS SCOPE
 *     ROUNDS is bench.RoundsOf's schedule of the scope (all, nodes), one
 *     line per rank: its partner in each round (-1: it sits out). In each
 *     round every pair pingpongs at once (lm_pingpong: warm-up, then
 *     REPEATS timed round trips) at each size, then all meet at a
 *     barrier, as latmap survey's rounds schedule does. ISO is the
 *     isolation sample (bench.IsolationOf) in the same form, one pair a
 *     round: after the rounds of each size its pairs are measured again,
 *     each alone, into rtt_isolated_median_us. Rank 0 writes
 *     ranks.csv (host from MPI_Get_processor_name, the simulated host;
 *     cpu = the rank's index among its host's ranks, the platform's core
 *     order when ranks are dealt block), pairs.csv and meta.json; latmap's
 *     own fit makes fit.csv (the harness runs it).
 *
 *   simsurvey OUTFILE exchange STEPS SIZE MESSAGES WINDOW PARTNERS
 *     STEPS is one line per rank: in each step its PARTNERS destinations
 *     then its PARTNERS sources (-1: none), bench.SwitchPhase's, the node
 *     phase's or the fan-out's. In each step every rank runs lm_exchange
 *     at once after a barrier; rank 0 writes each rank's step times (s),
 *     a line per rank, which latmap's Go code turns into switchbw.csv's
 *     and nodebw.csv's rows. */
#include "../../bench/pingpong.c"

#include <math.h>
#include <smpi/smpi.h>
#include <stdio.h>
#include <stdlib.h>

#define HOSTLEN 64
#define WARM 5

/* payload: a message buffer whose bytes nobody reads. All ranks share
 * it (SMPI_SHARED_MALLOC), so SMPI copies no payload between them: the
 * simulated times are the same to the last bit (the computation is not
 * benchmarked), and a survey's 1 MiB round trips take a quarter of the
 * wall time (16 s of a 64-rank survey's 19 s were memcpy). */
static char *payload(size_t size)
{
	char *p = SMPI_SHARED_MALLOC(size ? size : 1);
	memset(p, 0, size ? size : 1);
	return p;
}

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

/* readTable: rank 0 reads n lines of k ints (k from the first line's
 * count, the same for all), and each rank gets its own line. */
static int *readTable(const char *path, int n, int *k)
{
	int me = lm_rank(), cols = 0, *all = NULL;
	if (me == 0) {
		FILE *f = fopen(path, "r");
		if (!f) {
			perror(path);
			MPI_Abort(MPI_COMM_WORLD, 2);
		}
		if (fscanf(f, "%d", &cols) != 1 || cols < 0) {
			fprintf(stderr, "%s: no column count\n", path);
			MPI_Abort(MPI_COMM_WORLD, 2);
		}
		all = malloc((size_t)n * (size_t)(cols ? cols : 1) * sizeof *all);
		for (long i = 0; i < (long)n * cols; i++)
			if (fscanf(f, "%d", &all[i]) != 1) {
				fprintf(stderr, "%s: want %d lines of %d numbers\n", path, n, cols);
				MPI_Abort(MPI_COMM_WORLD, 2);
			}
		fclose(f);
	}
	MPI_Bcast(&cols, 1, MPI_INT, 0, MPI_COMM_WORLD);
	int *mine = malloc((size_t)(cols ? cols : 1) * sizeof *mine);
	MPI_Scatter(all, cols, MPI_INT, mine, cols, MPI_INT, 0, MPI_COMM_WORLD);
	free(all);
	*k = cols;
	return mine;
}

/* row finds this rank's row of pair (me, p) at size, or -1. */
static int row(const double *rows, int nrows, int p, int size)
{
	for (int i = 0; i < nrows; i++)
		if ((int)rows[9 * i + 1] == p && (int)rows[9 * i + 2] == size)
			return i;
	return -1;
}

static void pairs(const char *out, const char *roundsFile, const char *isoFile, const char *sizeList, int repeats, const char *scope)
{
	int me = lm_rank(), n = lm_size();
	int sizes[16], nsizes = 0;
	for (const char *s = sizeList; *s && nsizes < 16;) {
		char *end;
		sizes[nsizes++] = (int)strtol(s, &end, 10);
		s = *end == ',' ? end + 1 : end;
	}
	char host[HOSTLEN] = {0}, *hosts = malloc((size_t)n * HOSTLEN);
	int len;
	MPI_Get_processor_name(host, &len);
	MPI_Allgather(host, HOSTLEN, MPI_CHAR, hosts, HOSTLEN, MPI_CHAR, MPI_COMM_WORLD);
	int rounds, nIso, *partner = readTable(roundsFile, n, &rounds), *iso = readTable(isoFile, n, &nIso);
	int maxsize = 0;
	for (int k = 0; k < nsizes; k++)
		maxsize = sizes[k] > maxsize ? sizes[k] : maxsize;
	char *buf = payload((size_t)maxsize);
	double *rtt = malloc((size_t)repeats * sizeof *rtt), st[5];
	/* Rows measured by this rank (as the lower rank): a, b, size, 5
	 * stats, the isolated median (NaN: not re-measured). */
	int cap = 64, nrows = 0;
	double *rows = malloc((size_t)cap * 9 * sizeof *rows);
	for (int k = 0; k < nsizes; k++) {
		for (int r = 0; r < rounds; r++) {
			int p = partner[r];
			if (p >= 0) {
				lm_pingpong(p, me < p, buf, sizes[k], WARM, repeats, rtt);
				if (me < p) {
					if (nrows == cap)
						rows = realloc(rows, (size_t)(cap *= 2) * 9 * sizeof *rows);
					double *row = rows + 9 * nrows++;
					row[0] = me, row[1] = p, row[2] = sizes[k], row[8] = NAN;
					stats(rtt, repeats, row + 3);
				}
			}
			MPI_Barrier(MPI_COMM_WORLD);
		}
		for (int r = 0; r < nIso; r++) {
			int p = iso[r];
			if (p >= 0) {
				lm_pingpong(p, me < p, buf, sizes[k], WARM, repeats, rtt);
				int i = me < p ? row(rows, nrows, p, sizes[k]) : -1;
				if (i >= 0) {
					stats(rtt, repeats, st);
					rows[9 * i + 8] = st[3];
				}
			}
			MPI_Barrier(MPI_COMM_WORLD);
		}
	}
	int cnt = nrows * 9, *cnts = malloc((size_t)n * sizeof *cnts), *displs = malloc((size_t)n * sizeof *displs);
	MPI_Gather(&cnt, 1, MPI_INT, cnts, 1, MPI_INT, 0, MPI_COMM_WORLD);
	int total = 0;
	if (me == 0)
		for (int r = 0; r < n; r++) {
			displs[r] = total;
			total += cnts[r];
		}
	double *allrows = me == 0 ? malloc((size_t)(total > 0 ? total : 1) * sizeof *allrows) : NULL;
	MPI_Gatherv(rows, cnt, MPI_DOUBLE, allrows, cnts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	if (me != 0)
		return;
	char path[4096];
	snprintf(path, sizeof path, "%s/ranks.csv", out);
	FILE *f = fopen(path, "w");
	fprintf(f, "rank,host,cpu,cpu_end,cpuset,socket,numa,l3,migrated\n");
	for (int r = 0; r < n; r++) {
		int cpu = 0; /* the rank's index among its host's ranks */
		for (int q = 0; q < r; q++)
			cpu += !strcmp(hosts + q * HOSTLEN, hosts + r * HOSTLEN);
		fprintf(f, "%d,%s,%d,%d,%d,0,0,0,false\n", r, hosts + r * HOSTLEN, cpu, cpu, cpu);
	}
	fclose(f);
	snprintf(path, sizeof path, "%s/pairs.csv", out);
	f = fopen(path, "w");
	fprintf(f, "rank_a,rank_b,size_bytes,samples,rtt_mean_us,rtt_std_us,rtt_min_us,rtt_median_us,rtt_p99_us,rtt_isolated_median_us\n");
	/* rows come by measuring rank; latmap sorts what it reads. */
	for (int i = 0; i < total; i += 9) {
		fprintf(f, "%d,%d,%d,%d,%.4f,%.4f,%.4f,%.4f,%.4f,", (int)allrows[i], (int)allrows[i + 1], (int)allrows[i + 2], repeats,
			allrows[i + 3], allrows[i + 4], allrows[i + 5], allrows[i + 6], allrows[i + 7]);
		if (!isnan(allrows[i + 8]))
			fprintf(f, "%.4f", allrows[i + 8]);
		fprintf(f, "\n");
	}
	fclose(f);
	snprintf(path, sizeof path, "%s/meta.json", out);
	f = fopen(path, "w");
	fprintf(f, "{\n  \"tool\": \"latmap simsurvey (SimGrid SMPI)\",\n  \"ranks\": %d,\n  \"sizes\": [", n);
	for (int k = 0; k < nsizes; k++)
		fprintf(f, "%s%d", k ? ", " : "", sizes[k]);
	fprintf(f, "],\n  \"repeats\": %d,\n  \"warmup\": %d,\n  \"schedule\": \"rounds\",\n  \"scope\": \"%s\"\n}\n", repeats, WARM, scope);
	fclose(f);
}

static void exchange(const char *out, const char *stepsFile, int size, int messages, int window, int partners)
{
	int me = lm_rank(), n = lm_size(), cols;
	int *step = readTable(stepsFile, n, &cols);
	int nsteps = cols / (2 * partners);
	char *sbuf = payload((size_t)size), *rbuf = payload((size_t)size * (size_t)window * (size_t)partners);
	double *t = calloc((size_t)(nsteps ? nsteps : 1), sizeof *t);
	int *dst = malloc(sizeof(int) * (size_t)partners), *src = malloc(sizeof(int) * (size_t)partners);
	for (int s = 0; s < nsteps; s++) {
		int nd = 0, ns = 0, *p = step + 2 * partners * s;
		for (int i = 0; i < partners; i++) {
			if (p[i] >= 0)
				dst[nd++] = p[i];
			if (p[partners + i] >= 0)
				src[ns++] = p[partners + i];
		}
		MPI_Barrier(MPI_COMM_WORLD);
		t[s] = lm_exchange(dst, nd, src, ns, sbuf, rbuf, size, messages, window);
	}
	double *all = me == 0 ? malloc((size_t)n * (size_t)(nsteps ? nsteps : 1) * sizeof *all) : NULL;
	MPI_Gather(t, nsteps, MPI_DOUBLE, all, nsteps, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	if (me != 0)
		return;
	FILE *f = fopen(out, "w");
	for (int r = 0; r < n; r++) {
		for (int s = 0; s < nsteps; s++)
			fprintf(f, "%s%.9g", s ? " " : "", all[r * nsteps + s]);
		fprintf(f, "\n");
	}
	fclose(f);
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	lm_init();
	if (argc == 8 && !strcmp(argv[2], "pairs"))
		pairs(argv[1], argv[3], argv[4], argv[5], atoi(argv[6]), argv[7]);
	else if (argc == 8 && !strcmp(argv[2], "exchange") && atoi(argv[7]) > 0)
		exchange(argv[1], argv[3], atoi(argv[4]), atoi(argv[5]), atoi(argv[6]), atoi(argv[7]));
	else {
		fprintf(stderr, "usage: simsurvey OUTDIR pairs ROUNDS ISO SIZES REPEATS SCOPE\n"
				"       simsurvey OUTFILE exchange STEPS SIZE MESSAGES WINDOW PARTNERS\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	lm_finalize();
	return 0;
}
