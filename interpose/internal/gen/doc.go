// Command gen writes the PMPI wrappers of latmap's interposition library
// (interpose/c/wrappers.gen.c, interpose/c/fnids.gen.h, the declarations
// of the --collectives-in-matrix hooks in interpose/c/collmatrix.gen.h,
// the Fortran bindings in interpose/c/fortran.gen.c, and the list of
// wrapped functions for the Go side, mapper/profile/functions.gen.go) from the table
// of MPI prototypes in table.go. Run it through go generate in interpose/:
//
//	go generate ./interpose
//
// Each wrapper reads the clock, calls the PMPI function or a hand-written
// hook of interpose/c (declared in the header of its .c file) chosen by the function's
// kind, and accounts the call. The table is the single place that says what is wrapped.
package main
