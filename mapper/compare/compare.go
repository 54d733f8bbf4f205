package compare

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/latmap/latmap/internal/stats"
	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/mapper/topo"
)

// Comparison is what latmap compare reports about two surveys: how each
// placed ranks, what each level costs, and what nearest-neighbour (i, i+1)
// and halving (i, i+N/2) exchanges pay.
type Comparison struct {
	A, B Side
	// Metric is the statistic compared (the same for both).
	Metric string
	// SameN is true when both surveys have the same number of ranks;
	// otherwise only levels are compared, by name.
	SameN bool
	// Levels pairs the levels of both by name, finest first.
	Levels []LevelPair
	// Findings are sentences summing up the differences.
	Findings []string
}

// Side is one survey of a comparison.
type Side struct {
	Name     string
	N        int
	Machine  string
	Topology *topo.Topology
	// Neighbour holds pairs (i, i+1), Halving pairs (i, i+N/2), All every
	// pair.
	Neighbour, Halving, All PairSummary
}

// PairSummary sums up the round trips of a set of pairs; OffNode counts
// those whose ranks were inferred to be on different nodes.
type PairSummary struct {
	Pairs   int     `json:"pairs"`
	OffNode int     `json:"off_node"`
	Min     float64 `json:"min_us"`
	Median  float64 `json:"median_us"`
	Mean    float64 `json:"mean_us"`
	Max     float64 `json:"max_us"`
}

// LevelPair is one level name and its statistics in each survey (nil when
// a survey has no such level).
type LevelPair struct {
	Name string
	A, B *topo.Level
}

// Compare analyses two surveys. Surveys of different sizes or machines are
// compared level by level, and the findings say so.
func Compare(a, b *survey.Survey, nameA, nameB string, opt topo.Options) (*Comparison, error) {
	ta, err := a.Table(opt.Size)
	if err != nil {
		return nil, fmt.Errorf("compare %s: %w", nameA, err)
	}
	tb, err := b.Table(opt.Size)
	if err != nil {
		return nil, fmt.Errorf("compare %s: %w", nameB, err)
	}
	m := opt.Metric
	if m < 0 {
		m = survey.Mean
		if ta.HasValues(survey.Median) && tb.HasValues(survey.Median) {
			m = survey.Median
		}
	}
	c := &Comparison{Metric: m.String(), SameN: a.N() == b.N()}
	opt.Metric = m
	for _, side := range []struct {
		s    *survey.Survey
		t    *survey.PairTable
		name string
		dst  *Side
	}{{a, ta, nameA, &c.A}, {b, tb, nameB, &c.B}} {
		o := opt
		o.Size = side.t.Size
		inferred, err := topo.Infer(side.s, o)
		if err != nil {
			return nil, fmt.Errorf("compare %s: %w", side.name, err)
		}
		n := side.s.N()
		node := make([]int, n)
		for _, r := range inferred.Ranks {
			node[r.Rank] = r.Node
		}
		at := pairValue(side.s, side.t, m)
		sum := func(pairs [][2]int) PairSummary { return summarise(at, node, pairs) }
		var nb, hv [][2]int
		for r := 0; r+1 < n; r++ {
			nb = append(nb, [2]int{r, r + 1})
		}
		for r := 0; r < n/2; r++ {
			hv = append(hv, [2]int{r, r + n/2})
		}
		*side.dst = Side{Name: side.name, N: n, Machine: side.s.Meta.Machine, Topology: inferred,
			Neighbour: sum(nb), Halving: sum(hv), All: summariseAll(side.t, m, node)}
	}
	c.Levels = pairLevels(c.A.Topology.Levels, c.B.Topology.Levels)
	c.Findings = findings(c, a, b)
	return c, nil
}

// pairValue returns metric m of a pair of ranks of s: as measured, or, for
// a cross-node pair a sparse survey did not measure, its two nodes' value
// by survey.CrossNodeMedians (the rule the readers fill smaller surveys
// with).
func pairValue(s *survey.Survey, t *survey.PairTable, m survey.Metric) func(a, b int) float64 {
	if !t.Sparse() {
		vals, n := t.Values[m], t.N
		return func(a, b int) float64 { return float64(vals[survey.TriIndex(n, a, b)]) }
	}
	lead := survey.Leaders(s.Ranks)
	nodes := survey.CrossNodeMedians(t, lead, []survey.Metric{m})
	return func(a, b int) float64 {
		x := t.At(m, a, b)
		if math.IsNaN(x) && lead[a] != lead[b] {
			if v, ok := nodes[survey.NodePairKey(lead, a, b)]; ok {
				x = float64(v[0])
			}
		}
		return x
	}
}

