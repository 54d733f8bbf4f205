package survey

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/latmap/latmap/mapper/survey/sweep"
)

// Survey file names inside a survey directory.
const (
	MetaFile  = "meta.json"
	RanksFile = "ranks.csv"
	PairsFile = "pairs.csv"
	FitFile   = "fit.csv"
)

// SurveyMeta is the survey directory's meta.json.
type SurveyMeta struct {
	Tool        string    `json:"tool"`
	Version     string    `json:"version"`
	Start       time.Time `json:"start"`
	End         time.Time `json:"end"`
	CommandLine []string  `json:"command_line,omitempty"`
	MPIVersion  string    `json:"mpi_version,omitempty"`
	Launcher    string    `json:"launcher,omitempty"`
	Ranks       int       `json:"ranks"`
	Sizes       []int     `json:"sizes"`
	Repeats     int       `json:"repeats"`
	Warmup      int       `json:"warmup"`
	Schedule    string    `json:"schedule"`
	// Scope says which pairs were measured ("all" for every pair).
	Scope string `json:"scope"`
	// Interference is the median ratio of concurrent to isolated round
	// trips over the pairs re-measured in isolation; absent for sequential.
	Interference *float64 `json:"interference,omitempty"`
	// IsolatedPairs is how many pairs were re-measured in isolation.
	IsolatedPairs int `json:"isolated_pairs,omitempty"`
	// WtickSeconds is MPI_Wtick, the resolution of MPI_Wtime.
	WtickSeconds float64 `json:"wtick_s,omitempty"`
	// MeasureSeconds is the wall time of the measurement phase.
	MeasureSeconds float64 `json:"measure_s,omitempty"`
	// IsolationSeconds is the wall time of the re-measurement in isolation
	// (not included in MeasureSeconds).
	IsolationSeconds float64 `json:"isolation_s,omitempty"`
	// Machine names the machine when known (for example from an mmpi log's
	// "Testing Hostname").
	Machine string `json:"machine,omitempty"`
	// Source says where the data came from when it was not measured by
	// latmap survey (for example "mmpi:bw_4x32.dat").
	Source string `json:"source,omitempty"`
	// Stopped says why and where a survey stopped early (a SIGTERM or
	// SIGINT; latmap survey wrote the pairs measured until then).
	Stopped string `json:"stopped,omitempty"`
	// ScopeCheck compares, for scope sample:K, the sampled cross-node
	// pairs with their nodes' leader pair.
	ScopeCheck *ScopeCheck `json:"scope_check,omitempty"`
	// TimeBudget records what --time-budget did.
	TimeBudget *TimeBudgetMeta `json:"time_budget,omitempty"`
	// NodeBandwidth records the node aggregate-bandwidth phase (nodebw.csv)
	// when it ran.
	NodeBandwidth *NodeBandwidthMeta `json:"node_bandwidth,omitempty"`
	// SwitchBandwidth records the switch bandwidth phase (switches.csv,
	// switchbw.csv) when it ran.
	SwitchBandwidth *SwitchBandwidthMeta `json:"switch_bandwidth,omitempty"`
	// Probe records the probe of flows at once (shares.csv) when it ran.
	Probe *ProbeMeta `json:"probe,omitempty"`
	// FitFactors are how much the concurrent rounds slowed each level's
	// pairs at each size, which fit.csv divides out (see FitFactor).
	FitFactors []FitFactor `json:"fit_factors,omitempty"`
	// Warnings are things the producer wants a reader to know.
	Warnings []string `json:"warnings,omitempty"`
}

