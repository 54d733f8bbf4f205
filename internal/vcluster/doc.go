// Package vcluster builds a small MPI cluster inside one machine for tests:
// each node is a network namespace with its own host name (a UTS namespace
// entered per command), joined to the others by veth pairs on a bridge, and
// Open MPI starts its daemons there through an rsh agent script. Ranks on one
// node talk through shared memory, ranks on different nodes through TCP over
// the veths: a real two-level hierarchy (see DESIGN.md, "The test cluster on
// one machine"). Options.Routed puts a network of routers between the
// nodes instead: each router a namespace that forwards by its own table
// over point-to-point links (Routed, TwoSpines).
//
// Creating namespaces needs root; Start skips the test with the reason when
// that or a tool is missing.
package vcluster
