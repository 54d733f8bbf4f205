package profile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadProfileErrors(t *testing.T) {
	src := filepath.Join("..", "..", "testdata", "profile", "splitcoll-slt-cw")
	ranks, err := os.ReadFile(filepath.Join(src, RanksFile))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(ranks), "\n") // header, ranks 0-5
	for _, tc := range []struct {
		name, file, content, want string
		// not is what the error must not say ("" none): the file not to
		// blame.
		not string
	}{
		{"bad rank order", RanksFile, "rank,host,cpu,cpu_end,cpuset,socket,numa,l3,migrated,elapsed_s,comput_s\n1,h,0,0,0,0,0,0,false,1,1\n", "want 0", ""},
		{"pair outside", MatrixFile, "src,dst,bytes,messages,time_s,late_s\n0,99,1,1,0,0\n", "outside ranks", ""},
		{"negative bytes", MatrixFile, "src,dst,bytes,messages,time_s,late_s\n0,1,-1,1,0,0\n", "negative", ""},
		{"bad json", MetaFile, "{", "meta.json", ""},
		{"bad number", FunctionsFile, "rank,function,calls,time_s\nx,MPI_Send,1,0\n", `functions.csv: line 2, column 1 (rank): "x": want a whole number`, "strconv"},
		{"NaN time", FunctionsFile, "rank,function,calls,time_s\n0,MPI_Send,1,NaN\n", "functions.csv line 2", ""},
		// The matrix names ranks 4 and 5: the blame is ranks.csv's.
		{"ranks.csv lacks its last rows", RanksFile, strings.Join(lines[:4], ""), "ranks.csv has rows for ranks 0..2, and meta.json says 6 ranks: no row for rank 3", "matrix.csv"},
		{"ranks.csv lacks rank 2", RanksFile, strings.Join(append(lines[:3:3], lines[4:]...), ""), "ranks.csv line 4 has rank 3, want 2: no row for rank 2", "matrix.csv"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, n := range []string{MetaFile, RanksFile, FunctionsFile, MatrixFile, SizesFile} {
				b, err := os.ReadFile(filepath.Join(src, n))
				if err != nil {
					t.Fatal(err)
				}
				if n == tc.file {
					b = []byte(tc.content)
				}
				os.WriteFile(filepath.Join(dir, n), b, 0o644)
			}
			_, err := ReadProfile(dir)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ReadProfile: %v, want an error with %q", err, tc.want)
			}
			if err != nil && tc.not != "" && strings.Contains(err.Error(), tc.not) {
				t.Errorf("ReadProfile: %v, want no %q", err, tc.not)
			}
		})
	}
}

// BenchmarkReadProfile measures reading a profile directory.
func BenchmarkReadProfile(b *testing.B) {
	dir := filepath.Join("..", "..", "testdata", "profile", "splitcoll-slt-cw")
	for b.Loop() {
		if _, err := ReadProfile(dir); err != nil {
			b.Fatal(err)
		}
	}
}

func TestParseMonitoring(t *testing.T) {
	in := "# POINT TO POINT\nE\t0\t1\t5000 bytes\t5 msgs sent\t0,0,5\nI\t0\t1\t80 bytes\t2 msgs sent\t0\nE\t0\t1\t24 bytes\t1 msgs sent\t1\n# COLLECTIVES\nD\tMPI_COMM_WORLD\tprocs: 0,1\nO2A\t0\t0 bytes\t0 msgs sent\n"
	var got []MatrixRow
	if err := parseMonitoring(strings.NewReader(in), func(r MatrixRow) { got = append(got, r) }); err != nil {
		t.Fatal(err)
	}
	// E lines only (I lines are collectives' internal messages).
	if fmt.Sprint(got) != "[{0 1 5000 5} {0 1 24 1}]" {
		t.Errorf("rows %v", got)
	}
	for _, bad := range []string{"E\t0\t1\t5000\t5 msgs sent\n", "E\tx\t1\t5 bytes\t1 msgs sent\n", "E\t0\t1\t-5 bytes\t1 msgs sent\n", "E\t0\t1\n", "E 0 1 5000 bytes 5 msgs sent\n"} {
		if err := parseMonitoring(strings.NewReader(bad), func(MatrixRow) {}); err == nil || !strings.Contains(err.Error(), "line 1") {
			t.Errorf("%q: %v, want an error on line 1", bad, err)
		}
	}
}

