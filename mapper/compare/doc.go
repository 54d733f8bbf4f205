// Package compare puts two surveys side by side: the layout the scheduler
// chose in each, the latencies per inferred level, and what neighbour
// (i, i+1) and halving (i, i+N/2) exchanges pay. plots draws the two
// surfaces; this package computes the numbers.
package compare
