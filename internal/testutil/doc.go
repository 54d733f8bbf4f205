// Package testutil finds what latmap's end-to-end tests need (the built
// bin/latmap and lib/liblatmap.so, Open MPI's mpirun and mpicc; for MPICH
// bin/latmap-mpich, lib/liblatmap-mpich.so, mpiexec.hydra and mpicc.mpich)
// and skips a test with a stated reason when something is missing. Record
// keeps the figures a test asserted for docs/validation.md (make
// validation).
package testutil
