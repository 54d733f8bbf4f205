// Package journal keeps each rank's round trips of a survey in a file of
// its own as they are measured, so that what was measured outlives the
// job: mpirun kills the ranks a second after passing a signal on (Open
// MPI 5 has no setting to wait longer), Slurm after KillWait, and MPI
// ends the whole job when one rank dies. A rank's file is a header line
// (JSON: who it is, where it ran, what it measures) and then records of
// the round trips measured since the last (every pair's, at one size),
// each appended with one write(2) at most every Every: the kernel keeps
// what was written whatever happens to the process afterwards. A record
// cut short by the kill is ignored when the journal is read.
package journal
