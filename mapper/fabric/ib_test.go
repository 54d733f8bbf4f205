package fabric

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/latmap/latmap/internal/testutil"
)

// realFabric is ../shared/data/fabrics/name (skips where absent).
func realFabric(t *testing.T, name string) string {
	t.Helper()
	return filepath.Join(testutil.SharedDir(t), "data", "fabrics", name)
}

// linkByName is f's link named name, or fails.
func linkByName(t *testing.T, f *Fabric, name string) Link {
	t.Helper()
	for _, l := range f.Links {
		if l.Name == name {
			return l
		}
	}
	t.Fatalf("%s has no link %s", f.Source, name)
	return Link{}
}

// switchCount is how many switches an ibnetdiscover dump names.
func switchCount(t *testing.T, path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ib, err := parseIBNetDiscover(b)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, x := range ib.order {
		if x.kind == 'S' {
			n++
		}
	}
	return n
}

// TestIBNetDiscoverPSMN reads PSMN's X5 dump (2020) with its site's map
// of GUIDs to hosts (README of ../shared/data: 11 switches, 89
// adapters). x5570comp1's adapter is linked 4xDDR (4 lanes of 4 Gbit/s
// of data after 8b/10b: 2 GB/s), the Voltaire switches' cables 4xQDR
// (4 GB/s). The site's own Slurm topology.conf, generated from the same
// dump by its ibmap2slurm.py, is the truth for the leaf switches: every
// two hosts share a leaf in one exactly where they share one in the
// other.
func TestIBNetDiscoverPSMN(t *testing.T) {
	dump := realFabric(t, "psmn_X5_2020.ibnetdiscover")
	f, err := ReadAll([]string{dump, realFabric(t, "psmn_X5_2020.guid2host.map")})
	if err != nil {
		t.Fatal(err)
	}
	if n := switchCount(t, dump); len(f.Hosts) != 89 || n != 11 {
		t.Errorf("%d hosts and %d switches, want 89 and 11", len(f.Hosts), n)
	}
	idx := f.HostIndex()
	for _, h := range []string{"x5570comp1", "r510gluster4", "sl390lin124", "r815lin114", "H-78e7d1030024535c"} {
		if _, ok := idx[h]; !ok {
			t.Errorf("no host %s (the map names all but 3 adapters, which keep their H-<guid> names)", h)
		}
	}
	if l := linkByName(t, f, "x5570comp1[1]-S-0008f10500108bba[11]_UP"); l.Bandwidth != 2e9 || l.Class != "node" {
		t.Errorf("x5570comp1's link: %+v, want 2e9 B/s (4xDDR), class node", l)
	}
	if l := linkByName(t, f, "S-0008f10500200b50[1]-S-0008f10500108c5c[15]_DOWN"); l.Bandwidth != 4e9 || l.Class != "up-1" {
		t.Errorf("a leaf's uplink: %+v, want 4e9 B/s (4xQDR), class up-1", l)
	}
	conf := realFabric(t, "psmn_X5_2020.topology.conf")
	leaf := confLeaves(t, conf)
	sameLeaves(t, f, leaf)
	// The topology.conf itself, each leaf under several spines, reads as
	// a graph with the same leaves; two hosts on different leaves are
	// four links apart (no bandwidth declared: the survey prices them).
	c, err := Read(conf)
	if err != nil {
		t.Fatal(err)
	}
	sameLeaves(t, c, leaf)
	ci := c.HostIndex()
	if p := c.Path(ci["x5570comp1"], ci["sl390lin101"]); c.Kind != KindGraph || len(p) != 4 || c.Links[p[1]].Bandwidth != 0 {
		t.Errorf("topology.conf: kind %s, x5570comp1 -> sl390lin101 %v", c.Kind, linkNames(c, p))
	}
}

