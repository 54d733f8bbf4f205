package links

// fluidFill is what lets Fluid refill, after a step, only the rates that
// change: per place j in links its class (cls), its place in its link's
// onLink (pos) and the weight it adds there (xw: m x w x wt); per link
// the bytes/s its classes carry (load), the highest level among them
// (top; peak while filling) and the load from which it is full
// (fullAt); per class a bottleneck (neck); the classes refilled (d), the
// links that lost classes (gone) and those whose load or top changed at
// a filling (moved); the places of the live classes (members), and how
// many steps more update refills all from nothing (direct).
type fluidFill struct {
	cls, pos                []int32
	xw                      []float64
	load, top, peak, fullAt []float64
	neck                    []int32
	d, gone, moved          []int32
	members, direct         int
	fluidMarks
}

// fluidMarks mark links and classes by the number of a filling, step or
// check: a link's when a filling filled it (seen, stamp), when it lost
// classes (lost, lostAt) and when it moved (movedAt, chkAt); a class's
// when it was refilled at a step (inD, dAt) and checked (checked,
// chkAt).
type fluidMarks struct {
	seen, lost, movedAt, inD, checked []int32
	stamp, lostAt, dAt, chkAt         int32
}

// fluidTol is how close to its capacity a link is full, and how close to
// the highest level on a link a class is the highest there (fractions of
// them), when update checks the rates it kept: twice the billionth of
// its capacity that progressive filling leaves on a link it takes as
// full.
const fluidTol = 2e-9

// refillShare is the share of the live classes, and of their places on
// their links (the work of a filling from nothing), past which update
// refills them all from nothing; it then does so for refillSteps steps
// more before it tries again. On place's 16,384 ranks of a declared
// 16x16x16 torus of 4-core nodes, the classes refilled at a step were 5%
// of the live ones, but they crossed 60% of the links (routes of 24
// links, there and back), and refilled again and again (9 times a step)
// took longer than all from nothing.
var refillShare = 0.5

// refillSteps is how many steps update refills all from nothing after
// its work passed refillShare.
const refillSteps = 4

// fillFromNothing makes update refill every step from nothing, as Fluid
// did before it (the tests' reference).
var fillFromNothing = false

func newFluidFill(t *Table) fluidFill {
	nl := t.NL
	f := fluidFill{load: make([]float64, nl), top: make([]float64, nl), fullAt: make([]float64, nl), peak: make([]float64, nl),
		fluidMarks: fluidMarks{seen: make([]int32, nl), lost: make([]int32, nl), movedAt: make([]int32, nl)}}
	for l, inv := range t.Inv {
		f.fullAt[l] = (1 - fluidTol) / inv
	}
	return f
}

// link puts each class on its links (onLink), in class order, and sets
// the links' capacities.
func (f *fluidState) link() {
	nc := len(f.first)
	f.cls, f.pos = make([]int32, len(f.links)), make([]int32, len(f.links))
	f.inD, f.checked, f.neck = make([]int32, nc), make([]int32, nc), make([]int32, nc)
	f.members, f.xw = len(f.links), make([]float64, len(f.links))
	f.capa, f.nano = make([]float64, f.t.NL), make([]float64, f.t.NL)
	for l, inv := range f.t.Inv {
		f.capa[l], f.nano[l] = 1/inv, 1e-9/inv
	}
	for c := range int32(nc) {
		for j := f.at[c]; j < f.at[c+1]; j++ {
			l := f.links[j]
			f.cls[j], f.pos[j], f.xw[j] = c, int32(len(f.onLink[l])), f.m[c]*f.w[j]*f.wt[c]
			f.onLink[l] = append(f.onLink[l], j)
		}
	}
}

// drop takes place j off its link's onLink.
func (f *fluidState) drop(j int32) {
	l := f.links[j]
	on := f.onLink[l]
	last, p := on[len(on)-1], f.pos[j]
	on[p], f.pos[last] = last, p
	f.onLink[l] = on[:len(on)-1]
}

// fillAll fills the rates of every live class from nothing, and finds
// each one's bottleneck.
func (f *fluidState) fillAll() {
	f.fillRates(f.live)
	f.settleFilled()
	for _, c := range f.live {
		f.bottlenecked(c)
	}
}

// settleFilled sets the load and top of the links filled, and lists
// those that moved.
func (f *fluidState) settleFilled() {
	f.moved = f.moved[:0]
	for _, l := range f.active {
		if f.used[l] != f.load[l] || f.peak[l] != f.top[l] {
			f.moved = append(f.moved, l)
		}
		f.load[l], f.top[l] = f.used[l], f.peak[l]
	}
}

