package survey

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

func TestParseMicrosMatchesParseFloat(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	cases := []string{"0", "0.000", "12.345", "1.5", "12.", "007.250", "999999999.999999999", "1e3", "-1.5", "nan", "", ".5", "1.2.3", "123456789012345678"}
	for i := 0; i < 100000; i++ {
		v := rng.ExpFloat64() * 20
		cases = append(cases, strconv.FormatFloat(v, 'f', rng.IntN(10), 64))
	}
	for _, c := range cases {
		checkParseMicros(t, c)
	}
}

// checkParseMicros checks parseMicros gives exactly what strconv does.
func checkParseMicros(t *testing.T, s string) {
	t.Helper()
	want, werr := strconv.ParseFloat(s, 64)
	got, gerr := parseMicros([]byte(s))
	if (werr == nil) != (gerr == nil) {
		t.Fatalf("%q: error %v, strconv says %v", s, gerr, werr)
	}
	if werr == nil && math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
		t.Fatalf("%q: %v, strconv says %v", s, got, want)
	}
}

func FuzzParseMicros(f *testing.F) {
	for _, s := range []string{"12.345", "0", "1e3", "99.", "-0.5"} {
		f.Add(s)
	}
	f.Fuzz(checkParseMicros)
}

// TestScanPairsChunks checks rows and error line numbers across the
// parser's 1 MiB chunks.
func TestScanPairsChunks(t *testing.T) {
	var buf bytes.Buffer
	buf.WriteString(strings.Join(PairsHeader(), ",") + "\n")
	const rows = 60000 // about 2.4 MB
	for i := 0; i < rows; i++ {
		fmt.Fprintf(&buf, "%d,%d,64,10,1.%03d,0.1,0.9,1.0,2.0,\n", i, i+1, i%1000)
	}
	data := buf.Bytes()
	n, sum := 0, 0.0
	err := ScanPairs(bytes.NewReader(data), func(p *PairStats) error {
		if p.A != n {
			return fmt.Errorf("row %d has rank_a %d", n, p.A)
		}
		n++
		sum += p.Mean
		return nil
	})
	if err != nil || n != rows {
		t.Fatalf("%d rows, err %v", n, err)
	}
	// Break line 50001 (row 50000, past the first chunks).
	bad := bytes.Replace(data, []byte("\n50000,50001,64,10,"), []byte("\n50000,50001,64,x,"), 1)
	err = ScanPairs(bytes.NewReader(bad), func(*PairStats) error { return nil })
	if err == nil || !strings.HasPrefix(err.Error(), "line 50002: samples") {
		t.Errorf("error %v, want line 50002: samples", err)
	}
	err = ScanPairs(bytes.NewReader(data), func(p *PairStats) error {
		if p.A == 40000 {
			return fmt.Errorf("stop")
		}
		return nil
	})
	if err == nil || err.Error() != "line 40002: stop" {
		t.Errorf("callback error %v, want line 40002: stop", err)
	}
}