// sameLeaves checks that f has the hosts of leaf (each host's leaf
// switch) and that its first level groups them as leaf does.
func sameLeaves(t *testing.T, f *Fabric, leaf map[string]string) {
	t.Helper()
	if len(f.Levels) == 0 || len(leaf) != len(f.Hosts) {
		t.Fatalf("%s: %d levels, %d hosts; want the leaf switches' level and the %d hosts of topology.conf", f.Source, len(f.Levels), len(f.Hosts), len(leaf))
	}
	lv := f.Levels[0]
	for i, x := range f.Hosts {
		if leaf[x] == "" {
			t.Errorf("%s: host %s is not in topology.conf", f.Source, x)
		}
		for j, y := range f.Hosts[:i] {
			if (lv.Group[i] == lv.Group[j]) != (leaf[x] == leaf[y]) {
				t.Errorf("%s: %s and %s on one leaf %v, in topology.conf %v", f.Source, x, y, lv.Group[i] == lv.Group[j], leaf[x] == leaf[y])
			}
		}
	}
}

// confLeaves is each host's leaf switch in a Slurm topology.conf (its
// SwitchName ... Nodes= lines), read line by line, the truth the
// readers are held to.
func confLeaves(t *testing.T, path string) map[string]string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	leaf := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if text, _, _ := strings.Cut(line, "#"); strings.TrimSpace(text) != "" {
			s, err := parseSwitchLine(text)
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range s.nodes {
				leaf[h] = s.name
			}
		}
	}
	return leaf
}

// TestIBNetDiscoverRocket reads UT Tartu's Rocket dump (2014: 8 SX6036
// switches, 144 adapters named in their node descriptions): stage114's
// adapter on ib5 (S-f4521403001165a0) at 4xQDR (4 GB/s), ib5's uplinks
// 4xFDR10 (4 lanes of 10.3125 Gbaud, 64b/66b: 5 GB/s). Two hosts on
// different leaves are four links apart (up to a spine and down).
// README of ../shared/data: 6 leaves, 2 spines.
func TestIBNetDiscoverRocket(t *testing.T) {
	dump := realFabric(t, "utartu_rocket_2014.ibnetdiscover")
	f, err := Read(dump)
	if err != nil {
		t.Fatal(err)
	}
	if n := switchCount(t, dump); len(f.Hosts) != 144 || n != 8 {
		t.Errorf("%d hosts and %d switches, want 144 and 8", len(f.Hosts), n)
	}
	if f.Kind != KindGraph || f.Routing != RoutesShortest || f.Hosts[0] != "stage114" {
		t.Errorf("kind %s, routing %q, first host %s", f.Kind, f.Routing, f.Hosts[0])
	}
	if l := linkByName(t, f, "stage114[1]-S-f4521403001165a0[1]_UP"); l.Bandwidth != 4e9 {
		t.Errorf("stage114's link: %g B/s, want 4e9 (4xQDR)", l.Bandwidth)
	}
	if l := linkByName(t, f, "S-f4521403001165a0[21]-S-f4521403007ea570[26]_UP"); l.Bandwidth != 5e9 || l.Class != "up-1" {
		t.Errorf("ib5's uplink: %+v, want 5e9 B/s (4xFDR10), class up-1", l)
	}
	// ib7 (S-f4521403007eaa70) serves 3 hosts of its own but joins only
	// leaves: a spine, its links from the leaves up-1 like ib8's.
	if l := linkByName(t, f, "S-f4521403001165a0[35]-S-f4521403007eaa70[32]_UP"); l.Class != "up-1" {
		t.Errorf("ib5's uplink to ib7: class %s, want up-1", l.Class)
	}
	if c := f.Classes(); !slices.Equal(c, []string{"node", "up-1"}) {
		t.Errorf("classes %v, want node and up-1 (a two-level tree)", c)
	}
	idx := f.HostIndex()
	if p := f.Path(idx["stage114"], idx["stage1"]); len(p) != 4 {
		t.Errorf("stage114 -> stage1: %v, want 4 links", linkNames(f, p))
	}
}

// smallPath is the ib-small fabric's route from hosta to hostc.
var smallTableRoute = []string{
	"hosta[1]-S-0002c90000000100[1]_UP",
	"S-0002c90000000100[4]-S-0002c90000000300[1]_UP",
	"S-0002c90000000200[4]-S-0002c90000000300[2]_DOWN",
	"hostc[1]-S-0002c90000000200[1]_DOWN",
}

