package bench

import (
	"fmt"
	"io"
	"math"
	"sort"
	"time"

	"github.com/latmap/latmap/internal/text"
	"github.com/latmap/latmap/mapper/fabric"
	"github.com/latmap/latmap/mapper/survey"
)

// Schedule says in which order the pairs are measured.
type Schedule string

// The schedules of latmap survey.
const (
	// Rounds pairs the ranks with the circle method: N-1 rounds (N for odd
	// N) of disjoint pairs measured at the same time.
	Rounds Schedule = "rounds"
	// Sequential measures one pair at a time in mmpi's order.
	Sequential Schedule = "sequential"
)

// Defaults of latmap survey. The default sizes are a latency size and a
// bandwidth size, so that a survey made with no options writes fit.csv
// and latmap place prices large messages with measured bandwidths.
const (
	DefaultSize             = 64
	DefaultBandwidthSize    = 64 << 10
	DefaultSizeSpec         = "64,64K"
	DefaultRepeats          = 100
	DefaultWarmup           = 10
	DefaultBurst            = 10
	DefaultIsolatedFraction = 0.05
	// MaxSize is the largest message size accepted (1 GiB).
	MaxSize = text.MaxSize
	// InterferenceWarn is the interference above which the survey warns.
	InterferenceWarn = 1.25
)

// Options configure a survey. The zero value is not valid; start from
// DefaultOptions.
type Options struct {
	// Out is the survey directory to write (rank 0).
	Out string
	// Force replaces an existing Out (and Mmpi file).
	Force bool
	// Sizes are the message sizes in bytes.
	Sizes []int
	// SizeSpec, when set, is the sizes as the user wrote them ("64,1K,1M",
	// see text.ParseSizes); Validate parses it into Sizes.
	SizeSpec string
	// Repeats is the number of timed round trips per pair and size.
	Repeats int
	// Burst is the number of timed round trips a pair makes in a row each
	// time it meets its partner: the repetitions are measured in
	// ceil(Repeats/Burst) passes over all pairs. 1 measures one round trip
	// per pass, as mmpi did.
	Burst int
	// Warmup is the number of untimed round trips per pair and size before
	// timing.
	Warmup int
	// Schedule is Rounds or Sequential.
	Schedule Schedule
	// IsolatedFraction is the share of pairs re-measured in isolation after
	// the rounds (at least N pairs, at most IsolationMax and all); 0 turns it off. For
	// Sequential, at most 16 of them are re-measured, with the other ranks
	// asleep in long naps instead of waiting for their turn.
	IsolatedFraction float64
	// NodeBandwidth is NodeBWAuto, NodeBWOn or NodeBWOff: whether to
	// measure the nodes' aggregate bandwidth (nodebw.csv); auto measures
	// when the ranks span at least 2 hosts.
	NodeBandwidth string
	// NodeBWSize is the node bandwidth phase's message size in bytes;
	// NodeBWSizeSpec, when set, is it as the user wrote it ("1M").
	NodeBWSize     int
	NodeBWSizeSpec string
	// SwitchBandwidth is SwitchBWAuto, SwitchBWOn or SwitchBWOff: whether
	// to find the switch levels above the nodes in the latencies and
	// measure what each switch group's uplinks carry (switches.csv,
	// switchbw.csv, at NodeBWSize); auto measures when there are switch
	// levels.
	SwitchBandwidth string
	// Probe is ProbeOn, ProbeOff or ProbeAuto (the default): whether to
	// probe which flows between the hosts slow each other, moved at once
	// (shares.csv, bench/probeflows.go); auto probes where the round
	// trips show no links between the job's routers (ProbeWanted).
	Probe string
	// SizeSweep is SizeSweepOn (auto is on) or SizeSweepOff: whether to
	// time a few pairs at every size (sweep.csv, bench/sweep.go).
	SizeSweep string
	// Topology, when set, is a network description (mapper/fabric) whose
	// levels above the nodes the switch phase measures, instead of the
	// levels found in the latencies; fabric is it, read by Validate.
	Topology string
	fabric   *fabric.Fabric
	// stopped is --resume's survey as rank 0 read it before MPI started
	// (checkBeforeMPI), so that it is read once.
	stopped *survey.Survey
	// Scope says which pairs to measure: "all", "nodes" (every pair
	// inside each node and every pair of node leaders), "sample:K" (nodes
	// plus K random cross-node pairs per node, to check that a leader
	// speaks for its node) or ScopeAuto ("" too): all up to AutoAllRanks
	// ranks, else sample:AutoSampleK.
	Scope string
	// TimeBudget, when above 0, bounds the survey's measurement: it is
	// estimated from a probe round at each size and the repeats lowered (never below
	// MinBudgetRepeats) or scope all narrowed to nodes to fit, and
	// re-estimated after every pass (see budget).
	TimeBudget time.Duration
	// Mmpi, when set, is the file to write in mmpi's log format.
	Mmpi string
	// Resume, when set, is a survey stopped early to complete (resume.go);
	// Out is it when unset, and it is then replaced.
	Resume string
	// Progress forces the progress display on rank 0's Stderr even when it
	// is not a terminal.
	Progress bool
	// Stderr receives progress and warnings (rank 0 only); nil is os.Stderr.
	Stderr io.Writer
	// CommandLine is recorded in meta.json.
	CommandLine []string
}

