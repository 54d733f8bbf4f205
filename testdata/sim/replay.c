/* replay: replays a communication matrix (src,dst,bytes,messages CSV, the
 * whole run's traffic) over ITER iterations: in each, every rank posts its
 * receives and sends of that iteration's share of every flow at once
 * (messages of bytes/messages bytes) and waits for all of them, then all
 * meet at a barrier. Rank 0 prints the run's time, MPI_Init (after a
 * barrier) to MPI_Finalize of the slowest rank, in simulated seconds under
 * SimGrid SMPI ("app_s 0.123"), what latmap place predicts.
 *
 * usage: replay MATRIX.csv ITER */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

struct flow {
	int src, dst;
	double bytes, messages;
};

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int me, n;
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	if (argc < 3) {
		if (me == 0)
			fprintf(stderr, "usage: replay MATRIX.csv ITER\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	int iter = atoi(argv[2]);
	FILE *f = fopen(argv[1], "r");
	if (!f) {
		perror(argv[1]);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	char line[512];
	int cap = 256, nf = 0;
	struct flow *fl = malloc((size_t)cap * sizeof *fl);
	if (!fgets(line, sizeof line, f)) /* header */
		MPI_Abort(MPI_COMM_WORLD, 2);
	struct flow x;
	while (fscanf(f, "%d,%d,%lf,%lf", &x.src, &x.dst, &x.bytes, &x.messages) == 4) {
		if (x.src == x.dst || x.messages < 1 || x.src >= n || x.dst >= n || (x.src != me && x.dst != me))
			continue;
		if (nf == cap)
			fl = realloc(fl, (size_t)(cap *= 2) * sizeof *fl);
		fl[nf++] = x;
	}
	fclose(f);
	size_t maxmsg = 1;
	int maxreq = 0;
	for (int i = 0; i < nf; i++) {
		size_t m = (size_t)(fl[i].bytes / fl[i].messages);
		maxmsg = m > maxmsg ? m : maxmsg;
		maxreq += (int)(fl[i].messages / iter) + 1;
	}
	char *sbuf = calloc(maxmsg, 1), *rbuf = calloc(maxmsg, 1);
	MPI_Request *req = malloc((size_t)(maxreq + 1) * sizeof *req);
	MPI_Barrier(MPI_COMM_WORLD);
	double t0 = MPI_Wtime();
	for (int it = 0; it < iter; it++) {
		int nr = 0;
		for (int i = 0; i < nf; i++) {
			long total = (long)fl[i].messages, k = total / iter + (it < total % iter);
			int size = (int)(fl[i].bytes / fl[i].messages);
			for (long m = 0; m < k; m++) {
				if (fl[i].dst == me)
					MPI_Irecv(rbuf, size, MPI_BYTE, fl[i].src, 1, MPI_COMM_WORLD, &req[nr++]);
				else
					MPI_Isend(sbuf, size, MPI_BYTE, fl[i].dst, 1, MPI_COMM_WORLD, &req[nr++]);
			}
		}
		MPI_Waitall(nr, req, MPI_STATUSES_IGNORE);
		MPI_Barrier(MPI_COMM_WORLD);
	}
	double el = MPI_Wtime() - t0, mx = 0;
	MPI_Reduce(&el, &mx, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
	if (me == 0)
		printf("app_s %.9f\n", mx);
	MPI_Finalize();
	return 0;
}
