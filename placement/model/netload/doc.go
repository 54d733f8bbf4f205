// Package netload is the routed model's incremental state: each link's
// load, the links each rank's flows cross, and each rank's longest link
// time, kept as the solver exchanges ranks (model.Evaluator).
package netload
