package topo

import (
	"encoding/binary"
	"math"
	"math/bits"
	"slices"

	"github.com/latmap/latmap/mapper/fabric"
)

// probeFitter is FitProbe's search. Its flows are every ordered pair of
// the hosts; a class's flows (one router's hosts to one host) take one
// route choice. Two flows the probe judges are of four distinct hosts,
// so neither crosses the other's host links: a link whose every flow
// has one host at an end (a host's own link, either way) slows no pair
// judged, and only the rest are kept (private). A class's flows whose
// candidates then cross the same links at the same rates are one unit,
// priced once for all its flows: a pair of units stands for the pairs
// of their flows of four distinct hosts (weight). A router of 16 hosts
// has 16 flows a class and one unit.
type probeFitter struct {
	pr      *probeRoutes
	names   []string    // f's hosts
	flows   [][2]int    // by f's host index
	paths   [][][]int32 // each flow's candidates' links (nil: f's own route)
	units   []fitUnit
	classes [][]int // each class's units
	now     []int   // each unit's candidate taken
	on      [][]int32
	verdict Verdict
	asked   []int8 // each pair of classes' verdict: 0 not asked, else verdictApart, verdictShared, verdictUnknown
	seen    []int
	stamp   int
	// shared and pairs are the judged pairs of flows the probe found
	// sharing, and all it judged (FitProbe's Pairs).
	shared, pairs int
}

const (
	verdictApart = 1 + iota
	verdictShared
	verdictUnknown
)

// fitUnit is flows of one class alike in the fit: sources members (a
// bit a host, by the fitter's own numbering) to dst, and their
// candidate routes over the links that are not private (each at its
// rate over all its links, private ones too).
type fitUnit struct {
	class, router, dst int
	members            []uint64
	n                  int
	flows              []int
	cands              []flowRoute
}

// MaxFitClasses bounds the classes of flows FitProbe chooses routes
// for (the probe's own bound): it judges every pair of their units.
const MaxFitClasses = 2048

// fitClasses is how many classes of flows hosts make: a router's hosts
// (routers; each host its own where absent) to each host but the
// router's only one.
func fitClasses(hosts []string, routers map[string]int) int {
	per := map[int]int{}
	for i, h := range hosts {
		r, ok := routers[h]
		if !ok {
			r = -1 - i
		}
		per[r]++
	}
	n := 0
	for _, k := range per {
		n += len(hosts)
		if k == 1 {
			n--
		}
	}
	return n
}

func newProbeFitter(f *fabric.Fabric, hosts []string, routers map[string]int, threshold float64, verdict Verdict) *probeFitter {
	idx := f.HostIndex()
	var in []string
	for _, h := range hosts {
		if _, ok := idx[h]; ok {
			in = append(in, h)
		}
	}
	if len(in) < 4 || fitClasses(in, routers) > MaxFitClasses {
		return nil
	}
	pf := &probeFitter{pr: newProbeRoutes(f, routers, threshold), names: f.Hosts, verdict: verdict, on: make([][]int32, len(f.Links))}
	local := map[int]int{}
	for i, h := range in {
		local[idx[h]] = i
	}
	var cands [][]flowRoute
	classOf := map[probeClass]int{}
	var class, router []int
	for _, a := range in {
		r, ok := routers[a]
		if !ok {
			r = -1 - idx[a] // each host its own router
		}
		for _, b := range in {
			if a == b {
				continue
			}
			c, ok := classOf[probeClass{r, b}]
			if !ok {
				c = len(classOf)
				classOf[probeClass{r, b}] = c
			}
			pf.flows = append(pf.flows, [2]int{idx[a], idx[b]})
			class, router = append(class, c), append(router, r)
			paths, routes := pf.candidates(f, a, b)
			pf.paths, cands = append(pf.paths, paths), append(cands, routes)
		}
	}
	private := pf.private(cands)
	units := map[string]int{}
	pf.classes = make([][]int, len(classOf))
	for i, fl := range pf.flows {
		key := binary.AppendVarint(nil, int64(class[i]))
		for k := range cands[i] {
			cands[i][k].links = slices.DeleteFunc(cands[i][k].links, func(ls linkShare) bool { return private[ls.link] })
			key = cands[i][k].append(key)
		}
		u, ok := units[string(key)]
		if !ok {
			u = len(pf.units)
			units[string(key)] = u
			pf.units = append(pf.units, fitUnit{class: class[i], router: router[i], dst: local[fl[1]],
				members: make([]uint64, (len(in)+63)/64), cands: cands[i]})
			pf.classes[class[i]] = append(pf.classes[class[i]], u)
		}
		pu := &pf.units[u]
		pu.members[local[fl[0]]/64] |= 1 << (local[fl[0]] % 64)
		pu.n++
		pu.flows = append(pu.flows, i)
	}
	pf.asked = make([]int8, len(classOf)*len(classOf))
	pf.seen = make([]int, len(pf.units))
	pf.now = make([]int, len(pf.units))
	for u := range pf.units {
		pf.place(u, 1)
	}
	pf.count()
	return pf
}

