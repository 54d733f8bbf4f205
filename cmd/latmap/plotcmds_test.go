package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runLatmap(t *testing.T, args ...string) (string, error) {
	t.Helper()
	root := newRootCmd()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(args)
	err := root.Execute()
	return out.String(), err
}

// runLatmapSplit is runLatmap with standard output and error apart, as
// a script reading --json gets them.
func runLatmapSplit(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	root := newRootCmd()
	var out, errw bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errw)
	root.SetArgs(args)
	err := root.Execute()
	return out.String(), errw.String(), err
}

// TestImportTopoPlotCompare runs the four commands on a real mmpi log.
func TestImportTopoPlotCompare(t *testing.T) {
	log := filepath.Join("..", "..", "testdata", "mmpi", "bw_4x32_ammpi_128_64_100.dat")
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "bw")
	out, err := runLatmap(t, "import", "mmpi", log, "-o", dir)
	if err != nil || !strings.Contains(out, "128 ranks on 4 hosts, 8128 pairs of 256 B, 100 repeats") {
		t.Fatalf("import: %v\n%s", err, out)
	}
	if _, err := runLatmap(t, "import", "mmpi", log, "-o", dir); err == nil {
		t.Error("import over an existing directory without -f succeeded")
	}
	for _, in := range []string{dir, log} {
		out, _, err = runLatmapSplit(t, "topo", in, "--json")
		if err != nil {
			t.Fatalf("topo %s: %v", in, err)
		}
		var topo struct {
			Levels []struct {
				Name     string  `json:"name"`
				RTTMinUs float64 `json:"rtt_min_us"`
				RTTMaxUs float64 `json:"rtt_max_us"`
				Pairs    int     `json:"pairs"`
			} `json:"levels"`
			Ranks []struct {
				Rank int    `json:"rank"`
				Host string `json:"host"`
				Node int    `json:"node"`
			} `json:"ranks"`
			Layout       string `json:"layout"`
			RanksPerNode []int  `json:"ranks_per_node"`
		}
		if err := json.Unmarshal([]byte(out), &topo); err != nil {
			t.Fatalf("topo --json: %v\n%s", err, out)
		}
		if topo.Layout != "block" || len(topo.RanksPerNode) != 4 || len(topo.Ranks) != 128 || topo.Ranks[127].Node != 3 || topo.Ranks[127].Host != "nid23470" {
			t.Errorf("topo %s: layout %q, ranks per node %v", in, topo.Layout, topo.RanksPerNode)
		}
	}
	out, errOut, err := runLatmapSplit(t, "topo", dir)
	if err != nil || !strings.HasPrefix(out, "4 nodes x 32 ranks, block (ranks 0-31 on nid23543") {
		t.Errorf("topo text: %v\n%s", err, out)
	}
	if !strings.Contains(errOut, "latmap: survey: rtt_std_us is mmpi's StdDev") {
		t.Errorf("topo: the survey's notes not said on standard error: %q", errOut)
	}
	png := filepath.Join(tmp, "bw.svg")
	if _, err := runLatmap(t, "plot", log, "-o", png, "--order", "host", "--metric", "std"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(png); !bytes.Contains(b, []byte("<svg")) {
		t.Errorf("plot wrote no SVG")
	}
	if _, err := runLatmap(t, "plot", log, "-o", filepath.Join(tmp, "x.png"), "--metric", "nope"); err == nil || !strings.Contains(err.Error(), "--metric") {
		t.Errorf("bad metric: %v", err)
	}
	stampede := filepath.Join("..", "..", "testdata", "mmpi", "stampede_2x16_ammpi_32_64_100.dat")
	out, err = runLatmap(t, "compare", dir, stampede, "-o", filepath.Join(tmp, "cmp.png"))
	if err != nil || !strings.Contains(out, "different numbers of ranks (128 and 32)") {
		t.Errorf("compare: %v\n%s", err, out)
	}
	if _, err := runLatmap(t, "import", "osu", log, "-o", filepath.Join(tmp, "z")); err == nil {
		t.Error("unknown import format accepted")
	}
}

