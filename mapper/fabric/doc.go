// Package fabric is the network between a cluster's nodes as links and
// routes: each node's adapters, the switches or routers, directed links
// with a bandwidth and a latency, and the route between any two hosts.
// Every network is a graph routed one of three ways, which Fabric.Routing
// names: by rule (up/down over a tree with its parallel uplinks shared,
// d-mod-k over a fat tree, dimension order on a torus, minimal
// local-global-local on a dragonfly: the generated kinds), by the
// switches' forwarding tables, or by shortest paths, one a pair or a
// message spread over all of them (NewGraph). It reads the descriptions
// sites and simulators already have (docs/fabrics.md): SimGrid platform
// files (a cluster of kind FAT_TREE, TORUS or DRAGONFLY, or a zone of
// hosts, routers and links), ibnetdiscover's output with the switches'
// forwarding tables (ibroute) and a map of GUIDs to hosts, a Cray XC's
// wiring list, Slurm's topology.conf and topology.yaml, a plain
// description of tori and dragonflies by each host's coordinates, and a
// list of links. A fabric larger than a job is indexed by the job's
// hosts alone with Restrict. It knows nothing of surveys, profiles or
// placements.
package fabric