// TestIBForwardingTables: on testdata/ib-small (two leaves joined
// directly and through a spine), the tables send hosta's traffic for
// hostc through the spine, one link longer than the direct cable, and
// hostc's back over the direct cable; without them, the shortest path.
// The ports report of the same fabric reads alike, tables and all; the
// spine's link to leaf2 runs at the lower rate of its two ends (2xHDR,
// 100 Gbit/s). A directory of one dump per switch reads as one file.
// The same tables as OpenSM dumps them (opensm-lfts.dump) and as
// ibdiagnet does (.fdbs: LIDs with no route UNREACHABLE, the spine's
// second private table, which sends hostc's traffic back down, skipped)
// route alike.
func TestIBForwardingTables(t *testing.T) {
	for _, c := range [][2]string{{"ib-small.topo", "ib-small.lft"}, {"ib-small.ports", "ib-small.lft"},
		{"ib-small.topo", "ib-small.opensm-lfts.dump"}, {"ib-small.ports", "ib-small.fdbs"}} {
		desc := c[0] + " with " + c[1]
		f, err := ReadAll([]string{filepath.Join("testdata", c[0]), filepath.Join("testdata", c[1])})
		if err != nil {
			t.Fatalf("%s: %v", desc, err)
		}
		idx := f.HostIndex()
		a, c := idx["hosta"], idx["hostc"]
		if f.Routing != RoutesFromTables || len(f.Hosts) != 3 || a == c {
			t.Fatalf("%s: routing %q, hosts %v", desc, f.Routing, f.Hosts)
		}
		if got := linkNames(f, f.Path(a, c)); !slices.Equal(got, smallTableRoute) {
			t.Errorf("%s: hosta -> hostc by the tables: %v, want %v", desc, got, smallTableRoute)
		}
		back := []string{"hostc[1]-S-0002c90000000200[1]_UP", "S-0002c90000000100[3]-S-0002c90000000200[3]_DOWN", "hosta[1]-S-0002c90000000100[1]_DOWN"}
		if got := linkNames(f, f.Path(c, a)); !slices.Equal(got, back) {
			t.Errorf("%s: hostc -> hosta by the tables: %v, want %v", desc, got, back)
		}
		if l := linkByName(t, f, "S-0002c90000000200[4]-S-0002c90000000300[2]_UP"); l.Bandwidth != 12.5e9 {
			t.Errorf("%s: leaf2-spine at %g B/s, want 12.5e9 (2xHDR, the spine's end)", desc, l.Bandwidth)
		}
		if l := linkByName(t, f, "hosta[1]-S-0002c90000000100[1]_UP"); l.Bandwidth != 12.5e9 {
			t.Errorf("%s: hosta's link at %g B/s, want 12.5e9 (4xEDR)", desc, l.Bandwidth)
		}
	}
	plain, err := Read(filepath.Join("testdata", "ib-small.topo"))
	if err != nil {
		t.Fatal(err)
	}
	if p := plain.Path(0, 2); plain.Routing != RoutesShortest || len(p) != 3 {
		t.Errorf("no tables: routing %q, hosta -> hostc %v, want the direct cable", plain.Routing, linkNames(plain, p))
	}
	dir := splitLFT(t, "ib-small.lft")
	f, err := ReadAll([]string{filepath.Join("testdata", "ib-small.topo"), dir})
	if err != nil {
		t.Fatal(err)
	}
	if got := linkNames(f, f.Path(0, 2)); !slices.Equal(got, smallTableRoute) {
		t.Errorf("tables from a directory: hosta -> hostc %v", got)
	}
}

