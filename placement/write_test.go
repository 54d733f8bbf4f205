package placement

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latmap/latmap/internal/testutil"
	"github.com/latmap/latmap/mapper/placefile"
	"github.com/latmap/latmap/placement/internal/shapes"
	"github.com/latmap/latmap/placement/model"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// goldenPlacement: 6 ranks on 2 nodes x 2 sockets x 2 cores (cpus 0..3),
// ranks 0,2,4 on node0 and 1,3,5 on node1, cpus chosen so the per-node
// cpu order is the same on both nodes.
func goldenPlacement() (*model.Machine, []int32) {
	m := model.NewLevelMachine(2, 2, 2, shapes.BenchLevels)
	// slot = node*4 + cpu
	return m, []int32{0, 4, 3, 7, 1, 5}
}

func TestWriteLaunchFileGolden(t *testing.T) {
	m, place := goldenPlacement()
	header := []string{"latmap test place: rank placement proposal", "survey: cluster/", "profile: app/"}
	for _, f := range placefile.Formats() {
		t.Run(f, func(t *testing.T) {
			lf, err := placefile.Write(f, m.RankSlots(place), header, "app."+f, []string{"./app", "-in", "in.lj"})
			if err != nil {
				t.Fatal(err)
			}
			got := append(append([]byte(nil), lf.Data...), []byte("---- launch\n"+strings.Join(lf.Launch, " ")+"\n---- warnings\n"+strings.Join(lf.Warnings, "\n")+"\n")...)
			golden := filepath.Join("testdata", "launch_"+f+"_6ranks_2nodes.golden")
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s output differs from %s:\n%s", f, golden, got)
			}
		})
	}
}

// TestWriteLaunchFileSemantics parses each format back and checks it
// describes the placement (not only that it matches a golden file).
func TestWriteLaunchFileSemantics(t *testing.T) {
	m, place := goldenPlacement()
	lines := func(f string) []string {
		lf, err := placefile.Write(f, m.RankSlots(place), []string{"h"}, "F", nil)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, l := range strings.Split(strings.TrimSpace(string(lf.Data)), "\n") {
			if !strings.HasPrefix(l, "#") {
				out = append(out, l)
			}
		}
		return out
	}
	// Open MPI: one "rank R=host slot=cpu" per rank.
	for r, l := range lines(placefile.FormatOpenMPI) {
		s := m.Slots[place[r]]
		if want := "rank " + itoa(r) + "=" + s.Host + " slot=" + itoa(s.CPU); l != want {
			t.Errorf("openmpi line %d = %q, want %q", r, l, want)
		}
	}
	// Slurm: host of rank r on line r.
	for r, l := range lines(placefile.FormatSlurm) {
		if l != m.Slots[place[r]].Host {
			t.Errorf("slurm line %d = %q, want %s", r, l, m.Slots[place[r]].Host)
		}
	}
	// MPICH: expanding the host:count lines gives each rank's host, and
	// each line's binding=user: list the cpus of its ranks.
	mpich := machineFileSlots(t, []byte(strings.Join(lines(placefile.FormatMPICH), "\n")))
	if len(mpich) != len(place) {
		t.Errorf("mpich: machine file holds %d ranks, want %d", len(mpich), len(place))
	}
	for r := range place {
		if s := m.Slots[place[r]]; mpich[r] != (testutil.Place{Host: s.Host, CPU: s.CPU}) {
			t.Errorf("mpich: rank %d on %v, want %s cpu %d", r, mpich[r], s.Host, s.CPU)
		}
	}
	// Cray: node lines list the ranks sharing a node.
	cray := lines(placefile.FormatCray)
	if len(cray) != 2 || cray[0] != "0,4,2" || cray[1] != "1,5,3" {
		t.Errorf("cray rank order %q, want node0 0,4,2 (cpus 0,1,3) and node1 1,5,3", cray)
	}
	if _, err := placefile.Write("lsf", m.RankSlots(place), nil, "F", nil); err == nil || !strings.Contains(err.Error(), "unknown format") {
		t.Errorf("unknown format: %v", err)
	}
}

func TestLocalCPUListDisagreement(t *testing.T) {
	m := model.NewLevelMachine(2, 1, 2, shapes.BenchLevels)
	// Rank 0 on node0 cpu 0, rank 1 on node1 cpu 1: local lists differ.
	lf, err := placefile.Write(placefile.FormatSlurm, m.RankSlots([]int32{0, 3}), nil, "F", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(lf.Warnings) == 0 || !strings.Contains(string(lf.Data), "# warning: the cpu order differs") {
		t.Errorf("no warning for per-node cpu lists that differ:\n%s", lf.Data)
	}
}

func atoiT(t *testing.T, s string) int {
	t.Helper()
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			t.Fatalf("not a count: %q", s)
		}
		n = n*10 + int(c-'0')
	}
	return n
}
