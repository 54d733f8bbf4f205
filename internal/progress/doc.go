// Package progress is latmap survey's progress line on rank 0: where the
// survey is (size, phase, pass, round), how far, and about how long is
// left.
package progress
