// Package rounds prices a profile's small collectives by their rounds: a
// barrier, or an allreduce, reduce or broadcast of a few KiB, takes
// ceil(log2 n) rounds of one message between partners 1, 2, 4, ...
// ranks apart, whatever the MPI library's algorithm (dissemination,
// recursive doubling, binomial trees), and a round lasts as long as its
// slowest message: the survey's latency of its pair of slots, which the
// layout sets. The matrix does not hold them (an interposer sees the
// collective call, not the library's messages), so without this their
// time was folded into the calibration factors of the point-to-point
// traffic, or lost.
package rounds
