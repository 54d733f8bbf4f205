package vcluster

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/latmap/latmap/internal/testutil"
)

// Cluster is a running virtual cluster.
type Cluster struct {
	// Nodes are the node (and host) names, also the namespace names.
	Nodes []string
	// Slots is the number of slots per node written in the hostfile.
	Slots int
	// Hostfile is an Open MPI hostfile listing every node with its slots.
	Hostfile string
	// HydraHostfile is the same for MPICH's Hydra (host:slots lines).
	HydraHostfile string
	// Agent is the rsh agent script for --mca plm_rsh_agent.
	Agent string
	// Net is the cluster's subnet (CIDR), for the if_include parameters.
	Net string

	index    int
	dir      string
	bridge   string
	leaves   []string // leaf bridges and trunks (Options.Leaves)
	routed   bool     // MPI's traffic takes Options.Routed's routers
	nrouters int      // how many router namespaces to remove
	once     sync.Once
}

// stateDir holds one pid file per cluster index so that clusters left by a
// killed test run can be swept.
const stateDir = "/run/latmap-vcluster"

// maxClusters bounds the cluster index (it is the third octet of the subnet).
const maxClusters = 200

// Options configure New.
type Options struct {
	Nodes        int    // number of nodes, at least 1
	SlotsPerNode int    // slots per node in the hostfile, at least 1
	Dir          string // where to put the hostfile and agent; a new temp dir when empty
	// Rate shapes every node's link to the bridge (both directions) with
	// a token bucket, "400mbit" for example: the node's ranks then share
	// one real link, as on a cluster, and a 1 MiB round trip across nodes
	// takes tens of milliseconds instead of 2. Empty: unshaped.
	Rate string
	// NodeRates overrides Rate for some nodes (by index from 0), to make
	// one node's link slower than the others'.
	NodeRates map[int]string
	// LinkRates shapes the traffic between two nodes (by index from 0)
	// only, both ways, to make one link slower than the others: each end
	// sends what goes to the other through an HTB class of the rate,
	// chosen by destination address (this kernel has neither prio nor
	// netem); the node's other traffic keeps the node's rate (Rate,
	// NodeRates), or none.
	LinkRates map[[2]int]string
	// Leaves, when above 0, puts the nodes on leaf switches of that many
	// nodes each (in order; the last may have fewer), each leaf a bridge
	// of its own joined to the cluster's bridge (the spine) by one trunk
	// link, shaped to TrunkRate both ways when set: flows from two nodes
	// of a leaf to two nodes of another share the trunk, as on a fat
	// tree's oversubscribed uplinks. 0: every node on the one bridge.
	Leaves    int
	TrunkRate string
	// Routed, when set, carries MPI's traffic over a network of routers
	// instead of the bridge (see Routed); Rate and NodeRates then shape
	// each node's link to its router.
	Routed *Routed
}

// linkRate is node i's rate ("" for unshaped).
func (o Options) linkRate(i int) string {
	if r, ok := o.NodeRates[i]; ok {
		return r
	}
	return o.Rate
}

// Unavailable reports why virtual clusters cannot be made here, or "" when
// they can be tried.
func Unavailable() string {
	if os.Geteuid() != 0 {
		return "virtual cluster needs root to create network namespaces"
	}
	for _, tool := range []string{"ip", "unshare", "mpirun"} {
		if _, err := exec.LookPath(tool); err != nil {
			return fmt.Sprintf("virtual cluster needs %s (apt-get install iproute2 util-linux openmpi-bin)", tool)
		}
	}
	return ""
}

// Start builds a cluster for a test and removes it when the test ends. It
// skips the test, with the reason, when namespaces cannot be made here.
func Start(t testing.TB, nodes, slotsPerNode int) *Cluster {
	t.Helper()
	return StartWith(t, Options{Nodes: nodes, SlotsPerNode: slotsPerNode})
}

// StartWith is Start with all the options (a link rate, say); opt.Dir
// defaults to the test's temporary directory.
func StartWith(t testing.TB, opt Options) *Cluster {
	t.Helper()
	if opt.Dir == "" {
		opt.Dir = t.TempDir()
	}
	c := StartKept(t, opt)
	t.Cleanup(c.Close)
	return c
}