// FitFactor is meta.json's record of how much measuring pairs at the same
// time slowed one level's round trips at one size: the median, over that
// level's pairs of the isolation sample, of the round trip measured in the
// concurrent rounds over the one measured alone. Concurrent pairs share
// node links, switch uplinks and memory, so at bandwidth sizes their round
// trips are slower than a pair's alone; fit.csv fits each pair's round
// trips divided by its level's factor (when it is above 1), so that its
// bandwidth is the pair's own, as latmap place prices it (sharing is
// priced apart, from nodebw.csv and switchbw.csv).
type FitFactor struct {
	SizeBytes int    `json:"size_bytes"`
	Level     string `json:"level"`
	// Pairs is how many pairs of the isolation sample it rests on.
	Pairs  int     `json:"pairs"`
	Factor float64 `json:"factor"`
}

// BetweenNodes reports whether f's level is one of pairs on different
// nodes (not LevelSameSocket or LevelSameNode).
func (f FitFactor) BetweenNodes() bool {
	return f.Level != LevelSameSocket && f.Level != LevelSameNode
}

// ScopeCheck is meta.json's scope_check: how far the sampled cross-node
// pairs of a sample:K survey were from their nodes' leader pair (median
// round trip at the smallest size, sample over leader).
type ScopeCheck struct {
	Pairs       int     `json:"pairs"`
	MedianRatio float64 `json:"median_ratio"`
	MaxRatio    float64 `json:"max_ratio"`
	// Off lists the sampled pairs off by more than ScopeCheckRatio either
	// way, as "a-b: ratio".
	Off []string `json:"off,omitempty"`
}

// TimeBudgetMeta is meta.json's time_budget: the budget, what the survey
// estimated from a probe round, and what it changed to fit.
type TimeBudgetMeta struct {
	BudgetS float64 `json:"budget_s"`
	// ProbeS is the wall time of the probe rounds (one round of the
	// schedule at each size, a pass's worth of round trips).
	ProbeS float64 `json:"probe_s"`
	// EstimateS is the survey's estimated duration with the requested
	// repeats and scope, from the probe.
	EstimateS float64 `json:"estimate_s"`
	// MinRepeats is the floor the budget never lowers repeats below.
	MinRepeats int `json:"min_repeats"`
	// PlannedRepeats are the repeats the probe chose.
	PlannedRepeats int `json:"planned_repeats"`
	// Repeats are the timed round trips per pair at each size, as
	// measured (pairs.csv's samples).
	Repeats []int `json:"repeats"`
	// Scope is the scope the survey ran with, when the budget narrowed it.
	Scope string `json:"scope,omitempty"`
	// Actions say in words what the budget changed, and when.
	Actions []string `json:"actions,omitempty"`
}

// ScopeCheckRatio is how far (either way) a sampled pair may be from its
// leader pair before the survey warns that the leader does not speak for
// the node.
const ScopeCheckRatio = 1.5

// Rank is one row of ranks.csv: where an MPI rank ran.
// Unknown integer facts are -1.
type Rank struct {
	Rank     int    `csv:"rank"`
	Host     string `csv:"host"`
	CPU      int    `csv:"cpu"`
	CPUEnd   int    `csv:"cpu_end"`
	CPUSet   string `csv:"cpuset"`
	Socket   int    `csv:"socket"`
	NUMA     int    `csv:"numa"`
	L3       int    `csv:"l3"`
	Migrated bool   `csv:"migrated"`
	Core     int    `csv:"core"` // CPU's logical core as hwloc and Open MPI 5 number them; -1 unknown
}

// Metric names one statistic of a pair's round-trip times.
type Metric int

// The statistics kept per pair and size in pairs.csv.
const (
	Mean Metric = iota
	Std
	Min
	Median
	P99
	Isolated
	numMetrics
)

var metricNames = [...]string{"mean", "std", "min", "median", "p99", "isolated"}

// String returns the metric's short name (mean, std, min, median, p99, isolated).
func (m Metric) String() string {
	if m < 0 || m >= numMetrics {
		return fmt.Sprintf("Metric(%d)", int(m))
	}
	return metricNames[m]
}

