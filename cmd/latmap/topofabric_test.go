package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latmap/latmap/internal/testutil"
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
