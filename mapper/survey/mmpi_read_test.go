package survey

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestReadMMPIRealLogs(t *testing.T) {
	// Rank and host counts from ../shared/data/README.md and the logs'
	// headers.
	tests := []struct {
		file    string
		pattern string
		ranks   int
		hosts   int
		machine string
		// one pair's mean and StdDev as printed in the log.
		a, b      int
		mean, sem float64
	}{
		{"bw_4x32_ammpi_128_64_100.dat", "", 128, 4, "nid23543", 0, 1, 2.04, 0.17},
		{"bw_32x1_ammpi_32_64_100.dat", "", 32, 32, "nid23605", 0, 1, 18.32, 4.74},
		{"stampede_2x16_ammpi_32_64_100.dat", "", 32, 2, "c420-002.stampede.tacc.utexas.edu", 30, 31, 2.16, 0.10},
		{"mira_2x16_ammpi_32_64_100.dat", "", 32, 32, "Q0G-I3-J05.mira.i2b", 0, 1, 20.95, 0.38},
		{"mira_2x16_ammpi_32_64_100.dat", `R\d+-M\d+-N\d+-J\d+`, 32, 2, "Q0G-I3-J05.mira.i2b", 0, 1, 20.95, 0.38},
		{"blue_gene_ammpi_32_64_100.dat", "", 32, 32, "bgio297", 0, 1, 8.9823, 0.1189},
		{"blue_gene_ammpi_32_64_100.dat", `<(\d+,\d+,\d+),\d+>`, 32, 32, "bgio297", 30, 31, 8.8820, 0.0082},
	}
	for _, tc := range tests {
		t.Run(tc.file+tc.pattern, func(t *testing.T) {
			opt := MMPIOptions{}
			if tc.pattern != "" {
				opt.HostPattern = regexp.MustCompile(tc.pattern)
			}
			s := readTestLog(t, tc.file, opt)
			if s.N() != tc.ranks || s.Meta.Ranks != tc.ranks || s.Meta.Repeats != 100 || s.Meta.Machine != tc.machine {
				t.Errorf("N %d, meta ranks %d repeats %d machine %q", s.N(), s.Meta.Ranks, s.Meta.Repeats, s.Meta.Machine)
			}
			if got := hostCount(s.Ranks); got != tc.hosts {
				t.Errorf("%d hosts, want %d", got, tc.hosts)
			}
			tab := s.Tables[0]
			measured := 0
			for _, n := range tab.Samples {
				if n == 100 {
					measured++
				}
			}
			if want := tc.ranks * (tc.ranks - 1) / 2; measured != want {
				t.Errorf("%d pairs with 100 samples, want %d", measured, want)
			}
			if got := tab.At(Mean, tc.a, tc.b); math.Abs(got-tc.mean) > 1e-4 {
				t.Errorf("mean(%d,%d) = %v, want %v", tc.a, tc.b, got, tc.mean)
			}
			// std = StdDev * sqrt(100).
			if got := tab.At(Std, tc.a, tc.b); math.Abs(got-tc.sem*10) > 1e-3 {
				t.Errorf("std(%d,%d) = %v, want %v", tc.a, tc.b, got, tc.sem*10)
			}
			if !math.IsNaN(tab.At(Median, tc.a, tc.b)) || !math.IsNaN(tab.At(Min, tc.a, tc.b)) {
				t.Errorf("median/min should be NaN (not in mmpi logs)")
			}
			if s.Meta.Source != "mmpi:"+tc.file {
				t.Errorf("source %q", s.Meta.Source)
			}
		})
	}
}

func TestReadMMPIHostPatternNames(t *testing.T) {
	s := readTestLog(t, "mira_2x16_ammpi_32_64_100.dat", MMPIOptions{})
	if got, want := s.Ranks[17].Host, "Task 17 of 32 (0,0,0,0,1,1)  R03-M1-N00-J07"; got != want {
		t.Errorf("rank 17 is %q, want %q (a name with a double space)", got, want)
	}
	s = readTestLog(t, "blue_gene_ammpi_32_64_100.dat", MMPIOptions{})
	if got, want := s.Ranks[9].Host, "Processor <1,1,0,0> in a <8, 8, 8, 2> torusX=1, torusY=1, torusZ=1"; got != want {
		t.Errorf("rank 9 is %q, want %q", got, want)
	}
}

const mmpiHead = "# Testing Hostname: h\n# Processors: 3 MsgLen 64 Repeats: 4\n# ProcName1:rank   ProcName2:rank   AvgCommTime(usecs) StdDev\n"

