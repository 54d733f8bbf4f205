// Package roundtrip is the statistics of one pair's round trips, as a
// survey's pairs.csv and an mmpi log give them: the survey's ranks
// compute them at the end, and a killed survey's journals (bench/journal)
// from what the ranks kept.
package roundtrip
