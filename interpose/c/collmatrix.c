/*
 * collmatrix.c: --collectives-in-matrix (LATMAP_COLLMATRIX=1). Each hook is
 * called by a collective's wrapper, after the call (a nonblocking
 * collective at its initiation), and adds to lm.collto the messages THIS
 * rank sends in the collective's generic point-to-point equivalent: linear
 * algorithms, with Allreduce and Reduce_scatter(_block) as a reduce to comm
 * rank 0 followed by a broadcast or scatter from it, and Scan/Exscan as the
 * chain i -> i+1. A message to itself and a message of 0 bytes are not
 * counted (so MPI_Barrier adds nothing). Each rank adds only what it sends,
 * so the matrix stays consistent and the gather at MPI_Finalize stays
 * proportional to the non-zeros. docs/profile.md lists the equivalents.
 */
#include "collmatrix.gen.h"
#include "collectives.h"
#include "commtab.h"
#include "pairs.h"

#include <stdlib.h>

/* to adds one message of bytes from this rank to comm rank r of c. */
static void to(struct lm_comm *c, int r, int64_t bytes)
{
	if (bytes <= 0 || r == c->rank || r < 0 || r >= c->size)
		return;
	LM_LOCK();
	lm_pair_add(&lm.collto, c->world ? c->world[r] : r, bytes, 0, 0);
	LM_UNLOCK();
}

/* comm returns the table of an intracommunicator, NULL for an
 * intercommunicator (not in the matrix; reported in meta.json). */
static struct lm_comm *comm(MPI_Comm cm)
{
	struct lm_comm *c = lm_comm_get(cm);
	if (c->inter) {
		lm.cm_inter = 1;
		return NULL;
	}
	return c;
}

/* root_to_all: the root sends bytes to every other member. */
static void root_to_all(MPI_Comm cm, int root, int64_t bytes)
{
	struct lm_comm *c = comm(cm);
	if (!c || c->rank != root)
		return;
	for (int i = 0; i < c->size; i++)
		to(c, i, bytes);
}

/* all_to_root: every member but the root sends bytes to the root. */
static void all_to_root(MPI_Comm cm, int root, int64_t bytes)
{
	struct lm_comm *c = comm(cm);
	if (c)
		to(c, root, bytes);
}

/* all_to_all: every member sends bytes to every other member. */
static void all_to_all(MPI_Comm cm, int64_t bytes)
{
	struct lm_comm *c = comm(cm);
	if (!c)
		return;
	for (int i = 0; i < c->size; i++)
		to(c, i, bytes);
}

static void chain(MPI_Comm cm, int64_t bytes)
{
	struct lm_comm *c = comm(cm);
	if (c)
		to(c, c->rank + 1, bytes);
}

/* reduce_scatter: the whole vector (total bytes) to comm rank 0, which
 * sends each member its block. */
static void reduce_scatter(MPI_Comm cm, const int *counts, int block, MPI_Datatype dt)
{
	struct lm_comm *c = comm(cm);
	if (!c)
		return;
	int64_t t = lm_tsize(dt), total = 0;
	for (int i = 0; i < c->size; i++)
		total += counts ? counts[i] : block;
	to(c, 0, total * t);
	if (c->rank == 0)
		for (int i = 1; i < c->size; i++)
			to(c, i, (int64_t)(counts ? counts[i] : block) * t);
}

/* neighbors: bytes to each out-neighbor of a process topology. */
static void neighbors(MPI_Comm cm, int64_t bytes)
{
	struct lm_comm *c = comm(cm);
	int topo = MPI_UNDEFINED;
	if (!c)
		return;
	PMPI_Topo_test(cm, &topo);
	if (topo == MPI_CART) {
		int nd = 0;
		PMPI_Cartdim_get(cm, &nd);
		for (int d = 0; d < nd; d++) {
			int lo, hi;
			PMPI_Cart_shift(cm, d, 1, &lo, &hi);
			if (lo != MPI_PROC_NULL)
				to(c, lo, bytes);
			if (hi != MPI_PROC_NULL)
				to(c, hi, bytes);
		}
		return;
	}
	int n = 0, in = 0, w = 0;
	if (topo == MPI_GRAPH)
		PMPI_Graph_neighbors_count(cm, c->rank, &n);
	else if (topo == MPI_DIST_GRAPH)
		PMPI_Dist_graph_neighbors_count(cm, &in, &n, &w);
	if (n <= 0)
		return;
	/* neighbor lists and weights (the weights are asked for and ignored) */
	int m = in > 0 ? in : 1;
	int *nb = malloc(sizeof(int) * (size_t)n * 2), *src = malloc(sizeof(int) * (size_t)m * 2);
	if (nb && src) {
		if (topo == MPI_GRAPH)
			PMPI_Graph_neighbors(cm, c->rank, n, nb);
		else
			PMPI_Dist_graph_neighbors(cm, in, src, src + m, n, nb, nb + n);
		for (int i = 0; i < n; i++)
			to(c, nb[i], bytes);
	}
	free(nb);
	free(src);
}

/* block returns the bytes of this rank's block of an (all)gather/alltoall. */
static int64_t block(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int recvcount, MPI_Datatype recvtype)
{
	if (LM_INPLACE(sendbuf))
		return (int64_t)recvcount * lm_tsize(recvtype);
	return (int64_t)sendcount * lm_tsize(sendtype);
}

