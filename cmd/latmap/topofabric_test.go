package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
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