func summarise(at func(a, b int) float64, node []int, pairs [][2]int) PairSummary {
	var v []float64
	off := 0
	for _, p := range pairs {
		x := at(p[0], p[1])
		if node[p[0]] != node[p[1]] {
			off++
		}
		if !math.IsNaN(x) {
			v = append(v, x)
		}
	}
	return summary(v, len(pairs), off)
}

// summariseAll sums up every pair of a dense table (filled pairs with
// them), every measured pair of a sparse one.
func summariseAll(t *survey.PairTable, m survey.Metric, node []int) PairSummary {
	if t.Sparse() {
		v := make([]float64, 0, t.Len())
		off := 0
		vals := t.Values[m]
		t.Each(func(a, b, i int) {
			if node[a] != node[b] {
				off++
			}
			if x := vals[i]; x == x {
				v = append(v, float64(x))
			}
		})
		return summary(v, len(v), off)
	}
	n, vals := t.N, t.Values[m]
	v := make([]float64, 0, len(vals))
	off, k := 0, 0
	for a := 0; a < n; a++ {
		for b := a + 1; b < n; b++ {
			x := vals[k]
			k++
			if node[a] != node[b] {
				off++
			}
			if x == x {
				v = append(v, float64(x))
			}
		}
	}
	return summary(v, survey.TriLen(n), off)
}

func summary(v []float64, pairs, off int) PairSummary {
	s := PairSummary{Pairs: pairs, OffNode: off, Min: math.NaN(), Median: math.NaN(), Mean: math.NaN(), Max: math.NaN()}
	if len(v) == 0 {
		return s
	}
	sort.Float64s(v)
	total := 0.0
	for _, x := range v {
		total += x
	}
	s.Min, s.Max, s.Median, s.Mean = stats.Round3(v[0]), stats.Round3(v[len(v)-1]), stats.Round3(stats.MedianSorted(v)), stats.Round3(total/float64(len(v)))
	return s
}

// levelOrder ranks level names from the closest pairs to the farthest.
func levelOrder(name string) int {
	for i, n := range []string{topo.LevelCore, topo.LevelNUMA, topo.LevelSocket, topo.LevelNode, topo.LevelSwitch, topo.LevelNetwork} {
		if name == n {
			return i * 100
		}
	}
	// core1, core2 ... and switch1, switch2 ...
	for base, n := range map[int]string{0: topo.LevelCore, 400: topo.LevelSwitch} {
		if strings.HasPrefix(name, n) {
			var k int
			fmt.Sscan(strings.TrimPrefix(name, n), &k)
			return base + k
		}
	}
	return 1000
}

