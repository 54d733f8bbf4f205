/*
 * reorder.h: latmap profile --reorder (reorder.c): the topology
 * constructors renumbered by latmap's model, and where a process runs.
 */
#ifndef LATMAP_REORDER_H
#define LATMAP_REORDER_H

#include <mpi.h>

#define LM_HOSTLEN 256 /* as output.c keeps it: a host name of Linux's full 64 bytes fits */

/* lm_slot is where a process runs: its host and the one cpu it is bound
 * to (-1 when it is not bound to exactly one); lm_my_slot is this
 * process's. */
struct lm_slot {
	char host[LM_HOSTLEN];
	int cpu;
};
struct lm_slot lm_my_slot(void);

/* lm_reorder_note appends a line about a renumbered call (call, its
 * index, ranks, outcome: NULL for renumbered, the predicted speedup, the
 * new rank of each old one) to reorders.tsv of the raw profile. */
void lm_reorder_note(const char *call, int k, int n, const char *why, double speedup, const int nw[]);

/* The topology constructors' calls under latmap profile --reorder: the
 * processes renumbered by latmap's model, or MPI's own. */
int lm_cart_create(MPI_Comm old, int ndims, const int dims[], const int periods[], int reorder, MPI_Comm *cart);
int lm_dist_graph_create_adjacent(MPI_Comm old, int indeg, const int src[], const int sw[], int outdeg, const int dst[], const int dw[], MPI_Info info, int reorder, MPI_Comm *comm);
int lm_graph_create(MPI_Comm old, int nnodes, const int index[], const int edges[], int reorder, MPI_Comm *comm);
int lm_dist_graph_create(MPI_Comm old, int n, const int nodes[], const int degrees[], const int targets[], const int weights[], MPI_Info info, int reorder, MPI_Comm *comm);

#endif