// DefaultOptions returns the options of a plain "latmap survey -o out".
func DefaultOptions(out string) Options {
	return Options{
		Out:              out,
		Sizes:            []int{DefaultSize, DefaultBandwidthSize},
		Repeats:          DefaultRepeats,
		Warmup:           DefaultWarmup,
		Burst:            DefaultBurst,
		Schedule:         Rounds,
		IsolatedFraction: DefaultIsolatedFraction,
		NodeBandwidth:    NodeBWAuto,
		NodeBWSize:       DefaultNodeBWSize,
		SwitchBandwidth:  SwitchBWAuto,
		SizeSweep:        SizeSweepOn,
		Probe:            ProbeAuto,
	}
}

// Validate checks the options and puts the sizes in increasing order. It
// needs no MPI, so every rank can call it before any measurement starts.
func (o *Options) Validate() error {
	if o.Resume != "" && (o.Out == "" || o.Out == o.Resume) {
		o.Out, o.Force = o.Resume, true
	}
	if o.Resume != "" && o.Mmpi != "" {
		return fmt.Errorf("--mmpi cannot go with --resume (the log needs every round trip of the smallest size in one run)")
	}
	if o.Out == "" {
		return fmt.Errorf("--output is required (survey DIR to write: -o DIR), except with --resume DIR (a survey stopped early)")
	}
	if err := o.validateSizes(); err != nil {
		return err
	}
	if err := o.validateRepeats(); err != nil {
		return err
	}
	switch o.Schedule {
	case Rounds, Sequential:
	default:
		return fmt.Errorf("unknown schedule %q (want rounds or sequential)", o.Schedule)
	}
	if math.IsNaN(o.IsolatedFraction) || o.IsolatedFraction < 0 || o.IsolatedFraction > 1 {
		return fmt.Errorf("--isolated-fraction %v is not between 0 and 1", o.IsolatedFraction)
	}
	if err := o.validateNodeBandwidth(); err != nil {
		return err
	}
	if o.TimeBudget < 0 {
		return fmt.Errorf("--time-budget %s is negative: give a duration such as 30m, or 0 for no budget", o.TimeBudget)
	}
	return o.validateScope()
}

// validateSizes parses SizeSpec into Sizes when set and checks the sizes:
// at least one, each in range and given once; it sorts them.
func (o *Options) validateSizes() error {
	if o.SizeSpec != "" {
		sizes, err := text.ParseSizes(o.SizeSpec)
		if err != nil {
			return err
		}
		o.Sizes = sizes
	}
	if len(o.Sizes) == 0 {
		return fmt.Errorf("no message size; give --sizes, for example --sizes 64 or --sizes 8,64,1K,64K")
	}
	sizes := append([]int(nil), o.Sizes...)
	sort.Ints(sizes)
	for i, s := range sizes {
		if s < 0 || s > MaxSize {
			return fmt.Errorf("message size %d bytes is out of range (0 to %d)", s, MaxSize)
		}
		if i > 0 && sizes[i-1] == s {
			return fmt.Errorf("message size %d given twice", s)
		}
	}
	o.Sizes = sizes
	return nil
}

