// Package factors fits per-level factors to a measured run: measured
// communication ~ the longer of a x on-node and b x off-node time of the
// model (the two overlap: Overlap), by rank,
// on the ranks that set the run, and judges the fit out of sample
// (placement/model's Calibrate folds them into the model).
package factors
