/*
 * collectives.c: what the generated collective wrappers call after the
 * collective (lm_coll: its time, collective wait and bytes) and the
 * helpers of their byte expressions (LM_SUM, LM_SUMW, LM_MINE, LM_ROOT,
 * LM_INDEG, LM_OUTDEG of collectives.h). The hook before a collective, lm_coll_pre, is window.c's;
 * --collectives-in-matrix is collmatrix.c's.
 */
#include "collectives.h"

int64_t lm_sum(const int *counts, MPI_Comm comm)
{
	struct lm_comm *c = lm_comm_get(comm);
	int64_t s = 0;
	/* c->size is the remote group's size on an intercommunicator: the
	   size of the counts arrays there. */
	for (int i = 0; i < c->size; i++)
		s += counts[i];
	return s;
}

int64_t lm_sumw(const int *counts, const MPI_Datatype *types, MPI_Comm comm)
{
	struct lm_comm *c = lm_comm_get(comm);
	int64_t s = 0;
	for (int i = 0; i < c->size; i++)
		s += (int64_t)counts[i] * lm_tsize(types[i]);
	return s;
}

int lm_mine(const int *counts, MPI_Comm comm)
{
	return counts[lm_comm_get(comm)->rank];
}

/* The MPI-4 large-count (_c) forms of lm_sum and lm_mine. */
int64_t lm_sum_c(const MPI_Count *counts, MPI_Comm comm)
{
	struct lm_comm *c = lm_comm_get(comm);
	int64_t s = 0;
	for (int i = 0; i < c->size; i++)
		s += counts[i];
	return s;
}

int64_t lm_sumw_c(const MPI_Count *counts, const MPI_Datatype *types, MPI_Comm comm)
{
	struct lm_comm *c = lm_comm_get(comm);
	int64_t s = 0;
	for (int i = 0; i < c->size; i++)
		s += (int64_t)counts[i] * lm_tsize(types[i]);
	return s;
}

MPI_Count lm_mine_c(const MPI_Count *counts, MPI_Comm comm)
{
	return counts[lm_comm_get(comm)->rank];
}

int lm_is_root(int root, MPI_Comm comm)
{
	struct lm_comm *c = lm_comm_get(comm);
	if (c->inter)
		return root == MPI_ROOT;
	return root == c->rank;
}

int lm_degree(MPI_Comm comm, int in)
{
	int topo = MPI_UNDEFINED, n = 0;
	PMPI_Topo_test(comm, &topo);
	if (topo == MPI_CART) {
		PMPI_Cartdim_get(comm, &n);
		return 2 * n;
	}
	if (topo == MPI_GRAPH) {
		PMPI_Graph_neighbors_count(comm, lm_comm_get(comm)->rank, &n);
		return n;
	}
	if (topo == MPI_DIST_GRAPH) {
		int indeg = 0, outdeg = 0, w = 0;
		PMPI_Dist_graph_neighbors_count(comm, &indeg, &outdeg, &w);
		return in ? indeg : outdeg;
	}
	return 0;
}

void lm_coll(int id, uint64_t t0, uint64_t t1, uint64_t sync, int64_t sent, int64_t recv)
{
	struct lm_fnstat *f = &lm.fn[id];
	LM_LOCK();
	f->calls++;
	f->ticks += t1 - t0;
	f->sync += sync;
	f->bsent += sent;
	f->brecv += recv;
	f->rsent += sent > 0;
	f->rrecv += recv > 0;
	struct lm_bin *b = &lm.bins[id][lm_bin_of(sent > recv ? sent : recv)];
	b->calls++;
	b->ticks += t1 - t0;
	LM_UNLOCK();
}
