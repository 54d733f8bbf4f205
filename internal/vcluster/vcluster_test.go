package vcluster_test

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
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
	got := testutil.Whereami(t, c.MpirunArgs(4))
	want := []string{c.Nodes[0], c.Nodes[0], c.Nodes[1], c.Nodes[1]}
	for r, host := range want {
		if got[r].Host != host {
			t.Errorf("rank %d ran on %q, want %q (all: %v)", r, got[r].Host, host, got)
		}
	}
}

// TestCloseRemovesNamespaces: Close, twice, leaves none of a routed
// cluster's namespaces, its nodes' or its routers'.
func TestCloseRemovesNamespaces(t *testing.T) {
	if why := vcluster.Unavailable(); why != "" {
		testutil.Missing(t, testutil.NeedVCluster, "%s", why)
	}
	c, err := vcluster.New(vcluster.Options{Nodes: 2, SlotsPerNode: 1, Dir: t.TempDir(), Routed: vcluster.TwoSpines(2, 1, "", func(int) int { return 0 })})
	if err != nil {
		testutil.Missing(t, testutil.NeedVCluster, "%v", err)
	}
	nodes := append([]string(nil), c.Nodes...)
	for r := range 4 { // the routers' namespaces too
		nodes = append(nodes, c.RouterName(r))
	}
	if out, _ := exec.Command("ip", "netns", "list").Output(); !strings.Contains(string(out), c.RouterName(3)) {
		t.Fatalf("no router namespace %s among:\n%s", c.RouterName(3), out)
	}
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

// pingpongMedian runs testdata/mpi/pingpong.c (built for the flavour)
// between ranks 0 and 1 under the launch prefix and returns its median
// 1 MiB round trip in microseconds.
func pingpongMedian(t *testing.T, f testutil.Flavor, prefix []string) float64 {
	t.Helper()
	exe := f.Build(t, t.TempDir(), "pingpong", filepath.Join(testutil.RepoRoot(t), "testdata", "mpi", "pingpong.c"))
	out := testutil.MustRun(t, 2*time.Minute, append(append([]string(nil), prefix...), exe, "8", "1048576", "2")...)
	fs := strings.Fields(out)
	for i := 0; i+1 < len(fs); i++ {
		if fs[i] == "median_us" {
			if v, err := strconv.ParseFloat(fs[i+1], 64); err == nil {
				return v
			}
		}
	}
	t.Fatalf("pingpong printed no median_us:\n%s", out)
	return 0
}

// TestShapedLinkIsSlower: a 1 MiB round trip between two nodes of a
// cluster with 400 Mbit/s links against one of an unshaped cluster, in the
// same run. At 400 Mbit/s 2 MiB take at least 42 ms on the link; unshaped
// veths move them in about a millisecond.
func TestShapedLinkIsSlower(t *testing.T) {
	testutil.RequireMPI(t)
	shaped := vcluster.StartWith(t, vcluster.Options{Nodes: 2, SlotsPerNode: 1, Rate: "400mbit"})
	plain := vcluster.Start(t, 2, 1)
	s, p := pingpongMedian(t, testutil.OpenMPI, shaped.MpirunArgs(2)), pingpongMedian(t, testutil.OpenMPI, plain.MpirunArgs(2))
	t.Logf("1 MiB round trip: %.0f us at 400mbit, %.0f us unshaped (%.1fx)", s, p, s/p)
	if s < 40000 || s < 4*p {
		t.Errorf("shaped 1 MiB round trip %.0f us, unshaped %.0f us: want at least 40,000 us and 4x", s, p)
	}
}

// TestHydraNodeIdentity: MPICH's launcher starts ranks on the node the
// host file names, and each node has its own boot id, which is what UCX
// (under MPICH) takes as the machine's identity: without it UCX passes
// messages between virtual nodes through shared memory (a 64 B round trip
// of 1.2 us across "nodes" here instead of 18 us over the veths).
func TestHydraNodeIdentity(t *testing.T) {
	testutil.MPICH.Require(t)
	c := vcluster.StartWith(t, vcluster.Options{Nodes: 2, SlotsPerNode: 2})
	got := testutil.MPICH.Whereami(t, c.HydraArgs(2))
	for r := range got {
		if got[r].Host != c.Nodes[0] {
			t.Errorf("rank %d ran on %q, want %q (all: %v)", r, got[r].Host, c.Nodes[0], got)
		}
	}
	ids := map[string]bool{}
	host, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		t.Fatal(err)
	}
	ids[strings.TrimSpace(string(host))] = true
	for _, n := range c.Nodes {
		out, err := exec.Command(c.Agent, n, "cat", "/proc/sys/kernel/random/boot_id").Output()
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		id := strings.TrimSpace(string(out))
		if len(id) != 36 || ids[id] {
			t.Errorf("node %s boot id %q: want a uuid of its own (seen: %v)", n, id, ids)
		}
		ids[id] = true
	}
}