// splitLFT writes each switch's table of testdata/name to its own file
// of a new directory.
func splitLFT(t *testing.T, name string) string {
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for i, part := range strings.SplitAfter(string(b), "dumped \n") {
		if strings.TrimSpace(part) != "" {
			if err := os.WriteFile(filepath.Join(dir, "sw"+string(rune('0'+i))+".lft"), []byte(part), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}

// TestIBTableErrors: tables that send traffic round a loop, that lack a
// host, or name a switch the dump lacks, and files given wrongly.
func TestIBTableErrors(t *testing.T) {
	orig, err := os.ReadFile(filepath.Join("testdata", "ib-small.lft"))
	if err != nil {
		t.Fatal(err)
	}
	topo := filepath.Join("testdata", "ib-small.topo")
	for _, c := range []struct {
		what, old, new, want string
	}{
		// The spine sends hostc's traffic back to leaf1, which sent it up.
		{"a loop", "0x000c 002 :", "0x000c 001 :", "traffic for host hostc goes round a loop: S-0002c90000000100 -> S-0002c90000000300 -> S-0002c90000000100"},
		{"a missing entry", "0x000c 002 :", "0x000d 002 :", "switch S-0002c90000000300 has no forwarding entry for host hostc"},
		{"a port with no link", "0x000b 002 : (Channel", "0x000b 007 : (Channel", "switch S-0002c90000000100 forwards traffic for host hostb out of a port with no link"},
		{"an unknown switch", "Lid 3 guid 0x0002c90000000300", "Lid 3 guid 0x0002c90000000999", "switch guid 0x0002c90000000999 (spine): the ibnetdiscover output has no such switch"},
		{"a bad line", "6 valid lids dumped \nUnicast lids [0x0-0xc] of switch Lid 3", "6 valid lids dumped \nhello\nUnicast lids [0x0-0xc] of switch Lid 3", "line 21: \"hello\" is not a line of a forwarding table's dump"},
		{"multicast alone", string(orig), "Multicast mlids [0xc000-0xc3ff] of switch Lid 1 guid 0x0002c90000000100 (leaf1):\n 0xc000   x x\n",
			"multicast forwarding tables only; latmap routes by the unicast ones"},
		{"a LID out of range", "0x000c 002 :", "0xc00c 002 :", "LID out of the unicast range"},
	} {
		bad := strings.Replace(string(orig), c.old, c.new, 1)
		if bad == string(orig) {
			t.Fatalf("%s: the edit changed nothing", c.what)
		}
		p := filepath.Join(t.TempDir(), "bad.lft")
		if err := os.WriteFile(p, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadAll([]string{topo, p}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.what, err, c.want)
		}
	}
	lft := filepath.Join("testdata", "ib-small.lft")
	for _, c := range []struct {
		paths []string
		want  string
	}{
		{[]string{lft}, "without the network they route"},
		{[]string{topo, filepath.Join("testdata", "ib-small.ports")}, "two network descriptions"},
		{[]string{filepath.Join("..", "..", "testdata", "sim", "torus-4x4.xml"), lft}, "route an ibnetdiscover dump"},
	} {
		if _, err := ReadAll(c.paths); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want one containing %q", c.paths, err, c.want)
		}
	}
	if _, err := Read(lft); err == nil || !strings.Contains(err.Error(), "not a network") {
		t.Errorf("Read of tables alone: error %v", err)
	}
}

// TestIBParseErrors: malformed ibnetdiscover lines name their line.
func TestIBParseErrors(t *testing.T) {
	orig, err := os.ReadFile(filepath.Join("testdata", "ib-small.topo"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ old, new, want string }{
		{`"hosta mlx5_0" lid 10 4xEDR`, `"hosta mlx5_0" lid 10 4xZDR`, `line 11: link speed "ZDR"`},
		{`"hosta mlx5_0" lid 10 4xEDR`, `"hosta mlx5_0" lid 10 3xEDR`, `line 11: link width 3x`},
		{`[3]	"S-0002c90000000100"[3]`, `[3]	"S-0002c90000000100"[2]`, "line 22: port 3 of S-0002c90000000200 is linked to port 3 of S-0002c90000000100, and to port 2"},
		{"[4]	\"S-0002c90000000300\"[2]", "[4]	S-0002c90000000300[2]", "line 23: \"[4]\\tS-0002c90000000300[2]"},
	} {
		bad := strings.Replace(string(orig), c.old, c.new, 1)
		if _, err := Parse([]byte(bad)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q -> %q: error %v, want one containing %q", c.old, c.new, err, c.want)
		}
	}
}
