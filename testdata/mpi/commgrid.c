/* commgrid: 8 ranks as a 4 x 2 grid (row = rank / 2, column = rank % 2),
 * each communicator's exchanges known exactly (interpose TestCommMatrices):
 *   w.0  split, even ranks only (odd ones pass MPI_UNDEFINED): comm rank 0
 *        sends 11 bytes to comm rank 1 (world 0 -> 2)
 *   w.1  "rows" (split by row, 2 ranks each): each rank sends its partner
 *        3 messages of 1000 bytes
 *   w.2  "cols" (split by column, 4 ranks each): each rank sends the next
 *        in its column 2 messages of 2000 bytes
 *   w.3  a dup of MPI_COMM_WORLD, unnamed: world 0 sends 77 bytes to 7
 *   w.1.0  a dup of "rows": row rank 0 sends 64 bytes to row rank 1
 *   MPI_COMM_WORLD: rank r sends 500 bytes to (r + 3) % 8
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static char buf[4096];

static void ring(MPI_Comm c, int bytes, int msgs, int shift)
{
	int r, n;
	MPI_Comm_rank(c, &r);
	MPI_Comm_size(c, &n);
	int to = (r + shift) % n, from = (r - shift + n) % n;
	for (int i = 0; i < msgs; i++)
		MPI_Sendrecv(buf, bytes, MPI_BYTE, to, 1, buf + 2048, bytes, MPI_BYTE, from, 1, c, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size != 8) {
		if (rank == 0)
			fprintf(stderr, "commgrid: run with 8 ranks\n");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	MPI_Comm even, rows, cols, dup, rowdup;
	MPI_Comm_split(MPI_COMM_WORLD, rank % 2 ? MPI_UNDEFINED : 0, rank, &even);
	MPI_Comm_split(MPI_COMM_WORLD, rank / 2, rank, &rows);
	MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &cols);
	MPI_Comm_dup(MPI_COMM_WORLD, &dup);
	MPI_Comm_set_name(rows, "rows");
	MPI_Comm_set_name(cols, "cols");
	MPI_Comm_dup(rows, &rowdup);

	if (even != MPI_COMM_NULL) {
		int er;
		MPI_Comm_rank(even, &er);
		if (er == 0)
			MPI_Send(buf, 11, MPI_BYTE, 1, 2, even);
		else if (er == 1)
			MPI_Recv(buf, 11, MPI_BYTE, 0, 2, even, MPI_STATUS_IGNORE);
		MPI_Comm_free(&even);
	}
	ring(rows, 1000, 3, 1);
	ring(cols, 2000, 2, 1);
	if (rank == 0)
		MPI_Send(buf, 77, MPI_BYTE, 7, 3, dup);
	else if (rank == 7)
		MPI_Recv(buf, 77, MPI_BYTE, 0, 3, dup, MPI_STATUS_IGNORE);
	int rr;
	MPI_Comm_rank(rowdup, &rr);
	if (rr == 0)
		MPI_Send(buf, 64, MPI_BYTE, 1, 4, rowdup);
	else
		MPI_Recv(buf, 64, MPI_BYTE, 0, 4, rowdup, MPI_STATUS_IGNORE);
	ring(MPI_COMM_WORLD, 500, 1, 3);

	MPI_Comm_free(&rowdup);
	MPI_Comm_free(&dup);
	MPI_Comm_free(&cols);
	MPI_Comm_free(&rows);
	if (rank == 0)
		printf("commgrid ok\n");
	MPI_Finalize();
	return 0;
}
