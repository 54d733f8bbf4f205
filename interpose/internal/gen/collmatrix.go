package main

// matrixHooks lists the collectives whose wrapper, with
// --collectives-in-matrix (lm.collmat), calls the hand-written hook
// lm_cm_<Name> of interpose/c/collmatrix.c with all its arguments (its
// declaration generated into collmatrix.gen.h); the hook adds the traffic
// of the collective's generic point-to-point equivalent to the rank's
// matrix rows. A collective not listed (MPI_Barrier,
// MPI_Ibarrier: no bytes) adds nothing.
var matrixHooks = map[string]bool{
	"Bcast": true, "Reduce": true, "Allreduce": true, "Reduce_scatter": true, "Reduce_scatter_block": true,
	"Scan": true, "Exscan": true, "Gather": true, "Gatherv": true, "Scatter": true, "Scatterv": true,
	"Allgather": true, "Allgatherv": true, "Alltoall": true, "Alltoallv": true, "Alltoallw": true,
	"Neighbor_allgather": true, "Neighbor_alltoall": true,
	"Ibcast": true, "Ireduce": true, "Iallreduce": true, "Ireduce_scatter": true, "Ireduce_scatter_block": true,
	"Iscan": true, "Iexscan": true, "Igather": true, "Igatherv": true, "Iscatter": true, "Iscatterv": true,
	"Iallgather": true, "Iallgatherv": true, "Ialltoall": true, "Ialltoallv": true, "Ialltoallw": true,
}