// validateRepeats checks the timed round trips, the burst (lowered to the
// repeats when above) and the warm-up round trips.
func (o *Options) validateRepeats() error {
	if o.Repeats < 2 {
		return fmt.Errorf("--repeats %d: need at least 2 timed round trips per pair for a deviation", o.Repeats)
	}
	if o.Repeats > 1e7 {
		return fmt.Errorf("--repeats %d is more than 10000000", o.Repeats)
	}
	if o.Burst < 1 {
		return fmt.Errorf("--burst %d: need at least 1 round trip per pass", o.Burst)
	}
	if o.Burst > o.Repeats {
		o.Burst = o.Repeats
	}
	if o.Warmup < 0 {
		return fmt.Errorf("--warmup %d is negative: give 0 for no warm-up round trips, or more", o.Warmup)
	}
	return nil
}

// validateNodeBandwidth checks the node and switch bandwidth phases'
// settings, with auto and DefaultNodeBWSize when unset, parses
// NodeBWSizeSpec into NodeBWSize when set, and reads --topology.
func (o *Options) validateNodeBandwidth() error {
	for _, ph := range []struct {
		flag string
		v    *string
	}{{"--switch-bandwidth", &o.SwitchBandwidth}, {"--node-bandwidth", &o.NodeBandwidth}, {"--size-sweep", &o.SizeSweep}} {
		switch *ph.v {
		case NodeBWAuto, NodeBWOn, NodeBWOff:
		case "":
			*ph.v = NodeBWAuto
		default:
			return fmt.Errorf("%s %q: want auto, on or off", ph.flag, *ph.v)
		}
	}
	switch o.Probe {
	case ProbeOn, ProbeOff, ProbeAuto:
	case "":
		o.Probe = ProbeAuto
	default:
		return fmt.Errorf("--probe %q: want auto, on or off", o.Probe)
	}
	if o.NodeBWSizeSpec != "" {
		v, err := text.ParseSize(o.NodeBWSizeSpec)
		if err != nil || v < 1 {
			return fmt.Errorf("--nodebw-size %q: want a message size of at least 1 byte, such as 64K or 1M", o.NodeBWSizeSpec)
		}
		o.NodeBWSize = v
	}
	if o.NodeBWSize == 0 {
		o.NodeBWSize = DefaultNodeBWSize
	}
	if o.NodeBWSize < 1 || o.NodeBWSize > MaxSize {
		return fmt.Errorf("--nodebw-size %d bytes is out of range (1 to %d)", o.NodeBWSize, MaxSize)
	}
	var err error
	if o.Topology != "" {
		if o.fabric, err = fabric.Read(o.Topology); err != nil {
			err = fmt.Errorf("--topology: %w", err)
		}
	}
	return err
}

// validateScope checks the scope (ScopeAuto when unset) and what --mmpi
// needs: every pair (scope all or auto) and a smallest size that is a
// whole number of MPI_INTs.
func (o *Options) validateScope() error {
	if o.Scope == "" {
		o.Scope = ScopeAuto
	}
	if o.Scope != ScopeAuto {
		kind, _, err := survey.ParseScope(o.Scope)
		if err != nil {
			return fmt.Errorf("--scope: %w", err)
		}
		if o.Mmpi != "" && kind != survey.ScopeAll {
			return fmt.Errorf("--mmpi writes every pair, so it needs --scope all (or auto), not %s", o.Scope)
		}
	}
	if o.Mmpi != "" && o.Sizes[0]%4 != 0 {
		return fmt.Errorf("--mmpi needs a smallest message size that is a multiple of 4 bytes (mmpi counted MPI_INTs), got %d", o.Sizes[0])
	}
	return nil
}