// TestLaunchAsksNoResolver: mpirun on the cluster does not look its
// nodes' names up (they are in no hosts file, so each lookup went to DNS,
// and a dropped query held the launch for the resolver's 5 s timeout).
// mpirun runs with a resolver of the test's own (a mount namespace whose
// resolv.conf names a server on 127.83.0.1 that answers "no such name"
// and records what it was asked); a lookup made the same way must reach
// it, and the launch must ask it nothing about the nodes.
func TestLaunchAsksNoResolver(t *testing.T) {
	testutil.RequireMPI(t)
	c := vcluster.Start(t, 2, 1)
	asked := fakeResolver(t)
	conf := filepath.Join(t.TempDir(), "resolv.conf")
	if err := os.WriteFile(conf, []byte("nameserver 127.83.0.1\noptions timeout:1 attempts:1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	withResolver := func(args ...string) []string {
		return append([]string{"unshare", "--mount", "sh", "-c", `mount --bind "$0" /etc/resolv.conf && exec "$@"`, conf}, args...)
	}
	testutil.Run(t, time.Minute, nil, withResolver("getent", "ahosts", "latmap-probe.invalid")...) // not found: status 2
	if got := asked(); !strings.Contains(got, "latmap-probe.invalid") {
		t.Fatalf("the test's resolver was not asked for a lookup made through it (asked: %q)", got)
	}
	testutil.MustRun(t, time.Minute, withResolver(append(c.MpirunArgs(2), "hostname")...)...)
	for _, n := range c.Nodes {
		if got := asked(); strings.Contains(got, n) {
			t.Errorf("launching on the cluster asked the resolver for node %s (asked: %q)", n, got)
		}
	}
}

// fakeResolver answers DNS queries on 127.83.0.1:53 with "no such name"
// until the test ends; asked returns the names it was asked, one a line.
func fakeResolver(t *testing.T) (asked func() string) {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.83.0.1:53")
	if err != nil {
		t.Fatalf("a fake resolver on 127.83.0.1:53: %v", err)
	}
	t.Cleanup(func() { pc.Close() })
	var mu sync.Mutex
	var names strings.Builder
	go func() {
		buf := make([]byte, 512)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			if n < 12 {
				continue
			}
			var labels []string
			for i := 12; i < n && buf[i] != 0 && i+1+int(buf[i]) <= n; i += 1 + int(buf[i]) {
				labels = append(labels, string(buf[i+1:i+1+int(buf[i])]))
			}
			mu.Lock()
			names.WriteString(strings.Join(labels, ".") + "\n")
			mu.Unlock()
			reply := append([]byte(nil), buf[:n]...)
			reply[2] |= 0x80             // a response
			reply[3] = reply[3]&0xf0 | 3 // NXDOMAIN
			pc.WriteTo(reply, from)
		}
	}()
	return func() string {
		mu.Lock()
		defer mu.Unlock()
		return names.String()
	}
}

// TestRoutedTakesTheTables: on two leaves and two spines (TwoSpines, an
// even node's packets through spine 2, an odd node's through 3), a
// 1 MiB ping-pong between node 0 (leaf 0) and node 3 (leaf 1) goes to
// node 3 through spine 3 and comes back to node 0 through spine 2, as
// the tables say: each leaf sends its megabytes over the one link its
// table names and next to nothing over the other, though both are
// shortest paths.
func TestRoutedTakesTheTables(t *testing.T) {
	testutil.RequireMPI(t)
	c := vcluster.StartWith(t, vcluster.Options{Nodes: 4, SlotsPerNode: 1, Routed: vcluster.TwoSpines(4, 2, "", func(i int) int { return i % 2 })})
	sent := func(router int, link string) int64 {
		out, err := exec.Command("ip", "netns", "exec", c.RouterName(router), "cat", "/sys/class/net/"+link+"/statistics/tx_bytes").Output()
		if err != nil {
			t.Fatalf("router %d's %s: %v", router, link, err)
		}
		n, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	type port struct {
		router int
		link   string
	}
	ports := []port{{0, "l0"}, {0, "l1"}, {1, "l2"}, {1, "l3"}}
	before := map[port]int64{}
	for _, p := range ports {
		before[p] = sent(p.router, p.link)
	}
	us := pingpongMedian(t, testutil.OpenMPI, append(c.MpirunArgs(2), "--host", c.Nodes[0]+","+c.Nodes[3]))
	got := map[port]int64{}
	for _, p := range ports {
		got[p] = sent(p.router, p.link) - before[p]
	}
	t.Logf("1 MiB round trip %.0f us; bytes sent: leaf 0 to spines 2 and 3: %d, %d; leaf 1 to spines 2 and 3: %d, %d",
		us, got[ports[0]], got[ports[1]], got[ports[2]], got[ports[3]])
	// To node 3 (odd): leaf 0 through spine 3; back to node 0 (even):
	// leaf 1 through spine 2.
	for _, w := range [][2]port{{ports[1], ports[0]}, {ports[2], ports[3]}} {
		if got[w[0]] < 8<<20 || got[w[1]] > got[w[0]]/100 {
			t.Errorf("router %d sent %d bytes on %s and %d on %s: want the megabytes on %s only",
				w[0].router, got[w[0]], w[0].link, got[w[1]], w[1].link, w[0].link)
		}
	}
}
