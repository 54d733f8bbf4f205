/* collmatrix.c: known collectives for --collectives-in-matrix. Per
 * iteration: an MPI_Sendrecv of 8*(world rank+1) bytes to the next world
 * rank; the same set of collectives (colls below) on MPI_COMM_WORLD and on
 * a communicator split by rank parity with keys that reverse the order
 * (key = -rank); an MPI_Neighbor_alltoall of 4 bytes and an
 * MPI_Neighbor_allgather of 5 bytes per neighbour on a periodic 1-D
 * Cartesian communicator of all ranks.
 * interpose/collmatrix_test.go models the traffic: keep them in step.
 * Usage: collmatrix ITER. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static char *sb, *rb;

static void colls(MPI_Comm c)
{
	int r, s, sc[64], sd[64], rc[64], rd[64];
	MPI_Datatype st[64], rt[64];
	MPI_Request q;
	MPI_Comm_rank(c, &r);
	MPI_Comm_size(c, &s);
	MPI_Bcast(sb, 100, MPI_BYTE, 1 % s, c);
	MPI_Reduce(sb, rb, 3, MPI_DOUBLE, MPI_SUM, s - 1, c);
	MPI_Allreduce(sb, rb, 5, MPI_INT, MPI_SUM, c);
	MPI_Allreduce(MPI_IN_PLACE, rb, 2, MPI_DOUBLE, MPI_SUM, c);
	MPI_Gather(sb, 7, MPI_BYTE, rb, 7, MPI_BYTE, 0, c);
	for (int i = 0; i < s; i++) {
		rc[i] = i + 1;
		rd[i] = i * 64;
	}
	MPI_Gatherv(sb, r + 1, MPI_BYTE, rb, rc, rd, MPI_BYTE, s - 1, c);
	MPI_Scatter(sb, 11, MPI_BYTE, rb, 11, MPI_BYTE, 0, c);
	for (int i = 0; i < s; i++) {
		sc[i] = i + 2;
		sd[i] = i * 64;
	}
	MPI_Scatterv(sb, sc, sd, MPI_BYTE, rb, r + 2, MPI_BYTE, 1 % s, c);
	MPI_Allgather(sb, 13, MPI_BYTE, rb, 13, MPI_BYTE, c);
	MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rb, 2, MPI_INT, c);
	for (int i = 0; i < s; i++)
		rc[i] = i + 3;
	MPI_Allgatherv(sb, r + 3, MPI_BYTE, rb, rc, rd, MPI_BYTE, c);
	MPI_Alltoall(sb, 17, MPI_BYTE, rb, 17, MPI_BYTE, c);
	for (int j = 0; j < s; j++) {
		sc[j] = r * 10 + j + 1; /* to j */
		rc[j] = j * 10 + r + 1; /* from j */
	}
	MPI_Alltoallv(sb, sc, sd, MPI_BYTE, rb, rc, rd, MPI_BYTE, c);
	for (int j = 0; j < s; j++) {
		sc[j] = rc[j] = j + r + 1;
		sd[j] = rd[j] = j * 256;
		st[j] = rt[j] = MPI_INT;
	}
	MPI_Alltoallw(sb, sc, sd, st, rb, rc, rd, rt, c);
	for (int i = 0; i < s; i++)
		rc[i] = i + 1;
	MPI_Reduce_scatter(sb, rb, rc, MPI_INT, MPI_SUM, c);
	MPI_Reduce_scatter_block(sb, rb, 2, MPI_INT, MPI_SUM, c);
	MPI_Scan(sb, rb, 1, MPI_DOUBLE, MPI_SUM, c);
	MPI_Exscan(sb, rb, 3, MPI_INT, MPI_SUM, c);
	MPI_Barrier(c);
	MPI_Ibcast(sb, 19, MPI_BYTE, s - 1, c, &q);
	MPI_Wait(&q, MPI_STATUS_IGNORE);
	MPI_Iallreduce(sb, rb, 4, MPI_DOUBLE, MPI_SUM, c, &q);
	MPI_Wait(&q, MPI_STATUS_IGNORE);
	MPI_Ialltoall(sb, 6, MPI_BYTE, rb, 6, MPI_BYTE, c, &q);
	MPI_Wait(&q, MPI_STATUS_IGNORE);
	MPI_Igather(sb, 9, MPI_BYTE, rb, 9, MPI_BYTE, 0, c, &q);
	MPI_Wait(&q, MPI_STATUS_IGNORE);
	MPI_Iscan(sb, rb, 2, MPI_INT, MPI_SUM, c, &q);
	MPI_Wait(&q, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int wr, n, iter = argc > 1 ? atoi(argv[1]) : 2;
	MPI_Comm_rank(MPI_COMM_WORLD, &wr);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	sb = calloc(1 << 16, 1);
	rb = calloc(1 << 16, 1);
	MPI_Comm sub, ring;
	MPI_Comm_split(MPI_COMM_WORLD, wr % 2, -wr, &sub);
	int dims[1] = {n}, per[1] = {1};
	MPI_Cart_create(MPI_COMM_WORLD, 1, dims, per, 0, &ring);
	for (int it = 0; it < iter; it++) {
		MPI_Sendrecv(sb, 8 * (wr + 1), MPI_BYTE, (wr + 1) % n, 1, rb, 1 << 16, MPI_BYTE, (wr + n - 1) % n, 1,
			     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		colls(MPI_COMM_WORLD);
		colls(sub);
		MPI_Neighbor_alltoall(sb, 4, MPI_BYTE, rb, 4, MPI_BYTE, ring);
		MPI_Neighbor_allgather(sb, 5, MPI_BYTE, rb, 5, MPI_BYTE, ring);
	}
	MPI_Comm_free(&sub);
	MPI_Comm_free(&ring);
	if (wr == 0)
		printf("collmatrix: %d iterations on %d ranks\n", iter, n);
	MPI_Finalize();
	return 0;
}
