// Package fabric is the network between a cluster's nodes as links and
// routes: each node's adapters, the switches or routers, directed links
// with a bandwidth and a latency, and the routing function of the
// network's kind (up/down over a tree with its parallel uplinks shared,
// dimension order on a torus, minimal local-global-local on a
// dragonfly). It reads the descriptions sites and simulators already
// have: SimGrid platform files (clusters of kind FAT_TREE, TORUS and
// DRAGONFLY), Slurm's topology.conf and topology.yaml, and a plain
// description of tori and dragonflies by each host's coordinates. It
// knows nothing of surveys, profiles or placements.
package fabric
