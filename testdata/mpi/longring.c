/* longring: for SECONDS seconds each rank sends BYTES to the next rank of
 * a ring (MPI_Sendrecv) every 10 ms, and after each exchange writes how
 * many bytes it has sent so far to DIR/sent.RANK (rewritten whole), so
 * that a run ended early can be checked against the program's own count.
 * Usage: longring SECONDS BYTES DIR */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	double secs = argc > 1 ? atof(argv[1]) : 20;
	int bytes = argc > 2 ? atoi(argv[2]) : 65536;
	const char *dir = argc > 3 ? argv[3] : ".";
	char *sbuf = calloc((size_t)bytes, 1), *rbuf = malloc((size_t)bytes);
	char path[4096], tmp[4200];
	snprintf(path, sizeof path, "%s/sent.%d", dir, rank);
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	long long sent = 0;
	double t0 = MPI_Wtime();
	while (MPI_Wtime() - t0 < secs) {
		MPI_Sendrecv(sbuf, bytes, MPI_BYTE, (rank + 1) % size, 7, rbuf, bytes, MPI_BYTE,
			     (rank + size - 1) % size, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		sent += bytes;
		FILE *f = fopen(tmp, "w");
		if (f) {
			fprintf(f, "%lld\n", sent);
			fclose(f);
			rename(tmp, path);
		}
		struct timespec ts = {0, 10000000L};
		nanosleep(&ts, NULL);
	}
	free(sbuf);
	free(rbuf);
	MPI_Finalize();
	return 0;
}
