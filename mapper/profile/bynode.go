package profile

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/latmap/latmap/internal/stats"
	"github.com/latmap/latmap/internal/text"
)

// Group is the summed per-rank figures of the ranks on one host, or on one
// socket of a host (Socket -1 for a whole host).
type Group struct {
	Host   string `json:"host"`
	Socket int    `json:"socket"`
	Ranks  []int  `json:"ranks"` // ascending

	// Sums over the group's ranks, seconds and bytes.
	Elapsed float64 `json:"elapsed_s"`
	Comput  float64 `json:"comput_s"`
	// MPI is the time in MPI moving data: with --slt and
	// --collective-wait, without their send-late and collective-wait
	// parts.
	MPI       float64 `json:"mpi_s"`
	Late      float64 `json:"late_s"`
	Sync      float64 `json:"sync_s"`
	BytesSent int64   `json:"bytes_sent"`
	BytesRecv int64   `json:"bytes_recv"`
}

// PerRank is a group sum divided by the group's ranks.
func (g *Group) PerRank(sum float64) float64 {
	if len(g.Ranks) == 0 {
		return 0
	}
	return sum / float64(len(g.Ranks))
}

// Label names the group: its host, or host:socket N.
func (g *Group) Label() string {
	if g.Socket < 0 {
		return g.Host
	}
	return fmt.Sprintf("%s:socket %d", g.Host, g.Socket)
}

// Straggler is a host (or socket) whose ranks' computation or MPI time
// stands apart from the other hosts' (sockets'): see Nodes.
type Straggler struct {
	Host   string `json:"host"`
	Socket int    `json:"socket"` // -1: the whole host
	Ranks  []int  `json:"ranks"`
	// Metric is what stands apart: "computation" or "MPI time" (moving
	// data, without send-late and collective wait when they were
	// measured).
	Metric string `json:"metric"`
	// PerRank is the group's mean per rank, Others the median of the
	// other groups' means, Excess their difference per rank.
	PerRank float64 `json:"per_rank_s"`
	Others  float64 `json:"others_s"`
	Excess  float64 `json:"excess_s"`
	Ratio   float64 `json:"ratio"`
	// Caused is what each rank elsewhere lost waiting, on average, as far
	// as the profile tells: the other ranks' mean waiting time less this
	// group's own (a straggler arrives last and waits least). Basis says
	// what was compared: the collective wait and send-late time that the
	// profile measured, else "MPI time" (the waits are then inside it).
	Caused float64 `json:"caused_s"`
	Basis  string  `json:"basis"`
}

// Label names the straggler's group.
func (s *Straggler) Label() string {
	g := Group{Host: s.Host, Socket: s.Socket}
	return g.Label()
}

// Leaving is how unevenly the ranks leave one collective, from a profile
// taken with --collective-wait: the barrier before each call lines the
// ranks up, so a rank's time in the call after it is when it left. Summed
// over calls per rank.
type Leaving struct {
	Function string `json:"function"`
	Calls    int64  `json:"calls"` // of the rank that made the most
	// Fastest, Median and Slowest are ranks' summed time in the call after
	// the barrier; Spread is the mean over ranks of their time beyond the
	// fastest rank's: what the ranks lost to uneven completion.
	Fastest     float64 `json:"fastest_s"`
	Median      float64 `json:"median_s"`
	Slowest     float64 `json:"slowest_s"`
	SlowestRank int     `json:"slowest_rank"`
	SlowestHost string  `json:"slowest_host"`
	Spread      float64 `json:"spread_s"`
}

// Nodes is the profile on the machine: the ranks in host order, the
// per-host and per-socket sums, the stragglers and how unevenly ranks
// leave the collectives.
type Nodes struct {
	// Order lists the ranks grouped by host (hosts in the order of their
	// lowest rank), then by rank; Grouped says it differs from rank order
	// (the ranks do not sit on hosts in blocks).
	Order   []int   `json:"order"`
	Grouped bool    `json:"grouped"`
	Hosts   []Group `json:"hosts"`
	// Sockets is empty unless some host ran ranks on two sockets or more.
	Sockets    []Group     `json:"sockets,omitempty"`
	Stragglers []Straggler `json:"stragglers"`
	// Judged says why no straggler could be named, when none could: fewer
	// than StragglerMinGroups hosts, say. Empty when the rule ran.
	Judged  string    `json:"not_judged,omitempty"`
	Leaving []Leaving `json:"leaving,omitempty"`
}

