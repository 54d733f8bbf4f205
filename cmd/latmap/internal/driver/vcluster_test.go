package driver_test

import (
	"bytes"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/latmap/latmap/internal/testutil"
	"github.com/latmap/latmap/internal/vcluster"
	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/mapper/topo"

	"github.com/latmap/latmap/cmd/latmap/internal/driver"
	"github.com/latmap/latmap/plots"
)

// TestRealSurveysOnVirtualCluster measures two real surveys with Open MPI
// on a virtual cluster of 2 nodes x 2 slots (shared memory within a node,
// TCP over 400 Mbit/s links between), one mapped by slot (block) and one
// by node (cyclic), then infers their topology, compares them and draws
// them. Topology is inferred at 256 KiB, where the link decides: 64 B
// round trips within and across nodes overlap on a 2-core machine.
func TestRealSurveysOnVirtualCluster(t *testing.T) {
	testutil.RequireMPI(t)
	bin := testutil.LatmapBin(t)
	c := vcluster.StartWith(t, vcluster.Options{Nodes: 2, SlotsPerNode: 2, Rate: "400mbit"})
	const size = 256 << 10
	dir := t.TempDir()
	runSurvey := func(name string, mapBy ...string) string {
		out := filepath.Join(dir, name)
		args := append(append(append([]string(nil), c.MpirunArgs(4)...), mapBy...), bin, "survey", "-o", out, "--repeats", "30", "--sizes", "64,256K")
		testutil.MustRun(t, 5*time.Minute, args...)
		return out
	}
	block := runSurvey("block")
	cyclic := runSurvey("cyclic", "--map-by", "node")
	for _, tc := range []struct{ dir, layout string }{{block, topo.LayoutBlock}, {cyclic, topo.LayoutCyclic}} {
		s, err := survey.Load(tc.dir, survey.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		opt := topo.DefaultOptions()
		opt.Size = size
		tp, err := topo.Infer(s, opt)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %s; levels %+v", filepath.Base(tc.dir), tp.Description, tp.Levels)
		nodes := make([]int, s.N())
		hosts := map[string]int{}
		want := make([]int, s.N())
		for i, r := range tp.Ranks {
			nodes[i] = r.Node
			if _, ok := hosts[r.Host]; !ok {
				hosts[r.Host] = len(hosts)
			}
			want[i] = hosts[r.Host]
		}
		if !reflect.DeepEqual(nodes, want) || tp.Layout != tc.layout || !tp.HostsAgree {
			t.Errorf("%s: nodes %v, want the hosts %v; layout %q, want %q", tc.dir, nodes, want, tp.Layout, tc.layout)
		}
	}
	var buf bytes.Buffer
	png := filepath.Join(dir, "cmp.png")
	if err := driver.Compare(driver.CompareRequest{A: block, B: cyclic, Output: png, Size: size, Out: &buf}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "layouts differ: "+block+" is block, "+cyclic+" is cyclic") {
		t.Errorf("compare:\n%s", buf.String())
	}
	for _, style := range []string{plots.StyleHeatmap, plots.StyleSurface, plots.StyleHistogram} {
		if err := driver.Plot(driver.PlotRequest{Input: block, Output: filepath.Join(dir, style+".png"), Size: -1, Order: "host", Style: style}); err != nil {
			t.Errorf("%s: %v", style, err)
		}
	}
}