// settle sets the load and top of links.
func (f *fluidState) settle(links []int32) {
	for _, l := range links {
		load, top := 0.0, 0.0
		for _, j := range f.onLink[l] {
			c := f.cls[j]
			load += f.rate[c] * f.m[c] * f.w[j]
			top = max(top, f.lvl[c])
		}
		f.load[l], f.top[l] = load, top
	}
}

// update refills the rates after the classes of ended ended. Weighted
// max-min fair rates are the only ones under which no link carries more
// than its capacity and every class has a bottleneck: a full link on
// which no class has a higher level. A class keeps its rate while its
// bottleneck holds, which it does while no class on that link ended or
// changed rate; so only the classes on the links that lost classes or
// were refilled are checked, those whose bottleneck is one of these
// links anew. One left without a bottleneck is refilled with the others
// (d: progressive filling over what the classes kept leave of their
// links), and so is one above a refilled class on a full link of it that
// has none; until none is. Past refillShare of the live classes, all are
// refilled from nothing. On place's 16,384 ranks of a declared 16x8x8
// torus of 16-core nodes, 2% of the live classes were refilled at a
// step.
func (f *fluidState) update(ended []int32) {
	f.lostAt++
	f.gone = f.gone[:0]
	for _, c := range ended {
		f.members -= int(f.at[c+1] - f.at[c])
		for j := f.at[c]; j < f.at[c+1]; j++ {
			f.drop(j)
			if l := f.links[j]; f.lost[l] != f.lostAt {
				f.lost[l] = f.lostAt
				f.gone = append(f.gone, l)
			}
		}
	}
	if f.direct > 0 || fillFromNothing {
		f.direct = max(f.direct-1, 0)
		f.fillAll()
		return
	}
	f.settle(f.gone)
	f.active, f.d = f.active[:0], f.d[:0]
	f.moved = append(f.moved[:0], f.gone...)
	f.dAt++
	d, work := f.d, len(f.gone)
	for ok := true; ; {
		n := len(d)
		if d, ok = f.check(d); ok && len(d) == n {
			break
		}
		if !ok || float64(len(d)) > refillShare*float64(len(f.live)) || float64(work) > refillShare*float64(f.members) {
			f.direct = refillSteps
			f.fillAll()
			break
		}
		f.fillRates(d)
		f.settleFilled()
		for _, l := range f.active {
			work += len(f.onLink[l])
		}
	}
	f.d = d
}

// addD adds class c to d, the classes refilled, unless it is in.
func (f *fluidState) addD(d []int32, c int32) []int32 {
	if f.inD[c] != f.dAt {
		f.inD[c] = f.dAt
		d = append(d, c)
	}
	return d
}

// check adds to d the classes kept that lost their bottleneck, and those
// above a class of d without one on its full links; not ok when a class
// of d has no bottleneck and none is above it there.
func (f *fluidState) check(d []int32) (more []int32, ok bool) {
	n := len(d)
	f.chkAt++
	for _, l := range f.moved {
		f.movedAt[l] = f.chkAt
	}
	for _, l := range f.moved {
		over := f.load[l] > (1+fluidTol)/f.t.Inv[l]
		for _, j := range f.onLink[l] {
			c := f.cls[j]
			if f.inD[c] == f.dAt || f.checked[c] == f.chkAt {
				continue
			}
			f.checked[c] = f.chkAt
			if over || f.movedAt[f.neck[c]] == f.chkAt && !f.bottlenecked(c) {
				d = f.addD(d, c)
			}
		}
	}
	for _, c := range d[:n] {
		if f.bottlenecked(c) {
			continue
		}
		above := false
		for j := f.at[c]; j < f.at[c+1]; j++ {
			if l := f.links[j]; f.isFull(l) {
				for _, k := range f.onLink[l] {
					if e := f.cls[k]; f.lvl[e] > f.lvl[c]*(1+fluidTol) {
						d, above = f.addD(d, e), true
					}
				}
			}
		}
		if !above {
			return d, false
		}
	}
	return d, true
}

// isFull reports whether link l is full, to fluidTol of its capacity.
func (f *fluidState) isFull(l int32) bool {
	return f.load[l] >= f.fullAt[l]
}

// bottlenecked reports whether class c has a bottleneck (then its neck):
// a full link on which it has the highest level, to fluidTol.
func (f *fluidState) bottlenecked(c int32) bool {
	for j := f.at[c]; j < f.at[c+1]; j++ {
		if l := f.links[j]; f.isFull(l) && f.lvl[c] >= f.top[l]*(1-fluidTol) {
			f.neck[c] = l
			return true
		}
	}
	return false
}
