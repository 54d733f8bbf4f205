package fabric

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/latmap/latmap/internal/ibsim"
	"github.com/latmap/latmap/internal/testutil"
)

// hostLIDs is the LID ibnetdiscover's dump gives each host of f (its
// first adapter's first cabled port, as named in the dump).
func hostLIDs(t *testing.T, f *Fabric, dump string) []int {
	t.Helper()
	b, err := os.ReadFile(dump)
	if err != nil {
		t.Fatal(err)
	}
	ib, err := parseIBNetDiscover(b)
	if err != nil {
		t.Fatal(err)
	}
	idx := f.HostIndex()
	lids := make([]int, len(f.Hosts))
	for _, n := range ib.order {
		h, ok := idx[hostName(n, nil)]
		if n.kind != 'H' || !ok || lids[h] != 0 {
			continue
		}
		for _, p := range n.portNumbers() {
			if n.ports[p].peer != nil {
				lids[h] = n.ports[p].lid
				break
			}
		}
	}
	return lids
}

// tracedHops are the switch ports ibtracert's trace leaves by, as
// S-<guid>[port]: "[7] -> ca port {0x...}[1] ..." leaves the switch the
// line before reached by its port 7.
func tracedHops(trace string) []string {
	step := regexp.MustCompile(`(?m)^\[(\d+)\] -> \w+ port \{0x([0-9a-fA-F]+)\}\[\d+\]`)
	var hops []string
	prev := ""
	for _, m := range step.FindAllStringSubmatch(trace, -1) {
		if prev != "" {
			hops = append(hops, prev+"["+m[1]+"]")
		}
		g, _ := strconv.ParseUint(m[2], 16, 64)
		prev = fmt.Sprintf("S-%016x", g)
	}
	return hops
}

// ibLinkName is the name of a link of an ibnetdiscover dump.
var ibLinkName = regexp.MustCompile(`^(.+?)\[(\d+)\]-(.+?)\[(\d+)\]_(UP|DOWN)$`)

// pathHops are the switch ports a route of f leaves by, from its links'
// names (A[pa]-Z[pz]_UP leaves A by pa, _DOWN Z by pz).
func pathHops(f *Fabric, path []int32) []string {
	var hops []string
	for _, l := range path {
		m := ibLinkName.FindStringSubmatch(f.Links[l].Name)
		if m == nil {
			return append(hops, "link "+f.Links[l].Name)
		}
		from, port := m[1], m[2]
		if m[5] == "DOWN" {
			from, port = m[3], m[4]
		}
		if strings.HasPrefix(from, "S-") {
			hops = append(hops, from+"["+port+"]")
		}
	}
	return hops
}

// TestOpenSMTables: two real fabrics (PSMN's and Tartu's ibnetdiscover
// dumps, ../shared/data/fabrics) simulated by ibsim and routed by real
// OpenSM with three of its routing engines (minhop, its default; updn;
// dfsssp: ftree refuses both fabrics, whose hosts hang at different
// depths, and falls back to minhop). The switches' tables are read in the
// three formats sites have them: dump_fts (read back from the switches),
// OpenSM's opensm-lfts.dump and opensm.fdbs. The three give every host
// pair the same route, and on sampled pairs that route leaves by exactly
// the switch ports ibtracert's trace of the LID route takes. The engines
// route differently, so the tables are what decides.
func TestOpenSMTables(t *testing.T) {
	ibsim.Need(t)
	fabrics := filepath.Join(testutil.SharedDir(t), "data", "fabrics")
	for _, fab := range []string{"psmn_X5_2020", "utartu_rocket_2014"} {
		routes := map[string][][]string{} // engine -> host pair -> hops
		for _, engine := range []string{"minhop", "updn", "dfsssp"} {
			t.Run(fab+"/"+engine, func(t *testing.T) {
				routes[engine] = checkOpenSM(t, filepath.Join(fabrics, fab+".ibnetdiscover"), engine)
			})
		}
		most := 0
		for _, engine := range []string{"updn", "dfsssp"} {
			differ := 0
			for i, hops := range routes[engine] {
				if !slices.Equal(hops, routes["minhop"][i]) {
					differ++
				}
			}
			most = max(most, differ)
			t.Logf("%s: %s routes %d of %d host pairs otherwise than minhop", fab, engine, differ, len(routes[engine]))
			testutil.Record(t, "host pairs OpenSM's engine routes otherwise than minhop", "fabric", fab, "engine", engine, "pairs", differ, "of", len(routes[engine]))
		}
		if most == 0 {
			t.Errorf("%s: every engine routes every pair as minhop does: the check cannot tell tables apart", fab)
		}
	}
}

// checkOpenSM is TestOpenSMTables on one fabric and engine: it returns
// the switch ports each host pair's route leaves by, in host order.
func checkOpenSM(t *testing.T, net, engine string) [][]string {
	fab := strings.TrimSuffix(filepath.Base(net), ".ibnetdiscover")
	s := ibsim.Route(t, net, engine)
	var fs []*Fabric
	for _, tables := range []string{"fabric.dump_fts", "opensm-lfts.dump", "opensm.fdbs"} {
		f, err := ReadAll([]string{s.Path("fabric.ibnetdiscover"), s.Path(tables)})
		if err != nil {
			t.Fatalf("%s %s, %s: %v", fab, engine, tables, err)
		}
		if f.Routing != RoutesFromTables {
			t.Fatalf("%s %s, %s: routed by %q", fab, engine, tables, f.Routing)
		}
		fs = append(fs, f)
	}
	f, n := fs[0], len(fs[0].Hosts)
	var all [][]string
	for a := range n {
		for b := range n {
			if a == b {
				continue
			}
			hops := pathHops(f, f.Path(a, b))
			all = append(all, hops)
			for i, g := range fs[1:] {
				if other := pathHops(g, g.Path(a, b)); !slices.Equal(other, hops) {
					t.Fatalf("%s %s: %s -> %s by dump_fts %v, by the %s dump %v", fab, engine, f.Hosts[a], f.Hosts[b], hops, []string{"opensm-lfts", "opensm.fdbs"}[i], other)
				}
			}
		}
	}
	lids := hostLIDs(t, f, s.Path("fabric.ibnetdiscover"))
	traced := 0
	for i := range 40 {
		a, b := (i*7)%n, (i*13+5)%n
		if a == b || lids[a] == 0 || lids[b] == 0 {
			continue
		}
		trace := s.Run(t, "ibtracert", strconv.Itoa(lids[a]), strconv.Itoa(lids[b]))
		if want, got := tracedHops(trace), pathHops(f, f.Path(a, b)); len(want) == 0 || !slices.Equal(got, want) {
			t.Errorf("%s %s: %s -> %s leaves by %v, ibtracert's trace by %v:\n%s", fab, engine, f.Hosts[a], f.Hosts[b], got, want, trace)
		}
		traced++
	}
	if traced < 30 {
		t.Errorf("%s %s: %d pairs traced, want 30 or more", fab, engine, traced)
	}
	return all
}