func TestImportOMPIMonitoring(t *testing.T) {
	dir := t.TempDir()
	for r, body := range []string{"E\t0\t1\t100 bytes\t2 msgs sent\t0\n", "E\t1\t0\t50 bytes\t1 msgs sent\t0\nE\t1\t2\t7 bytes\t1 msgs sent\t0\n"} {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("prof.%d.prof", r)), []byte(body), 0o644)
	}
	out := filepath.Join(t.TempDir(), "m.csv")
	var rep strings.Builder
	if err := ImportOMPIMonitoring(filepath.Join(dir, "prof"), out, false, &rep); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(out)
	if want := "src,dst,bytes,messages\n0,1,100,2\n1,0,50,1\n1,2,7,1\n"; string(b) != want {
		t.Errorf("matrix:\n%s\nwant\n%s", b, want)
	}
	if !strings.Contains(rep.String(), "3 rank pairs among 3 ranks, 4 messages, 157 bytes") {
		t.Errorf("summary %q", rep.String())
	}
	if err := ImportOMPIMonitoring(dir, out, false, nil); err == nil {
		t.Error("an existing output was replaced without force")
	}
	if err := ImportOMPIMonitoring(filepath.Join(dir, "nothing"), out, true, nil); err == nil || !strings.Contains(err.Error(), "pml_monitoring_enable") {
		t.Errorf("no files: %v", err)
	}
	// E lines not separated by tabs: an error, nothing written (they
	// were skipped, and an empty matrix written). A run with no
	// point-to-point traffic (collectives only) has no E line at all, and
	// its empty matrix is right.
	bad := t.TempDir()
	os.WriteFile(filepath.Join(bad, "prof.0.prof"), []byte("E 0 1 80 bytes 2 msgs sent 0\n"), 0o644)
	none := filepath.Join(t.TempDir(), "none.csv")
	if err := ImportOMPIMonitoring(filepath.Join(bad, "prof"), none, false, nil); err == nil || !strings.Contains(err.Error(), "not separated by tabs") {
		t.Errorf("E lines with spaces: %v, want an error", err)
	}
	if _, err := os.Stat(none); err == nil {
		t.Errorf("E lines with spaces: %s was written", none)
	}
}

func FuzzParseMonitoring(f *testing.F) {
	f.Add("E\t0\t1\t5000 bytes\t5 msgs sent\t0,0,5\n")
	f.Fuzz(func(t *testing.T, s string) {
		parseMonitoring(strings.NewReader(s), func(r MatrixRow) {
			if r.Src < 0 || r.Dst < 0 || r.Bytes < 0 || r.Messages < 0 {
				t.Fatalf("negative row %+v", r)
			}
		})
	})
}

// TestTopCallSitesPerCommunicator: in testdata/profile/commgrid ring()'s
// MPI_Sendrecv site has a row per rank and communicator (rows, cols,
// MPI_COMM_WORLD); its total counts each rank once and sums the calls and
// bytes: 8 ranks x (3 + 2 + 1) calls, 8 x (3000 + 4000 + 500) bytes.
func TestTopCallSitesPerCommunicator(t *testing.T) {
	p, err := ReadProfile("../../testdata/profile/commgrid")
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, s := range p.TopCallSites(0) {
		if s.Function != "MPI_Sendrecv" {
			continue
		}
		found = true
		if s.Ranks != 8 || s.Calls != 48 || s.BytesSent != 60000 || s.BytesRecv != 60000 {
			t.Errorf("MPI_Sendrecv site: %+v, want 8 ranks, 48 calls, 60000 bytes each way", s)
		}
	}
	if !found {
		t.Error("no MPI_Sendrecv call site")
	}
}
