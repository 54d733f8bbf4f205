package topo

import (
	"fmt"
	"math"

	"github.com/latmap/latmap/internal/stats"
	"github.com/latmap/latmap/mapper/survey"
)

// inferByNodes infers the topology of a sparse survey (see
// survey.Sparse) node by node, never
// holding a pair per rank pair: the levels inside a node come from a
// typical node, whose every pair of local ranks has the median over the
// nodes of the most common size; the levels between nodes from the node
// leaders' pairs, one rank per node. The nodes are the hosts, which is
// what the scope measured by. Pair counts are scaled from the typical
// node and the leaders.
func inferByNodes(s *survey.Survey, t *survey.PairTable, m survey.Metric, opt Options) (*Topology, error) {
	n := s.N()
	host, nh := survey.HostIndex(s.Ranks)
	members := make([][]int, nh)
	local := make([]int, n)
	for r, h := range host {
		local[r] = len(members[h])
		members[h] = append(members[h], r)
	}
	// The typical node: the most common number of ranks.
	count := map[int]int{}
	k, like := 0, 0
	for _, mb := range members {
		count[len(mb)]++
		if c := count[len(mb)]; c > like || (c == like && len(mb) > k) {
			k, like = len(mb), c
		}
	}
	vals := t.Values[m]
	acc := make([][]float64, survey.TriLen(k))
	t.Each(func(a, b, i int) {
		if v := vals[i]; v > 0 && host[a] == host[b] && len(members[host[a]]) == k {
			j := survey.TriIndex(k, local[a], local[b])
			acc[j] = append(acc[j], float64(v))
		}
	})
	opt.Size, opt.Metric = t.Size, m
	topo := &Topology{Metric: m.String(), SizeBytes: t.Size, NodeLevel: -1, HostsAgree: true}
	var inside *Topology
	if k >= 2 {
		sub := subSurvey(s, t.Size, m, members[firstOfSize(members, k)], func(i int) float32 {
			if len(acc[i]) == 0 {
				return float32(math.NaN())
			}
			return float32(stats.MedianInPlace(acc[i]))
		})
		var err error
		if inside, err = Infer(sub, opt); err != nil {
			return nil, fmt.Errorf("the typical node's levels: %w", err)
		}
	}
	var between *Topology
	if nh >= 2 {
		// The leaders are in host order, so leader h is host h.
		leaders, err := s.NodeLeaders()
		if err != nil {
			return nil, err
		}
		if between, err = Infer(leaders, opt); err != nil {
			return nil, fmt.Errorf("the node leaders' levels: %w", err)
		}
	}
	topo.combine(inside, between, host, local, k, like, nh)
	topo.setNodes(host, s.Ranks)
	topo.Notes = append(topo.Notes, fmt.Sprintf(
		"read node by node (%d ranks, scope %s): the levels inside a node are those of a typical node, "+
			"each pair of its %d local ranks the median over the %d nodes of %d ranks; the levels between nodes those of the %d node leaders' pairs; "+
			"the nodes are the hosts; pair counts are scaled from them",
		n, s.Meta.Scope, k, like, k, nh))
	if note := s.FillNote(); note != "" {
		topo.Notes = append(topo.Notes, note)
	}
	var err error
	if topo.Outliers, err = FindOutliers(s); err != nil {
		return nil, err
	}
	return topo, nil
}

// combine puts the typical node's levels (inside, nil for nodes of one
// rank) under the node leaders' ones (between, nil for one node): the
// first become the node's levels, the top one named node, the others the
// network's (switches, network), with pairs and groups scaled to all the
// ranks and every rank's group at every level.
func (topo *Topology) combine(inside, between *Topology, host, local []int, k, nodesOfK, nh int) {
	n := len(host)
	if inside != nil {
		for l, lv := range inside.Levels {
			if l == len(inside.Levels)-1 {
				lv.Name = LevelNode
			}
			lv.Pairs *= nodesOfK
			g := lv.Groups
			lv.Groups *= nh
			topo.Levels = append(topo.Levels, lv)
			grp := make([]int, n)
			for r := range grp {
				grp[r] = host[r]*g + inside.Group[l][local[r]%k]
			}
			topo.Group = append(topo.Group, grp)
		}
		topo.NodeLevel = len(topo.Levels) - 1
	}
	if between == nil {
		return
	}
	above := len(between.Levels)
	for l, lv := range between.Levels {
		switch {
		case l == above-1:
			lv.Name = LevelNetwork
		case above == 2:
			lv.Name = LevelSwitch
		default:
			lv.Name = fmt.Sprintf("%s%d", LevelSwitch, l+1)
		}
		lv.Pairs *= k * k
		topo.Levels = append(topo.Levels, lv)
		grp := make([]int, n)
		for r := range grp {
			grp[r] = between.Group[l][host[r]]
		}
		topo.Group = append(topo.Group, grp)
	}
}

// firstOfSize is the index of the first node with k ranks.
func firstOfSize(members [][]int, k int) int {
	for h, mb := range members {
		if len(mb) == k {
			return h
		}
	}
	return 0
}

// subSurvey is a dense survey of the given ranks of s, renumbered 0..,
// whose pair i (in the packed triangle of len(ranks)) has metric m value
// val(i) at the given size.
func subSurvey(s *survey.Survey, size int, m survey.Metric, ranks []int, val func(i int) float32) *survey.Survey {
	k := len(ranks)
	sub := &survey.Survey{Meta: s.Meta, Ranks: make([]survey.Rank, k)}
	sub.Meta.Scope, sub.Meta.Ranks = survey.ScopeAll, k
	for i, r := range ranks {
		sub.Ranks[i] = s.Ranks[r]
		sub.Ranks[i].Rank = i
	}
	t := survey.NewPairTable(k, size, m)
	for i := range t.Samples {
		if v := val(i); v == v {
			t.Values[m][i] = v
			t.Samples[i] = 1
		}
	}
	sub.Tables = []*survey.PairTable{t}
	return sub
}
