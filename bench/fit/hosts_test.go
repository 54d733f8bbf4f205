package fit

import (
	"math"
	"strings"
	"testing"

	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/mapper/survey/synth"
)

// slowHostsSurvey is 8 nodes of 2 ranks whose pairs between nodes take
// 2000 us more at 1 MiB than at 64 B alone and 4x that in the concurrent
// rounds, each pair scattered by up to 10% (by its ranks), every third
// pair also measured alone; pairs through a host of slow (its link at
// 1/slowBy of the others') take slowBy times as long, alone and in the
// rounds.
func slowHostsSurvey(slow map[string]bool, slowBy float64) *survey.Survey {
	return slowHostsSurveyHidden(8, slow, slowBy, 1)
}

// slowHostsSurveyHidden is slowHostsSurvey on nodes nodes, with the
// slow hosts' pairs hidden times faster in the concurrent rounds than
// slowBy makes them (their links less shared in the rounds than the
// others').
func slowHostsSurveyHidden(nodes int, slow map[string]bool, slowBy, hidden float64) *survey.Survey {
	s := synth.New(synth.Spec{Nodes: nodes, Sockets: 1, Cores: 2, RTT: [4]float64{1, 1, 10, 10}, Seed: 1})
	s.Meta.Sizes = []int{64, 1 << 20}
	big := survey.NewPairTable(s.N(), 1<<20)
	s.Tables[0].Each(func(a, b, _ int) {
		small := s.Tables[0].At(survey.Min, a, b)
		alone, conc := small+200, small+200
		if ha, hb := s.Ranks[a].Host, s.Ranks[b].Host; ha != hb {
			alone = 2000 * (1 + 0.1*float64((a*7+b*3)%5)/4)
			conc = 4 * (alone + small)
			if slow[ha] || slow[hb] {
				alone *= slowBy
				conc = 4 * (alone + small) / hidden
			}
			alone += small
		}
		iso := math.NaN()
		if (a+b)%3 == 0 {
			iso = alone
		}
		big.Set(&survey.PairStats{A: a, B: b, Size: 1 << 20, Samples: 10, Mean: conc, Min: conc, Median: conc, P99: conc, Isolated: iso})
	})
	s.Tables = append(s.Tables, big)
	return s
}

// TestHostFactors: two hosts of eight whose links carry half the
// others' bandwidth are found (factor about 2, the others 1), their
// pairs fitted at half the level's bandwidth in a contended level, and
// said in a warning naming them; with every host alike (a 10% scatter)
// none is.
func TestHostFactors(t *testing.T) {
	s := slowHostsSurvey(map[string]bool{"node000": true, "node001": true}, 2)
	f := HostFactors(s)
	if f == nil {
		t.Fatal("no slow host found")
	}
	hostIdx, _ := survey.HostIndex(s.Ranks)
	for r, h := range hostIdx {
		want := 1.0
		if host := s.Ranks[r].Host; host == "node000" || host == "node001" {
			want = 2
		}
		if math.Abs(f[h]/want-1) > 0.15 {
			t.Errorf("host %s: factor %.3f, want about %.0f", s.Ranks[r].Host, f[h], want)
		}
	}
	bw := map[bool][]float64{}
	for _, fit := range Survey(s, f) {
		ha, hb := s.Ranks[fit.A].Host, s.Ranks[fit.B].Host
		if ha != hb {
			slow := ha == "node000" || ha == "node001" || hb == "node000" || hb == "node001"
			bw[slow] = append(bw[slow], fit.Bandwidth)
		}
	}
	if len(bw[true]) == 0 || len(bw[false]) == 0 || bw[true][0]/bw[false][0] > 0.6 || bw[true][0]/bw[false][0] < 0.4 {
		t.Errorf("pairs through the slow hosts fitted at %v MB/s, the others at %v: want about half", bw[true][:1], bw[false][:1])
	}
	w := SlowHostsWarning(s, f)
	if !strings.Contains(w, "node000, node001 took") || strings.Contains(w, "node002") {
		t.Errorf("warning %q: want node000 and node001 named, no other", w)
	}
	if f := HostFactors(slowHostsSurvey(nil, 1)); f != nil {
		t.Errorf("hosts alike: factors %v, want none", f)
	}
}

// TestHostFactorsAlone: where the slow hosts' pairs are less slowed by
// the concurrent rounds than the others' (1.3x less), HostFactors takes
// their factor from the pairs measured alone (2, not 2/1.3); without the
// isolation sample, from the rounds (about 1.54). A host with too few
// pairs alone is judged on the rounds.
func TestHostFactorsAlone(t *testing.T) {
	slow := map[string]bool{"node000": true, "node001": true}
	factor := func(s *survey.Survey) float64 {
		f := HostFactors(s)
		if f == nil {
			t.Fatal("no slow host found")
		}
		hostIdx, _ := survey.HostIndex(s.Ranks)
		return f[hostIdx[0]]
	}
	if f := factor(slowHostsSurveyHidden(8, slow, 2, 1.3)); math.Abs(f/2-1) > 0.1 {
		t.Errorf("with pairs measured alone: factor %.3f, want about 2", f)
	}
	const few = 3 // node000's pairs left measured alone
	if few >= MinIsolatedHostPairs {
		t.Fatalf("MinIsolatedHostPairs %d: the test keeps %d of a host's pairs alone, fewer than it", MinIsolatedHostPairs, few)
	}
	s := slowHostsSurveyHidden(8, slow, 2, 1.3)
	iso, kept := s.Tables[1].Values[survey.Isolated], 0
	s.Tables[1].Each(func(a, b, i int) {
		if (s.Ranks[a].Host == "node000" || s.Ranks[b].Host == "node000") && !math.IsNaN(float64(iso[i])) {
			if kept++; kept > few {
				iso[i] = float32(math.NaN())
			}
		}
	})
	if f := factor(s); math.Abs(f/(2/1.3)-1) > 0.1 {
		t.Errorf("too few pairs alone: factor %.3f, want about %.2f (the rounds')", f, 2/1.3)
	}
}

// TestHostFactorsAgainstFast: one host of four linked at a quarter of
// the others' rate holds half the pairs between nodes, and the median
// of them all put it at 1.6x; measured again against the pairs through
// no slow host, at 4x (as on the virtual cluster, TestSlowNodeNamed).
func TestHostFactorsAgainstFast(t *testing.T) {
	for _, hidden := range []float64{1, 1.3} { // judged alone; on the rounds
		s := slowHostsSurveyHidden(4, map[string]bool{"node002": true}, 4, hidden)
		iso, med := s.Tables[1].Values[survey.Isolated], s.Tables[1].Values[survey.Median]
		for i := range iso {
			iso[i] = float32(math.NaN())
			if hidden == 1 { // every pair alone: MinIsolatedHostPairs of each host's 12
				iso[i] = med[i] / 4
			}
		}
		f := HostFactors(s)
		if f == nil {
			t.Fatalf("hidden %g: no slow host found", hidden)
		}
		hostIdx, _ := survey.HostIndex(s.Ranks)
		for r, h := range hostIdx {
			want := map[bool]float64{true: 4 / hidden, false: 1}[s.Ranks[r].Host == "node002"]
			if math.Abs(f[h]/want-1) > 0.1 {
				t.Errorf("hidden %g: host %s factor %.2f, want about %.2f", hidden, s.Ranks[r].Host, f[h], want)
			}
		}
	}
}
