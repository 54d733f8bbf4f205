package survey

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func TestWriteMmpiGolden(t *testing.T) {
	// Three ranks with values that exercise the format: a mean of 1000 us
	// and more (wider than %6.2f), rounding at the second decimal, a host
	// name with dots.
	l := &MmpiLog{
		Host:    "c420-002.stampede.tacc.utexas.edu",
		Names:   []string{"c420-002.stampede.tacc.utexas.edu", "c420-002.stampede.tacc.utexas.edu", "c420-003.stampede.tacc.utexas.edu"},
		MsgLen:  64,
		Repeats: 100,
		Mean:    []float64{3.155, 1234.5678, 9.999},
		SEM:     []float64{0.125, 10.004, 0.0049},
	}
	var b bytes.Buffer
	if err := WriteMmpi(&b, l); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("..", "..", "testdata", "golden", "mmpi_3ranks_64ints_100reps.dat")
	if *update {
		if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./bench -run Golden -update to create it)", err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Errorf("WriteMmpi differs from %s:\n got:\n%s\nwant:\n%s", golden, b.Bytes(), want)
	}
}

func TestWriteMmpiBadLength(t *testing.T) {
	l := &MmpiLog{Names: []string{"a", "b", "c"}, Mean: []float64{1}, SEM: []float64{1}}
	if err := WriteMmpi(&bytes.Buffer{}, l); err == nil {
		t.Error("WriteMmpi accepted 1 pair for 3 ranks")
	}
}

// mmpiLine is one pair line of an mmpi log as mmpi.c printed it.
var mmpiLine = regexp.MustCompile(`^(.+) (\d{3,})  (.+) (\d{3,})     ([ \d.-]{6,})  ([ \d.-]{6,})$`)

// TestWriteMmpiReproducesRealLogs reads real mmpi logs (testdata/mmpi,
// measured on Stampede, Blue Waters and Mira) and writes them again from the
// numbers they hold: the result must be the same file, byte for byte, so a
// log latmap writes is one mmpi could have written.
func TestWriteMmpiReproducesRealLogs(t *testing.T) {
	for _, name := range []string{"stampede_2x16_ammpi_32_64_100.dat", "bw_32x1_ammpi_32_64_100.dat", "mira_2x16_ammpi_32_64_100.dat"} {
		path := filepath.Join("..", "..", "testdata", "mmpi", name)
		orig, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		l := &MmpiLog{}
		sc := bufio.NewScanner(bytes.NewReader(orig))
		var hdr []string
		type cell struct {
			a, b      int
			mean, sem float64
		}
		var cells []cell
		names := map[int]string{}
		for sc.Scan() {
			line := sc.Text()
			if len(hdr) < 3 {
				hdr = append(hdr, line)
				continue
			}
			m := mmpiLine.FindStringSubmatch(line)
			if m == nil {
				t.Fatalf("%s: unparsed line %q", name, line)
			}
			a, _ := strconv.Atoi(m[2])
			b, _ := strconv.Atoi(m[4])
			mean, _ := strconv.ParseFloat(trimSpace(m[5]), 64)
			sem, _ := strconv.ParseFloat(trimSpace(m[6]), 64)
			names[a], names[b] = m[1], m[3]
			cells = append(cells, cell{a, b, mean, sem})
		}
		n := len(names)
		l.Names = make([]string, n)
		for r, s := range names {
			l.Names[r] = s
		}
		if _, err := fmt.Sscanf(hdr[0], "# Testing Hostname: %s", &l.Host); err != nil {
			t.Fatal(err)
		}
		if _, err := fmt.Sscanf(hdr[1], "# Processors: %d MsgLen %d Repeats: %d", new(int), &l.MsgLen, &l.Repeats); err != nil {
			t.Fatal(err)
		}
		l.Mean = make([]float64, TriLen(n))
		l.SEM = make([]float64, TriLen(n))
		for _, c := range cells {
			if c.a != c.b {
				i := TriIndex(n, c.a, c.b)
				l.Mean[i], l.SEM[i] = c.mean, c.sem
			}
		}
		var out bytes.Buffer
		if err := WriteMmpi(&out, l); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Bytes(), orig) {
			ol, wl := bytes.Split(out.Bytes(), []byte("\n")), bytes.Split(orig, []byte("\n"))
			for i := range min(len(ol), len(wl)) {
				if !bytes.Equal(ol[i], wl[i]) {
					t.Fatalf("%s line %d:\n got %q\nwant %q", name, i+1, ol[i], wl[i])
				}
			}
			t.Fatalf("%s: %d lines written, %d in the log", name, len(ol), len(wl))
		}
	}
}

func BenchmarkWriteMmpi(b *testing.B) {
	n := 256
	l := &MmpiLog{Host: "nid00001", Names: make([]string, n), MsgLen: 64, Repeats: 100,
		Mean: make([]float64, TriLen(n)), SEM: make([]float64, TriLen(n))}
	for i := range l.Names {
		l.Names[i] = "nid" + strconv.Itoa(10000+i)
	}
	for i := range l.Mean {
		l.Mean[i], l.SEM[i] = 2+float64(i%97)/10, 0.1
	}
	var buf bytes.Buffer
	for b.Loop() {
		buf.Reset()
		WriteMmpi(&buf, l)
	}
	b.ReportMetric(float64(n*(n+1)/2), "lines/op")
}

func trimSpace(s string) string { return string(bytes.TrimSpace([]byte(s))) }