// StartKept is StartWith for a cluster several tests share: it outlives
// the test that starts it, and its owner calls Close (from TestMain) and
// removes opt.Dir, which it must give.
func StartKept(t testing.TB, opt Options) *Cluster {
	t.Helper()
	if why := Unavailable(); why != "" {
		testutil.Missing(t, testutil.NeedVCluster, "%s", why)
	}
	os.Setenv("OMPI_ALLOW_RUN_AS_ROOT", "1")
	os.Setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
	c, err := New(opt)
	if err != nil {
		if errors.Is(err, errNoNamespaces) {
			testutil.Missing(t, testutil.NeedVCluster, "%v", err)
		}
		t.Fatalf("vcluster: %v", err)
	}
	return c
}

var errNoNamespaces = errors.New("network namespaces cannot be created here")

// New builds a cluster. Close removes it.
func New(opt Options) (*Cluster, error) {
	if opt.Nodes < 1 || opt.SlotsPerNode < 1 {
		return nil, fmt.Errorf("vcluster: need at least 1 node and 1 slot, got %d x %d", opt.Nodes, opt.SlotsPerNode)
	}
	if opt.Nodes > 250 {
		return nil, fmt.Errorf("vcluster: at most 250 nodes, got %d", opt.Nodes)
	}
	sweep()
	c := &Cluster{Slots: opt.SlotsPerNode, dir: opt.Dir}
	if c.dir == "" {
		d, err := os.MkdirTemp("", "latmap-vcluster-")
		if err != nil {
			return nil, err
		}
		c.dir = d
	}
	// Claim an index: creating the bridge is atomic, so two test processes
	// never get the same one.
	var lastErr error
	for k := 0; k < maxClusters; k++ {
		br := fmt.Sprintf("lmbr%d", k)
		out, err := exec.Command("ip", "link", "add", br, "type", "bridge").CombinedOutput()
		if err == nil {
			c.index, c.bridge = k, br
			break
		}
		lastErr = fmt.Errorf("ip link add %s: %v: %s", br, err, strings.TrimSpace(string(out)))
		if !strings.Contains(string(out), "exists") {
			return nil, fmt.Errorf("%w: %v", errNoNamespaces, lastErr)
		}
	}
	if c.bridge == "" {
		return nil, fmt.Errorf("vcluster: no free cluster index: %v", lastErr)
	}
	os.MkdirAll(stateDir, 0o755)
	os.WriteFile(filepath.Join(stateDir, strconv.Itoa(c.index)), []byte(strconv.Itoa(os.Getpid())), 0o644)
	c.Net = fmt.Sprintf("10.213.%d.0/24", c.index)
	if err := c.build(opt); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

func run(args ...string) error {
	out, err := exec.Command(args[0], args[1:]...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}

func (c *Cluster) build(opt Options) error {
	k, nodes := c.index, opt.Nodes
	if err := run("ip", "addr", "add", fmt.Sprintf("10.213.%d.254/24", k), "dev", c.bridge); err != nil {
		return err
	}
	if err := run("ip", "link", "set", c.bridge, "up"); err != nil {
		return err
	}
	leaf, err := c.buildLeaves(opt)
	if err != nil {
		return err
	}
	var hosts strings.Builder
	for i := 1; i <= nodes; i++ {
		name := fmt.Sprintf("lm%dnode%d", k, i)
		veth := fmt.Sprintf("lm%dv%d", k, i)
		if err := run("ip", "netns", "add", name); err != nil {
			return fmt.Errorf("%w: %v", errNoNamespaces, err)
		}
		c.Nodes = append(c.Nodes, name)
		steps := [][]string{
			{"ip", "link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", name},
			{"ip", "link", "set", veth, "master", leaf(i - 1), "up"},
			{"ip", "-n", name, "addr", "add", fmt.Sprintf("10.213.%d.%d/24", k, i), "dev", "eth0"},
			{"ip", "-n", name, "link", "set", "eth0", "up"},
			{"ip", "-n", name, "link", "set", "lo", "up"},
		}
		if rate := opt.linkRate(i - 1); rate != "" && opt.Routed == nil {
			// Both ends, so that what the node sends and what it receives
			// each pass one shaped queue.
			steps = append(steps,
				append([]string{"tc", "qdisc", "replace", "dev", veth}, tbf(rate)...),
				append([]string{"ip", "netns", "exec", name, "tc", "qdisc", "replace", "dev", "eth0"}, tbf(rate)...))
		}
		// A veth of an earlier cluster with this index may outlive it
		// (see Close): remove it.
		exec.Command("ip", "link", "del", veth).Run()
		for _, s := range steps {
			if err := run(s...); err != nil {
				return err
			}
		}
		fmt.Fprintf(&hosts, "%s slots=%d\n", name, c.Slots)
	}
	if err := c.shapeLinks(opt); err != nil {
		return err
	}
	if opt.Routed != nil {
		c.nrouters = opt.Routed.Routers
		if err := c.buildRouted(opt); err != nil {
			return err
		}
	}
	c.Hostfile = filepath.Join(c.dir, "hostfile")
	if err := os.WriteFile(c.Hostfile, []byte(hosts.String()), 0o644); err != nil {
		return err
	}
	var hydra strings.Builder
	for _, n := range c.Nodes {
		fmt.Fprintf(&hydra, "%s:%d\n", n, c.Slots)
	}
	c.HydraHostfile = filepath.Join(c.dir, "hydra.hosts")
	if err := os.WriteFile(c.HydraHostfile, []byte(hydra.String()), 0o644); err != nil {
		return err
	}
	// The agent is called like ssh: AGENT HOST WORDS...; like ssh it joins
	// the words into one shell command line, run inside the node's network
	// namespace with the node's name as host name.
	//
	// Each node also gets its own boot id (bind-mounted over
	// /proc/sys/kernel/random/boot_id in the mount namespace that ip netns
	// exec makes): UCX, under MPICH, takes the boot id as the machine's
	// identity and would otherwise pass messages between virtual nodes
	// through shared memory, bypassing the links and their rate.
	for _, n := range c.Nodes {
		id, err := os.ReadFile("/proc/sys/kernel/random/uuid")
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(c.dir, n+".boot_id"), id, 0o644); err != nil {
			return err
		}
	}
	c.Agent = filepath.Join(c.dir, "agent.sh")
	agent := "#!/bin/sh\n# latmap vcluster rsh agent: AGENT HOST COMMAND...\nhost=$1; shift\n" +
		"exec ip netns exec \"$host\" unshare --uts sh -c \"mount --bind " + c.dir + "/$host.boot_id /proc/sys/kernel/random/boot_id && hostname $host && $*\"\n"
	return os.WriteFile(c.Agent, []byte(agent), 0o755)
}

// tbf is a token bucket of rate, as the links are shaped.
func tbf(rate string) []string {
	return []string{"root", "tbf", "rate", rate, "burst", "64kb", "latency", "50ms"}
}

// buildLeaves makes opt.Leaves' leaf bridges and their shaped trunks to
// the cluster's bridge, and returns each node's bridge (by index from 0).
func (c *Cluster) buildLeaves(opt Options) (func(node int) string, error) {
	if opt.Leaves <= 0 {
		return func(int) string { return c.bridge }, nil
	}
	for j := 0; j*opt.Leaves < opt.Nodes; j++ {
		br, down, up := fmt.Sprintf("lm%dl%d", c.index, j), fmt.Sprintf("lm%dt%d", c.index, j), fmt.Sprintf("lm%du%d", c.index, j)
		exec.Command("ip", "link", "del", down).Run() // an earlier cluster's (see Close)
		exec.Command("ip", "link", "del", br).Run()
		c.leaves = append(c.leaves, br, down)
		steps := [][]string{
			{"ip", "link", "add", br, "type", "bridge"},
			{"ip", "link", "set", br, "up"},
			{"ip", "link", "add", down, "type", "veth", "peer", "name", up},
			{"ip", "link", "set", down, "master", c.bridge, "up"},
			{"ip", "link", "set", up, "master", br, "up"},
		}
		if opt.TrunkRate != "" {
			// Both ends: the spine's end shapes what goes down to the
			// leaf, the leaf's end what goes up.
			steps = append(steps, append([]string{"tc", "qdisc", "replace", "dev", down}, tbf(opt.TrunkRate)...),
				append([]string{"tc", "qdisc", "replace", "dev", up}, tbf(opt.TrunkRate)...))
		}
		for _, s := range steps {
			if err := run(s...); err != nil {
				return nil, err
			}
		}
	}
	return func(node int) string { return fmt.Sprintf("lm%dl%d", c.index, node/opt.Leaves) }, nil
}

// shapeLinks shapes each listed node pair's traffic, both ways: in each
// end's namespace an HTB root whose other traffic goes to a class of the
// node's rate (or out unshaped), one class of the link's rate, and a
// filter sending the packets for the other end there.
func (c *Cluster) shapeLinks(opt Options) error {
	rates := opt.LinkRates
	dests := map[int][]int{}
	rate := map[[2]int]string{}
	for p, r := range rates {
		if p[0] == p[1] || p[0] < 0 || p[1] < 0 || p[0] >= len(c.Nodes) || p[1] >= len(c.Nodes) {
			return fmt.Errorf("vcluster: link %v is not between two of the %d nodes", p, len(c.Nodes))
		}
		dests[p[0]] = append(dests[p[0]], p[1])
		dests[p[1]] = append(dests[p[1]], p[0])
		rate[[2]int{p[0], p[1]}], rate[[2]int{p[1], p[0]}] = r, r
	}
	for a, bs := range dests {
		ns := c.Nodes[a]
		tc := func(args ...string) error { return run(append([]string{"ip", "netns", "exec", ns, "tc"}, args...)...) }
		def := opt.linkRate(a)
		root := []string{"qdisc", "replace", "dev", "eth0", "root", "handle", "1:", "htb"}
		if def != "" {
			root = append(root, "default", "99")
		}
		if err := tc(root...); err != nil {
			return err
		}
		if def != "" {
			if err := tc("class", "add", "dev", "eth0", "parent", "1:", "classid", "1:99", "htb", "rate", def, "burst", "64kb"); err != nil {
				return err
			}
		}
		for i, b := range bs {
			class := fmt.Sprintf("1:%d", i+1)
			if err := tc("class", "add", "dev", "eth0", "parent", "1:", "classid", class, "htb", "rate", rate[[2]int{a, b}], "burst", "64kb"); err != nil {
				return err
			}
			if err := tc("filter", "add", "dev", "eth0", "protocol", "ip", "parent", "1:0", "prio", "1", "u32", "match", "ip", "dst", c.NodeAddr(b)+"/32", "flowid", class); err != nil {
				return err
			}
		}
	}
	return nil
}

// MCAArgs are the mpirun parameters that launch through the agent and keep
// Open MPI on the cluster's network.
func (c *Cluster) MCAArgs() []string {
	return []string{
		"--hostfile", c.Hostfile,
		"--mca", "plm_rsh_agent", c.Agent,
		"--mca", "oob_tcp_if_include", c.Net,
		"--mca", "btl_tcp_if_include", c.DataNet(),
		// Without it, busy-polling ranks starve the kernel's network
		// processing on small machines and a cross-node round trip takes
		// milliseconds instead of microseconds.
		"--mca", "mpi_yield_when_idle", "1",
		// mpirun asks the resolver for each hostfile name to tell a
		// local node from a remote one; the nodes' names are in no hosts
		// file, so every launch asked DNS, and where DNS drops a query
		// (the test machines' sandbox resolver: 2 lookups in 60) the
		// launch waited its 5 s timeout: 4 of 40 launches of MPI_Init
		// and a barrier on 2 x 2 nodes took 5.2 s instead of 0.25 s.
		// The names are compared as they are (none is this host's).
		"--mca", "if_base_do_not_resolve", "1",
	}
}

// MpirunArgs returns the mpirun command line prefix that starts np ranks on
// the cluster: append the program and its arguments.
func (c *Cluster) MpirunArgs(np int) []string {
	return append([]string{"mpirun", "-np", strconv.Itoa(np)}, c.MCAArgs()...)
}

// HydraArgs returns the MPICH (Hydra) command line prefix that starts np
// ranks on the cluster through the agent: append the program and its
// arguments. Hydra's proxies reach mpiexec over the bridge (-iface).
// MPICH's UCX takes shared memory inside a node and TCP between nodes (the
// agent gives each node its own boot id).
//
// Debian's MPICH 4.0 on UCX 1.13 hangs in MPI_Finalize in most runs where
// ranks talked over UCX's TCP transport (openucx/ucx#8738; on this host
// alone too: mpiexec.hydra -n 4 -genv UCX_TLS tcp,self whereami
// completed 1 run of 6), so tests run MPICH within one node only.
func (c *Cluster) HydraArgs(np int) []string {
	return []string{"mpiexec.hydra", "-launcher", "rsh", "-launcher-exec", c.Agent, "-iface", c.bridge,
		"-f", c.HydraHostfile, "-n", strconv.Itoa(np)}
}

// Close removes the namespaces, veths and bridge. It is safe to call twice.
func (c *Cluster) Close() {
	c.once.Do(func() {
		// The veths first: deleting one end deletes both at once, while a
		// deleted namespace (and the veth end inside it) goes away later,
		// in the kernel's own time, or never while a process lingers in
		// it; the next cluster to take this index then found "lm0v1"
		// still there.
		for i := range c.Nodes {
			exec.Command("ip", "link", "del", fmt.Sprintf("lm%dv%d", c.index, i+1)).Run()
		}
		for _, n := range c.Nodes {
			exec.Command("ip", "netns", "del", n).Run()
		}
		for r := 0; r < c.nrouters; r++ { // their links go with them
			exec.Command("ip", "netns", "del", c.RouterName(r)).Run()
		}
		for _, l := range c.leaves { // leaf bridges and trunks
			exec.Command("ip", "link", "del", l).Run()
		}
		if c.bridge != "" {
			exec.Command("ip", "link", "del", c.bridge).Run()
			os.Remove(filepath.Join(stateDir, strconv.Itoa(c.index)))
		}
	})
}

// sweep removes clusters whose creating process is gone (a killed test run).
func sweep() {
	ents, err := os.ReadDir(stateDir)
	if err != nil {
		return
	}
	for _, e := range ents {
		k, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, _ := os.ReadFile(filepath.Join(stateDir, e.Name()))
		pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		if pid > 0 && syscall.Kill(pid, 0) == nil {
			continue
		}
		out, _ := exec.Command("ip", "netns", "list").Output()
		node, router := fmt.Sprintf("lm%dnode", k), fmt.Sprintf("lm%dr", k)
		for _, line := range strings.Split(string(out), "\n") {
			f := strings.Fields(line)
			if len(f) > 0 && (strings.HasPrefix(f[0], node) || strings.HasPrefix(f[0], router)) {
				exec.Command("ip", "netns", "del", f[0]).Run()
			}
		}
		exec.Command("ip", "link", "del", fmt.Sprintf("lmbr%d", k)).Run()
		// Leaf bridges and trunks (Options.Leaves).
		links, _ := exec.Command("ip", "-o", "link", "show").Output()
		for _, line := range strings.Split(string(links), "\n") {
			f := strings.Fields(line)
			if len(f) < 2 {
				continue
			}
			name, _, _ := strings.Cut(strings.TrimSuffix(f[1], ":"), "@")
			if strings.HasPrefix(name, fmt.Sprintf("lm%dl", k)) || strings.HasPrefix(name, fmt.Sprintf("lm%dt", k)) {
				exec.Command("ip", "link", "del", name).Run()
			}
		}
		os.Remove(filepath.Join(stateDir, e.Name()))
	}
}

// Index is the cluster's index among the clusters on this machine (the
// third octet of its subnet), to keep other per-cluster resources apart.
func (c *Cluster) Index() int { return c.index }

// HostAddr is the host's address on the cluster's bridge: what the nodes
// reach the host (a controller, say) at.
func (c *Cluster) HostAddr() string { return fmt.Sprintf("10.213.%d.254", c.index) }

// NodeAddr is node i's address (from 0).
func (c *Cluster) NodeAddr(i int) string { return fmt.Sprintf("10.213.%d.%d", c.index, i+1) }

// Dir is the directory of the cluster's files (hostfile, agent).
func (c *Cluster) Dir() string { return c.dir }