func TestReadMMPI(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		wantErr string // "" for success
	}{
		{"ok", mmpiHead + "a 000  a 000 0.00 0.00\na 000  a 001 1.5 0.25\na 000  b 002 9.0 1.0\na 001  b 002 9.5 nan\n", ""},
		{"tricky names", mmpiHead + "x 12  y 000  x 12  y 001  1.0 0.1\nx 12  y 000  z 5 002  2.0 0.1\nx 12  y 001  z 5 002  3.0 -nan\n", ""},
		{"missing pair", mmpiHead + "a 000  a 001 1.5 0.25\n", ""},
		{"no header", "a 000  a 001 1.5 0.25\n", "no \"# Processors"},
		{"bad number", mmpiHead + "a 000  a 001 1.5 0.25\na 000  b 002 x9 1\n", "line 5: average \"x9\""},
		{"bad rank", mmpiHead + "a 000  a 0x1 1.5 0.25\n", "line 4: second rank"},
		{"rank out of range", mmpiHead + "a 000  a 007 1.5 0.25\n", "line 4: rank 7 out of range"},
		{"no split", mmpiHead + "a000 a 001 1.5 0.25\n", "line 4: cannot find"},
		{"too few fields", mmpiHead + "1.5\n", "line 4: want"},
		{"duplicate", mmpiHead + "a 000  a 001 1.5 0.25\na 000  a 001 1.5 0.25\na 000  b 002 1 1\n", "line 5: pair (0, 1) already given on line 4"},
		{"renamed rank", mmpiHead + "a 000  a 001 1.5 0.25\na 000  c 001 1.5 0.25\n", "line 5: rank 1 is \"c\" here but \"a\" on line 4"},
		{"negative", mmpiHead + "a 000  a 001 -1.5 0.25\n", "line 4: average"},
		{"rank never seen", mmpiHead + "a 000  a 001 1.5 0.25\n", ""},
		{"binary", "\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00>\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\n",
			`line 1: binary data "\x7fELF\x02\x01\x01\x00`},
		{"long field quoted short", mmpiHead + "a 000  a 001 " + strings.Repeat("z", 500) + " 0.25\n", `line 4: average "` + strings.Repeat("z", 40) + `"...: not a number`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := ReadMMPI(strings.NewReader(tc.in), MMPIOptions{Name: "t"})
			if tc.wantErr == "" {
				if err != nil && !strings.Contains(err.Error(), "never appears") {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error %v, want one containing %q (got survey %v)", err, tc.wantErr, s != nil)
			}
			if len(err.Error()) > 300 {
				t.Errorf("error of %d bytes; quote a short excerpt: %v", len(err.Error()), err)
			}
		})
	}
}

func TestReadMMPIValues(t *testing.T) {
	in := mmpiHead + "x 12  y 000  x 12  y 000  0.0 0.0\nx 12  y 000  x 12  y 001  1.0 0.1\nx 12  y 000  z 5 002  2.0 0.1\nx 12  y 001  z 5 002  3.0 -nan\n"
	s, err := ReadMMPI(strings.NewReader(in), MMPIOptions{HostPattern: regexp.MustCompile(`^(\w)`)})
	if err != nil {
		t.Fatal(err)
	}
	if s.Ranks[0].Host != "x" || s.Ranks[2].Host != "z" {
		t.Errorf("hosts %q %q, want x z (first letter)", s.Ranks[0].Host, s.Ranks[2].Host)
	}
	tab := s.Tables[0]
	// StdDev 0.1 over 4 repeats: std 0.1 * sqrt(4).
	if got := tab.At(Std, 0, 1); math.Abs(got-0.2) > 1e-6 {
		t.Errorf("std = %v, want 0.2", got)
	}
	if got := tab.At(Std, 1, 2); !math.IsNaN(got) || tab.At(Mean, 1, 2) != 3 {
		t.Errorf("nan StdDev: std %v mean %v", got, tab.At(Mean, 1, 2))
	}
	if _, err := ReadMMPI(strings.NewReader(in), MMPIOptions{HostPattern: regexp.MustCompile(`q+`)}); err == nil || !strings.Contains(err.Error(), "does not match --host-pattern") {
		t.Errorf("non-matching pattern: %v", err)
	}
}

func TestLoadDetects(t *testing.T) {
	log := filepath.Join("..", "..", "testdata", "mmpi", "stampede_2x16_ammpi_32_64_100.dat")
	s, err := Load(log, LoadOptions{})
	if err != nil || s.N() != 32 {
		t.Fatalf("Load(mmpi log): %v", err)
	}
	dir := filepath.Join(t.TempDir(), "s")
	if err := WriteSurvey(dir, s, false); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dir, filepath.Join(dir, MetaFile)} {
		s2, err := Load(p, LoadOptions{})
		if err != nil || s2.N() != 32 || math.Abs(s2.Tables[0].At(Mean, 30, 31)-2.16) > 1e-6 {
			t.Errorf("Load(%s): %v", p, err)
		}
	}
	other := filepath.Join(t.TempDir(), "x.txt")
	os.WriteFile(other, []byte("hello\n"), 0o644)
	if _, err := Load(other, LoadOptions{}); err == nil || !strings.Contains(err.Error(), "neither a survey directory nor an mmpi log") {
		t.Errorf("Load(text file) = %v", err)
	}
}

func FuzzReadMMPI(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "mmpi", "*.dat"))
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		if len(b) > 3000 {
			b = b[:3000]
		}
		f.Add(b)
	}
	f.Add([]byte(mmpiHead + "a 000  a 001 1.5 0.25\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := ReadMMPI(bytes.NewReader(b), MMPIOptions{})
		if err != nil {
			return
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("parsed survey invalid: %v", err)
		}
		for _, v := range s.Tables[0].Values[Mean] {
			if v < 0 {
				t.Fatalf("negative mean %v", v)
			}
		}
	})
}

func BenchmarkReadMMPI(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "mmpi", "bw_4x32_ammpi_128_64_100.dat"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := ReadMMPI(bytes.NewReader(data), MMPIOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestReadMMPISize checks MsgLen is read as MPI_INTs, as mmpi.c sent them
// and as WriteMmpi writes them (size / 4).
func TestReadMMPISize(t *testing.T) {
	s := readTestLog(t, "stampede_2x16_ammpi_32_64_100.dat", MMPIOptions{})
	if got := s.Tables[0].Size; got != 256 || s.Meta.Sizes[0] != 256 {
		t.Errorf("size %d (meta %v), want 256 bytes for MsgLen 64", got, s.Meta.Sizes)
	}
}

func readTestLog(t testing.TB, name string, opt MMPIOptions) *Survey {
	t.Helper()
	s, err := ReadMMPIFile(filepath.Join("..", "..", "testdata", "mmpi", name), opt)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