func pairLevels(a, b []topo.Level) []LevelPair {
	find := func(ls []topo.Level, name string) *topo.Level {
		for i := range ls {
			if ls[i].Name == name {
				return &ls[i]
			}
		}
		return nil
	}
	var out []LevelPair
	seen := map[string]bool{}
	for _, ls := range [][]topo.Level{a, b} {
		for _, l := range ls {
			if !seen[l.Name] {
				seen[l.Name] = true
				out = append(out, LevelPair{Name: l.Name, A: find(a, l.Name), B: find(b, l.Name)})
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return levelOrder(out[i].Name) < levelOrder(out[j].Name) })
	return out
}

func findings(c *Comparison, a, b *survey.Survey) []string {
	var f []string
	if !c.SameN {
		f = append(f, fmt.Sprintf("the surveys have different numbers of ranks (%d and %d): "+
			"compared level by level; neighbour and halving pairs are not the same pairs", c.A.N, c.B.N))
	}
	if a.Meta.Machine != "" && b.Meta.Machine != "" && a.Meta.Machine != b.Meta.Machine {
		f = append(f, fmt.Sprintf("different machines (%s and %s): compare the levels, not single pairs", a.Meta.Machine, b.Meta.Machine))
	}
	if c.A.Topology.Layout != c.B.Topology.Layout {
		f = append(f, fmt.Sprintf("layouts differ: %s is %s, %s is %s", c.A.Name, c.A.Topology.Layout, c.B.Name, c.B.Topology.Layout))
	} else {
		f = append(f, fmt.Sprintf("both layouts are %s", c.A.Topology.Layout))
	}
	cmp := func(what string, x, y PairSummary) {
		if math.IsNaN(x.Median) || math.IsNaN(y.Median) || x.Median <= 0 || y.Median <= 0 {
			return
		}
		r := y.Median / x.Median
		switch {
		case r > 1.1:
			f = append(f, fmt.Sprintf("%s: %s pays %.1fx more than %s (median %.2f vs %.2f us; %d vs %d of %d pairs off-node)",
				what, c.B.Name, r, c.A.Name, y.Median, x.Median, y.OffNode, x.OffNode, x.Pairs))
		case r < 1/1.1:
			f = append(f, fmt.Sprintf("%s: %s pays %.1fx more than %s (median %.2f vs %.2f us; %d vs %d of %d pairs off-node)",
				what, c.A.Name, 1/r, c.B.Name, x.Median, y.Median, x.OffNode, y.OffNode, y.Pairs))
		default:
			f = append(f, fmt.Sprintf("%s: about the same (median %.2f vs %.2f us)", what, x.Median, y.Median))
		}
	}
	cmp("neighbour exchanges (i, i+1)", c.A.Neighbour, c.B.Neighbour)
	cmp("halving exchanges (i, i+N/2)", c.A.Halving, c.B.Halving)
	for _, lp := range c.Levels {
		if lp.A == nil || lp.B == nil {
			who := c.A.Name
			if lp.A == nil {
				who = c.B.Name
			}
			f = append(f, fmt.Sprintf("level %s is only seen in %s", lp.Name, who))
		}
	}
	return f
}

// WriteText writes the comparison as a table and findings.
func (c *Comparison) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	fmt.Fprintf(tw, "\tA: %s\tB: %s\n", c.A.Name, c.B.Name)
	fmt.Fprintf(tw, "ranks\t%d\t%d\n", c.A.N, c.B.N)
	if c.A.Machine != "" || c.B.Machine != "" {
		fmt.Fprintf(tw, "machine\t%s\t%s\n", c.A.Machine, c.B.Machine)
	}
	fmt.Fprintf(tw, "layout\t%s\t%s\n", c.A.Topology.Layout, c.B.Topology.Layout)
	fmt.Fprintf(tw, "nodes x ranks\t%s\t%s\n", topo.DescribeCounts(nodesOf(c.A.Topology)), topo.DescribeCounts(nodesOf(c.B.Topology)))
	fmt.Fprintf(tw, "%s round trip (us)\t\t\n", c.Metric)
	for _, lp := range c.Levels {
		fmt.Fprintf(tw, "  level %s\t%s\t%s\n", lp.Name, levelCell(lp.A), levelCell(lp.B))
	}
	fmt.Fprintf(tw, "  neighbour (i, i+1)\t%s\t%s\n", summaryCell(c.A.Neighbour), summaryCell(c.B.Neighbour))
	fmt.Fprintf(tw, "  halving (i, i+N/2)\t%s\t%s\n", summaryCell(c.A.Halving), summaryCell(c.B.Halving))
	fmt.Fprintf(tw, "  all pairs\t%s\t%s\n", summaryCell(c.A.All), summaryCell(c.B.All))
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nA: %s\nB: %s\n\n", c.A.Topology.Description, c.B.Topology.Description)
	for _, s := range c.Findings {
		if _, err := fmt.Fprintf(w, "- %s\n", s); err != nil {
			return err
		}
	}
	return nil
}

func nodesOf(t *topo.Topology) []int {
	out := make([]int, len(t.Ranks))
	for i, r := range t.Ranks {
		out[i] = r.Node
	}
	return out
}

func levelCell(l *topo.Level) string {
	if l == nil {
		return "-"
	}
	return fmt.Sprintf("median %.2f, %.2f-%.2f, %d pairs", l.RTTMedian, l.RTTMin, l.RTTMax, l.Pairs)
}

func summaryCell(s PairSummary) string {
	if math.IsNaN(s.Median) {
		return "-"
	}
	return fmt.Sprintf("median %.2f, max %.2f, %d/%d off-node", s.Median, s.Max, s.OffNode, s.Pairs)
}
