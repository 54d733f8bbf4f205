// Package exitcode is latmap's exit statuses, the same for every
// command, so that a batch script can branch on what happened: done,
// refused before anything started, ran with nothing to act on, or the
// MPI job failed. Errors carry their status (With); an error without one
// is a usage or input error, found before any launch or file written.
package exitcode