func TestErrorLine(t *testing.T) {
	for _, tc := range []struct {
		path, err, want string
	}{
		{"latmap place", "--exclude zz: no such host in the survey (hosts: a, b)", "latmap place: --exclude zz: no such host in the survey (hosts: a, b)"},
		{"latmap import mmpi", "reading mmpi log x: line 1: bad header", "latmap import mmpi: reading mmpi log x: line 1: bad header"},
		{"latmap", "unknown command \"srvey\" for \"latmap\"", "latmap: unknown command \"srvey\" for \"latmap\""},
	} {
		if got := errorLine(tc.path, errors.New(tc.err)); got != tc.want {
			t.Errorf("errorLine(%q, %q) = %q, want %q", tc.path, tc.err, got, tc.want)
		}
	}
}

// TestWroteOnStderr: the commands that write a file say "latmap: wrote
// PATH" on standard error, never on standard output (compare said it on
// standard output, in its table).
func TestWroteOnStderr(t *testing.T) {
	dir := t.TempDir()
	in := fixtures(t, dir)
	for _, args := range [][]string{
		{"compare", in["survey"], in["mmpi"], "-o", filepath.Join(dir, "c.png")},
		{"plot", in["survey"], "-o", filepath.Join(dir, "p.png")},
		{"export", "pprof", in["profile"], "-o", filepath.Join(dir, "e.pb.gz")},
	} {
		root := newRootCmd()
		var out, errs strings.Builder
		root.SetOut(&out)
		root.SetErr(&errs)
		root.SetArgs(args)
		if err := root.Execute(); err != nil {
			t.Fatalf("latmap %s: %v", strings.Join(args, " "), err)
		}
		path := args[len(args)-1]
		if strings.Contains(out.String(), "wrote") {
			t.Errorf("latmap %s: standard output says wrote:\n%s", args[0], out.String())
		}
		if !strings.Contains(errs.String(), "latmap: wrote "+path+"\n") {
			t.Errorf("latmap %s: standard error lacks \"latmap: wrote %s\":\n%s", args[0], path, errs.String())
		}
	}
}

// TestTopoLogCutShort: topo of Stampede's mmpi log cut after 100 lines
// says on standard error that pairs are missing, and names the ranks
// whose latencies cannot place them (no pair to their host's others
// measured) instead of quoting a NaN round trip for each.
func TestTopoLogCutShort(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "mmpi", "stampede_2x16_ammpi_32_64_100.dat"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	cut := filepath.Join(t.TempDir(), "cut.dat")
	if err := os.WriteFile(cut, []byte(strings.Join(lines[:100], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, err := runLatmapSplit(t, "topo", cut)
	if err != nil {
		t.Fatalf("topo: %v\n%s", err, errOut)
	}
	if !strings.Contains(errOut, "rank pairs at 256 bytes are missing") {
		t.Errorf("no word of the missing pairs on standard error: %q", errOut)
	}
	if strings.Contains(out, "NaN") || !strings.Contains(out, "no pair measured with the other ranks of their host") {
		t.Errorf("topo of a log cut short:\n%s", out)
	}
}

// TestPictureTypeFirst: plot and compare refuse a picture type they
// cannot write before they read their input (no word of the survey's
// notes, exit 2).
func TestPictureTypeFirst(t *testing.T) {
	log := filepath.Join("..", "..", "testdata", "mmpi", "stampede_2x16_ammpi_32_64_100.dat")
	for _, args := range [][]string{{"plot", log, "-o", "x.jpg"}, {"compare", log, log, "-o", "x.gif"}} {
		out, errOut, err := runLatmapSplit(t, args...)
		if err == nil || !strings.Contains(err.Error(), "pictures; use a .png") || exitCode(err) != 2 || strings.Contains(out+errOut, "latmap: ") {
			t.Errorf("latmap %s: %v (exit %d)\n%s%s", strings.Join(args, " "), err, exitCode(err), out, errOut)
		}
	}
}
