// Package bench is latmap's MPI ping-pong survey: it measures the round-trip
// time between every pair of MPI ranks (circle-method rounds of disjoint
// pairs, or one pair at a time like mmpi), records where each rank ran, and
// writes a survey directory. The MPI calls sit behind the "mpi" build tag;
// without it the package builds and returns a clear error.
package bench
