// Package topo infers a machine's hierarchy (cores, sockets, nodes,
// switches) and the scheduler's layout (block, cyclic, irregular,
// one-per-node) from a survey's latencies: average-linkage clustering of
// ranks on their rows of the latency matrix (rowprofile.go), cut into
// levels where the merge heights jump. Host names are used only to check
// the result, or to decide when the latencies show a single level.
package topo