// ParseMetric parses a metric's short name.
func ParseMetric(s string) (Metric, error) {
	for i, n := range metricNames {
		if n == s {
			return Metric(i), nil
		}
	}
	return 0, fmt.Errorf("unknown metric %q (want one of mean, std, min, median, p99, isolated)", s)
}

// AllMetrics lists every metric.
func AllMetrics() []Metric { return []Metric{Mean, Std, Min, Median, P99, Isolated} }

// PairStats is one row of pairs.csv: the round-trip statistics of one
// unordered rank pair (A < B) at one message size, in microseconds.
// Isolated is NaN unless the pair was re-measured in isolation.
type PairStats struct {
	A, B     int
	Size     int
	Samples  int
	Mean     float64
	Std      float64
	Min      float64
	Median   float64
	P99      float64
	Isolated float64
}

// Get returns the value of metric m.
func (p *PairStats) Get(m Metric) float64 {
	switch m {
	case Mean:
		return p.Mean
	case Std:
		return p.Std
	case Min:
		return p.Min
	case Median:
		return p.Median
	case P99:
		return p.P99
	case Isolated:
		return p.Isolated
	}
	return math.NaN()
}

// Fit is one row of fit.csv: T(s) = L + s/B fitted per pair over the sizes.
type Fit struct {
	A         int     `csv:"rank_a"`
	B         int     `csv:"rank_b"`
	Latency   float64 `csv:"latency_us"`
	Bandwidth float64 `csv:"bandwidth_MBps"`
}

// PairTable holds the statistics of every unordered pair at one message size
// as packed upper triangles (float32 is ample for microsecond latencies and
// halves the memory of a 4096-rank survey). Values of unmeasured pairs are
// NaN and their Samples 0. A metric that was not loaded has a nil slice.
//
// A sparse table (NewSparsePairTable) holds only the pairs stored in it,
// in key order: a survey of 16,384 ranks that measured its nodes' leaders
// and the pairs inside each node holds 1% of the triangle. Index
// Samples and Values of a sparse table only through Each.
type PairTable struct {
	N       int
	Size    int
	Samples []int32
	Values  [numMetrics][]float32
	// keys, in a sparse table, are the stored pairs' keys a*N+b (a < b),
	// increasing once settled; nil in a dense one.
	keys []uint64
	// unsorted says rows were appended out of key order since the table
	// was last settled (see Settle).
	unsorted bool
}

// NewSparsePairTable returns an empty sparse table for n ranks with the
// given metrics (all when none).
func NewSparsePairTable(n, size int, metrics ...Metric) *PairTable {
	t := &PairTable{N: n, Size: size, Samples: []int32{}, keys: []uint64{}}
	if len(metrics) == 0 {
		metrics = AllMetrics()
	}
	for _, m := range metrics {
		t.Values[m] = []float32{}
	}
	return t
}

// reserve makes room for rows more rows in a sparse table.
func (t *PairTable) reserve(rows int) {
	t.keys = slices.Grow(t.keys, rows)
	t.Samples = slices.Grow(t.Samples, rows)
	for m := range t.Values {
		if t.Values[m] != nil {
			t.Values[m] = slices.Grow(t.Values[m], rows)
		}
	}
}

// Sparse reports whether the table stores only its pairs (see
// NewSparsePairTable).
func (t *PairTable) Sparse() bool { return t.keys != nil }

// Len is the number of stored pairs of a sparse table, the triangle's size
// for a dense one.
func (t *PairTable) Len() int {
	t.Settle()
	return len(t.Samples)
}

