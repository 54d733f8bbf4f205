// Package shapes generates the communication patterns of real
// applications (stencils, rings, all-to-all, master-worker, random sparse)
// with fixed seeds, for the placement tests and benchmarks.
package shapes
