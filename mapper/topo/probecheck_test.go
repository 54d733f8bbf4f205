package topo

import (
	"math"
	"strings"
	"testing"

	"github.com/latmap/latmap/mapper/fabric"
	"github.com/latmap/latmap/mapper/survey"
)

// TestCheckProbe: a probe on two leaves of two hosts (n1 n2 | n3 n4),
// each leaf its own router, sets beside the routes of topology.conf.
// The probe's truth: flows from one leaf to the other share its uplink.
// Declared as wired, every verdict agrees; with the leaves declared
// otherwise (n1 n3 | n2 n4) the check names the pairs the routes judge
// wrongly; with a sharing pair's row left out (as if a random step
// cleared it) it says the routes share a link the probe cleared.
func TestCheckProbe(t *testing.T) {
	hosts := []string{"n1", "n2", "n3", "n4"}
	leaf := map[string]int{"n1": 0, "n2": 0, "n3": 1, "n4": 1}
	s := &survey.Survey{}
	s.Meta.Probe = &survey.ProbeMeta{Routers: leaf}
	// Every pair of classes with a pair of flows on four distinct hosts,
	// judged as the wiring shares them (a representative each).
	type class struct {
		r   int
		dst string
	}
	seen := map[[2]class]bool{}
	for _, sa := range hosts {
		for _, da := range hosts {
			for _, sb := range hosts {
				for _, db := range hosts {
					if sa == da || sa == sb || sa == db || da == sb || da == db || sb == db {
						continue
					}
					ka, kb := class{leaf[sa], da}, class{leaf[sb], db}
					if seen[[2]class{ka, kb}] || seen[[2]class{kb, ka}] {
						continue
					}
					seen[[2]class{ka, kb}] = true
					shared := leaf[sa] == leaf[sb] && leaf[da] == leaf[db] && leaf[sa] != leaf[da]
					slow := 1.0
					if shared {
						slow = 2
					}
					s.Shares = append(s.Shares, survey.Share{SrcA: sa, DstA: da, SrcB: sb, DstB: db, SlowdownA: slow, SlowdownB: slow, Shared: shared})
				}
			}
		}
	}
	conf := func(text string) *fabric.Fabric {
		f, err := fabric.Parse([]byte(text))
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	wired := conf("SwitchName=leaf0 Nodes=n1,n2\nSwitchName=leaf1 Nodes=n3,n4\nSwitchName=top Switches=leaf0,leaf1\n")
	c := CheckProbe(s, wired)
	if c == nil || !c.Agrees() || c.Judged != len(s.Shares) || c.Agree != c.Judged {
		t.Fatalf("declared as wired: %+v, want every one of the %d rows agreeing", c, len(s.Shares))
	}
	t.Logf("%s", strings.Join(c.Lines(), "\n"))
	other := conf("SwitchName=leaf0 Nodes=n1,n3\nSwitchName=leaf1 Nodes=n2,n4\nSwitchName=top Switches=leaf0,leaf1\n")
	c = CheckProbe(s, other)
	t.Logf("%s", strings.Join(c.Lines(), "\n"))
	if c.Agrees() || len(c.Disagree) == 0 || !strings.Contains(strings.Join(c.Disagree, "\n"), "slowed each other") {
		t.Errorf("declared otherwise: %+v, want the sharing pairs named as apart in the routes", c)
	}
	for i, r := range s.Shares {
		if r.Shared {
			s.Shares = append(s.Shares[:i:i], s.Shares[i+1:]...) // as if a random step cleared it
			break
		}
	}
	c = CheckProbe(s, wired)
	if c.Cleared != 1 || c.Agrees() || !strings.Contains(strings.Join(c.Lines(), "\n"), "the probe cleared them") {
		t.Errorf("a sharing pair cleared: %+v, want it named", c)
	}
	s.Meta.Probe.Unjudged = 3 // the probe stopped before every pair: none is known cleared
	if c = CheckProbe(s, wired); c.Cleared != -1 || !strings.Contains(strings.Join(c.Lines(), "\n"), "left 3 unjudged") {
		t.Errorf("a probe that left pairs unjudged: %+v %q, want the cleared pairs not walked, and why", c, c.Lines())
	}
	s.Meta.Probe = nil
	if CheckProbe(s, wired) != nil {
		t.Errorf("a survey without a probe was checked")
	}
}

// TestPairSlowdown: two flows on one link, max-min fair: equal flows on
// a link as fast as each halve (2x); two flows each held to half the
// link elsewhere (4xDDR hosts on a 4xQDR cable) slow neither; a slow
// and a fast flow leave the fast one the rest (2x for it); two QDR
// flows on an FDR10 cable slow 1.6x (Tartu's); flows spread half over
// the link slow neither.
func TestPairSlowdown(t *testing.T) {
	for _, c := range []struct {
		b, sa, sb, ra, rb, want float64
	}{
		{1, 1, 1, 1, 1, 2},
		{32, 1, 1, 16, 16, 1},
		{32, 1, 1, 16, 32, 2},
		{39.6, 1, 1, 32, 32, 64 / 39.6},
		{1, 0.5, 0.5, 1, 1, 1},
		{1, 1, 0.5, 1, 1, 1.5},
	} {
		if got := PairSlowdown(c.b, c.sa, c.sb, c.ra, c.rb); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("PairSlowdown(%v, %v, %v, %v, %v) = %v, want %v", c.b, c.sa, c.sb, c.ra, c.rb, got, c.want)
		}
	}
}

// TestCheckProbeFastUplink: the same two leaves declared as a list of
// links whose leaves are joined by a link twice as fast as the hosts':
// in those routes flows crossing it slow nothing, so the probe's
// sharing pairs (slowed 2x) are named.
func TestCheckProbeFastUplink(t *testing.T) {
	f, err := fabric.Parse([]byte("n1 l0 10Gbps 1us\nn2 l0 10Gbps 1us\nn3 l1 10Gbps 1us\nn4 l1 10Gbps 1us\nl0 l1 20Gbps 1us\n"))
	if err != nil {
		t.Fatal(err)
	}
	s := &survey.Survey{Shares: []survey.Share{
		{SrcA: "n1", DstA: "n3", SrcB: "n2", DstB: "n4", SlowdownA: 2, SlowdownB: 2, Shared: true},
		{SrcA: "n1", DstA: "n2", SrcB: "n3", DstB: "n4", SlowdownA: 1, SlowdownB: 1},
	}}
	s.Meta.Probe = &survey.ProbeMeta{Routers: map[string]int{"n1": 0, "n2": 0, "n3": 1, "n4": 1}, Threshold: 1.4}
	c := CheckProbe(s, f)
	if c == nil || c.Agree != 1 || c.Judged != 2 || len(c.Disagree) != 1 || !strings.Contains(c.Disagree[0], "n1 -> n3 and n2 -> n4 slowed each other") {
		t.Errorf("%+v: want the pair that slowed each other named, the other agreeing", c)
	}
}
