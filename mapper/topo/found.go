package topo

import (
	"github.com/latmap/latmap/mapper/network"
	"github.com/latmap/latmap/mapper/survey"
)

// noteFound notes the network found in survey s's round trips
// (network.Discover, the one latmap place prices where none is
// declared): a direct network between the nodes, the dragonfly whose
// routes they follow, or a graph of routers. A tree of switches is in
// the levels already, unless the round trips fit links between routers
// that miscount their hops (network.Network.Links) or its routers are
// far apart (network.Network.Far); a survey that cannot
// be read so says nothing here.
func (topo *Topology) noteFound(s *survey.Survey) {
	in, err := network.FromSurvey(s)
	if err != nil {
		return
	}
	if n := network.Discover(in); n.Kind != network.KindTree || n.Links != nil || n.Far != "" {
		if d := n.Describe(); d != "" {
			topo.Notes = append(topo.Notes, d)
		}
	}
}
