package vcluster_test

import (
	"bufio"
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/latmap/latmap/internal/testutil"
	"github.com/latmap/latmap/internal/vcluster"
)

// TestRanksLandOnTheirNodes starts 2 nodes x 2 slots and checks that each
// rank reports the host name of the node the hostfile put it on (by-slot
// mapping fills node 1 first).
func TestRanksLandOnTheirNodes(t *testing.T) {
	testutil.RequireMPI(t)
	c := vcluster.Start(t, 2, 2)
	exe := testutil.BuildMPIProgram(t, t.TempDir(), "whereami",
		filepath.Join(testutil.RepoRoot(t), "testdata", "mpi", "whereami.c"))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := append(c.MpirunArgs(4), exe)
	out, err := exec.CommandContext(ctx, args[0], args[1:]...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
	}
	want := []string{c.Nodes[0], c.Nodes[0], c.Nodes[1], c.Nodes[1]}
	got := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 6 && f[0] == "rank" {
			got[f[1]] = f[3]
		}
	}
	for r, host := range want {
		if g := got[string(rune('0'+r))]; g != host {
			t.Errorf("rank %d ran on %q, want %q\n%s", r, g, host, out)
		}
	}
}

func TestCloseRemovesNamespaces(t *testing.T) {
	if why := vcluster.Unavailable(); why != "" {
		t.Skip("skipping:", why)
	}
	c, err := vcluster.New(vcluster.Options{Nodes: 2, SlotsPerNode: 1, Dir: t.TempDir()})
	if err != nil {
		t.Skipf("skipping: %v", err)
	}
	nodes := append([]string(nil), c.Nodes...)
	c.Close()
	c.Close()
	out, _ := exec.Command("ip", "netns", "list").Output()
	for _, n := range nodes {
		for _, line := range strings.Split(string(out), "\n") {
			if f := strings.Fields(line); len(f) > 0 && f[0] == n {
				t.Errorf("namespace %s still exists after Close", n)
			}
		}
	}
}
