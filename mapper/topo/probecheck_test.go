package topo

import (
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
	s.Meta.Probe = nil
	if CheckProbe(s, wired) != nil {
		t.Errorf("a survey without a probe was checked")
	}
}
