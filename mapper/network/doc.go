// Package network finds the network a job's nodes hang off in a
// survey's round trips: Discover takes what the survey measured between
// its hosts (FromSurvey) and names one network, with the evidence for
// it, in a fixed order: a direct network between the nodes where each
// node drives several links at once (FindDirect); else the dragonfly
// whose routes the round trips follow (FitDragonfly); else a graph of
// routers, the innermost switch level's groups or the nodes themselves
// (FindDirect); else the survey's switch levels, a tree. latmap place
// prices what it finds and latmap topo names it, both from this one
// call, so they always name the same network.
//
// Descriptions of networks and their routing are mapper/fabric's; the
// pricing of links and routes is placement/model's.
package network
