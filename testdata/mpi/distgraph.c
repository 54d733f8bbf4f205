/* distgraph.c: a weighted ring from MPI_Dist_graph_create_adjacent with
 * reorder = 1. Vertex i's neighbours are i-1 and i+1 (mod N); the edge
 * i - i+1 has weight W_i (the arguments, one a vertex, or "u" for
 * MPI_UNWEIGHTED with the same traffic; "graph" for the same ring from
 * MPI_Graph_create, unweighted; "dist" from MPI_Dist_graph_create, each
 * process giving its vertex's out-edges). ITERS steps: each vertex
 * exchanges weight x UNIT bytes with each neighbour (MPI_Sendrecv on the
 * new communicator). A vertex's data depend only on the vertex (its rank
 * in the new communicator), so the checksum is the same whatever
 * numbering MPI, treematch or latmap --reorder gives. Rank 0 prints
 * "checksum C", "time T" and "world_of_vertex W0 W1 ...".
 * Usage: distgraph ITERS UNIT W_0 ... W_{N-1} [u|graph|dist] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int n, wrank;
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
	if (argc < 3 + n) {
		fprintf(stderr, "usage: distgraph ITERS UNIT W_0 ... W_%d [u]\n", n - 1);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	int iters = atoi(argv[1]), unit = atoi(argv[2]);
	const char *mode = argc > 3 + n ? argv[3 + n] : "";
	int unweighted = !strcmp(mode, "u");
	int *w = malloc(sizeof(int) * (size_t)n);
	for (int i = 0; i < n; i++)
		w[i] = atoi(argv[3 + i]);
	/* This process specifies vertex wrank: neighbours left and right. */
	int left = (wrank + n - 1) % n, right = (wrank + 1) % n;
	int nb[2] = {left, right}, nw[2] = {w[left], w[wrank]};
	MPI_Comm g;
	if (!strcmp(mode, "graph")) {
		int *index = malloc(sizeof(int) * (size_t)n), *edges = malloc(sizeof(int) * (size_t)(2 * n));
		for (int i = 0; i < n; i++) {
			index[i] = 2 * (i + 1);
			edges[2 * i] = (i + n - 1) % n, edges[2 * i + 1] = (i + 1) % n;
		}
		MPI_Graph_create(MPI_COMM_WORLD, n, index, edges, 1, &g);
	} else if (!strcmp(mode, "dist")) {
		int deg = 2;
		MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &wrank, &deg, nb, nw, MPI_INFO_NULL, 1, &g);
	} else {
		MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, nb, unweighted ? MPI_UNWEIGHTED : nw, 2, nb, unweighted ? MPI_UNWEIGHTED : nw,
					       MPI_INFO_NULL, 1, &g);
	}
	int v;
	MPI_Comm_rank(g, &v);
	/* The graph's vertices are its ranks: vertex v's neighbours. */
	int out[2] = {(v + n - 1) % n, (v + 1) % n};
	int bytes[2] = {w[(v + n - 1) % n] * unit, w[v] * unit};
	int most = bytes[0] > bytes[1] ? bytes[0] : bytes[1];
	char *sb = malloc((size_t)most + 1), *rb = malloc((size_t)most + 1);
	memset(sb, (char)(1 + v * 5), (size_t)most + 1);
	long sum = 0;
	MPI_Barrier(g);
	double t = MPI_Wtime();
	/* A shift each way: to the right (out[1]) the edge v - v+1's bytes,
	 * from the left (out[0]) the edge v-1 - v's; then the other way. */
	for (int it = 0; it < iters; it++)
		for (int k = 0; k < 2; k++) {
			int to = out[1 - k], from = out[k], sbytes = bytes[1 - k], rbytes = bytes[k];
			MPI_Sendrecv(sb, sbytes, MPI_CHAR, to, k, rb, rbytes, MPI_CHAR, from, k, g, MPI_STATUS_IGNORE);
			for (int i = 0; i < rbytes; i += 4096)
				sum += rb[i];
		}
	MPI_Barrier(g);
	t = MPI_Wtime() - t;
	long total = 0;
	MPI_Reduce(&sum, &total, 1, MPI_LONG, MPI_SUM, 0, g);
	int *world = v == 0 ? malloc(sizeof(int) * (size_t)n) : NULL;
	MPI_Gather(&wrank, 1, MPI_INT, world, 1, MPI_INT, 0, g);
	if (v == 0) {
		printf("checksum %ld\ntime %.6f\nworld_of_vertex", total, t);
		for (int i = 0; i < n; i++)
			printf(" %d", world[i]);
		printf("\n");
	}
	MPI_Comm_free(&g);
	MPI_Finalize();
	return 0;
}
