// pairs.c: ranks exchange with their partner (rank ^ 1) ITER messages of
// BYTES bytes each way, bandwidth-bound: the placement test of latmap
// verify (pairs on one node share memory; across nodes, a link). With
// COMPUTE_MS, each rank computes that long before each exchange (a sleep,
// so that ranks sharing a cpu on a small test machine do not slow each
// other): time no placement changes; and all ranks meet at a barrier after
// each exchange, as a bulk-synchronous code does, so that the pairs'
// transfers share the links the same way every time (without it, one
// pair's transfer may or may not overlap another's computation, and the
// run time is bimodal). With ONEWAY 1, even ranks send and odd ranks
// receive, one way only: over Open MPI's TCP, an exchange of 1 MiB each
// way (MPI_Sendrecv) took as long as two one way on a shaped link of
// virtual nodes (1.62 s against 0.87 s for 10 between two of them), each
// direction at half the link's rate, so that two pairs exchanging
// through one link hardly slowed each other.
// usage: pairs [ITER [BYTES [COMPUTE_MS [ONEWAY]]]]
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
	int iter = argc > 1 ? atoi(argv[1]) : 20, bytes = argc > 2 ? atoi(argv[2]) : 1 << 20;
	char *sbuf = calloc((size_t)bytes, 1), *rbuf = calloc((size_t)bytes, 1);
	long compute_ms = argc > 3 ? atol(argv[3]) : 0;
	int oneway = argc > 4 && atoi(argv[4]) == 1;
	int peer = rank ^ 1;
	if (peer < size)
		for (int i = 0; i < iter; i++) {
			if (compute_ms > 0) {
				struct timespec ts = {compute_ms / 1000, (compute_ms % 1000) * 1000000L};
				while (nanosleep(&ts, &ts))
					;
			}
			if (!oneway)
				MPI_Sendrecv(sbuf, bytes, MPI_BYTE, peer, 7, rbuf, bytes, MPI_BYTE, peer, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			else if (rank % 2 == 0)
				MPI_Send(sbuf, bytes, MPI_BYTE, peer, 7, MPI_COMM_WORLD);
			else
				MPI_Recv(rbuf, bytes, MPI_BYTE, peer, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			if (compute_ms > 0)
				MPI_Barrier(MPI_COMM_WORLD);
		}
	free(sbuf);
	free(rbuf);
	MPI_Finalize();
	return 0;
}