// candidates is flow a -> b's candidates: f's own route (spread as f
// spreads it), then each other shortest path as one path.
func (pf *probeFitter) candidates(f *fabric.Fabric, a, b string) ([][]int32, []flowRoute) {
	own := pf.pr.route(a, b)
	mine := flowRoute{links: slices.Clone(own.links), rate: own.rate} // private links are dropped from it
	paths, routes := [][]int32{nil}, []flowRoute{mine}
	for _, p := range f.Candidates(pf.pr.idx[a], pf.pr.idx[b], maxCandidates) {
		r := flowRoute{rate: math.Inf(1)}
		for _, l := range p {
			r.links = append(r.links, linkShare{l, 1})
			r.rate = min(r.rate, pf.pr.bandwidth(l))
		}
		r.sortLinks()
		if !slices.Equal(r.links, mine.links) {
			paths, routes = append(paths, p), append(routes, r)
		}
	}
	return paths, routes
}

// private marks the links every flow of whose candidates has one host
// at an end: no two flows of four distinct hosts cross them.
func (pf *probeFitter) private(cands [][]flowRoute) []bool {
	ends := make([][2]int, len(pf.on)) // the hosts every flow so far has at an end; -1 none left
	for l := range ends {
		ends[l] = [2]int{-2, -2}
	}
	for i, fl := range pf.flows {
		for _, r := range cands[i] {
			for _, ls := range r.links {
				e := &ends[ls.link]
				if e[0] == -2 {
					*e = fl
					continue
				}
				for j, h := range e {
					if h != fl[0] && h != fl[1] {
						e[j] = -1
					}
				}
			}
		}
	}
	private := make([]bool, len(ends))
	for l, e := range ends {
		private[l] = e[0] >= 0 || e[1] >= 0
	}
	return private
}

// append is r's links, shares and rate appended to key.
func (r flowRoute) append(key []byte) []byte {
	key = binary.AppendUvarint(key, uint64(len(r.links)))
	for _, ls := range r.links {
		key = binary.AppendVarint(key, int64(ls.link))
		key = binary.LittleEndian.AppendUint64(key, math.Float64bits(ls.share))
	}
	return binary.LittleEndian.AppendUint64(key, math.Float64bits(r.rate))
}

// place adds (sign 1) or removes (-1) unit u from the links of its route.
func (pf *probeFitter) place(u, sign int) {
	for _, ls := range pf.units[u].cands[pf.now[u]].links {
		if sign > 0 {
			pf.on[ls.link] = append(pf.on[ls.link], int32(u))
			continue
		}
		on := pf.on[ls.link]
		if j := slices.Index(on, int32(u)); j >= 0 {
			on[j] = on[len(on)-1]
			pf.on[ls.link] = on[:len(on)-1]
		}
	}
}

// weight is how many pairs of flows of four distinct hosts units u and
// v stand for: a source of u (not v's destination) and one of v (not
// u's), not the same host. Neither unit has its own destination among
// its sources.
func (pf *probeFitter) weight(u, v int) int {
	x, y := &pf.units[u], &pf.units[v]
	if x.dst == y.dst {
		return 0
	}
	has := func(m []uint64, h int) int { return int(m[h/64] >> (h % 64) & 1) }
	w := (x.n - has(x.members, y.dst)) * (y.n - has(y.members, x.dst))
	if x.router == y.router {
		for i, m := range x.members {
			w -= bits.OnesCount64(m & y.members[i])
		}
	}
	return w
}

// judged is the probe's verdict on units u and v of distinct classes
// (one flow of each, of four distinct hosts, asked once a pair of
// classes), and whether it judged them.
func (pf *probeFitter) judged(u, v int) (shared, ok bool) {
	x, y := &pf.units[u], &pf.units[v]
	k := x.class*len(pf.classes) + y.class
	if pf.asked[k] == 0 {
		a, c := pf.distinct(x, y)
		n := pf.names
		v := int8(verdictUnknown)
		switch shared, ok := pf.verdict([2]string{n[pf.flows[a][0]], n[pf.flows[a][1]]}, [2]string{n[pf.flows[c][0]], n[pf.flows[c][1]]}); {
		case ok && shared:
			v = verdictShared
		case ok:
			v = verdictApart
		}
		pf.asked[k], pf.asked[y.class*len(pf.classes)+x.class] = v, v
	}
	return pf.asked[k] == verdictShared, pf.asked[k] != verdictUnknown
}

