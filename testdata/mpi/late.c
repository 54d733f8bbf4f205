/* late.c: send-late and receiver-late patterns between pairs (even rank r
 * receives from r+1). Usage: late MODE ITER SLEEP_MS
 *   sender:   the sender sleeps SLEEP_MS before each send while the
 *             receiver is already waiting (blocking MPI_Recv on even
 *             iterations, MPI_Irecv + MPI_Wait on odd ones): the receive
 *             waits about ITER*SLEEP_MS of send-late time.
 *   receiver: the receiver sleeps before each receive, the sender sends at
 *             once: the send-late time is about 0.
 * A barrier before each iteration keeps the pairs in step. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double slept; /* the real sleep, overshoot included */

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	double t0 = MPI_Wtime();
	nanosleep(&ts, NULL);
	slept += MPI_Wtime() - t0;
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc < 4) {
		fprintf(stderr, "usage: late sender|receiver ITER SLEEP_MS\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	int sender_late = !strcmp(argv[1], "sender"), iter = atoi(argv[2]), ms = atoi(argv[3]);
	int buf[256] = {0};
	long sum = 0;
	int peer = rank ^ 1;
	for (int i = 0; i < iter; i++) {
		MPI_Barrier(MPI_COMM_WORLD);
		if (peer >= size)
			continue;
		if (rank % 2 == 0) {
			if (!sender_late)
				sleep_ms(ms);
			if (i % 2 == 0) {
				MPI_Recv(buf, 256, MPI_INT, peer, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			} else {
				MPI_Request r;
				MPI_Irecv(buf, 256, MPI_INT, peer, i, MPI_COMM_WORLD, &r);
				MPI_Wait(&r, MPI_STATUS_IGNORE);
			}
			sum += buf[0];
		} else {
			if (sender_late)
				sleep_ms(ms);
			buf[0] = i;
			MPI_Send(buf, 256, MPI_INT, peer, i, MPI_COMM_WORLD);
		}
	}
	if (rank % 2 == 0)
		printf("rank %d sum %ld\n", rank, sum);
	printf("slept %d %.6f\n", rank, slept);
	MPI_Finalize();
	return 0;
}
