// Package interpose holds latmap's MPI profiler: the PMPI interposition
// library (C, in interpose/c, built with mpicc into lib/liblatmap.so and
// loaded with LD_PRELOAD), the generator of its wrappers, and the pure-Go
// readers and writers of the profile directory it produces (meta.json,
// ranks.csv, functions.csv, matrix.csv, sizes.csv). Nothing here imports "C".
package interpose
