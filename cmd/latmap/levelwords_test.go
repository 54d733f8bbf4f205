package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/latmap/latmap/internal/exitcode"
	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/mapper/survey/synth"
)

// TestLevelWordsAgree: latmap topo and latmap place name the levels of
// one survey with the same words (topo said node where place said same
// socket, network where place said other node): nodes of one socket and
// of two. Under switches topo finds a switch level from the latencies,
// which place prices only with the survey's switches.csv (synth writes
// none): there place's words are topo's, less switch.
func TestLevelWordsAgree(t *testing.T) {
	for _, spec := range []synth.Spec{
		{Nodes: 3, Sockets: 1, Cores: 2, RTT: [4]float64{1, 2, 10, 10}},
		{Nodes: 4, Sockets: 2, Cores: 4, RTT: [4]float64{1, 3, 10, 10}},
		{Nodes: 8, Sockets: 2, Cores: 4, NodesPerSwitch: 4, RTT: [4]float64{1, 3, 10, 30}},
	} {
		t.Run(fmt.Sprintf("%dx%dx%d/%d", spec.Nodes, spec.Sockets, spec.Cores, spec.NodesPerSwitch), func(t *testing.T) {
			dir := t.TempDir()
			sv := filepath.Join(dir, "survey")
			if err := survey.WriteSurvey(sv, synth.New(spec), false); err != nil {
				t.Fatal(err)
			}
			n := spec.Nodes * spec.Sockets * spec.Cores
			var m strings.Builder
			m.WriteString("src,dst,bytes,messages\n")
			for r := range n {
				fmt.Fprintf(&m, "%d,%d,1000,10\n", r, (r+1)%n)
			}
			mx := filepath.Join(dir, "m.csv")
			if err := os.WriteFile(mx, []byte(m.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			topo := levelWords(t, nil, "topo", sv, "--json")
			place := levelWords(t, []int{exitcode.NoAdvice}, "place", "--survey", sv, "--matrix", mx, "--json")
			if spec.NodesPerSwitch > 0 {
				topo = slices.DeleteFunc(topo, func(w string) bool { return w == survey.WordSwitch })
			}
			if !slices.Equal(topo, place) {
				t.Errorf("topo's levels %v, place's %v: want the same words", topo, place)
			}
		})
	}
}

// levelWords runs latmap with args (allowed: statuses besides 0) and
// returns the names of the levels its JSON lists.
func levelWords(t *testing.T, allowed []int, args ...string) []string {
	t.Helper()
	out, errs, err := runLatmapSplit(t, args...)
	if err != nil && !slices.Contains(allowed, exitCode(err)) {
		t.Fatalf("latmap %s: %v\n%s", strings.Join(args, " "), err, errs)
	}
	var v struct {
		Levels []struct {
			Name string `json:"name"`
		} `json:"levels"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("latmap %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	var names []string
	for _, l := range v.Levels {
		names = append(names, l.Name)
	}
	return names
}
