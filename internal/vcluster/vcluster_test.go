package vcluster_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/latmap/latmap/internal/testutil"
	"github.com/latmap/latmap/internal/vcluster"
)

// TestRanksLandOnTheirNodes starts 2 nodes x 2 slots and checks that each
// rank reports the host name of the node the hostfile put it on (by-slot
// mapping fills node 1 first).
func TestRanksLandOnTheirNodes(t *testing.T) {
	testutil.RequireMPI(t)
	c := vcluster.Start(t, 2, 2)
	got := testutil.Whereami(t, c.MpirunArgs(4))
	want := []string{c.Nodes[0], c.Nodes[0], c.Nodes[1], c.Nodes[1]}
	for r, host := range want {
		if got[r].Host != host {
			t.Errorf("rank %d ran on %q, want %q (all: %v)", r, got[r].Host, host, got)
		}
	}
}

func TestCloseRemovesNamespaces(t *testing.T) {
	if why := vcluster.Unavailable(); why != "" {
		testutil.Missing(t, testutil.NeedVCluster, "%s", why)
	}
	c, err := vcluster.New(vcluster.Options{Nodes: 2, SlotsPerNode: 1, Dir: t.TempDir()})
	if err != nil {
		testutil.Missing(t, testutil.NeedVCluster, "%v", err)
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