// distinct is a flow of x and one of y of four distinct hosts, where
// the units' weight is above 0.
func (pf *probeFitter) distinct(x, y *fitUnit) (int, int) {
	for _, a := range x.flows {
		for _, c := range y.flows {
			fa, fc := pf.flows[a], pf.flows[c]
			if fa[0] != fc[0] && fa[0] != fc[1] && fa[1] != fc[0] {
				return a, c
			}
		}
	}
	return x.flows[0], y.flows[0]
}

// slowed reports whether routes x and y slow each other past the
// threshold.
func (pf *probeFitter) slowed(x, y *flowRoute) bool {
	return pf.pr.slowdown(x, y) > pf.pr.threshold
}

// count sets the pairs of flows judged, and those judged sharing.
func (pf *probeFitter) count() {
	for u := range pf.units {
		for v := u + 1; v < len(pf.units); v++ {
			if pf.units[u].class == pf.units[v].class {
				continue
			}
			w := pf.weight(u, v)
			if w == 0 {
				continue
			}
			if shared, ok := pf.judged(u, v); ok {
				pf.pairs += w
				if shared {
					pf.shared += w
				}
			}
		}
	}
}

// wrong is how many of the judged pairs of flows the routes taken now
// judge otherwise: those found sharing that meet on no link where one
// slows the other, and those found apart that do. Each unit's cost on
// its route counts its pairs with the units it meets, and each pair is
// met from both sides.
func (pf *probeFitter) wrong() int {
	met := 0
	for u := range pf.units {
		met += pf.cost(u, pf.now[u])
	}
	return pf.shared + met/2
}

// maxSweeps bounds the search's passes over the classes.
const maxSweeps = 20

// search moves each class of flows, one after another, to the
// candidate route that agrees with the most verdicts given the routes
// the others take now (ties keep the route taken), until a pass over
// the classes moves none, from every class on its candidate start (or
// its last). It returns each class's candidate.
func (pf *probeFitter) search(start int) []int {
	choice := make([]int, len(pf.classes))
	for c, us := range pf.classes {
		choice[c] = pf.take(us, start)
	}
	for range maxSweeps {
		moved := false
		for c, us := range pf.classes {
			n := maxCandidates + 1
			for _, u := range us {
				n = min(n, len(pf.units[u].cands))
			}
			best, least := choice[c], math.MaxInt
			for k := range n {
				cost := 0
				for _, u := range us {
					cost += pf.cost(u, k)
				}
				if cost < least || cost == least && k == choice[c] {
					best, least = k, cost
				}
			}
			if best != choice[c] {
				choice[c], moved = pf.take(us, best), true
			}
		}
		if !moved {
			break
		}
	}
	return choice
}

// take puts units us on their candidate k (or their last), and returns
// the candidate taken.
func (pf *probeFitter) take(us []int, k int) int {
	taken := k
	for _, u := range us {
		pf.place(u, -1)
		pf.now[u] = min(k, len(pf.units[u].cands)-1)
		taken = pf.now[u]
		pf.place(u, 1)
	}
	return taken
}

// cost is how unit u on its candidate k fares against the verdicts on
// the units it meets on a link (the others meet it nowhere, and are
// apart whatever it takes), each counted for the pairs of flows it
// stands for: one for each it slows that the probe found apart, less
// one for each it slows that the probe found shared.
func (pf *probeFitter) cost(u, k int) int {
	pf.stamp++
	x := &pf.units[u].cands[k]
	cost := 0
	for _, ls := range x.links {
		for _, v := range pf.on[ls.link] {
			if pf.seen[v] == pf.stamp || pf.units[v].class == pf.units[u].class {
				continue
			}
			pf.seen[v] = pf.stamp
			w := pf.weight(u, int(v))
			if w == 0 || !pf.slowed(x, &pf.units[v].cands[pf.now[v]]) {
				continue
			}
			cost += pf.against(u, int(v), w)
		}
	}
	return cost
}

// against is what units u and v slowing each other counts against the
// verdict on the w pairs of flows they stand for: w where the probe
// found them apart, -w where it found them sharing, 0 unjudged.
func (pf *probeFitter) against(u, v, w int) int {
	switch shared, ok := pf.judged(u, v); {
	case !ok:
		return 0
	case shared:
		return -w
	default:
		return w
	}
}

// routes is the route each flow takes now where it is not f's own, for
// fabric.Pinned.
func (pf *probeFitter) routes() func(a, b int) []int32 {
	route := map[[2]int][]int32{}
	for u, x := range pf.units {
		if k := pf.now[u]; k != 0 {
			for _, i := range x.flows {
				route[pf.flows[i]] = pf.paths[i][k]
			}
		}
	}
	return func(a, b int) []int32 { return route[[2]int{a, b}] }
}
