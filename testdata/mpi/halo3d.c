/* halo3d.c: a 3-D periodic halo exchange on an X x Y x Z MPI_Cart_create
 * grid (no reordering): each iteration every rank posts MPI_Irecv from and
 * MPI_Isend to both neighbours in each dimension, then one MPI_Waitall.
 * Faces in dimension d carry (d+1)*100 doubles.
 * Usage: halo3d X Y Z ITER (run on X*Y*Z ranks). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	if (argc < 5) {
		fprintf(stderr, "usage: halo3d X Y Z ITER\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	int dims[3] = {atoi(argv[1]), atoi(argv[2]), atoi(argv[3])}, periods[3] = {1, 1, 1};
	int iter = atoi(argv[4]), rank;
	MPI_Comm cart;
	MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &cart);
	MPI_Comm_rank(cart, &rank);
	double *out[6], *in[6];
	for (int k = 0; k < 6; k++) {
		out[k] = calloc(300, sizeof(double));
		in[k] = calloc(300, sizeof(double));
	}
	double sum = 0;
	for (int it = 0; it < iter; it++) {
		MPI_Request r[12];
		int n = 0;
		for (int d = 0; d < 3; d++) {
			int lo, hi, cnt = (d + 1) * 100;
			MPI_Cart_shift(cart, d, 1, &lo, &hi);
			out[2 * d][0] = out[2 * d + 1][0] = rank + it;
			/* tag 2d: travels up; tag 2d+1: travels down */
			MPI_Irecv(in[2 * d], cnt, MPI_DOUBLE, lo, 2 * d, cart, &r[n++]);
			MPI_Irecv(in[2 * d + 1], cnt, MPI_DOUBLE, hi, 2 * d + 1, cart, &r[n++]);
			MPI_Isend(out[2 * d], cnt, MPI_DOUBLE, hi, 2 * d, cart, &r[n++]);
			MPI_Isend(out[2 * d + 1], cnt, MPI_DOUBLE, lo, 2 * d + 1, cart, &r[n++]);
		}
		MPI_Waitall(n, r, MPI_STATUSES_IGNORE);
		for (int k = 0; k < 6; k++)
			sum += in[k][0];
	}
	printf("rank %d sum %.0f\n", rank, sum);
	MPI_Comm_free(&cart);
	MPI_Finalize();
	return 0;
}
