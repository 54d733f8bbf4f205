// Package sweepcurve is the size sweep's curve (sweep.csv, mapper/survey/sweep):
// a survey timed a few pairs at every size from 64 bytes up in steps of
// two. A pair's cost L + s/B is the line through the survey's own sizes;
// an MPI library is not a line between them (its eager and rendezvous
// protocols, its copy paths and the fabric's packets change with the
// size), so a message between them may take more or less. A Curve is,
// for each kind of pair (one socket, one node, two nodes), the sweep's
// time at each size over the line's, divided by the same ratio at the
// survey's sizes: 1 at the survey's sizes, where the all-pairs
// measurements stand, and the sweep's shape between and beyond them.
// Its wire factor (Wire) is the sweep's cost of a further byte at a size
// over the line's: how much longer a message's bytes keep a shared link
// busy.
package sweepcurve
