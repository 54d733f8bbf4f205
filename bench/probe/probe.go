package probe

import (
	"fmt"
	"math/rand/v2"
)

// Flow is a message from host Src to host Dst (hosts by index).
type Flow struct{ Src, Dst int }

// Plan is the classes of flows between hosts on routers.
type Plan struct {
	router   []int
	onRouter map[int][]int // each router's hosts, in order
	classes  []Flow        // each class's flow from its router's first host that is not its destination
	index    map[[2]int]int
}

// NewPlan is the plan for hosts on routers: router[h] is host h's
// router (hosts whose round trips show one switch between them share
// one). A flow leaves one host for another; a router whose only host is
// a destination has no class to it.
func NewPlan(router []int) *Plan {
	p := &Plan{router: router, onRouter: map[int][]int{}, index: map[[2]int]int{}}
	var order []int
	for h, r := range router {
		if p.onRouter[r] == nil {
			order = append(order, r)
		}
		p.onRouter[r] = append(p.onRouter[r], h)
	}
	for _, r := range order {
		for dst := range router {
			for _, src := range p.onRouter[r] {
				if src != dst {
					p.index[[2]int{r, dst}] = len(p.classes)
					p.classes = append(p.classes, Flow{src, dst})
					break
				}
			}
		}
	}
	return p
}

// Classes is how many classes of flows there are.
func (p *Plan) Classes() int { return len(p.classes) }

// Class is f's class (f.Src != f.Dst).
func (p *Plan) Class(f Flow) int {
	c, ok := p.index[[2]int{p.router[f.Src], f.Dst}]
	if !ok {
		panic(fmt.Sprintf("probe: flow %d -> %d has no class", f.Src, f.Dst))
	}
	return c
}

// Alone is a flow of each class, in class order: what moves alone first,
// each flow's time against which a step's is a slowdown.
func (p *Plan) Alone() []Flow { return append([]Flow(nil), p.classes...) }

// Matching is a random step: the hosts shuffled and paired, each pair a
// flow (the first to the second), half as many flows as hosts.
func (p *Plan) Matching(rng *rand.Rand) []Flow {
	perm := rng.Perm(len(p.router))
	flows := make([]Flow, 0, len(perm)/2)
	for i := 0; i+1 < len(perm); i += 2 {
		flows = append(flows, Flow{perm[i], perm[i+1]})
	}
	return flows
}

// Pair is two flows of classes a and b of four distinct hosts, to move
// two at a time; ok is false where the classes have no such two (their
// flows always share a host).
func (p *Plan) Pair(a, b int) (fa, fb Flow, ok bool) {
	ca, cb := p.classes[a], p.classes[b]
	if a == b || ca.Dst == cb.Dst {
		return Flow{}, Flow{}, false
	}
	for _, sa := range p.onRouter[p.router[ca.Src]] {
		for _, sb := range p.onRouter[p.router[cb.Src]] {
			if sa != sb && sa != ca.Dst && sa != cb.Dst && sb != ca.Dst && sb != cb.Dst {
				return Flow{sa, ca.Dst}, Flow{sb, cb.Dst}, true
			}
		}
	}
	return Flow{}, Flow{}, false
}

// Clearer reads the steps: the pairs of classes known to share no link.
type Clearer struct {
	p       *Plan
	cleared []uint64 // a bit a pair of classes (a < b), row by row
}

// NewClearer has no pair cleared. It keeps a bit for every two classes:
// 1,024 classes (64 hosts on 16 routers) take 64 KiB.
func (p *Plan) NewClearer() *Clearer {
	n := len(p.classes)
	return &Clearer{p: p, cleared: make([]uint64, (n*(n-1)/2+63)/64)}
}

func (c *Clearer) bit(a, b int) int {
	if a > b {
		a, b = b, a
	}
	n := len(c.p.classes)
	return a*(2*n-a-1)/2 + (b - a - 1)
}

// Step reads one step: its flows and each one's time against its time
// alone. Every two classes whose flows were both slowed by at most
// threshold are cleared.
func (c *Clearer) Step(flows []Flow, slowdown []float64, threshold float64) {
	for i := range flows {
		if slowdown[i] > threshold {
			continue
		}
		for j := i + 1; j < len(flows); j++ {
			if slowdown[j] <= threshold {
				if a, b := c.p.Class(flows[i]), c.p.Class(flows[j]); a != b {
					k := c.bit(a, b)
					c.cleared[k/64] |= 1 << (k % 64)
				}
			}
		}
	}
}

// Cleared reports whether classes a and b were cleared.
func (c *Clearer) Cleared(a, b int) bool {
	if a == b {
		return false
	}
	k := c.bit(a, b)
	return c.cleared[k/64]&(1<<(k%64)) != 0
}

// Left is the pairs of classes not cleared that have flows of four
// distinct hosts (Pair): what is left to move two at a time.
func (c *Clearer) Left() [][2]int {
	var left [][2]int
	for a := range c.p.classes {
		for b := a + 1; b < len(c.p.classes); b++ {
			if _, _, ok := c.p.Pair(a, b); ok && !c.Cleared(a, b) {
				left = append(left, [2]int{a, b})
			}
		}
	}
	return left
}