// Settle puts the rows a sparse table took out of key order in order, once:
// a stable sort of the row indices by key, O(r log r) in the r rows, the
// last row of a pair winning as Set promises. Every read settles first;
// a reader that shares the table between goroutines settles it before
// (ReadSurvey does).
func (t *PairTable) Settle() {
	if !t.unsorted {
		return
	}
	t.unsorted = false
	ord := make([]keyRow, len(t.keys))
	for i, k := range t.keys {
		ord[i] = keyRow{k, int32(i)}
	}
	sortKeyRows(ord)
	// Keep the last of each run of equal keys: the row Set stored last.
	perm := make([]int32, 0, len(ord))
	for i := range ord {
		if i+1 < len(ord) && ord[i+1].k == ord[i].k {
			continue
		}
		perm = append(perm, ord[i].row)
	}
	t.keys = gather(t.keys, perm)
	t.Samples = gather(t.Samples, perm)
	for m := range t.Values {
		if t.Values[m] != nil {
			t.Values[m] = gather(t.Values[m], perm)
		}
	}
}

// keyRow is a sparse table's row and its key.
type keyRow struct {
	k   uint64
	row int32
}

// maxMergeRuns is the most ascending runs sortKeyRows merges rather than
// sorts.
const maxMergeRuns = 64

// sortKeyRows sorts by key, rows in their order within a key (as a stable
// sort would). Rows that come in a few ascending runs (a survey's leader
// pairs, then each node's pairs; files appended one to another) are
// merged in O(r log runs); others are radix sorted.
func sortKeyRows(ord []keyRow) {
	if len(ord) < 2 {
		return
	}
	runs := []int{0}
	for i := 1; i < len(ord) && len(runs) <= maxMergeRuns; i++ {
		if ord[i].k < ord[i-1].k {
			runs = append(runs, i)
		}
	}
	if len(runs) > maxMergeRuns {
		radixKeyRows(ord)
		return
	}
	runs = append(runs, len(ord))
	src, dst := ord, make([]keyRow, len(ord))
	for len(runs) > 2 {
		next := []int{0}
		for r := 0; r+1 < len(runs); r += 2 {
			lo, mid := runs[r], runs[r+1]
			hi := mid
			if r+2 < len(runs) {
				hi = runs[r+2]
			}
			mergeKeyRows(dst[lo:hi], src[lo:mid], src[mid:hi])
			next = append(next, hi)
		}
		runs, src, dst = next, dst, src
	}
	if &src[0] != &ord[0] {
		copy(ord, src)
	}
}

