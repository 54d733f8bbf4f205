package placement

import (
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strings"

	"github.com/latmap/latmap/internal/text"
	"github.com/latmap/latmap/mapper/network"
	"github.com/latmap/latmap/mapper/placefile"
	"github.com/latmap/latmap/mapper/profile"
	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/placement/model"
)

// loadSurvey reads a survey directory or an mmpi log (survey.LoadWith),
// keeping only the metrics the cost model uses.
func loadSurvey(path, hostPattern string) (*survey.Survey, error) {
	mm, err := survey.CompileHostPattern(hostPattern)
	if err != nil {
		return nil, fmt.Errorf("--host-pattern: %w", err)
	}
	s, err := survey.LoadWith(path, survey.LoadOptions{Metrics: []survey.Metric{survey.Mean, survey.Median}, KeepSparse: true}, mm)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// sayLacks prints on w (nil: nowhere) what the survey s lacks against its
// meta.json, as every reader of a survey says it.
func sayLacks(w io.Writer, s *survey.Survey) {
	if w == nil {
		return
	}
	for _, l := range s.Lacks {
		fmt.Fprintf(w, "latmap: %s\n", l)
	}
}

// inputs is what place reads: the machine from the survey, the traffic,
// and with a profile its per-rank times and the placement it ran under.
type inputs struct {
	m  *model.Machine
	md *model.Model
	// profilePlace is where the profile's own ranks ran (nil when not on
	// surveyed slots, or unbound): the profile measured a run of it.
	profilePlace []int32
	warnings     []string // the survey's and the profile's, for the report
	t            *model.Traffic
	prof         *profile.Profile
	rt           *model.RankTimes
	current      []int32 // --current's placement, else profilePlace; nil when unknown
	currentErr   error   // why the current placement is unknown
	// reruns is --reruns' verification directory (nil without it).
	reruns *placefile.Verification
	// found is the network found in the survey's round trips
	// (network.Discover), where none is declared; nil otherwise.
	found *network.Network
	otherModels
}

// otherModels are the models of the network besides inputs.md that
// place searches on, holds a proposal to or prices a range on.
type otherModels struct {
	// search is the model the solver searches on where it is not md:
	// a fat tree found in the survey is searched with each group's
	// uplinks as one (addTree), and priced routed.
	search *model.Model
	// hedge is md with the switch levels above the routers not priced,
	// where those levels group routers by distance, not by a switch
	// they share (routerUplinksOnly): the proposal is searched on it too
	// (hedgeFar).
	hedge *model.Model
	// spread is md with every flow spread over its shortest paths, where
	// md routes a network found in the survey as a guess (addSpread), or
	// priced on the links the round trips between routers fit where md
	// is the switch tree (addRefusedLinks); spreadIs says which, as
	// keepOnEitherRouting's note says it.
	spread   *model.Model
	spreadIs string
	// tree is the survey's switch levels priced, where md is priced on
	// the links a probe of flows at once found shared (addShared): each
	// prediction's range is priced on it too (spreadModels), and the
	// proposal is not held to it (hedgeFar does not run).
	tree *model.Model
}

// readBeside reads, while the survey is read, what does not need it:
// the profile and the traffic, and the network description (--topology),
// which names its own hosts (on a 4,096-node torus reading it was 0.25
// s after the survey's). Each channel says when its part is read.
func (in *inputs) readBeside(opt Options) (chan error, chan fabricRead) {
	traffic := make(chan error, 1)
	go func() {
		var err error
		if opt.Profile != "" {
			if in.prof, err = profile.ReadProfile(opt.Profile); err != nil {
				traffic <- err
				return
			}
		}
		in.t, err = loadTraffic(opt, in.prof)
		traffic <- err
	}()
	network := make(chan fabricRead, 1)
	go func() {
		var r fabricRead
		r.f, r.err = readFabric(opt.Topology, opt.Model.Routing)
		network <- r
	}()
	return traffic, network
}

// loadInputs reads what place prices: the survey's machine and model,
// the traffic (and profile), the network declared or found, the current
// placement.
func loadInputs(opt Options) (*inputs, error) {
	in := &inputs{}
	if err := in.readReruns(opt.Reruns); err != nil {
		return nil, err
	}
	traffic, network := in.readBeside(opt)
	s, err := loadSurvey(opt.Survey, opt.HostPattern)
	if err == nil {
		if in.m, err = model.MachineFromSurvey(s, opt.Costs); err != nil {
			err = fmt.Errorf("survey %s: %w", opt.Survey, err)
		}
	}
	if terr := <-traffic; err == nil {
		err = terr
	}
	if err != nil {
		return nil, err
	}
	in.warnings = append(in.warnings, s.Warnings()...)
	sayLacks(opt.Notes, s)
	if opt.Profile != "" && opt.Matrix != "" {
		in.warnings = append(in.warnings, fmt.Sprintf("--matrix %s replaces the profile's matrix: "+
			"its traffic is priced, with the profile's times and placement", opt.Matrix))
	}
	if note := s.FillNote(); note != "" {
		in.warnings = append(in.warnings, note)
	}
	var notes []string
	in.md, notes = model.NewModel(in.m, s.NodeBandwidth, opt.Model)
	in.warnings = append(append(in.warnings, notes...), in.md.AddSwitches(s.SwitchBandwidth)...)
	if err := in.addTopology(<-network, s); err != nil {
		return nil, err
	}
	if len(opt.Topology) == 0 && !opt.Model.NoContention {
		if err := in.addFound(s, opt.Model.Routing); err != nil {
			return nil, err
		}
	}
	in.checkProbe(s)
	if note := bandwidthSizeNote(in.m, measuredSizes(s, in.m), in.t); note != "" {
		in.warnings = append(in.warnings, note)
	}
	if in.prof != nil {
		in.rt = model.TimesFromProfile(in.prof)
		in.current, in.currentErr = currentPlacement(in.m, in.prof, in.t.N)
		bound, err := in.checkProfileBinding(opt)
		if err != nil {
			return nil, err
		}
		if bound || opt.AcceptUnbound {
			in.profilePlace = in.current
		}
	}
	if opt.Current != "" {
		// A placement file the user runs today, or another tool made,
		// scored as the current placement.
		ranks, _, err := placefile.Read(opt.Current)
		if err != nil {
			return nil, err
		}
		if in.current, err = slotsOf(in.m, ranks, in.t.N); err != nil {
			return nil, err
		}
		in.currentErr = nil
	}
	collectLoad(s.Tables)
	return in, nil
}

// largeLoad is how many survey rows make a load worth collecting after.
const largeLoad = 1 << 20

// collectLoad collects the garbage of reading and pricing a large survey
// (its tables, nothing keeps them): the heap it peaked at is garbage
// now, but the runtime lets the solver's allocations grow to twice that
// peak, in pages the kernel maps afresh. On 4,096 nodes x 4 (8.4
// million rows) the heap was 800 MB at the load and 82 MB after it: left
// uncollected the run peaked at 1.5 GB RSS and 385,000 page faults, 1.4-2.3
// s of system time; collected, at 0.9 GB and 225,000, for a collection of
// under a millisecond.
func collectLoad(tables []*survey.PairTable) {
	rows := 0
	for _, t := range tables {
		rows += t.Len()
	}
	if rows >= largeLoad {
		runtime.GC()
	}
}

// checkProfileBinding refuses to take unbound profile ranks' cpus as the
// current placement (they may have moved; two may have started on one
// cpu) unless --accept-unbound takes them or --current says where they
// run. bound is false
// when some ranks were not bound.
func (in *inputs) checkProfileBinding(opt Options) (bound bool, err error) {
	ranks := make([]survey.Rank, len(in.prof.Ranks))
	for i, r := range in.prof.Ranks {
		ranks[i] = r.Rank
	}
	bound = true
	for _, w := range survey.BindingWarnings(ranks) {
		if !strings.Contains(w, "not bound") {
			in.warnings = append(in.warnings, "profile: "+w)
			continue
		}
		bound = false
		if opt.Current == "" && !opt.AcceptUnbound && in.current != nil {
			return false, fmt.Errorf("profile %s: %s; so where they ran is not a placement to score: "+
				"rerun the profile with ranks bound (mpirun --bind-to core), give the layout with --current FILE, "+
				"or --accept-unbound to take the cpus they started on", opt.Profile, w)
		}
		in.warnings = append(in.warnings, "profile: "+w)
	}
	return bound, nil
}

// loadTraffic reads the matrix (or the profile's) and checks rank counts.
func loadTraffic(opt Options, prof *profile.Profile) (*model.Traffic, error) {
	if opt.Matrix == "" {
		if opt.Ranks > 0 && opt.Ranks != len(prof.Ranks) {
			return nil, fmt.Errorf("--ranks %d but profile %s has %d ranks", opt.Ranks, opt.Profile, len(prof.Ranks))
		}
		t, err := model.TrafficFromProfile(prof)
		if err != nil {
			return nil, fmt.Errorf("profile %s: %w", opt.Profile, err)
		}
		return t, nil
	}
	flows, n, err := profile.ReadMatrixFile(opt.Matrix)
	if err != nil {
		return nil, err
	}
	want, from := opt.Ranks, "--ranks"
	if prof != nil {
		if want > 0 && want != len(prof.Ranks) {
			return nil, fmt.Errorf("--ranks %d but profile %s has %d ranks", want, opt.Profile, len(prof.Ranks))
		}
		want, from = len(prof.Ranks), "the profile"
	}
	if want > 0 {
		if n > want {
			return nil, fmt.Errorf("matrix %s names rank %d but %s has %d ranks (0..%d)", opt.Matrix, n-1, from, want, want-1)
		}
		n = want
	}
	if n < 2 {
		return nil, fmt.Errorf("matrix %s has %d rank; placement needs at least 2", opt.Matrix, n)
	}
	t, err := model.NewTraffic(n, flows)
	if err != nil {
		return nil, fmt.Errorf("matrix %s: %w", opt.Matrix, err)
	}
	return t, nil
}

// currentPlacement matches the profile's ranks (host + cpu) to the
// survey's slots.
func currentPlacement(m *model.Machine, prof *profile.Profile, n int) ([]int32, error) {
	idx := map[string]int32{}
	for i, s := range m.Slots {
		idx[fmt.Sprintf("%s\x00%d", s.Host, s.CPU)] = int32(i)
	}
	cur := make([]int32, n)
	for i := 0; i < n; i++ {
		if i >= len(prof.Ranks) {
			return nil, fmt.Errorf("current placement unknown: the profile has %d ranks, the traffic %d", len(prof.Ranks), n)
		}
		pr := prof.Ranks[i].Rank
		s, ok := idx[fmt.Sprintf("%s\x00%d", pr.Host, pr.CPU)]
		if !ok {
			return nil, fmt.Errorf("current placement unknown: profile rank %d ran on %s cpu %d, which the survey "+
				"did not measure (survey the same nodes with ranks bound to cores)", i, pr.Host, pr.CPU)
		}
		cur[i] = s
	}
	return cur, nil
}

// bandwidthSizeNote warns when the survey measured the bandwidth only with
// messages much smaller than the application's: MPI stacks give a large
// message more of the link than a 64 KiB one (on the simulated fat tree of
// docs/place.md a fit of 64 B and 64 KiB gives 0.70 GB/s where 1 MiB
// messages get 1.25, and every prediction came out 1.6-2x slow).
func bandwidthSizeNote(m *model.Machine, sizes []int, t *model.Traffic) string {
	msgs, bytes := t.Totals()
	if m.Bandwidth != placefile.BandwidthFit || len(sizes) == 0 || msgs <= 0 {
		return ""
	}
	largest, mean := float64(sizes[len(sizes)-1]), bytes/msgs
	if mean < 4*largest {
		return ""
	}
	return fmt.Sprintf("survey: the bandwidths were measured with messages of up to %s bytes, "+
		"and this application's messages average %s: MPI moves large messages faster, so its transfers may be priced "+
		"slower than they run; survey with --sizes 64,%s to measure at its size",
		text.Size(largest), text.Size(mean), text.Size(float64(pow2Below(mean))))
}

// measuredSizes are the message sizes m's prices rest on, in increasing
// order: the survey's, and its size sweep's when m prices messages with
// it (model.Machine.SizeSource).
func measuredSizes(s *survey.Survey, m *model.Machine) []int {
	out := s.Sizes()
	if m.SizeSource() != "" {
		for _, r := range s.Sweep {
			out = append(out, r.Size)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// pow2Below is the largest power of two at most x (1 for x < 2).
func pow2Below(x float64) int {
	p := 1
	for float64(2*p) <= x && p < 1<<30 {
		p *= 2
	}
	return p
}

// readReruns reads --reruns' verification directory (none for ""),
// before the survey and the solver: a directory that cannot judge the
// model fails at once.
func (in *inputs) readReruns(dir string) error {
	if dir == "" {
		return nil
	}
	v, _, err := placefile.ReadVerification(dir)
	if err != nil {
		return fmt.Errorf("--reruns: %w", err)
	}
	if !v.AppTimed {
		return fmt.Errorf("--reruns %s: its runs did not time the application (%s); rerun latmap verify with the timing library (the default)", dir, v.AppNote)
	}
	if !(v.CurrentAppMedian > 0) || math.IsInf(v.CurrentAppMedian, 0) {
		return fmt.Errorf("--reruns %s: its median application run is %g s, which cannot judge a prediction; rerun latmap verify", dir, v.CurrentAppMedian)
	}
	in.reruns = v
	return nil
}