// The straggler rule: a group (host, else socket) is named when its mean
// per rank is at least StragglerRatio times the median of the other
// groups' means, above that median by StragglerMADs scaled median absolute
// deviations of the others (so a machine whose nodes spread widely names
// none), and by at least StragglerShare of the median rank's elapsed time
// (so a tiny difference in a tiny figure is not news). It takes
// StragglerMinGroups groups: with two, there is no telling which one is
// apart.
const (
	StragglerRatio     = 1.2
	StragglerMADs      = 5
	StragglerShare     = 0.05
	StragglerMinGroups = 3
)

// Nodes summarises the profile per host and socket and names the
// stragglers.
func (p *Profile) Nodes() *Nodes {
	nd := &Nodes{Stragglers: []Straggler{}}
	nd.Order, nd.Grouped = p.HostOrder()
	rf := p.RankSums()
	nd.Hosts = p.groups(nd.Order, rf, false)
	if socks := p.groups(nd.Order, rf, true); len(socks) > len(nd.Hosts) {
		nd.Sockets = socks
	}
	elapsed := make([]float64, len(p.Ranks))
	for i, r := range p.Ranks {
		elapsed[i] = r.Elapsed
	}
	floor := StragglerShare * stats.Median(elapsed)
	if len(nd.Hosts) < StragglerMinGroups {
		nd.Judged = fmt.Sprintf("%s: naming one apart takes %d, with fewer there is no telling which it is", text.Count(len(nd.Hosts), "host"), StragglerMinGroups)
	} else {
		nd.Stragglers = append(nd.Stragglers, stragglers(nd.Hosts, floor)...)
	}
	nd.socketStragglers(floor)
	for i := range nd.Stragglers {
		p.causedWait(&nd.Stragglers[i], rf)
	}
	nd.Leaving = p.leaving()
	return nd
}

// RankSums are functions.csv's figures summed per rank (by rank): time
// in MPI moving data, send-late, collective wait, bytes sent and received.
type RankSums struct {
	MPI, Late, Sync []float64
	Sent, Recv      []int64
}

// RankSums sums functions.csv per rank; rows of ranks outside the profile
// are left out.
func (p *Profile) RankSums() *RankSums {
	n := len(p.Ranks)
	rf := &RankSums{make([]float64, n), make([]float64, n), make([]float64, n), make([]int64, n), make([]int64, n)}
	for _, f := range p.Functions {
		if f.Rank < 0 || f.Rank >= n {
			continue
		}
		rf.MPI[f.Rank] += f.Time
		rf.Late[f.Rank] += f.Late
		rf.Sync[f.Rank] += f.Sync
		rf.Sent[f.Rank] += f.BytesSent
		rf.Recv[f.Rank] += f.BytesRecv
	}
	return rf
}

// groups sums the ranks' figures per host, or per host and socket, in the
// given order of ranks.
func (p *Profile) groups(order []int, rf *RankSums, perSocket bool) []Group {
	type key struct {
		host   string
		socket int
	}
	var out []Group
	idx := map[key]int{}
	for _, r := range order {
		rk := p.Ranks[r]
		k := key{rk.Host, -1}
		if perSocket {
			k.socket = rk.Socket
		}
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, Group{Host: rk.Host, Socket: k.socket})
		}
		g := &out[i]
		g.Ranks = append(g.Ranks, r)
		g.Elapsed += rk.Elapsed
		g.Comput += rk.Comput
		g.MPI += rf.MPI[r]
		g.Late += rf.Late[r]
		g.Sync += rf.Sync[r]
		g.BytesSent += rf.Sent[r]
		g.BytesRecv += rf.Recv[r]
	}
	return out
}

// socketStragglers names the sockets apart within their hosts: not on a
// host already named, and not when all of a host's sockets stand apart
// (then it is the host that does: named, or not judged with too few
// hosts).
func (nd *Nodes) socketStragglers(floor float64) {
	if len(nd.Sockets) < StragglerMinGroups {
		return
	}
	named := map[string]bool{}
	for _, s := range nd.Stragglers {
		named[s.Host] = true
	}
	socks := map[string]int{}
	for _, g := range nd.Sockets {
		socks[g.Host]++
	}
	found := stragglers(nd.Sockets, floor)
	apart := map[[2]string]int{}
	for _, s := range found {
		apart[[2]string{s.Host, s.Metric}]++
	}
	for _, s := range found {
		if !named[s.Host] && apart[[2]string{s.Host, s.Metric}] < socks[s.Host] {
			nd.Stragglers = append(nd.Stragglers, s)
		}
	}
}

