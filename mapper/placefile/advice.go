package placefile

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"slices"

	"github.com/latmap/latmap/internal/text"
)

// AdviceSchema is the version of the advice format (schema_version). It
// grows when a field changes meaning or goes; added fields keep it, and
// readers ignore fields they do not know. Version 1 is the format of
// latmap place --json as of the first versioned release, field for field
// (placement/testdata/advice.golden.json pins them).
const AdviceSchema = 1

// Advice is what latmap place --json prints, and what latmap verify
// --place and latmap report read: the inputs, what the model predicted for
// each placement, what the check of the model against the profiled run
// found, the verdict, the proposal itself, and the file written. Its
// parts are embedded so that the JSON object is flat.
type Advice struct {
	// Schema is AdviceSchema when written; 0 in files written before the
	// format had a version (the same fields).
	Schema int `json:"schema_version"`
	Inputs
	MachineSummary
	TrafficSummary
	Predicted
	Check
	// Verdict says in plain words whether to use the proposal,
	// VerdictKind says it for programs (one of the Verdict* constants).
	Verdict     string `json:"verdict"`
	VerdictKind string `json:"verdict_kind"`
	Proposal
	Written
	// Network describes the declared network the model routed over
	// (--topology), WhatIf the run predicted on changed networks
	// (--what-if).
	Network  *Network `json:"network,omitempty"`
	WhatIf   []WhatIf `json:"what_if,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
}

// Network is the declared network (latmap place --topology): where it
// was read, its kind and shape, its link classes, the share of the
// declared bandwidths the survey measured (derate, 1: none) and where
// the capacities came from.
type Network struct {
	Source string `json:"source"`
	Kind   string `json:"kind"`
	Shape  string `json:"shape"`
	// Origin says where the network came from: declared in a file, or
	// found in the survey's round trips; Routing where its routes come
	// from (forwarding tables, shortest paths, a rule).
	Origin   string   `json:"origin,omitempty"`
	Routing  string   `json:"routing,omitempty"`
	Links    int      `json:"links"`
	Classes  []string `json:"link_classes"`
	Derate   float64  `json:"derate"`
	Capacity string   `json:"capacity_source"`
}

// WhatIf is the run predicted on a changed network (latmap place
// --what-if CHANGE): what runs today and a placement made for the
// changed network, beside what runs today on the network as it is.
type WhatIf struct {
	Change       string     `json:"change"`
	LinksChanged int        `json:"links_changed"`
	TodayNowS    float64    `json:"today_now_s"`
	Today        Prediction `json:"today"`
	Proposal     Prediction `json:"proposal"`
}

// Inputs name what latmap place read.
type Inputs struct {
	Tool    string `json:"tool"`
	Version string `json:"version"`
	Survey  string `json:"survey"`
	Profile string `json:"profile,omitempty"`
	// Current is the placement file scored as the current placement
	// (--current), when one was given.
	Current string `json:"current,omitempty"`
	Matrix  string `json:"matrix,omitempty"`
}

// MachineSummary describes the machine the survey measured and the part
// of it the placement uses.
type MachineSummary struct {
	Ranks       int         `json:"ranks"`
	Slots       int         `json:"slots"`
	Hosts       int         `json:"hosts"`
	HostsUsed   int         `json:"hosts_used"`
	Levels      []LevelInfo `json:"levels"`
	FilledPairs int         `json:"filled_pairs"`
	// LeaderFilledPairs are the pairs a nodes or sample survey filled from
	// its node leaders (counted as measured).
	LeaderFilledPairs int `json:"leader_filled_pairs,omitempty"`
	SurveyPairs       int `json:"survey_pairs"`
	// Bandwidth says where the pairs' bandwidths came from: BandwidthFit,
	// BandwidthDefaults or BandwidthGiven.
	Bandwidth string `json:"bandwidth_source"`
	// NodeBandwidth says where the contention model's node bandwidth came
	// from (nodebw.csv, the pairwise fit, given, none).
	NodeBandwidth string `json:"node_bandwidth_source"`
	// SwitchBandwidth says where the switch groups' uplink bandwidths
	// came from (switchbw.csv, none); empty when the survey found no
	// switch level.
	SwitchBandwidth string `json:"switch_bandwidth_source,omitempty"`
	// MessageSizes says where a message between the survey's sizes is
	// priced from (the size sweep's sweep.csv); empty: the line through
	// the survey's sizes.
	MessageSizes string `json:"message_sizes_source,omitempty"`
}

// LevelInfo describes one hierarchy level of the machine.
type LevelInfo struct {
	Name          string  `json:"name"`
	LatencyUs     float64 `json:"latency_us"`
	BandwidthGBps float64 `json:"bandwidth_GBps"`
	Pairs         int     `json:"pairs"`
	Measured      int     `json:"measured"`
}

// TrafficSummary sizes the application's traffic.
type TrafficSummary struct {
	TrafficPairs int     `json:"traffic_pairs"`
	Messages     float64 `json:"messages"`
	Bytes        float64 `json:"bytes"`
	SelfFlows    int     `json:"self_flows_ignored"`
}

// Predicted is what the model predicts: one Prediction per placement
// (current when known, block, cyclic, the proposal last) and the run with
// a perfect interconnect.
type Predicted struct {
	Predictions []Prediction `json:"predictions"`
	PerfectRun  float64      `json:"perfect_interconnect_run_s"`
}

// Prediction is the modelled outcome of one placement.
type Prediction struct {
	Name string `json:"name"`
	// Transfer is the modelled pairwise transfer time summed over rank
	// pairs (s): the solver's tie-break.
	Transfer float64 `json:"transfer_s"`
	// MaxRankTransfer is the largest per-rank modelled communication time
	// (s): pairwise transfers, raised where the rank's node link or memory
	// is the bottleneck.
	MaxRankTransfer float64 `json:"max_rank_transfer_s"`
	// Run is the predicted run time: the slowest rank's computation +
	// collective wait + send-late + modelled communication (s). With no
	// profile it is the slowest rank's communication time. The solver
	// minimises it.
	Run float64 `json:"predicted_run_s"`
	// SlowestRank is the rank that sets Run.
	SlowestRank int `json:"slowest_rank"`
	// NodeBound counts the ranks whose time their node's link or memory
	// sets (contention), Contention is what that adds to the slowest
	// rank's communication (s).
	NodeBound  int     `json:"node_bound_ranks"`
	Contention float64 `json:"contention_s"`
	// Collectives is the slowest rank's small collectives (a profile's
	// barriers, and allreduces, reduces and broadcasts of a few KiB),
	// priced by their rounds' latencies in this layout (s; 0 without).
	Collectives float64 `json:"collectives_s,omitempty"`
	// Low and High bound Run over the networks the survey's round trips
	// allow where they cannot tell which way traffic goes between the
	// job's routers (the switch levels above the routers priced and not,
	// and the links the round trips fit where some do); both 0
	// elsewhere.
	Low  float64 `json:"predicted_run_low_s,omitempty"`
	High float64 `json:"predicted_run_high_s,omitempty"`
}

// Check is what the profile says about the run it measured and how the
// model compares with it (both nil without a profile).
type Check struct {
	// Calibration checks the model against the run the profile measured
	// (nil without a profile taken on surveyed slots).
	Calibration *Calibration `json:"calibration,omitempty"`
	Shares      *Shares      `json:"shares,omitempty"`
}

// Calibration compares the model with the run the profile measured: the
// predicted run of the placement the profile was taken under against the
// profile's slowest rank, and each rank's predicted communication time
// against its measured MPI time minus waits. When the ranks' errors are
// one consistent factor per level (on-node, off-node), the factors are
// folded into the model and the predictions use them.
type Calibration struct {
	// PredictedS is the current placement's predicted run with the
	// factors folded in (when Folded), MeasuredS the profile's slowest
	// rank, Error PredictedS / MeasuredS - 1.
	PredictedS float64 `json:"predicted_current_run_s"`
	MeasuredS  float64 `json:"measured_slowest_rank_s"`
	Error      float64 `json:"error"`
	// RawPredictedS and RawError are the same before calibration.
	RawPredictedS float64 `json:"raw_predicted_current_run_s"`
	RawError      float64 `json:"raw_error"`
	// PredictedCommS and MeasuredCommS are the communication times summed
	// over ranks (measured: MPI time minus send-late and collective
	// waits), before calibration.
	PredictedCommS float64 `json:"predicted_comm_s"`
	MeasuredCommS  float64 `json:"measured_comm_s"`
	// RankError is the median over communicating ranks of |predicted /
	// measured - 1| of their communication time before calibration,
	// FoldedRankError the same with the factors.
	RankError       float64 `json:"rank_comm_error"`
	FoldedRankError float64 `json:"folded_rank_comm_error"`
	// OnNode and OffNode are the fitted factors (measured / modelled) of
	// on-node and off-node communication; 1 where the run had too little
	// of that traffic to tell.
	OnNode  float64 `json:"on_node_factor"`
	OffNode float64 `json:"off_node_factor"`
	// Folded is true when the factors are consistent enough to be used.
	Folded bool   `json:"folded"`
	Note   string `json:"note"`
	// HeldOutError is the out-of-sample error of the folded model (0 when
	// not folded: the raw model fitted nothing, and Error is already out
	// of sample): the factors fitted on the even ranks and on the odd
	// ranks each predict the current run, and this is the larger
	// |predicted / measured - 1|. HeldOutRankError is the median over
	// ranks of each rank's communication predicted with the other half's
	// factors. Error itself is in sample (the factors were fitted on this
	// run), so "Can't tell" weighs the gain against HeldOutError.
	HeldOutError     float64 `json:"held_out_error,omitempty"`
	HeldOutRankError float64 `json:"held_out_rank_comm_error,omitempty"`
	// Reruns is what latmap verify measured of the current placement's
	// application (place --reruns DIR): other runs than the profile's,
	// so its error is out of sample.
	Reruns *Reruns `json:"reruns,omitempty"`
}

// Reruns compares the predicted current run with the application runs a
// verification directory measured of the same placement: Runs runs,
// their median MeasuredS, and Error = |predicted / MeasuredS - 1|.
type Reruns struct {
	Dir       string  `json:"dir"`
	Runs      int     `json:"runs"`
	MeasuredS float64 `json:"measured_s"`
	Error     float64 `json:"error"`
}

// CheckError is the error the gain is weighed against: the largest of
// the in-sample error, the held-out one and the reruns'.
func (c *Calibration) CheckError() float64 {
	e := max(math.Abs(c.Error), c.HeldOutError)
	if c.Reruns != nil {
		e = max(e, c.Reruns.Error)
	}
	return e
}

// Shares summarise where a profiled run spent its time.
type Shares struct {
	Elapsed float64 `json:"elapsed_s"`
	MPI     float64 `json:"mpi_s"`
	Late    float64 `json:"late_s"`
	Sync    float64 `json:"sync_s"`
	// CommShare is MPI time / elapsed time, summed over ranks.
	CommShare float64 `json:"comm_share"`
	// WaitShare is (late + sync) / MPI time.
	WaitShare float64 `json:"wait_share"`
	// SlowestElapsed is the measured elapsed time of the slowest rank,
	// to compare with the current placement's predicted run.
	SlowestElapsed float64 `json:"slowest_elapsed_s"`
}

// The verdicts of latmap place (verdict_kind).
const (
	// VerdictUse: use the proposal, the predicted gain is worth it.
	VerdictUse = "use"
	// VerdictNotWorth: the predicted gain is under the threshold.
	VerdictNotWorth = "not worth"
	// VerdictWillNotHelp: the gain is under the threshold and waiting or
	// computation, which no placement changes, dominates the run.
	VerdictWillNotHelp = "will not help"
	// VerdictCantTell: the gain is smaller than the model's error on the
	// profiled run.
	VerdictCantTell = "can't tell"
)

// What dominates a profiled run beyond placement's reach (Shares.Limit).
const (
	LimitNone        = ""
	LimitWaiting     = "waiting"
	LimitComputation = "computation"
)

// Limit thresholds, chosen policy: when late-sender and collective wait
// are at least WaitDominates of the MPI time, or MPI is under CommSmall of
// the run, placement cannot change much of the run.
const (
	WaitDominates = 0.5
	CommSmall     = 0.10
)

// Limit says what dominates the run that no placement changes: waiting
// (WaitShare at least WaitDominates), computation (CommShare under
// CommSmall), or LimitNone.
func (s *Shares) Limit() string {
	switch {
	case s.WaitShare >= WaitDominates:
		return LimitWaiting
	case s.CommShare < CommSmall:
		return LimitComputation
	}
	return LimitNone
}

// Proposal is the placement proposed and how the solver found it.
type Proposal struct {
	Solver    SolverInfo  `json:"solver"`
	Placement []RankPlace `json:"placement"`
}

// SolverInfo says how the proposal was found.
type SolverInfo struct {
	Seed       uint64      `json:"seed"`
	Seconds    float64     `json:"seconds"`
	Winner     string      `json:"winner"`
	FellBack   bool        `json:"fell_back"`
	Candidates []Candidate `json:"candidates"`
	// Note says why the solver did not search, when it did not.
	Note string `json:"note,omitempty"`
}

// Candidate is one placement the solver considered.
type Candidate struct {
	Name string `json:"name"`
	// Cost is the summed pairwise transfer time (the tie-break).
	Cost float64 `json:"cost_s"`
	// Run is the predicted run (the objective; on a routed network the
	// prediction with its flows' sharing, which the search's bound
	// leaves out).
	Run float64 `json:"predicted_run_s"`
	// AtLeast is true when Run is a bound from below: the links' bound
	// alone put it above the best candidate's prediction, so its flows'
	// sharing, which only lengthens a run, was not priced.
	AtLeast bool `json:"predicted_run_at_least,omitempty"`
	// Refined is true when refinement ran on it.
	Refined bool `json:"refined"`
	Swaps   int  `json:"swaps"`
}

// RankPlace is where one rank goes in the proposal (and ran before).
type RankPlace struct {
	Rank        int     `json:"rank"`
	Host        string  `json:"host"`
	CPU         int     `json:"cpu"`
	CurrentHost string  `json:"current_host,omitempty"`
	CurrentCPU  *int    `json:"current_cpu,omitempty"`
	PredictedS  float64 `json:"predicted_s"`
}

// Written says which launcher file was written, or why not.
type Written struct {
	Output string `json:"output,omitempty"`
	// NotWritten says why -o's file was not written (the predicted gain is
	// under 2% or under the model's measured error; --force writes it).
	NotWritten string   `json:"not_written,omitempty"`
	Format     string   `json:"format,omitempty"`
	Launch     []string `json:"launch,omitempty"`
}

// ProposalPrediction is the proposal's prediction (the last one).
func (p *Predicted) ProposalPrediction() Prediction {
	return p.Predictions[len(p.Predictions)-1]
}

// Ranged reports whether the predictions carry their range over the
// networks the round trips allow (Prediction.Low, High).
func (p *Predicted) Ranged() bool {
	return slices.ContainsFunc(p.Predictions, func(x Prediction) bool { return x.High > 0 })
}

// Named is the prediction of the placement named name, and whether there
// is one.
func (p *Predicted) Named(name string) (Prediction, bool) {
	if i := slices.IndexFunc(p.Predictions, func(x Prediction) bool { return x.Name == name }); i >= 0 {
		return p.Predictions[i], true
	}
	return Prediction{}, false
}

// Reference is what the proposal is compared with: the current placement
// when known, else the better of block and cyclic.
func (p *Predicted) Reference() Prediction {
	if p.Predictions[0].Name == "current" {
		return p.Predictions[0]
	}
	b, c := p.Predictions[0], p.Predictions[1]
	if c.Run < b.Run || (c.Run == b.Run && c.Transfer < b.Transfer) {
		return c
	}
	return b
}

// Gain is the proposal's predicted gain over the Reference, as a fraction
// of the reference's run (0 when that run is 0).
func (p *Predicted) Gain() float64 {
	prop, ref := p.ProposalPrediction(), p.Reference()
	if ref.Run > 0 {
		return (ref.Run - prop.Run) / ref.Run
	}
	return 0
}

// LaunchHeader is the comment block of the launcher files written for
// this advice.
func (a *Advice) LaunchHeader() []string {
	h := []string{"latmap " + a.Version + " place: rank placement proposal"}
	h = append(h, "survey: "+a.Survey)
	if a.Profile != "" {
		h = append(h, "profile: "+a.Profile)
	}
	if a.Matrix != "" {
		h = append(h, "matrix: "+a.Matrix)
	}
	prop, ref := a.ProposalPrediction(), a.Reference()
	h = append(h, fmt.Sprintf("%d ranks on %d of %s; modelled transfer %.4g s (%s %.4g s)", a.Ranks, a.HostsUsed, text.Count(a.Hosts, "host"), prop.Transfer, ref.Name, ref.Transfer))
	if a.Shares != nil && ref.Run > 0 {
		h = append(h, fmt.Sprintf("predicted run %.4g s vs %s %.4g s (gain %s; perfect interconnect %.4g s)", prop.Run, ref.Name, ref.Run, text.Percent(a.Gain()), a.PerfectRun))
	}
	return h
}

// WriteAdvice writes the advice as indented JSON, with the schema version.
func WriteAdvice(w io.Writer, a *Advice) error {
	a.Schema = AdviceSchema
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(a)
}

// ReadAdvice reads latmap place --json's output. It refuses a schema
// newer than this latmap knows and advice without a proposal.
func ReadAdvice(path string) (*Advice, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var a Advice
	if err := json.Unmarshal(b, &a); err != nil {
		return nil, fmt.Errorf("%s: not the output of latmap place --json (%v)", path, err)
	}
	if len(a.Predictions) == 0 {
		return nil, fmt.Errorf("%s: not the output of latmap place --json (JSON without place's predictions)", path)
	}
	if a.Schema > AdviceSchema {
		return nil, fmt.Errorf("%s: advice schema version %d is newer than this latmap reads (%d): use the latmap that wrote it, or a newer one", path, a.Schema, AdviceSchema)
	}
	return &a, nil
}

// Where the pairs' bandwidths came from (MachineSummary.Bandwidth): the
// survey's fit.csv, latmap's built-in values, or the --bandwidth flags.
const (
	BandwidthFit      = "fit.csv"
	BandwidthDefaults = "defaults"
	BandwidthGiven    = "given"
)
