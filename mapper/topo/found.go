package topo

import (
	"fmt"

	"github.com/latmap/latmap/mapper/fabric"
	"github.com/latmap/latmap/mapper/network"
	"github.com/latmap/latmap/mapper/survey"
)

// noteFound notes the network found in survey s's round trips
// (network.Discover, the one latmap place prices where none is
// declared): a direct network between the nodes, the dragonfly whose
// routes they follow, or a graph of routers. A tree of switches is in
// the levels already, unless the round trips fit links between routers
// that miscount their hops (network.Network.Links) or its routers are
// far apart (network.Network.Far), and then the links its probe of
// flows at once found shared (ProbeShared); a survey that cannot be read
// so says nothing here.
func (topo *Topology) noteFound(s *survey.Survey) {
	in, err := network.FromSurvey(s)
	if err != nil {
		return
	}
	n := network.Discover(in)
	if n.Kind != network.KindTree || n.Links != nil || n.Far != "" {
		if d := n.Describe(); d != "" {
			topo.Notes = append(topo.Notes, d)
		}
	}
	if sl := ProbeShared(s); n.Far != "" && sl != nil && sl.Links > 0 {
		topo.Notes = append(topo.Notes, fmt.Sprintf("links found shared: the survey's probe of flows at once found %d pairs of "+
			"classes of flows (a router to a host) slowing each other, as %d links they share; latmap place prices those "+
			"(routing: %s), and each run's range on the switch tree, the routers alone and the links above too",
			sl.Pairs, sl.Links, fabric.RoutesShared))
	}
}
