// Package sizesweep is the survey's size sweep phase (sweep.csv, see
// mapper/survey/sweep): after the pairs, rank 0 times a few pairs of its
// own, one of each kind the survey has, at every size from 64 bytes to
// the survey's largest (at least 1 MiB) in steps of two, one pair at a
// time while the other ranks sleep in a barrier.
package sizesweep