// radixKeyRows sorts ord by key with a least-significant-digit radix sort
// (8-bit digits, skipping those all keys share): O(r) per digit, stable,
// so the rows of one key keep their order.
func radixKeyRows(ord []keyRow) {
	var hi uint64
	for _, x := range ord {
		hi |= x.k
	}
	src, dst := ord, make([]keyRow, len(ord))
	for shift := uint(0); shift < 64 && hi>>shift != 0; shift += 8 {
		var count [257]int
		for _, x := range src {
			count[(x.k>>shift)&0xff+1]++
		}
		if count[(src[0].k>>shift)&0xff+1] == len(src) {
			continue // every key has this digit
		}
		for d := 1; d < 257; d++ {
			count[d] += count[d-1]
		}
		for _, x := range src {
			d := (x.k >> shift) & 0xff
			dst[count[d]] = x
			count[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &ord[0] {
		copy(ord, src)
	}
}

// mergeKeyRows merges ascending a and b into out, a's first on equal keys.
func mergeKeyRows(out, a, b []keyRow) {
	i, j := 0, 0
	for k := range out {
		if j >= len(b) || (i < len(a) && a[i].k <= b[j].k) {
			out[k] = a[i]
			i++
		} else {
			out[k] = b[j]
			j++
		}
	}
}

// gather returns s[perm[0]], s[perm[1]], ... in a new slice.
func gather[E any](s []E, perm []int32) []E {
	out := make([]E, len(perm))
	for i, j := range perm {
		out[i] = s[j]
	}
	return out
}

// index is where pair (a, b) is stored; ok is false when a sparse table
// does not hold it (i is then where it would go).
func (t *PairTable) index(a, b int) (i int, ok bool) {
	if t.keys == nil {
		return TriIndex(t.N, a, b), true
	}
	t.Settle()
	k := pairKey(t.N, a, b)
	i = sort.Search(len(t.keys), func(j int) bool { return t.keys[j] >= k })
	return i, i < len(t.keys) && t.keys[i] == k
}

// pairKey is unordered pair (a, b)'s key among n ranks: a*n+b with a < b,
// in the order of the packed triangle.
func pairKey(n, a, b int) uint64 {
	if a > b {
		a, b = b, a
	}
	return uint64(a)*uint64(n) + uint64(b)
}

// pairOf is the pair of key k in t.
func (t *PairTable) pairOf(k uint64) (a, b int) { return int(k / uint64(t.N)), int(k % uint64(t.N)) }

// Metrics lists the metrics loaded in t.
func (t *PairTable) Metrics() []Metric {
	var ms []Metric
	for m := Metric(0); m < numMetrics; m++ {
		if t.Values[m] != nil {
			ms = append(ms, m)
		}
	}
	return ms
}

// Each calls fn for every measured pair (a < b, Samples above 0) in order
// of a then b, with the pair's index into Samples and Values.
func (t *PairTable) Each(fn func(a, b, i int)) {
	if t.keys != nil {
		t.Settle()
		for i, k := range t.keys {
			if t.Samples[i] > 0 {
				a, b := t.pairOf(k)
				fn(a, b, i)
			}
		}
		return
	}
	i := 0
	for a := 0; a < t.N; a++ {
		for b := a + 1; b < t.N; b++ {
			if t.Samples[i] > 0 {
				fn(a, b, i)
			}
			i++
		}
	}
}

// EachPart is Each over the part-th of parts runs of the table's rows
// (in order: the parts one after another are Each), so that parts can
// be read at once, each by its own goroutine (Settle first).
func (t *PairTable) EachPart(part, parts int, fn func(a, b, i int)) {
	t.Settle()
	rows := len(t.Samples)
	lo, hi := rows*part/parts, rows*(part+1)/parts
	if t.keys != nil {
		for i := lo; i < hi; i++ {
			if t.Samples[i] > 0 {
				a, b := t.pairOf(t.keys[i])
				fn(a, b, i)
			}
		}
		return
	}
	a, i := 0, 0
	for a < t.N && i+t.N-1-a <= lo {
		i += t.N - 1 - a
		a++
	}
	for b := a + 1 + lo - i; a < t.N && lo < hi; a, b = a+1, a+2 {
		for ; b < t.N && lo < hi; b++ {
			if t.Samples[lo] > 0 {
				fn(a, b, lo)
			}
			lo++
		}
	}
}

// Dense returns the table as a dense one (t itself when it is).
func (t *PairTable) Dense() *PairTable {
	if t.keys == nil {
		return t
	}
	t.Settle()
	ms := t.Metrics()
	d := NewPairTable(t.N, t.Size, ms...)
	for i, k := range t.keys {
		a, b := t.pairOf(k)
		j := TriIndex(t.N, a, b)
		d.Samples[j] = t.Samples[i]
		for _, m := range ms {
			d.Values[m][j] = t.Values[m][i]
		}
	}
	return d
}

// NewPairTable returns a table for n ranks with the given metrics allocated
// and every value NaN.
func NewPairTable(n, size int, metrics ...Metric) *PairTable {
	t := &PairTable{N: n, Size: size, Samples: make([]int32, TriLen(n))}
	if len(metrics) == 0 {
		metrics = AllMetrics()
	}
	for _, m := range metrics {
		v := make([]float32, TriLen(n))
		nan := float32(math.NaN())
		for i := range v {
			v[i] = nan
		}
		t.Values[m] = v
	}
	return t
}

// TriLen is the number of unordered pairs of n ranks.
func TriLen(n int) int { return n * (n - 1) / 2 }

// TriIndex is the index of unordered pair (a, b), a != b, in a packed upper
// triangle of n ranks.
func TriIndex(n, a, b int) int {
	if a > b {
		a, b = b, a
	}
	return a*n - a*(a+1)/2 + (b - a - 1)
}

// Has reports whether metric m was loaded.
func (t *PairTable) Has(m Metric) bool { return t.Values[m] != nil }

// HasValues reports whether the table holds at least one value (not NaN)
// of metric m.
func (t *PairTable) HasValues(m Metric) bool {
	for _, v := range t.Values[m] {
		if !math.IsNaN(float64(v)) {
			return true
		}
	}
	return false
}

// At returns metric m of pair (a, b); 0 on the diagonal, NaN when unmeasured
// or not loaded.
func (t *PairTable) At(m Metric, a, b int) float64 {
	if a == b {
		return 0
	}
	v := t.Values[m]
	if v == nil {
		return math.NaN()
	}
	i, ok := t.index(a, b)
	if !ok {
		return math.NaN()
	}
	return float64(v[i])
}

// SamplesAt returns the number of samples of pair (a, b).
func (t *PairTable) SamplesAt(a, b int) int {
	if a == b {
		return 0
	}
	i, ok := t.index(a, b)
	if !ok {
		return 0
	}
	return int(t.Samples[i])
}

// Set stores one row; a later row of the same pair replaces an earlier one.
// A sparse table takes rows in any order in O(1) amortised time: a row out
// of key order is appended and put in place when the table settles.
func (t *PairTable) Set(p *PairStats) {
	var i int
	if t.keys == nil {
		i = TriIndex(t.N, p.A, p.B)
	} else {
		i = t.appendRow(pairKey(t.N, p.A, p.B))
	}
	t.Samples[i] = int32(p.Samples)
	for m := Metric(0); m < numMetrics; m++ {
		if t.Values[m] != nil {
			t.Values[m][i] = float32(p.Get(m))
		}
	}
}

// appendRow is the index at which a sparse table stores the row of key k:
// the pair's own index when the table is settled and holds it, else a new
// row at the end (out of order when k is not above the last key).
func (t *PairTable) appendRow(k uint64) int {
	last := len(t.keys) - 1
	if !t.unsorted && last >= 0 && k <= t.keys[last] {
		if i, ok := t.index(t.pairOf(k)); ok {
			return i
		}
		t.unsorted = true
	}
	t.keys = append(t.keys, k)
	t.Samples = append(t.Samples, 0)
	for m := range t.Values {
		if t.Values[m] != nil {
			t.Values[m] = append(t.Values[m], 0)
		}
	}
	return last + 1
}

// Survey is a survey directory in memory.
type Survey struct {
	Meta SurveyMeta
	// Path is the directory or log it was read from ("" when made in
	// memory), to name it in titles and messages.
	Path  string
	Ranks []Rank
	// Tables holds one PairTable per message size, in increasing size.
	Tables []*PairTable
	Fits   []Fit
	// NodeBandwidth holds nodebw.csv's rows; nil when the survey has none.
	NodeBandwidth []NodeBandwidth
	// Switches holds switches.csv's rows (each host's switch group at
	// each level above the nodes), SwitchBandwidth switchbw.csv's; nil
	// when the survey found no switch level.
	Switches        []HostGroup
	SwitchBandwidth []SwitchBandwidth
	// Shares holds shares.csv's rows (pairs of flows moved two at a
	// time); nil when the survey has none.
	Shares []Share
	// Sweep holds sweep.csv's rows (a few pairs timed at every size);
	// nil when the survey has none.
	Sweep []sweep.Row
	// Filled is how many unmeasured cross-node pairs of a survey whose
	// scope is not "all" were filled from the pairs measured between their
	// nodes when it was read (CrossNodeMedians; see FillNote).
	Filled int
	// Partial says pairs.csv covered less than SparseBelow of the
	// triangle, whatever the scope, and was read sparse (then filled when
	// small enough; see MaxFillBytes).
	Partial bool
	// Lacks says what reading the survey found missing against what its
	// meta.json promises (see Warnings).
	Lacks []string
	// lacksSaidFill says Lacks says what of the missing pairs was filled
	// (FillNote need not).
	lacksSaidFill bool
}

// N is the number of ranks.
func (s *Survey) N() int { return len(s.Ranks) }

// Sizes lists the measured message sizes in increasing order.
func (s *Survey) Sizes() []int {
	out := make([]int, len(s.Tables))
	for i, t := range s.Tables {
		out[i] = t.Size
	}
	return out
}

// Table returns the table of a message size, or the smallest size when
// size < 0.
func (s *Survey) Table(size int) (*PairTable, error) {
	if len(s.Tables) == 0 {
		if s.Path != "" {
			return nil, fmt.Errorf("survey %s has no pairs: its %s has no rows (want a row per pair of ranks measured, as latmap survey writes)", s.Path, PairsFile)
		}
		return nil, fmt.Errorf("survey has no pairs")
	}
	if size < 0 {
		return s.Tables[0], nil
	}
	for _, t := range s.Tables {
		if t.Size == size {
			return t, nil
		}
	}
	return nil, fmt.Errorf("survey has no pairs of %d bytes (sizes: %v)", size, s.Sizes())
}

func (s *Survey) sortTables() {
	sort.Slice(s.Tables, func(i, j int) bool { return s.Tables[i].Size < s.Tables[j].Size })
}

// Validate checks that the survey is self-consistent: ranks numbered 0..N-1
// in order, at least two ranks, tables of N ranks.
func (s *Survey) Validate() error {
	if len(s.Ranks) < 2 {
		return fmt.Errorf("survey has %d ranks, need at least 2", len(s.Ranks))
	}
	for i, r := range s.Ranks {
		if r.Rank != i {
			return fmt.Errorf("%s row %d has rank %d, want %d (ranks must be 0..N-1 in order)", RanksFile, i+1, r.Rank, i)
		}
	}
	for _, t := range s.Tables {
		if t.N != len(s.Ranks) {
			return fmt.Errorf("pairs of %d bytes are for %d ranks, %s has %d", t.Size, t.N, RanksFile, len(s.Ranks))
		}
	}
	if len(s.Switches) > 0 {
		if err := checkSwitches(s.Switches); err != nil {
			return err
		}
		hosts := map[string]bool{}
		for _, h := range s.Switches {
			hosts[h.Host] = true
		}
		for _, r := range s.Ranks {
			if !hosts[r.Host] {
				return fmt.Errorf("%s names no group for host %s of rank %d", SwitchesFile, r.Host, r.Rank)
			}
		}
	}
	if err := checkShares(s.Shares, s.Ranks); err != nil {
		return err
	}
	for _, r := range s.Sweep {
		if max(r.A, r.B) >= len(s.Ranks) {
			return fmt.Errorf("%s has a pair of ranks %d and %d; %s has %d ranks", sweep.File, r.A, r.B, RanksFile, len(s.Ranks))
		}
	}
	return nil
}

// HostIndex numbers the ranks' hosts in order of first appearance: idx[r]
// is rank r's host number, hosts how many distinct hosts there are.
func HostIndex(ranks []Rank) (idx []int, hosts int) {
	return hostIndex(len(ranks), func(r int) string { return ranks[r].Host })
}

// HostIndexOf is HostIndex of ranks given by their host names (a name
// per rank), as the survey's phases know them.
func HostIndexOf(names []string) (idx []int, hosts int) {
	return hostIndex(len(names), func(r int) string { return names[r] })
}

func hostIndex(n int, host func(r int) string) ([]int, int) {
	num := map[string]int{}
	idx := make([]int, n)
	for i := range idx {
		h := host(i)
		v, ok := num[h]
		if !ok {
			v = len(num)
			num[h] = v
		}
		idx[i] = v
	}
	return idx, len(num)
}
