package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latmap/latmap/internal/testutil"
	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/mapper/survey/synth"
)

// TestTopoFabricAlone runs latmap topo on a network description without
// a survey: the small InfiniBand fabric with its forwarding tables, in
// text and JSON; a survey's flag without a survey, and topo with neither
// a survey nor --topology, refused.
func TestTopoFabricAlone(t *testing.T) {
	dir := filepath.Join("..", "..", "mapper", "fabric", "testdata")
	args := []string{"topo", "--topology", filepath.Join(dir, "ib-small.topo"), "--topology", filepath.Join(dir, "ib-small.lft")}
	out, err := runLatmap(t, args...)
	for _, want := range []string{"routes: forwarding tables", "hosts: 3 (hosta, hostb, hostc)", "level leaf switch: 2 groups of 1-2 hosts", "links no route crosses: 3 ("} {
		if err != nil || !strings.Contains(out, want) {
			t.Fatalf("%v: %v; want %q in:\n%s", args, err, want, out)
		}
	}
	out, _, err = runLatmapSplit(t, append(args, "--json")...)
	var s struct {
		Pairs int   `json:"pairs_routed"`
		Hops  []int `json:"hops"`
	}
	if err != nil || json.Unmarshal([]byte(out), &s) != nil || s.Pairs != 6 || len(s.Hops) != 5 {
		t.Fatalf("--json: %v, pairs %d, hops %v:\n%s", err, s.Pairs, s.Hops, out)
	}
	if out, err := runLatmap(t, append(args, "--size", "64")...); err == nil || !strings.Contains(err.Error(), "--topology takes no --size") {
		t.Errorf("--size without a survey: %v\n%s", err, out)
	}
	if out, err := runLatmap(t, "topo"); err == nil || !strings.Contains(err.Error(), "takes 1 argument(s), 0 given") {
		t.Errorf("topo alone: %v\n%s", err, out)
	}
}

// TestTopoFabricDocsExample: docs/fabrics.md's example is what latmap
// topo --topology prints on UTartu's real ibnetdiscover dump, line for
// line (the file named as the example runs it, from its directory).
func TestTopoFabricDocsExample(t *testing.T) {
	const cmd = "$ latmap topo --topology utartu_rocket_2014.ibnetdiscover\n"
	doc, err := os.ReadFile(filepath.Join(testutil.RepoRoot(t), "docs", "fabrics.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(doc), cmd)
	want, _, _ := strings.Cut(after, "```")
	if !ok || want == "" {
		t.Fatalf("docs/fabrics.md has no example after %q", cmd)
	}
	path := filepath.Join(testutil.SharedDir(t), "data", "fabrics", "utartu_rocket_2014.ibnetdiscover")
	out, err := runLatmap(t, "topo", "--topology", path)
	if got := strings.ReplaceAll(out, path, filepath.Base(path)); err != nil || got != want {
		t.Errorf("%v; docs/fabrics.md shows:\n%s\nlatmap prints:\n%s", err, want, got)
	}
}

// TestTopoProbeFit: latmap topo with a list of links declared (routed
// by latmap's guess of one shortest path a pair: a ring of 8 routers,
// two nodes each) and a survey whose probe of flows at once found two
// flows apart that the guess sends over three common links says the
// routes place prices instead: a class moved, none of the probe's
// pairs of flows judged otherwise (2 before: the pair, and its mirror
// the guess also sends over common links), in text and JSON. Without
// the probe, it says how many pairs' routes are a guess.
func TestTopoProbeFit(t *testing.T) {
	dir := t.TempDir()
	ring := filepath.Join("..", "..", "mapper", "fabric", "testdata", "ring8x2.links")
	s := synth.New(synth.Spec{Nodes: 16, Sockets: 1, Cores: 1, NodesPerSwitch: 2, RTT: [4]float64{0.5, 0.8, 4, 9}, Seed: 1})
	// A probe of the four hosts of the two flows, complete: every other
	// pair of flows between them cleared.
	routers := map[string]int{"node000": 0, "node003": 1, "node008": 4, "node011": 5}
	s.Meta.Probe = &survey.ProbeMeta{Routers: routers, Planned: "latencies", Threshold: 1.5, Judged: 1}
	s.Shares = []survey.Share{{SrcA: "node000", DstA: "node008", SrcB: "node003", DstB: "node011", SlowdownA: 1.02, SlowdownB: 1.03}}
	sv := filepath.Join(dir, "survey")
	if err := survey.WriteSurvey(sv, s, false); err != nil {
		t.Fatal(err)
	}
	out, err := runLatmap(t, "topo", "--topology", ring, sv)
	want := "probe of flows at once: 1 class of flows (a router to a host) takes another of its shortest paths, " +
		"which judges 0 of its 12 pairs of flows otherwise instead of 2 (place prices them so)"
	if err != nil || !strings.Contains(out, want) {
		t.Fatalf("%v; want %q in:\n%s", err, want, out)
	}
	js, _, err := runLatmapSplit(t, "topo", "--topology", ring, sv, "--json")
	var got struct {
		Declared struct {
			Fit struct {
				Moved  int `json:"classes_moved"`
				Before int `json:"judged_otherwise_before"`
				After  int `json:"judged_otherwise_after"`
			} `json:"probe_fit"`
		} `json:"declared"`
	}
	if err != nil || json.Unmarshal([]byte(js), &got) != nil || got.Declared.Fit.Moved != 1 || got.Declared.Fit.Before != 2 || got.Declared.Fit.After != 0 {
		t.Errorf("--json: %v, probe_fit %+v:\n%s", err, got.Declared.Fit, js)
	}
	// Without the probe: the two hosts of each router have two shortest
	// paths to the two of the opposite router (32 of the 240 ordered
	// pairs), which topo says are a guess, and how to find them.
	s.Meta.Probe, s.Shares = nil, nil
	if err := survey.WriteSurvey(sv, s, true); err != nil {
		t.Fatal(err)
	}
	out, err = runLatmap(t, "topo", "--topology", ring, sv)
	want = "routes a guess: 32 of the 240 pairs of hosts looked at have more than one shortest path"
	if err != nil || !strings.Contains(out, want) || !strings.Contains(out, "latmap survey --probe on") {
		t.Errorf("no probe: %v; want %q in:\n%s", err, want, out)
	}
}