static void alltoallv(const void *sendbuf, const int *sendcounts, MPI_Datatype sendtype, const MPI_Datatype *sendtypes,
		      const int *recvcounts, MPI_Datatype recvtype, const MPI_Datatype *recvtypes, MPI_Comm cm)
{
	struct lm_comm *c = comm(cm);
	if (!c)
		return;
	int inplace = LM_INPLACE(sendbuf);
	const int *n = inplace ? recvcounts : sendcounts;
	for (int i = 0; i < c->size; i++) {
		MPI_Datatype t = inplace ? (recvtypes ? recvtypes[i] : recvtype) : (sendtypes ? sendtypes[i] : sendtype);
		to(c, i, (int64_t)n[i] * lm_tsize(t));
	}
}

static void scatterv(const int *sendcounts, MPI_Datatype sendtype, int root, MPI_Comm cm)
{
	struct lm_comm *c = comm(cm);
	if (!c || c->rank != root)
		return;
	int64_t t = lm_tsize(sendtype);
	for (int i = 0; i < c->size; i++)
		to(c, i, (int64_t)sendcounts[i] * t);
}

static void allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, const int *recvcounts,
		       MPI_Datatype recvtype, MPI_Comm cm)
{
	struct lm_comm *c = comm(cm);
	if (!c)
		return;
	int64_t b = LM_INPLACE(sendbuf) ? (int64_t)recvcounts[c->rank] * lm_tsize(recvtype)
				      : (int64_t)sendcount * lm_tsize(sendtype);
	for (int i = 0; i < c->size; i++)
		to(c, i, b);
}

/* allreduce: a reduce to comm rank 0, then a broadcast from it. */
static void allreduce(int count, MPI_Datatype dt, MPI_Comm cm)
{
	int64_t b = (int64_t)count * lm_tsize(dt);
	all_to_root(cm, 0, b);
	root_to_all(cm, 0, b);
}

/* ------------------------------------------------------------ the hooks */

void lm_cm_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
	root_to_all(comm, root, (int64_t)count * lm_tsize(datatype));
}

void lm_cm_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm)
{
	all_to_root(comm, root, (int64_t)count * lm_tsize(datatype));
}

void lm_cm_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
	allreduce(count, datatype, comm);
}

void lm_cm_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
	reduce_scatter(comm, recvcounts, 0, datatype);
}

void lm_cm_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
	reduce_scatter(comm, NULL, recvcount, datatype);
}

void lm_cm_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
	chain(comm, (int64_t)count * lm_tsize(datatype));
}

void lm_cm_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
	chain(comm, (int64_t)count * lm_tsize(datatype));
}

void lm_cm_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
	all_to_root(comm, root, (int64_t)sendcount * lm_tsize(sendtype));
}

void lm_cm_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm)
{
	all_to_root(comm, root, (int64_t)sendcount * lm_tsize(sendtype));
}

void lm_cm_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
	root_to_all(comm, root, (int64_t)sendcount * lm_tsize(sendtype));
}

void lm_cm_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
	scatterv(sendcounts, sendtype, root, comm);
}

void lm_cm_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
	all_to_all(comm, block(sendbuf, sendcount, sendtype, recvcount, recvtype));
}

void lm_cm_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
	allgatherv(sendbuf, sendcount, sendtype, recvcounts, recvtype, comm);
}

void lm_cm_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
	all_to_all(comm, block(sendbuf, sendcount, sendtype, recvcount, recvtype));
}

void lm_cm_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
	alltoallv(sendbuf, sendcounts, sendtype, NULL, recvcounts, recvtype, NULL, comm);
}

void lm_cm_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
	alltoallv(sendbuf, sendcounts, MPI_DATATYPE_NULL, sendtypes, recvcounts, MPI_DATATYPE_NULL, recvtypes, comm);
}

void lm_cm_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
	neighbors(comm, (int64_t)sendcount * lm_tsize(sendtype));
}

void lm_cm_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
	neighbors(comm, (int64_t)sendcount * lm_tsize(sendtype));
}

/* Nonblocking collectives: the same traffic, at their initiation. */

void lm_cm_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request *request)
{
	lm_cm_Bcast(buffer, count, datatype, root, comm);
}

void lm_cm_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, MPI_Request *request)
{
	lm_cm_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
}

void lm_cm_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
	allreduce(count, datatype, comm);
}

void lm_cm_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
	reduce_scatter(comm, recvcounts, 0, datatype);
}

void lm_cm_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
	reduce_scatter(comm, NULL, recvcount, datatype);
}

void lm_cm_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
	chain(comm, (int64_t)count * lm_tsize(datatype));
}

void lm_cm_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
	chain(comm, (int64_t)count * lm_tsize(datatype));
}

void lm_cm_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
	all_to_root(comm, root, (int64_t)sendcount * lm_tsize(sendtype));
}

void lm_cm_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
	all_to_root(comm, root, (int64_t)sendcount * lm_tsize(sendtype));
}

void lm_cm_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
	root_to_all(comm, root, (int64_t)sendcount * lm_tsize(sendtype));
}

void lm_cm_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
	scatterv(sendcounts, sendtype, root, comm);
}

void lm_cm_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
	all_to_all(comm, block(sendbuf, sendcount, sendtype, recvcount, recvtype));
}

void lm_cm_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
	allgatherv(sendbuf, sendcount, sendtype, recvcounts, recvtype, comm);
}

void lm_cm_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
	all_to_all(comm, block(sendbuf, sendcount, sendtype, recvcount, recvtype));
}

void lm_cm_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
	alltoallv(sendbuf, sendcounts, sendtype, NULL, recvcounts, recvtype, NULL, comm);
}

void lm_cm_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request)
{
	alltoallv(sendbuf, sendcounts, MPI_DATATYPE_NULL, sendtypes, recvcounts, MPI_DATATYPE_NULL, recvtypes, comm);
}
