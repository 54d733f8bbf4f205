package placement

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latmap/latmap/mapper/profile"
	"github.com/latmap/latmap/mapper/survey/synth"
	"github.com/latmap/latmap/placement/internal/shapes"
)

// TestPlaceTopologyWhatIf: latmap place --topology of a plain 4-ring
// (hosts h0..h3, 1 GB/s links) and --what-if torus-x:bw=0.5 on a
// survey whose bandwidth between nodes is the defaults' 3 GB/s (so the
// links are priced as declared, with a note). Rank 0 on h0 sends 1e9 B
// to rank 2 on h2 (0 -> 1 -> 2): 1 s at 1 GB/s, 2 s with the links at
// half; the report, the JSON and the network line say so.
func TestPlaceTopologyWhatIf(t *testing.T) {
	sv := fakeSurvey(t, 4, 1, 1, [3]float64{1, 1, 10}, nil)
	ring := filepath.Join(t.TempDir(), "ring.txt")
	if err := os.WriteFile(ring, []byte("torus 4 bw=1GBps lat=1us\nh0 0\nh1 1\nh2 2\nh3 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mx := writeMatrix(t, []profile.Flow{{Src: 0, Dst: 2, Bytes: 1e9, Messages: 1}})
	var out bytes.Buffer
	a, err := runReport(Options{Survey: sv, Matrix: mx, Topology: []string{ring}, WhatIf: []string{"torus-x:bw=0.5"}}, &out)
	if err != nil {
		t.Fatal(err)
	}
	if a.Network == nil || a.Network.Kind != "torus" || a.Network.Links != 8 {
		t.Fatalf("network %+v, want the 4-ring's 8 link directions", a.Network)
	}
	if len(a.WhatIf) != 1 || !shapes.Near(a.WhatIf[0].TodayNowS, a.Predictions[0].Run) || a.WhatIf[0].LinksChanged != 8 {
		t.Fatalf("what-if %+v", a.WhatIf)
	}
	// The pair alone: 5 us + 1e9 B at 3 GB/s = 0.333 s, raised to the
	// links' 1 s (2 s at half).
	if now, half := a.WhatIf[0].TodayNowS, a.WhatIf[0].Today.Run; !shapes.Near32(now, 1) || !shapes.Near32(half, 2) {
		t.Errorf("block now %.6g s, links halved %.6g s; want 1 and 2", now, half)
	}
	for _, want := range []string{"network: 4 torus from " + ring, "what if torus-x:bw=0.5 (8 links): block predicted 2 s (100.0% slower than 1 s now)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the report lacks %q:\n%s", want, out.String())
		}
	}
	for _, bad := range []string{"blue:bw=0.5", "bw=-1", "torus-x:speed=2"} {
		if _, err := runReport(Options{Survey: sv, Matrix: mx, Topology: []string{ring}, WhatIf: []string{bad}}, io.Discard); err == nil {
			t.Errorf("--what-if %s: want an error", bad)
		}
	}
}

// TestPlaceTopologyContradicted: 4 nodes whose round trips show switches
// of two (node000-node001 and node002-node003 at 10 us, the rest at 20)
// given a topology.conf that pairs node000 with node002: its 4-link
// routes measure faster than its 2-link ones, and place says the
// description does not match where the ranks ran; the matching one is
// taken without a word.
func TestPlaceTopologyContradicted(t *testing.T) {
	s := synth.New(synth.Spec{Nodes: 4, Sockets: 1, Cores: 2, NodesPerSwitch: 2, RTT: [4]float64{1, 2, 10, 20}})
	sv := writeSurvey(t, s)
	mx := writeMatrix(t, []profile.Flow{{Src: 0, Dst: 2, Bytes: 1e6, Messages: 10}, {Src: 2, Dst: 0, Bytes: 1e6, Messages: 10}})
	for _, c := range []struct {
		conf string
		warn bool
	}{
		{"SwitchName=s0 Nodes=node000,node002\nSwitchName=s1 Nodes=node001,node003\nSwitchName=top Switches=s0,s1\n", true},
		{"SwitchName=s0 Nodes=node000,node001\nSwitchName=s1 Nodes=node002,node003\nSwitchName=top Switches=s0,s1\n", false},
	} {
		conf := filepath.Join(t.TempDir(), "topology.conf")
		if err := os.WriteFile(conf, []byte(c.conf), 0o644); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if _, err := runReport(Options{Survey: sv, Matrix: mx, Topology: []string{conf}}, &out); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(out.String(), "does not match where the ranks ran"); got != c.warn {
			t.Errorf("%q: warned %v, want %v\n%s", c.conf, got, c.warn, out.String())
		}
	}
}
