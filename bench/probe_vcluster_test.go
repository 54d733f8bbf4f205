package bench_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/latmap/latmap/internal/testutil"
	"github.com/latmap/latmap/internal/vcluster"
	"github.com/latmap/latmap/mapper/placefile"
	"github.com/latmap/latmap/mapper/survey"
)

// twoLeaves is the probe tests' cluster, 4 virtual nodes of 1 rank on
// two leaves of two, every node's link and each leaf's trunk shaped to
// 100 Mbit/s, and the survey flags that probe it (few round trips, the
// bandwidth phases off).
func twoLeaves(t *testing.T) (*vcluster.Cluster, []string) {
	c := vcluster.StartWith(t, vcluster.Options{Nodes: 4, SlotsPerNode: 1, Rate: "100mbit", Leaves: 2, TrunkRate: "100mbit"})
	return c, []string{"--probe", "on", "--nodebw-size", "64K", "--sizes", "64", "--repeats", "10", "--node-bandwidth", "off", "--switch-bandwidth", "off"}
}

// TestProbeVirtualCluster: latmap survey --probe on under real Open MPI
// on 4 virtual nodes of 1 rank on two leaf switches of two, every node's
// link and each leaf's one trunk to the spine shaped to 100 Mbit/s. Two
// flows from one leaf to the other share that leaf's trunk and slow each
// other 2x; any other two flows of four distinct hosts (within the
// leaves, or crossing the other way) share nothing. Every pair of flows
// shares.csv judges must be judged so, and every pair of flows that
// shares must be found: judged shared in its classes' row, not cleared
// by a random step. latmap topo then sets the probe beside a declared
// topology.conf: it agrees with the leaves as wired, and names the pairs
// of flows that leaves declared crosswise route wrongly, and latmap
// place says the same among its warnings.
func TestProbeVirtualCluster(t *testing.T) {
	testutil.RequireMPI(t)
	bin := testutil.LatmapBin(t)
	c, flags := twoLeaves(t)
	out := filepath.Join(t.TempDir(), "survey")
	s := runSurvey(t, c.MpirunArgs(4), bin, out, append(flags, "--size-sweep", "off")...)
	m := s.Meta.Probe
	if m == nil {
		t.Fatalf("meta.json has no probe record; warnings: %q", s.Meta.Warnings)
	}
	t.Logf("probe: routers from %s, %d classes; %d steps alone, %d random (%d pairs of classes cleared), %d two at a time (%d pairs judged, %d shared); a flow alone %.1f ms; %.1f s",
		m.Planned, m.Classes, m.AloneSteps, m.RandomSteps, m.Cleared, m.PairSteps, m.Judged, m.Shared, 1e3*m.AloneMedianSeconds, m.Seconds)
	leaf := map[string]int{}
	for i, n := range c.Nodes {
		leaf[n] = i / 2
	}
	// Two flows share the trunk when both leave one leaf for the other.
	truth := func(sa, da, sb, db string) bool {
		return leaf[sa] == leaf[sb] && leaf[da] == leaf[db] && leaf[sa] != leaf[da]
	}
	class := func(src, dst string) [2]any { return [2]any{m.Routers[src], dst} }
	judged := map[[2][2]any]bool{}
	for _, r := range s.Shares {
		t.Logf("%s -> %s and %s -> %s: slowed %.2fx and %.2fx, shared %v", r.SrcA, r.DstA, r.SrcB, r.DstB, r.SlowdownA, r.SlowdownB, r.Shared)
		if want := truth(r.SrcA, r.DstA, r.SrcB, r.DstB); r.Shared != want {
			t.Errorf("%s -> %s and %s -> %s judged shared %v; the cluster's wiring says %v", r.SrcA, r.DstA, r.SrcB, r.DstB, r.Shared, want)
		}
		a, b := class(r.SrcA, r.DstA), class(r.SrcB, r.DstB)
		judged[[2][2]any{a, b}], judged[[2][2]any{b, a}] = r.Shared, r.Shared
	}
	sharing := 0
	for _, sa := range c.Nodes {
		for _, da := range c.Nodes {
			for _, sb := range c.Nodes {
				for _, db := range c.Nodes {
					if len(map[string]bool{sa: true, da: true, sb: true, db: true}) < 4 || !truth(sa, da, sb, db) {
						continue
					}
					sharing++
					if !judged[[2][2]any{class(sa, da), class(sb, db)}] {
						t.Errorf("%s -> %s and %s -> %s share the trunk, and the probe did not find it", sa, da, sb, db)
					}
				}
			}
		}
	}
	if sharing == 0 {
		t.Fatal("no two flows share a trunk: the test's cluster tells nothing")
	}
	if _, ok := m.Routers[c.Nodes[3]]; !ok || m.Judged != len(s.Shares) {
		t.Errorf("meta.json's probe %+v: want every host's router and a row for each judged pair (%d rows)", m, len(s.Shares))
	}
	// latmap topo sets the probe beside a declared topology.conf's
	// routes: the leaves as wired agree with every verdict; declared
	// crosswise (node1 with node3), the routes judge the pairs wrongly,
	// and topo names them.
	dir := t.TempDir()
	matrix := filepath.Join(dir, "app.csv")
	if err := os.WriteFile(matrix, []byte("src,dst,bytes,messages\n0,2,1e9,1000\n1,3,1e9,1000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, d := range []struct {
		name       string
		a, b, x, y string
		agree      bool
	}{{"as wired", c.Nodes[0], c.Nodes[1], c.Nodes[2], c.Nodes[3], true}, {"crosswise", c.Nodes[0], c.Nodes[2], c.Nodes[1], c.Nodes[3], false}} {
		conf := filepath.Join(dir, "topology.conf")
		text := fmt.Sprintf("SwitchName=leaf0 Nodes=%s,%s\nSwitchName=leaf1 Nodes=%s,%s\nSwitchName=top Switches=leaf0,leaf1\n", d.a, d.b, d.x, d.y)
		if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		o, err := testutil.Run(t, time.Minute, nil, bin, "topo", out, "--topology", conf)
		if err != nil {
			t.Fatalf("latmap topo --topology (%s): %v\n%s", d.name, err, o)
		}
		var lines []string
		for _, l := range strings.Split(o, "\n") {
			if strings.Contains(l, "probe of flows") || strings.Contains(l, "slowed each other") || strings.Contains(l, "neither slowed") || strings.Contains(l, "cleared them") {
				lines = append(lines, strings.TrimSpace(l))
			}
		}
		t.Logf("topo, leaves declared %s:\n%s", d.name, strings.Join(lines, "\n"))
		if len(lines) == 0 || strings.Contains(strings.Join(lines, "\n"), "warning:") == d.agree {
			t.Errorf("topo with the leaves declared %s: %q, want the probe %s", d.name, lines, map[bool]string{true: "agreeing", false: "disagreeing, named"}[d.agree])
		}
		// place says the same among its warnings, on the routes it prices.
		o, err = testutil.Run(t, time.Minute, nil, bin, "place", "--survey", out, "--matrix", matrix, "--topology", conf, "--json")
		if err != nil {
			t.Fatalf("latmap place --topology (%s): %v\n%s", d.name, err, o)
		}
		var a placefile.Advice
		if err := json.Unmarshal([]byte(o), &a); err != nil {
			t.Fatalf("%v\n%s", err, o)
		}
		w := strings.Join(a.Warnings, "\n")
		if !strings.Contains(w, "network: probe of flows at once") || strings.Contains(w, "slowed each other") == d.agree {
			t.Errorf("place with the leaves declared %s: warnings %q, want the probe %s", d.name, a.Warnings, map[bool]string{true: "agreeing", false: "disagreeing, named"}[d.agree])
		}
	}
}

// TestProbeInterrupt: Ctrl-C to mpirun while the probe of flows at once
// runs (on the virtual cluster of TestProbeVirtualCluster) stops the
// survey within mpirun's second: every pair measured is written, meta.json
// says it stopped in the probe, and no shares.csv half judged is left.
func TestProbeInterrupt(t *testing.T) {
	testutil.RequireMPI(t)
	bin := testutil.LatmapBin(t)
	c, flags := twoLeaves(t)
	out := filepath.Join(t.TempDir(), "survey")
	args := append(append(c.MpirunArgs(4), bin, "survey", "-o", out), append(flags, "--progress")...)
	o, err := stopAt(t, args, 0, "latmap: probe: ", func(p *os.Process) { p.Signal(syscall.SIGINT) })
	if err == nil {
		t.Errorf("interrupted survey exited with status 0:\n%s", o)
	}
	s, rerr := survey.ReadSurvey(out, survey.LoadOptions{})
	if rerr != nil {
		t.Fatalf("the survey stopped in the probe is not readable: %v\n%s", rerr, o)
	}
	if !strings.Contains(s.Meta.Stopped, "in the probe of flows at once") || s.Meta.Probe != nil || len(s.Shares) != 0 {
		t.Errorf("stopped %q, probe %+v, %d rows of shares.csv: want it stopped in the probe, and no probe written\n%s", s.Meta.Stopped, s.Meta.Probe, len(s.Shares), o)
	}
	if _, err := os.Stat(filepath.Join(out, survey.SharesFile)); err == nil {
		t.Errorf("%s written by a probe stopped midway", survey.SharesFile)
	}
	tab, err := s.Table(64)
	if err != nil {
		t.Fatal(err)
	}
	for a := 0; a < 4; a++ {
		for b := a + 1; b < 4; b++ {
			if n := tab.SamplesAt(a, b); n != 10 {
				t.Errorf("pair %d-%d has %d round trips, want the 10 measured before the probe", a, b, n)
			}
		}
	}
	t.Logf("stopped: %s", s.Meta.Stopped)
}
