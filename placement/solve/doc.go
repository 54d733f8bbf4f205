// Package solve finds a rank placement that minimises the model's
// predicted run (placement/model): a multilevel partition of the
// communication graph into node-sized parts and then sockets, node parts
// mapped onto nodes by a small QAP where node pairs cost differently
// (placement/qap), and pair-exchange refinement priced incrementally by
// model.Evaluator. Every start it is given stays a candidate, so the
// proposal is never predicted worse than block, cyclic or the current
// placement.
package solve
