// Package fanout plans latmap survey's node fan-out steps and turns their
// times into nodebw.csv's fan-out rows. A node of a fat tree or a
// dragonfly has one link to its switch or router: what its ranks send to
// several nodes at once shares it. A node of a torus (or one with several
// adapters) drives a link per direction: its ranks sending to different
// neighbours do not share. The node bandwidth phase cannot tell the two
// apart (every step sends a node's ranks to one node), so after the pairs
// are measured a few sampled hosts each, alone, send from all their ranks
// first to their nearest host, then one rank to each of their nearest
// hosts (a host of one rank: that rank to OneRankPeers of them at once):
// the second rate over the first is how many links' worth the node
// drives at once (placement/model's ports).
package fanout
