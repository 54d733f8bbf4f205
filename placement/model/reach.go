package model

// Reach screens exchanges of whole nodes before they are priced. An
// exchange of the ranks of nodes A with those of nodes B re-prices only
// what it touches: A and B, the nodes of their ranks' peers, the switch
// groups of those nodes, and the ranks whose flows cross a link a moved
// rank's flow leaves. Anything else keeps its value, or (a rank bound by
// a link that only gains flows) cannot lose any. So each node, switch
// group or rank now slower than the run an exchange must reach (a hot
// item) names the nodes B must include to lower it, and an exchange
// whose B misses one of them is sure not to reach that run: on 4,096
// nodes of 4 ranks the solver priced every node against the slowest
// rank's, 4,095 exchanges, none of them kept.
//
// The screen is exact: it skips only exchanges that cannot reach the
// run (TestReachSkipsOnlyLosers prices every one). It lists at most
// maxReachItems hot items (any of them is a valid screen) and visits at
// most maxReachVisits.
type Reach struct {
	full  uint64   // a bit for each hot item listed
	mask  []uint64 // per node: the listed items an exchange moving it can lower
	set   []int32  // the nodes with a mask
	near  []int32  // per node: epoch when A's exchange touches it
	from  []int32  // per node: epoch when it is one of A
	epoch int32
}

const (
	maxReachItems  = 64
	maxReachVisits = 4096
	// maxReachPeers bounds the peers an item's nodes' ranks may have (a large
	// switch group, a link thousands of flows cross): past it the item
	// names so many nodes that it screens little, and it is left out.
	maxReachPeers = 1 << 14
)

// Reach sets rc to the screen of exchanges of the ranks of nodes from
// (the evaluator's nodes) that must bring the run to low or below.
func (ev *Evaluator) Reach(rc *Reach, low float64, from []int32) {
	k := len(ev.n.members)
	if len(rc.mask) != k {
		*rc = Reach{mask: make([]uint64, k), near: make([]int32, k), from: make([]int32, k)}
	}
	for _, x := range rc.set {
		rc.mask[x] = 0
	}
	rc.set, rc.full = rc.set[:0], 0
	rc.epoch++
	for _, a := range from {
		rc.from[a] = rc.epoch
		ev.eachNear(a, func(x int32) { rc.near[x] = rc.epoch })
	}
	visits := 0
	more := func() bool { visits++; return visits <= maxReachVisits && rc.full>>(maxReachItems-1) == 0 }
	ev.n.tree.Above(low, func(n int32) bool {
		if !more() {
			return false
		}
		if rc.near[n] != rc.epoch {
			rc.add(ev, []int32{n}, nil)
		}
		return true
	})
	if gl := ev.g; gl != nil {
		for lv := range gl.top {
			gl.top[lv].Above(low, func(g int32) bool {
				if !more() {
					return false
				}
				if nodes := gl.members[lv][g]; !rc.anyNear(nodes) {
					rc.add(ev, nodes, nil)
				}
				return true
			})
		}
	}
	ev.net.Above(low, func(r int32) bool {
		if !more() {
			return false
		}
		n := ev.r.node[r]
		if cross, ok := ev.net.Crossing(r); ok && rc.near[n] != rc.epoch && !rc.anyFrom(ev, cross) {
			rc.add(ev, []int32{n}, cross)
		}
		return true
	})
}

// Can reports whether an exchange of from's ranks with those of nodes
// may bring the run to Reach's low: it moves, for every hot item
// listed, a node that item names.
func (rc *Reach) Can(nodes []int32) bool {
	var hit uint64
	for _, x := range nodes {
		hit |= rc.mask[x]
	}
	return hit == rc.full
}

// eachNear calls visit with node n and the node of each peer of its
// ranks (a node more than once).
func (ev *Evaluator) eachNear(n int32, visit func(x int32)) {
	t := ev.t
	visit(n)
	for _, u := range ev.n.members[n] {
		for e := t.Start[u]; e < t.Start[u+1]; e++ {
			visit(ev.r.node[t.Adj[e]])
		}
	}
}

// anyNear reports whether an exchange of from touches one of nodes.
func (rc *Reach) anyNear(nodes []int32) bool {
	for _, x := range nodes {
		if rc.near[x] == rc.epoch {
			return true
		}
	}
	return false
}

// anyFrom reports whether one of ranks is on a node of from.
func (rc *Reach) anyFrom(ev *Evaluator, ranks []int32) bool {
	for _, q := range ranks {
		if rc.from[ev.r.node[q]] == rc.epoch {
			return true
		}
	}
	return false
}

// add lists a hot item that an exchange lowers only where B includes a
// node whose exchange touches one of nodes (one of them, or a node of a
// peer of their ranks) or the node of one of ranks (the ranks whose
// flows cross the link that bounds it). An item naming too many is
// left out.
func (rc *Reach) add(ev *Evaluator, nodes, ranks []int32) {
	peers, t := len(ranks), ev.t
	for _, n := range nodes {
		for _, u := range ev.n.members[n] {
			peers += int(t.Start[u+1] - t.Start[u])
		}
	}
	if peers > maxReachPeers {
		return
	}
	bit := rc.full + 1 // the lowest bit not yet listed
	bit &= -bit
	rc.full |= bit
	mark := func(x int32) {
		if rc.mask[x] == 0 {
			rc.set = append(rc.set, x)
		}
		rc.mask[x] |= bit
	}
	for _, n := range nodes {
		ev.eachNear(n, mark)
	}
	for _, q := range ranks {
		mark(ev.r.node[q])
	}
}
