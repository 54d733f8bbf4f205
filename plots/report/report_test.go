package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latmap/latmap/mapper/placefile"
	"github.com/latmap/latmap/mapper/profile"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestReportGolden prints the report of a real profile (splitcoll on 6
// ranks with --slt --collective-wait, see testdata/README.md).
func TestReportGolden(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "profile", "splitcoll-slt-cw")
	var b bytes.Buffer
	if err := ReportDir(&b, dir, Options{}); err != nil {
		t.Fatal(err)
	}
	golden := dir + ".report.golden"
	if *update {
		if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./plots/report -run TestReportGolden -update)", err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Errorf("report differs from %s (rerun with -update if intended):\n%s", golden, b.String())
	}
	out := b.String()
	for _, s := range []string{"w_MPI_Sendrecv", "b_MPI_Allreduce", "comput", "Kbytes with receive attribute", "send-late time"} {
		if !strings.Contains(out, s) {
			t.Errorf("report lacks %q", s)
		}
	}
}

// FuzzReadProfile feeds arbitrary matrix.csv and functions.csv to the
// reader and the report: errors are fine, panics are not.
func FuzzReadProfile(f *testing.F) {
	src := filepath.Join("..", "..", "testdata", "profile", "splitcoll-slt-cw")
	m, _ := os.ReadFile(filepath.Join(src, profile.MatrixFile))
	fn, _ := os.ReadFile(filepath.Join(src, profile.FunctionsFile))
	f.Add(m, fn)
	f.Add([]byte("src,dst\n0,0\n"), []byte("rank,function,calls\n0,MPI_Send,-5\n"))
	f.Fuzz(func(t *testing.T, matrix, functions []byte) {
		dir := t.TempDir()
		for _, n := range []string{profile.MetaFile, profile.RanksFile, profile.SizesFile} {
			b, _ := os.ReadFile(filepath.Join(src, n))
			os.WriteFile(filepath.Join(dir, n), b, 0o644)
		}
		os.WriteFile(filepath.Join(dir, profile.MatrixFile), matrix, 0o644)
		os.WriteFile(filepath.Join(dir, profile.FunctionsFile), functions, 0o644)
		p, err := profile.ReadProfile(dir)
		if err != nil {
			return
		}
		var b bytes.Buffer
		if err := Report(&b, p, Options{}); err != nil {
			t.Fatal(err)
		}
	})
}

// TestReportCommunicators: the text report of testdata/profile/commgrid
// lists the communicators by name with their keys, creators, sizes and
// traffic (rows: 8 ranks x 3 x 1000 bytes = 23.4 KiB in 24 messages).
func TestReportCommunicators(t *testing.T) {
	var b bytes.Buffer
	if err := ReportDir(&b, filepath.Join("..", "..", "testdata", "profile", "commgrid"), Options{Top: 5}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.Contains(out, "Communicators:") {
		t.Fatalf("no communicator table:\n%s", out)
	}
	for _, want := range [][]string{
		{"rows", "w.1", "MPI_Comm_split", "2", "8", "23.4", "24"},
		{"cols", "w.2", "MPI_Comm_split", "4", "8", "31.2", "16"},
		{"MPI_COMM_WORLD", "MPI_COMM_WORLD", "8", "8", "3.9", "8"},
	} {
		found := false
		for _, line := range strings.Split(out, "\n") {
			if strings.Join(strings.Fields(line), " ") == strings.Join(want, " ") {
				found = true
			}
		}
		if !found {
			t.Errorf("no line %q in:\n%s", strings.Join(want, " "), out)
		}
	}
}

// TestPlaceRangeColumn: with ranges (placefile.Predicted.Ranged) the
// table has a range column, every row's cells under their heads: the
// perfect interconnect's row (a profile's) leaves the range blank and
// its zero "max rank comm" ends where that head ends (right-aligned),
// as without ranges.
func TestPlaceRangeColumn(t *testing.T) {
	for _, ranged := range []bool{false, true} {
		a := &placefile.Advice{Check: placefile.Check{Shares: &placefile.Shares{}}}
		a.PerfectRun = 0.1
		for _, n := range []string{"block", "cyclic", "proposal"} {
			p := placefile.Prediction{Name: n, Run: 0.5, MaxRankTransfer: 0.25, NodeBound: 4, Transfer: 2}
			if ranged {
				p.Low, p.High = 0.25, 0.75
			}
			a.Predictions = append(a.Predictions, p)
		}
		a.Solver.Winner = "block"
		var b bytes.Buffer
		writePlacePredictions(&b, a)
		lines := strings.Split(b.String(), "\n")
		head, perfect := lines[0], lines[4]
		if !strings.HasPrefix(strings.TrimSpace(perfect), "perfect interconnect") || strings.Contains(head, "range (s)") != ranged ||
			strings.Contains(b.String(), "0.25-0.75") != ranged {
			t.Fatalf("ranged %v: table\n%s", ranged, b.String())
		}
		end := strings.Index(head, "max rank comm (s)") + len("max rank comm (s)")
		if z := strings.Index(perfect[len("  perfect interconnect"):], " 0 ") + len("  perfect interconnect") + 2; z != end {
			t.Errorf("ranged %v: the perfect interconnect's 0 ends at column %d, the head \"max rank comm (s)\" at %d:\n%s", ranged, z, end, b.String())
		}
	}
}

// TestNetworkLineClasses: the network line names the link classes a
// declared network has, and none it has not: a zone routed Full, whose
// links have no class, printed "(classes , fatpipe)" and "(classes )".
func TestNetworkLineClasses(t *testing.T) {
	for _, c := range []struct {
		classes []string
		want    string
	}{
		{[]string{"", "fatpipe"}, "3 links (classes fatpipe), priced"},
		{[]string{""}, "3 links, priced"},
		{[]string{"node", "peer-0"}, "3 links (classes node, peer-0), priced"},
	} {
		var b strings.Builder
		writeNetwork(&b, &placefile.Advice{Network: &placefile.Network{Shape: "zone", Source: "z.xml", Links: 3, Classes: c.classes, Capacity: "as declared"}})
		if !strings.Contains(b.String(), c.want) {
			t.Errorf("classes %q: %q, want %q in it", c.classes, b.String(), c.want)
		}
	}
}
