/* replay: replays a communication matrix (src,dst,bytes,messages CSV, the
 * whole run's traffic) over ITER iterations: in each, every rank posts its
 * receives and sends of that iteration's share of every flow at once
 * (messages of bytes/messages bytes) and waits for all of them, then all
 * meet at a barrier. Rank 0 prints the run's time, MPI_Init (after a
 * barrier) to MPI_Finalize of the slowest rank, in simulated seconds under
 * SimGrid SMPI ("app_s 0.123"), what latmap place predicts.
 *
 * With COMPUTE (seconds), every rank computes that long (simulated, as
 * smpi_execute) before each iteration's exchange. With PROFILE_DIR, rank
 * 0 writes there what latmap profile would have measured of the run:
 * meta.json, ranks.csv (host, cpu = the rank's index among its host's
 * ranks, elapsed_s, comput_s) and functions.csv (MPI_Isend, MPI_Irecv,
 * MPI_Waitall and MPI_Barrier: calls, time, bytes); the harness adds the
 * exact matrix.csv. (latmap's interposer keeps its state in globals of
 * one process, and SMPI's ranks are threads of one, so it cannot be
 * preloaded here.)
 *
 * With alltoall:BYTES instead of a matrix file, each iteration is one
 * MPI_Alltoall of BYTES to every rank (the algorithm smpirun's
 * --cfg=smpi/alltoall: chooses), from buffers all ranks share
 * (SMPI_SHARED_MALLOC: 1,024 ranks' own would not fit in memory).
 *
 * usage: replay MATRIX.csv|alltoall:BYTES ITER [COMPUTE [PROFILE_DIR]] */
#include <mpi.h>
#include <smpi/smpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HOSTLEN 64
/* per-rank figures of the profile: elapsed, comput, then time, calls and
 * bytes of Isend, Irecv, Waitall, Barrier */
enum { P_EL, P_COMP, P_TSEND, P_NSEND, P_BSEND, P_TRECV, P_NRECV, P_BRECV, P_TWAIT, P_NWAIT, P_TBAR, P_NBAR, P_LEN };

struct flow {
	int src, dst;
	double bytes, messages;
};

/* readFlows: rank 0 reads the matrix once and hands each rank the flows
 * it sends or receives (a 1,024-rank all-to-all is a million lines: read
 * by every rank it would take minutes of wall time); *nf is their count. */
static struct flow *readFlows(const char *path, int me, int n, int *nf)
{
	int *cnt = calloc((size_t)n, sizeof *cnt), *displ = calloc((size_t)n, sizeof *displ);
	struct flow *all = NULL, *sorted = NULL;
	if (me == 0) {
		FILE *f = fopen(path, "r");
		if (!f) {
			perror(path);
			MPI_Abort(MPI_COMM_WORLD, 2);
		}
		char line[512];
		if (!fgets(line, sizeof line, f)) /* header */
			MPI_Abort(MPI_COMM_WORLD, 2);
		size_t cap = 256, na = 0;
		all = malloc(cap * sizeof *all);
		struct flow x;
		while (fscanf(f, "%d,%d,%lf,%lf%*[^\n]", &x.src, &x.dst, &x.bytes, &x.messages) == 4) { /* extra columns skipped */
			if (x.src == x.dst || x.messages < 1 || x.src < 0 || x.dst < 0 || x.src >= n || x.dst >= n)
				continue;
			if (na == cap)
				all = realloc(all, (cap *= 2) * sizeof *all);
			all[na++] = x;
			cnt[x.src]++;
			cnt[x.dst]++;
		}
		fclose(f);
		for (int r = 1; r < n; r++)
			displ[r] = displ[r - 1] + cnt[r - 1];
		sorted = malloc((size_t)(displ[n - 1] + cnt[n - 1] + 1) * sizeof *sorted);
		int *at = malloc((size_t)n * sizeof *at);
		for (int r = 0; r < n; r++)
			at[r] = displ[r];
		for (size_t i = 0; i < na; i++) {
			sorted[at[all[i].src]++] = all[i];
			sorted[at[all[i].dst]++] = all[i];
		}
		free(at);
		free(all);
		for (int r = 0; r < n; r++) {
			cnt[r] *= (int)sizeof(struct flow);
			displ[r] *= (int)sizeof(struct flow);
		}
	}
	int mine = 0;
	MPI_Scatter(cnt, 1, MPI_INT, &mine, 1, MPI_INT, 0, MPI_COMM_WORLD);
	struct flow *fl = malloc((size_t)mine + sizeof *fl);
	MPI_Scatterv(sorted, cnt, displ, MPI_BYTE, fl, mine, MPI_BYTE, 0, MPI_COMM_WORLD);
	free(sorted);
	free(cnt);
	free(displ);
	*nf = mine / (int)sizeof(struct flow);
	return fl;
}

