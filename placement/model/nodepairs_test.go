package model_test

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/latmap/latmap/mapper/compare"
	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/mapper/survey/synth"
	"github.com/latmap/latmap/mapper/topo"
	"github.com/latmap/latmap/placement/model"
)

// TestOneCrossNodeRule: a sample:2 survey of 16 nodes x 8 ranks (every pair
// inside the nodes, the leaders' pairs at 10 us, and between nodes 0 and
// 1 two sampled pairs, (1,9) at 40 us and (2,10) at 16 us) gives its
// unmeasured cross-node pairs one value in every reader: the dense fill,
// compare of the survey held sparse, and place's node-pair costs. Between
// nodes 0 and 1 that is the median of the three measured pairs, 16 us (the
// leaders' pair alone would say 10); elsewhere the leaders' pair.
func TestOneCrossNodeRule(t *testing.T) {
	s := synth.New(synth.Spec{Nodes: 16, Sockets: 2, Cores: 4, RTT: [4]float64{1, 2, 10, 10}, Seed: 1, Scope: survey.ScopeNodes})
	s.Meta.Scope = "sample:2"
	for _, p := range []struct {
		a, b int
		rtt  float64
	}{{1, 9, 40}, {2, 10, 16}} {
		s.Tables[0].Set(&survey.PairStats{A: p.a, B: p.b, Size: 64, Samples: 100, Mean: p.rtt, Min: p.rtt, Median: p.rtt, P99: p.rtt})
	}
	dir := filepath.Join(t.TempDir(), "s")
	if err := survey.WriteSurvey(dir, s, false); err != nil {
		t.Fatal(err)
	}
	read := func(keep bool) *survey.Survey {
		s, err := survey.ReadSurvey(dir, survey.LoadOptions{KeepSparse: keep})
		if err != nil {
			t.Fatal(err)
		}
		if s.Sparse() != keep {
			t.Fatalf("KeepSparse %v: read sparse %v", keep, s.Sparse())
		}
		return s
	}
	filled, sparse := read(false), read(true)
	leader := filled.Tables[0].At(survey.Median, 0, 8)
	for _, c := range []struct {
		a, b int
		want float64
	}{{3, 11, 16}, {0, 9, 16}, {1, 9, 40}, {7, 8, 16}, {3, 19, filled.Tables[0].At(survey.Median, 0, 16)}, {9, 30, filled.Tables[0].At(survey.Median, 8, 24)}} {
		if got := filled.Tables[0].At(survey.Median, c.a, c.b); math.Abs(got-c.want) > 1e-4 {
			t.Errorf("filled (%d,%d) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
	if leader == 16 {
		t.Fatal("the leaders' pair is the median: the test cannot tell the rules apart")
	}
	// compare of the sparse survey: the neighbour pairs (7,8), (15,16), ...
	// and every halving pair cross nodes unmeasured; their summaries are
	// the filled one's.
	opt := topo.DefaultOptions()
	cs, err := compare.Compare(sparse, sparse, "a", "b", opt)
	if err != nil {
		t.Fatal(err)
	}
	cf, err := compare.Compare(filled, filled, "a", "b", opt)
	if err != nil {
		t.Fatal(err)
	}
	if cs.A.Neighbour != cf.A.Neighbour || cs.A.Halving != cf.A.Halving {
		t.Errorf("compare, sparse: neighbour %+v halving %+v; filled: %+v %+v", cs.A.Neighbour, cs.A.Halving, cf.A.Neighbour, cf.A.Halving)
	}
	// place: the node-pair costs of the sparse survey price every
	// unmeasured cross-node pair as the filled survey does.
	ms, err := model.MachineFromSurvey(sparse, model.SurveyCostOptions{})
	if err != nil {
		t.Fatal(err)
	}
	mf, err := model.MachineFromSurvey(filled, model.SurveyCostOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for a := 0; a < 128; a++ {
		for b := a + 1; b < 128; b++ {
			if a/8 == b/8 || sparse.Tables[0].SamplesAt(a, b) > 0 {
				continue
			}
			x, y := mf.Link(a, b), ms.Link(a, b)
			if math.Abs(x.Latency-y.Latency) > 1e-6*x.Latency || math.Abs(x.InvBandwidth-y.InvBandwidth) > 1e-6*math.Max(x.InvBandwidth, 1e-30) {
				t.Errorf("link (%d,%d): sparse %+v, filled %+v", a, b, y, x)
			}
			checked++
		}
	}
	if checked != survey.TriLen(128)-16*28-survey.TriLen(16)-2 {
		t.Errorf("checked %d unmeasured cross-node pairs", checked)
	}
}
