package bench

import (
	"context"
	"errors"
	"os"

	"github.com/latmap/latmap/internal/launcher"
)

// ErrNoMPI is returned by Run in a binary built without MPI.
var ErrNoMPI = errors.New("latmap was built without MPI; run make build")

// Run runs the survey on every rank of the MPI job this process belongs to:
// it checks the options and the launcher before touching MPI, initialises
// MPI, measures every pair, gathers the results at rank 0 and writes there
// the survey directory (and the mmpi log when asked). Call it from the main
// goroutine of an MPI-enabled binary (make build); a binary built without
// MPI returns an error saying so.
//
// Errors that every rank shares (invalid options, an existing output
// directory, one rank only) are returned by rank 0; the other ranks then
// return nil, so that the job prints the message once and still exits
// non-zero.
func Run(ctx context.Context, opt Options) error {
	if err := opt.Validate(); err != nil {
		return rootOnly(err)
	}
	name, size, lerr := DetectLauncher(os.Getenv)
	if launcher.RankInEnv(os.Getenv) <= 0 {
		if lerr != nil {
			size = -1
		}
		// A launcher that does not end the job when a rank exits
		// before MPI_Init would leave the others waiting in it: there
		// rank 0 says the same once MPI is up (measure's checks).
		if err := checkBeforeMPI(&opt, size); err != nil && (lerr != nil || !Built || endsJobOnExit(name)) {
			return err
		}
	}
	if !Built {
		return rootOnly(ErrNoMPI)
	}
	if lerr != nil {
		return rootOnly(lerr)
	}
	return runMPI(ctx, opt, name)
}

// rootOnly returns err on rank 0 (or when the rank is unknown) and nil on
// the other ranks of a job.
func rootOnly(err error) error {
	if launcher.RankInEnv(os.Getenv) > 0 {
		return nil
	}
	return err
}
