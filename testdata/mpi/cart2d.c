/* cart2d.c: a 2-D Cartesian grid made with MPI_Cart_create(reorder = 1)
 * whose halos along the second dimension are larger than along the
 * first: ITERS steps, each exchanging BIG bytes with both neighbours
 * along dimension 1 (grid ranks r and r+1) and SMALL bytes along
 * dimension 0 (non-periodic), on
 * the Cartesian communicator. Each rank's data depend only on its grid
 * coordinates, so the checksum is the same whatever numbering MPI (or
 * latmap --reorder) gives the processes. Rank 0 of the grid prints
 * "checksum C", "time T" (seconds of the exchanges) and, on one line
 * "world_of_cart W0 W1 ...", which world rank each grid rank is. With a
 * sixth argument "sub" it first makes a 1 x K grid (reorder = 1) over
 * the first half of the world's ranks (a subset, K of them) and frees it:
 * two reordered calls in one run. With "plain" instead, the grid is made
 * with reorder = 0 (grid rank r is world rank r: latmap profile --remap's
 * check).
 * Usage: cart2d D0 D1 ITERS BIG SMALL [sub|plain] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void exchange(MPI_Comm cart, int dim, char *out, char *in, int bytes, long *sum)
{
	int lo, hi;
	MPI_Cart_shift(cart, dim, 1, &lo, &hi);
	for (int side = 0; side < 2; side++) {
		int to = side ? lo : hi, from = side ? hi : lo;
		MPI_Sendrecv(out, bytes, MPI_CHAR, to, dim, in, bytes, MPI_CHAR, from, dim, cart, MPI_STATUS_IGNORE);
		if (from != MPI_PROC_NULL)
			for (int i = 0; i < bytes; i += 4096)
				*sum += in[i];
	}
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	if (argc < 6) {
		fprintf(stderr, "usage: cart2d D0 D1 ITERS BIG SMALL\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	int dims[2] = {atoi(argv[1]), atoi(argv[2])}, periods[2] = {0, 0};
	int iters = atoi(argv[3]), big = atoi(argv[4]), small = atoi(argv[5]);
	MPI_Comm cart;
	if (argc > 6 && !strcmp(argv[6], "sub")) {
		int w, n;
		MPI_Comm half, sub;
		MPI_Comm_rank(MPI_COMM_WORLD, &w);
		MPI_Comm_size(MPI_COMM_WORLD, &n);
		MPI_Comm_split(MPI_COMM_WORLD, w < n / 2 ? 0 : MPI_UNDEFINED, w, &half);
		if (half != MPI_COMM_NULL) {
			int sd[2] = {1, n / 2}, sp[2] = {0, 0};
			MPI_Cart_create(half, 2, sd, sp, 1, &sub);
			MPI_Comm_free(&sub);
			MPI_Comm_free(&half);
		}
	}
	int reorder = !(argc > 6 && !strcmp(argv[6], "plain"));
	MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, reorder, &cart);
	int rank, size, wrank, coords[2];
	MPI_Comm_rank(cart, &rank);
	MPI_Comm_size(cart, &size);
	MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
	MPI_Cart_coords(cart, rank, 2, coords);
	char *out = malloc((size_t)big), *in = malloc((size_t)big);
	memset(out, (char)(1 + coords[0] * 7 + coords[1] * 3), (size_t)big);
	long sum = 0;
	MPI_Barrier(cart);
	double t = MPI_Wtime();
	for (int it = 0; it < iters; it++) {
		exchange(cart, 1, out, in, big, &sum);
		exchange(cart, 0, out, in, small, &sum);
	}
	MPI_Barrier(cart);
	t = MPI_Wtime() - t;
	long total = 0;
	MPI_Reduce(&sum, &total, 1, MPI_LONG, MPI_SUM, 0, cart);
	int *world = rank == 0 ? malloc(sizeof(int) * (size_t)size) : NULL;
	MPI_Gather(&wrank, 1, MPI_INT, world, 1, MPI_INT, 0, cart);
	if (rank == 0) {
		printf("checksum %ld\ntime %.6f\nworld_of_cart", total, t);
		for (int i = 0; i < size; i++)
			printf(" %d", world[i]);
		printf("\n");
	}
	MPI_Comm_free(&cart);
	MPI_Finalize();
	return 0;
}
