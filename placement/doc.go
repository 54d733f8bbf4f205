// Package placement proposes a rank-to-slot mapping from a latency survey
// (how fast each pair of slots can talk) and a communication profile (how
// much each pair of ranks talks): cost model, solver, predicted gains and the
// launcher files (Open MPI rankfile, MPICH machine file, Slurm hostfile, Cray
// rank order).
package placement
