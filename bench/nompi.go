//go:build !mpi

package bench

import "context"

// Built reports whether this binary can run surveys (it was built with MPI).
const Built = false

func runMPI(context.Context, Options, string) error { return ErrNoMPI }
