/* largecount.c: MPI-4 large-count calls between ranks 0 and 1, ITER times
 * (argv[1], default 5): MPI_Send_c of 256 bytes 0 -> 1 (received with
 * MPI_Recv_c and MPI_STATUS_IGNORE); MPI_Isend_c/MPI_Irecv_c of 128 bytes
 * both ways, MPI_Waitall; MPI_Sendrecv_c of 64 bytes both ways; and each
 * collective twice, with a large count and with an int count
 * (MPI_Allreduce_c and MPI_Allreduce, MPI_Bcast_c and MPI_Bcast,
 * MPI_Alltoallv_c and MPI_Alltoallv), so a test can check that both are
 * counted alike. Built where mpi.h is MPI 4 (MPICH 4); elsewhere it says
 * so. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
#if MPI_VERSION >= 4
	int rank, iter = argc > 1 ? atoi(argv[1]) : 5;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	char buf[256] = {0}, a[128] = {0}, b[128], s[64] = {0}, r[64];
	long long in = rank, out = 0, out2 = 0;
	int other = 1 - rank;
	for (int i = 0; i < iter; i++) {
		if (rank == 0)
			MPI_Send_c(buf, (MPI_Count)sizeof buf, MPI_CHAR, 1, 3, MPI_COMM_WORLD);
		else
			MPI_Recv_c(buf, (MPI_Count)sizeof buf, MPI_CHAR, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Request rq[2];
		MPI_Irecv_c(b, (MPI_Count)sizeof b, MPI_CHAR, other, 4, MPI_COMM_WORLD, &rq[0]);
		MPI_Isend_c(a, (MPI_Count)sizeof a, MPI_CHAR, other, 4, MPI_COMM_WORLD, &rq[1]);
		MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
		MPI_Status st;
		MPI_Sendrecv_c(s, (MPI_Count)sizeof s, MPI_CHAR, other, 5, r, (MPI_Count)sizeof r, MPI_CHAR, other, 5, MPI_COMM_WORLD, &st);
		if (st.MPI_SOURCE != other) {
			printf("rank %d: Sendrecv_c status source %d\n", rank, st.MPI_SOURCE);
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
		MPI_Allreduce_c(&in, &out, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
		MPI_Allreduce(&in, &out2, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
		MPI_Bcast_c(buf, 100, MPI_CHAR, 0, MPI_COMM_WORLD);
		MPI_Bcast(buf, 100, MPI_CHAR, 0, MPI_COMM_WORLD);
		MPI_Count cc[2] = {10, 20}, cd[2] = {0, 10};
		MPI_Aint ad[2] = {0, 10};
		int ic[2] = {10, 20}, id[2] = {0, 10};
		char x[40] = {0}, y[40];
		MPI_Count rc[2] = {rank == 0 ? 10 : 20, rank == 0 ? 10 : 20};
		int irc[2] = {(int)rc[0], (int)rc[1]};
		MPI_Aint rd[2] = {0, (MPI_Aint)rc[0]};
		int ird[2] = {0, irc[0]};
		(void)cd;
		MPI_Alltoallv_c(x, cc, ad, MPI_CHAR, y, rc, rd, MPI_CHAR, MPI_COMM_WORLD);
		MPI_Alltoallv(x, ic, id, MPI_CHAR, y, irc, ird, MPI_CHAR, MPI_COMM_WORLD);
	}
	printf("rank %d sum %lld %lld\n", rank, out, out2);
#else
	printf("MPI_VERSION %d: no large-count calls\n", MPI_VERSION);
#endif
	MPI_Finalize();
	return 0;
}