// stragglers applies the rule to computation and MPI time over groups.
func stragglers(groups []Group, floor float64) []Straggler {
	var out []Straggler
	for _, m := range []struct {
		name string
		v    func(g *Group) float64
	}{
		{"computation", func(g *Group) float64 { return g.PerRank(g.Comput) }},
		{"MPI time", func(g *Group) float64 { return g.PerRank(g.MPI) }},
	} {
		v := make([]float64, len(groups))
		for i := range groups {
			v[i] = m.v(&groups[i])
		}
		rest := make([]float64, 0, len(v))
		dev := make([]float64, 0, len(v))
		for i := range groups {
			rest = rest[:0]
			for j, x := range v {
				if j != i {
					rest = append(rest, x)
				}
			}
			ref := stats.Median(rest)
			dev = dev[:0]
			for _, x := range rest {
				dev = append(dev, math.Abs(x-ref))
			}
			bar := math.Max(StragglerRatio*ref, ref+StragglerMADs*1.4826*stats.Median(dev))
			if v[i] < bar || v[i]-ref < floor || v[i] <= 0 {
				continue
			}
			g := &groups[i]
			s := Straggler{Host: g.Host, Socket: g.Socket, Ranks: g.Ranks, Metric: m.name, PerRank: v[i], Others: ref, Excess: v[i] - ref}
			if ref > 0 {
				s.Ratio = v[i] / ref
			}
			out = append(out, s)
		}
	}
	return out
}

// causedWait fills in what the ranks elsewhere lost waiting: their mean
// waiting time per rank less the straggler's own.
func (p *Profile) causedWait(s *Straggler, rf *RankSums) {
	slt, cw := p.HasMode(ModeSLT), p.HasMode(ModeCollectiveWait)
	waits := slt || cw
	in := map[int]bool{}
	for _, r := range s.Ranks {
		in[r] = true
	}
	switch {
	case slt && cw:
		s.Basis = "collective wait and send-late"
	case cw:
		s.Basis = "collective wait"
	case slt:
		s.Basis = "send-late"
	default:
		s.Basis = "MPI time"
	}
	var mine, others float64
	var nm, no int
	for r := range p.Ranks {
		w := rf.MPI[r]
		if waits {
			w = rf.Late[r] + rf.Sync[r]
		}
		if in[r] {
			mine += w
			nm++
		} else {
			others += w
			no++
		}
	}
	if nm == 0 || no == 0 {
		return
	}
	s.Caused = math.Max(0, others/float64(no)-mine/float64(nm))
}

// leaving measures how unevenly ranks leave each blocking collective, from
// a profile with --collective-wait (nil without it).
func (p *Profile) leaving() []Leaving {
	if !p.HasMode(ModeCollectiveWait) {
		return nil
	}
	type acc struct {
		times []float64
		ranks []int
		calls int64
	}
	by := map[string]*acc{}
	var names []string
	for _, f := range p.Functions {
		// The collectives that had the barrier before them: the blocking
		// ones but MPI_Barrier itself.
		if FunctionKind(f.Function) != "collective" || strings.HasPrefix(f.Function, "MPI_I") || f.Function == "MPI_Barrier" {
			continue
		}
		a := by[f.Function]
		if a == nil {
			a = &acc{}
			by[f.Function] = a
			names = append(names, f.Function)
		}
		a.times = append(a.times, f.Time)
		a.ranks = append(a.ranks, f.Rank)
		a.calls = max(a.calls, f.Calls)
	}
	var out []Leaving
	for _, name := range names {
		a := by[name]
		if len(a.times) < 2 {
			continue
		}
		l := Leaving{Function: name, Calls: a.calls, Fastest: math.Inf(1), Median: stats.Median(a.times)}
		var sum float64
		for i, t := range a.times {
			sum += t
			l.Fastest = math.Min(l.Fastest, t)
			if t > l.Slowest || i == 0 {
				l.Slowest, l.SlowestRank = t, a.ranks[i]
			}
		}
		if r := l.SlowestRank; r >= 0 && r < len(p.Ranks) {
			l.SlowestHost = p.Ranks[r].Host
		}
		l.Spread = sum/float64(len(a.times)) - l.Fastest
		out = append(out, l)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Spread > out[j].Spread })
	return out
}

// HostOrder lists the ranks grouped by host, hosts in the order of their
// lowest rank, then by rank: the order of every per-rank table and
// picture. grouped says it differs from rank order (the ranks do not sit
// on hosts in blocks).
func (p *Profile) HostOrder() (order []int, grouped bool) {
	first := map[string]int{}
	order = make([]int, len(p.Ranks))
	for i, r := range p.Ranks {
		order[i] = i
		if _, ok := first[r.Host]; !ok {
			first[r.Host] = i
		}
	}
	sort.SliceStable(order, func(a, b int) bool {
		return first[p.Ranks[order[a]].Host] < first[p.Ranks[order[b]].Host]
	})
	for i, r := range order {
		if r != i {
			grouped = true
		}
	}
	return order, grouped
}