/* writeProfile: rank 0 gathers every rank's figures and host and writes
 * the profile's meta.json, ranks.csv and functions.csv into dir. */
static void writeProfile(const char *dir, int me, int n, const double *pr, double wall)
{
	char host[HOSTLEN] = {0}, *hosts = me == 0 ? malloc((size_t)n * HOSTLEN) : NULL;
	int len;
	MPI_Get_processor_name(host, &len);
	MPI_Gather(host, HOSTLEN, MPI_CHAR, hosts, HOSTLEN, MPI_CHAR, 0, MPI_COMM_WORLD);
	double *all = me == 0 ? malloc((size_t)n * P_LEN * sizeof *all) : NULL;
	MPI_Gather(pr, P_LEN, MPI_DOUBLE, all, P_LEN, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	if (me != 0)
		return;
	char path[4096];
	snprintf(path, sizeof path, "%s/meta.json", dir);
	FILE *f = fopen(path, "w");
	if (!f) {
		perror(path);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	fprintf(f, "{\n  \"tool\": \"latmap replay (SimGrid SMPI)\",\n  \"ranks\": %d,\n  \"modes\": [\"basic\"],\n  \"wall_s\": %.9f,\n  \"thread_level\": 0\n}\n", n, wall);
	fclose(f);
	snprintf(path, sizeof path, "%s/ranks.csv", dir);
	f = fopen(path, "w");
	fprintf(f, "rank,host,cpu,cpu_end,cpuset,socket,numa,l3,migrated,elapsed_s,comput_s\n");
	for (int r = 0; r < n; r++) {
		int cpu = 0;
		for (int q = 0; q < r; q++)
			cpu += !strcmp(hosts + q * HOSTLEN, hosts + r * HOSTLEN);
		const double *x = all + (size_t)r * P_LEN;
		fprintf(f, "%d,%s,%d,%d,%d,0,0,0,false,%.9f,%.9f\n", r, hosts + r * HOSTLEN, cpu, cpu, cpu, x[P_EL], x[P_COMP]);
	}
	fclose(f);
	snprintf(path, sizeof path, "%s/functions.csv", dir);
	f = fopen(path, "w");
	fprintf(f, "rank,function,calls,time_s,late_s,sync_s,bytes_sent,bytes_recv,reqs_sent,reqs_recv\n");
	for (int r = 0; r < n; r++) {
		const double *x = all + (size_t)r * P_LEN;
		if (x[P_NSEND] > 0)
			fprintf(f, "%d,MPI_Isend,%.0f,%.9f,0,0,%.0f,0,%.0f,0\n", r, x[P_NSEND], x[P_TSEND], x[P_BSEND], x[P_NSEND]);
		if (x[P_NRECV] > 0)
			fprintf(f, "%d,MPI_Irecv,%.0f,%.9f,0,0,0,%.0f,0,%.0f\n", r, x[P_NRECV], x[P_TRECV], x[P_BRECV], x[P_NRECV]);
		fprintf(f, "%d,MPI_Waitall,%.0f,%.9f,0,0,0,0,0,0\n", r, x[P_NWAIT], x[P_TWAIT]);
		fprintf(f, "%d,MPI_Barrier,%.0f,%.9f,0,0,0,0,0,0\n", r, x[P_NBAR], x[P_TBAR]);
	}
	fclose(f);
	free(hosts);
	free(all);
}

/* slowest prints the slowest rank's run (rank 0, "app_s 0.123": what
 * latmap place predicts) of each rank's el, and returns it on rank 0. */
static double slowest(double el, int me)
{
	double mx = 0;
	MPI_Reduce(&el, &mx, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
	if (me == 0)
		printf("app_s %.9f\n", mx);
	return mx;
}

/* alltoall replays iter MPI_Alltoall of size bytes to every rank, after
 * compute seconds each, and prints the slowest rank's run. */
static void alltoall(int size, int iter, double compute, int me)
{
	int n;
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	char *sbuf = SMPI_SHARED_MALLOC((size_t)n * (size_t)size), *rbuf = SMPI_SHARED_MALLOC((size_t)n * (size_t)size);
	MPI_Barrier(MPI_COMM_WORLD);
	double t0 = MPI_Wtime();
	for (int it = 0; it < iter; it++) {
		if (compute > 0)
			smpi_execute(compute);
		MPI_Alltoall(sbuf, size, MPI_BYTE, rbuf, size, MPI_BYTE, MPI_COMM_WORLD);
		MPI_Barrier(MPI_COMM_WORLD);
	}
	slowest(MPI_Wtime() - t0, me);
	SMPI_SHARED_FREE(sbuf);
	SMPI_SHARED_FREE(rbuf);
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int me, n;
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	if (argc < 3) {
		if (me == 0)
			fprintf(stderr, "usage: replay MATRIX.csv|alltoall:BYTES ITER [COMPUTE [PROFILE_DIR]]\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	int iter = atoi(argv[2]);
	double compute = argc > 3 ? atof(argv[3]) : 0;
	const char *profile = argc > 4 ? argv[4] : NULL;
	if (!strncmp(argv[1], "alltoall:", 9)) {
		alltoall(atoi(argv[1] + 9), iter, compute, me);
		MPI_Finalize();
		return 0;
	}
	int nf = 0;
	struct flow *fl = readFlows(argv[1], me, n, &nf);
	size_t maxmsg = 1;
	int maxreq = 0;
	for (int i = 0; i < nf; i++) {
		size_t m = (size_t)(fl[i].bytes / fl[i].messages);
		maxmsg = m > maxmsg ? m : maxmsg;
		maxreq += (int)(fl[i].messages / iter) + 1;
	}
	/* Shared by all ranks, as the all-to-all's: SMPI copies no payload
	 * between them (nobody reads it), the same simulated times in a
	 * fraction of the wall time. */
	char *sbuf = SMPI_SHARED_MALLOC(maxmsg), *rbuf = SMPI_SHARED_MALLOC(maxmsg);
	memset(sbuf, 0, maxmsg);
	MPI_Request *req = malloc((size_t)(maxreq + 1) * sizeof *req);
	double pr[P_LEN] = {0};
	MPI_Barrier(MPI_COMM_WORLD);
	double t0 = MPI_Wtime();
	for (int it = 0; it < iter; it++) {
		if (compute > 0) {
			double c0 = MPI_Wtime();
			smpi_execute(compute);
			pr[P_COMP] += MPI_Wtime() - c0;
		}
		int nr = 0;
		for (int i = 0; i < nf; i++) {
			long total = (long)fl[i].messages, k = total / iter + (it < total % iter);
			int size = (int)(fl[i].bytes / fl[i].messages);
			for (long m = 0; m < k; m++) {
				double c0 = MPI_Wtime();
				if (fl[i].dst == me) {
					MPI_Irecv(rbuf, size, MPI_BYTE, fl[i].src, 1, MPI_COMM_WORLD, &req[nr++]);
					pr[P_TRECV] += MPI_Wtime() - c0, pr[P_NRECV]++, pr[P_BRECV] += size;
				} else {
					MPI_Isend(sbuf, size, MPI_BYTE, fl[i].dst, 1, MPI_COMM_WORLD, &req[nr++]);
					pr[P_TSEND] += MPI_Wtime() - c0, pr[P_NSEND]++, pr[P_BSEND] += size;
				}
			}
		}
		double c0 = MPI_Wtime();
		MPI_Waitall(nr, req, MPI_STATUSES_IGNORE);
		double c1 = MPI_Wtime();
		MPI_Barrier(MPI_COMM_WORLD);
		pr[P_TWAIT] += c1 - c0, pr[P_NWAIT]++;
		pr[P_TBAR] += MPI_Wtime() - c1, pr[P_NBAR]++;
	}
	pr[P_EL] = MPI_Wtime() - t0;
	double mx = slowest(pr[P_EL], me);
	if (profile)
		writeProfile(profile, me, n, pr, mx);
	MPI_Finalize();
	return 0;
}
