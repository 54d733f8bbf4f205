package export

import (
	"bytes"
	"encoding/json"
	"flag"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	lp "github.com/latmap/latmap/mapper/profile"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// The call-site profile in testdata/callsites is a real run: latmap profile
// --call-sites=2 -- mpirun -np 2 ./callsites (testdata/mpi/callsites.c and
// callsites_lib.c built -g as a PIE and a shared library).
const callSitesDir = "testdata/callsites"

func readProfile(t *testing.T, dir string) *lp.Profile {
	t.Helper()
	p, err := lp.ReadProfile(dir)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// siteKey names a call site as the report does: its innermost frame and
// the MPI function.
func siteKey(where, fn string) string { return where + " " + fn }

// reportSites is the report's call-site table: MPI time per site.
func reportSites(p *lp.Profile) map[string]float64 {
	m := map[string]float64{}
	for _, s := range p.TopCallSites(0) {
		m[siteKey(s.Where, s.Function)] += s.MPITime
	}
	return m
}

func TestHatchetGolden(t *testing.T) {
	p := readProfile(t, callSitesDir)
	var b bytes.Buffer
	if err := WriteHatchet(&b, callSitesDir); err != nil {
		t.Fatal(err)
	}
	golden := "testdata/callsites.hatchet.json"
	if *update {
		if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Errorf("hatchet JSON differs from %s (go test -update to rewrite):\n%s", golden, b.String())
	}

	// A literal tree: one root, the program, whose inclusive time is the
	// profile's MPI time; each node's inclusive time is its own plus its
	// children's; each MPI function leaf is a report call site with the
	// report's MPI time, calls and bytes.
	var roots []*HatchetNode
	if err := json.Unmarshal(b.Bytes(), &roots); err != nil {
		t.Fatal(err)
	}
	if len(roots) != 1 || roots[0].Frame.Name != "callsites" {
		t.Fatalf("want one root named callsites, got %d roots", len(roots))
	}
	var mpi float64
	for _, f := range p.Functions {
		mpi += f.TotalTime()
	}
	if got := roots[0].Metrics[HatchetTimeInc]; math.Abs(got-mpi) > 1e-12 {
		t.Errorf("root time (inc) %g, functions.csv MPI time %g", got, mpi)
	}
	report := reportSites(p)
	leaves := map[string]float64{}
	var walk func(n *HatchetNode, inner *HatchetNode)
	walk = func(n, inner *HatchetNode) {
		sum := n.Metrics[HatchetTime]
		for _, c := range n.Children {
			sum += c.Metrics[HatchetTimeInc]
			walk(c, n)
		}
		if math.Abs(sum-n.Metrics[HatchetTimeInc]) > 1e-12 {
			t.Errorf("%s: time (inc) %g, own plus children's %g", n.Frame.Name, n.Metrics[HatchetTimeInc], sum)
		}
		if len(n.Children) == 0 {
			f := lp.SiteFrame{Function: strings.SplitN(inner.Frame.Name, " ", 2)[0], File: inner.Frame.File, Line: inner.Frame.Line}
			leaves[siteKey(f.Where(), n.Frame.Name)] += n.Metrics[HatchetTime]
		}
	}
	walk(roots[0], nil)
	if len(leaves) != len(report) || len(report) != 5 {
		t.Errorf("%d leaves, %d report call sites; want 5 each", len(leaves), len(report))
	}
	for k, v := range report {
		if math.Abs(leaves[k]-v) > 1e-12 {
			t.Errorf("%s: hatchet %g s, report %g s", k, leaves[k], v)
		}
	}
}

func TestPprofRoundTrip(t *testing.T) {
	for _, dir := range []string{callSitesDir, "../../testdata/profile/splitcoll-slt-cw"} {
		p := readProfile(t, dir)
		var b bytes.Buffer
		if err := WritePprof(&b, dir); err != nil {
			t.Fatal(err)
		}
		pp, err := profile.Parse(&b)
		if err != nil {
			t.Fatalf("%s: pprof cannot parse the export: %v", dir, err)
		}
		// Per rank and function, the samples add up to functions.csv.
		type key struct {
			rank string
			fn   string
		}
		got := map[key][]int64{}
		for _, s := range pp.Sample {
			k := key{s.Label["rank"][0], s.Label["function"][0]}
			if got[k] == nil {
				got[k] = make([]int64, len(s.Value))
			}
			for i, v := range s.Value {
				got[k][i] += v
			}
		}
		for _, f := range p.Functions {
			if f.Calls == 0 {
				continue
			}
			g := got[key{strconv.Itoa(f.Rank), f.Function}]
			if g == nil {
				t.Errorf("%s: rank %d %s has no sample", dir, f.Rank, f.Function)
				continue
			}
			if d := math.Abs(float64(g[0]) - f.TotalTime()*1e9); d > 2 || g[1] != f.Calls || g[2] != f.BytesSent || g[3] != f.BytesRecv ||
				math.Abs(float64(g[4])-f.Late*1e9) > 2 || math.Abs(float64(g[5])-f.Sync*1e9) > 2 {
				t.Errorf("%s: rank %d %s: pprof values %v, functions.csv %+v", dir, f.Rank, f.Function, g, f)
			}
		}
	}
}

// TestPprofTool runs go tool pprof -top -lines on the export: its flat MPI
// time per source line is the report's per call site.
func TestPprofTool(t *testing.T) {
	// The go command that runs this test: on PATH, or else in the GOROOT
	// the test was built with. go test is running, so one of them is
	// there; not finding it is a failure, never a skip.
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
		if _, err := os.Stat(goBin); err != nil {
			t.Fatalf("go not on PATH nor at %s: go tool pprof cannot run", goBin)
		}
	}
	out := filepath.Join(t.TempDir(), "callsites.pb.gz")
	if err := Write(Options{Format: "pprof", Profile: callSitesDir, Output: out}); err != nil {
		t.Fatal(err)
	}
	if err := Write(Options{Format: "pprof", Profile: callSitesDir, Output: out}); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Errorf("writing over an existing file without force: %v, want an error naming --force", err)
	}
	b, err := exec.Command(goBin, "tool", "pprof", "-top", "-lines", "-unit=ns", out).CombinedOutput()
	if err != nil {
		t.Fatalf("go tool pprof: %v\n%s", err, b)
	}
	// "  100950ns 47.39% 47.39%   100950ns 47.39%  main /tmp/lmx/callsites.c:34"
	row := regexp.MustCompile(`(?m)^\s*(\d+)ns\s+\S+%\s+\S+%\s+\d+ns\s+\S+%\s+(\S+) (\S+):(\d+)$`)
	flat := map[string]float64{}
	for _, m := range row.FindAllStringSubmatch(string(b), -1) {
		ns, _ := strconv.ParseFloat(m[1], 64)
		line, _ := strconv.Atoi(m[4])
		if ns > 0 {
			flat[lp.SiteFrame{Function: m[2], File: m[3], Line: line}.Where()] += ns / 1e9
		}
	}
	p := readProfile(t, callSitesDir)
	want := map[string]float64{}
	for _, s := range p.TopCallSites(0) {
		want[s.Where] += s.MPITime
	}
	if len(flat) != len(want) {
		t.Errorf("pprof lists %d lines with MPI time, the report %d call sites:\n%s", len(flat), len(want), b)
	}
	for w, v := range want {
		if math.Abs(flat[w]-v) > 3e-9 {
			t.Errorf("%s: pprof %g s, report %g s", w, flat[w], v)
		}
	}
}

// TestPprofCommunicators: in a call-site profile of testdata/mpi/commgrid.c
// each sample carries its communicator's label (the MPI_Comm_set_name name,
// else the key), and the bytes sent under each label add up to that
// communicator's bytes in comms.csv.
func TestPprofCommunicators(t *testing.T) {
	const dir = "../../testdata/profile/commgrid"
	p := readProfile(t, dir)
	if len(p.CallSites) == 0 {
		t.Fatalf("%s has no call sites", dir)
	}
	pp, err := Pprof(p)
	if err != nil {
		t.Fatal(err)
	}
	sent := map[string]int64{}
	for _, s := range pp.Sample {
		if c := s.Label["communicator"]; len(c) == 1 {
			sent[c[0]] += s.Value[2]
		}
	}
	for _, c := range p.Comms {
		if sent[c.Label()] != c.Bytes {
			t.Errorf("%s: pprof bytes_sent %d, comms.csv %d", c.Label(), sent[c.Label()], c.Bytes)
		}
	}
	if sent["rows"] != 24000 || sent["cols"] != 32000 {
		t.Errorf("rows %d and cols %d bytes, want 24000 and 32000", sent["rows"], sent["cols"])
	}
}
