/* wild.c: matching-order torture for the --slt token protocol. Every
 * message carries (source, tag, sequence) and every receive checks that it
 * got a message MPI allows it to get; each rank prints a checksum that does
 * not depend on arrival order. Must not deadlock, must print the same with
 * and without the profiler. Run on 4 ranks. Usage: wild ROUNDS.
 *   1. MPI_ANY_SOURCE/MPI_ANY_TAG Irecvs completed by MPI_Waitany, with a
 *      per-sender order check (non-overtaking).
 *   2. tags sent 0..9, received by Irecvs posted 9..0, MPI_Waitsome.
 *   3. a wildcard Irecv posted before a specific one for the same message
 *      stream: the wildcard must get the first message.
 *   4. a blocking wildcard MPI_Recv while a wildcard Irecv is pending.
 *   5. MPI_Testall spin on a neighbour exchange with MPI_ANY_SOURCE.
 *   6. MPI_Probe(ANY) + MPI_Recv, MPI_Mprobe + MPI_Mrecv, MPI_Sendrecv
 *      with MPI_ANY_SOURCE. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int rank, size;
static long checksum;

static void fail(const char *what, int a, int b)
{
	fprintf(stderr, "wild: rank %d: %s (%d, %d)\n", rank, what, a, b);
	MPI_Abort(MPI_COMM_WORLD, 4);
}

static void got(int *m, MPI_Status *st)
{
	if (st && (m[0] != st->MPI_SOURCE || m[1] != st->MPI_TAG))
		fail("message does not match its status", m[0], st->MPI_SOURCE);
	checksum += (long)m[0] * 1000003L + (long)m[1] * 1009L + m[2];
}

static void send(int dest, int tag, int seq)
{
	int m[3] = {rank, tag, seq};
	MPI_Send(m, 3, MPI_INT, dest, tag, MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size != 4) {
		fprintf(stderr, "wild: run on 4 ranks\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	int rounds = argc > 1 ? atoi(argv[1]) : 3;
	int m[64][3];
	MPI_Request r[64];
	MPI_Status st[64];
	for (int round = 0; round < rounds; round++) {
		/* 1: 3 senders x 5 messages, tags vary, to rank 0. */
		if (rank == 0) {
			int last[4] = {-1, -1, -1, -1};
			for (int i = 0; i < 15; i++)
				MPI_Irecv(m[i], 3, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &r[i]);
			for (int k = 0; k < 15; k++) {
				int i;
				MPI_Status s;
				MPI_Waitany(15, r, &i, &s);
				got(m[i], &s);
				(void)last;
			}
			/* Non-overtaking: messages of one sender complete in send
			 * order into the receives in posting order. */
			for (int i = 0; i < 15; i++)
				for (int j = i + 1; j < 15; j++)
					if (m[i][0] == m[j][0] && m[i][2] > m[j][2])
						fail("non-overtaking broken", i, j);
		} else {
			for (int s = 0; s < 5; s++)
				send(0, (s * 7 + rank) % 5, s);
		}
		MPI_Barrier(MPI_COMM_WORLD);

		/* 2: out-of-order tags, rank 1 -> rank 2. */
		if (rank == 1)
			for (int t = 0; t < 10; t++)
				send(2, t, t);
		if (rank == 2) {
			for (int t = 9; t >= 0; t--)
				MPI_Irecv(m[t], 3, MPI_INT, 1, t, MPI_COMM_WORLD, &r[t]);
			int left = 10;
			while (left > 0) {
				int out, idx[10];
				MPI_Waitsome(10, r, &out, idx, st);
				for (int k = 0; k < out; k++) {
					got(m[idx[k]], &st[k]);
					if (m[idx[k]][1] != idx[k])
						fail("tag mix-up", m[idx[k]][1], idx[k]);
				}
				left -= out;
			}
		}
		MPI_Barrier(MPI_COMM_WORLD);

		/* 3: wildcard before specific: rank 3 sends tag 5 twice to rank 1. */
		if (rank == 3) {
			send(1, 5, 1);
			send(1, 5, 2);
		}
		if (rank == 1) {
			MPI_Irecv(m[0], 3, MPI_INT, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &r[0]);
			MPI_Irecv(m[1], 3, MPI_INT, 3, 5, MPI_COMM_WORLD, &r[1]);
			MPI_Waitall(2, r, st);
			got(m[0], &st[0]);
			got(m[1], &st[1]);
			if (m[0][2] != 1 || m[1][2] != 2)
				fail("wildcard posted first did not get the first message", m[0][2], m[1][2]);
		}
		MPI_Barrier(MPI_COMM_WORLD);

		/* 4: blocking wildcard Recv while a wildcard Irecv is pending. */
		if (rank == 1 || rank == 2)
			send(0, 7, round);
		if (rank == 0) {
			MPI_Irecv(m[0], 3, MPI_INT, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &r[0]);
			MPI_Recv(m[1], 3, MPI_INT, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &st[1]);
			MPI_Wait(&r[0], &st[0]);
			got(m[0], &st[0]);
			got(m[1], &st[1]);
			if (m[0][0] == m[1][0])
				fail("same sender twice", m[0][0], m[1][0]);
		}
		MPI_Barrier(MPI_COMM_WORLD);

		/* 5: Testall spin, ring exchange with ANY_SOURCE. */
		{
			int out[3] = {rank, 11, round};
			MPI_Irecv(m[0], 3, MPI_INT, MPI_ANY_SOURCE, 11, MPI_COMM_WORLD, &r[0]);
			MPI_Isend(out, 3, MPI_INT, (rank + 1) % size, 11, MPI_COMM_WORLD, &r[1]);
			int flag = 0;
			while (!flag)
				MPI_Testall(2, r, &flag, st);
			got(m[0], &st[0]);
			if (m[0][0] != (rank + size - 1) % size)
				fail("ring neighbour", m[0][0], rank);
		}
		MPI_Barrier(MPI_COMM_WORLD);

		/* 6: probes and a wildcard Sendrecv. */
		if (rank == 2 || rank == 3)
			send(0, 20 + rank, round);
		if (rank == 0) {
			MPI_Status s;
			MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &s);
			MPI_Recv(m[0], 3, MPI_INT, s.MPI_SOURCE, s.MPI_TAG, MPI_COMM_WORLD, &st[0]);
			got(m[0], &st[0]);
			MPI_Message msg;
			MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &msg, &s);
			MPI_Mrecv(m[1], 3, MPI_INT, &msg, &st[1]);
			got(m[1], &st[1]);
		}
		MPI_Barrier(MPI_COMM_WORLD); /* the probes above take any tag */
		{
			int out[3] = {rank, 30, round};
			MPI_Sendrecv(out, 3, MPI_INT, (rank + 1) % size, 30, m[2], 3, MPI_INT, MPI_ANY_SOURCE, 30,
				     MPI_COMM_WORLD, &st[2]);
			got(m[2], &st[2]);
		}
		MPI_Barrier(MPI_COMM_WORLD);
	}
	/* After all that, plain specific receives must still pair correctly. */
	if (rank == 1)
		for (int i = 0; i < 5; i++)
			send(0, 40, i);
	if (rank == 0)
		for (int i = 0; i < 5; i++) {
			MPI_Recv(m[0], 3, MPI_INT, 1, 40, MPI_COMM_WORLD, &st[0]);
			got(m[0], &st[0]);
			if (m[0][2] != i)
				fail("order", m[0][2], i);
		}
	long all = 0;
	MPI_Reduce(&checksum, &all, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
	printf("rank %d ok checksum %ld\n", rank, checksum);
	if (rank == 0)
		printf("total checksum %ld\n", all);
	MPI_Finalize();
	return 0;
}
