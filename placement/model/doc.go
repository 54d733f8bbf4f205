// Package model is latmap's machine model and its costs: slots and the
// hierarchy levels between them (socket, node, any number of shared levels
// above the node) priced from a survey (latency, fit.csv bandwidth), the
// contention of ranks that share a node's link and memory (nodebw.csv),
// the application's traffic as a graph, the predicted run of a placement
// (the slowest rank's fixed time plus its modelled communication), the
// calibration against a profiled run, and the choice of usable slots.
// It reads the model's directories (mapper/...) and knows nothing of
// solvers, files or reports.
package model
