package survey_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/mapper/survey/synth"
)

// TestLargeNodesSurveyStaysSparse: a nodes-scope survey of more than
// MaxFillBytes (257 nodes x 64, one metric) is read as it was measured, sparse,
// never filled into the 135-million-pair triangle; its node leaders' view
// is dense and has every leader pair.
func TestLargeNodesSurveyStaysSparse(t *testing.T) {
	s := synth.New(synth.Spec{Nodes: 257, Sockets: 2, Cores: 32, RTT: [4]float64{1, 2, 5, 5}, Seed: 3, Scope: survey.ScopeNodes})
	if int64(survey.TriLen(s.N()))*8 <= survey.MaxFillBytes {
		t.Fatalf("%d ranks: filled they fit MaxFillBytes", s.N())
	}
	dir := filepath.Join(t.TempDir(), "s")
	if err := survey.WriteSurvey(dir, s, false); err != nil {
		t.Fatal(err)
	}
	got, err := survey.ReadSurvey(dir, survey.LoadOptions{Metrics: []survey.Metric{survey.Median}})
	if err != nil {
		t.Fatal(err)
	}
	want := 257*64*63/2 + 257*256/2
	if !got.Sparse() || got.Filled != 0 || got.Tables[0].Len() != want {
		t.Fatalf("sparse %v, filled %d, %d pairs held; want sparse, 0, %d", got.Sparse(), got.Filled, got.Tables[0].Len(), want)
	}
	if !strings.Contains(got.FillNote(), "read as measured, node by node") {
		t.Errorf("note %q", got.FillNote())
	}
	// Rank 64 leads node 1, rank 65 does not: (64, 128) was measured,
	// (65, 129) was not.
	if v := got.Tables[0].At(survey.Median, 64, 128); !(v >= 5*0.99) {
		t.Errorf("leader pair (64,128) = %v", v)
	}
	if v := got.Tables[0].At(survey.Median, 65, 129); v == v {
		t.Errorf("unmeasured pair (65,129) = %v, want NaN", v)
	}
	l, err := got.NodeLeaders()
	if err != nil {
		t.Fatal(err)
	}
	if l.N() != 257 || l.Tables[0].Sparse() || !strings.Contains(l.Meta.Machine, "node leaders") {
		t.Fatalf("leaders: %d ranks, sparse %v, machine %q", l.N(), l.Tables[0].Sparse(), l.Meta.Machine)
	}
	for a := 0; a < l.N(); a++ {
		for b := a + 1; b < l.N(); b++ {
			if v := l.Tables[0].At(survey.Median, a, b); !(v > 0) {
				t.Fatalf("leader pair (%d,%d) = %v", a, b, v)
			}
		}
	}
}
