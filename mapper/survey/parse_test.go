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
// parser's 1 MiB chunks, enough of them that chunks delivered are read
// into again (cutPairChunks' free): every row's values are its line's.
func TestScanPairsChunks(t *testing.T) {
	var buf bytes.Buffer
	buf.WriteString(strings.Join(PairsHeader(), ",") + "\n")
	const rows = 200000 // about 8 MB
	for i := 0; i < rows; i++ {
		fmt.Fprintf(&buf, "%d,%d,64,10,1.%03d,0.1,0.9,1.0,2.0,\n", i, i+1, i%1000)
	}
	data := buf.Bytes()
	n := 0
	err := ScanPairs(bytes.NewReader(data), func(p *PairStats) error {
		if p.A != n || p.B != n+1 || p.Mean != float64(1000+n%1000)/1000 {
			return fmt.Errorf("row %d has rank_a %d, rank_b %d, mean %g", n, p.A, p.B, p.Mean)
		}
		n++
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

// TestParsePairFastAgrees: on lines of the common form, of corner cases
// (empty values, "12.", leading dots, ten-digit numbers, 19-byte values,
// extra columns, signs, exponents) and of random bytes among digits,
// dots and commas, parsePairFast either leaves the line to
// parsePairLine or gives exactly its values, and never takes a line
// parsePairLine refuses.
func TestParsePairFastAgrees(t *testing.T) {
	lines := []string{
		"0,1,64,100,2.011,0.101,1.810,2.011,2.614,",
		"12,345,1048576,5,1234.5,0,7,8.123456789,9.1234567891,3",
		"0,1,64,1,,,,,,", "0,1,64,1,12.,1,1,1,1,1", "0,1,64,1,.5,1,1,1,1,1",
		"0,1,64,1,1,1,1,1,1,1,extra", "0,1,64,1,1e3,1,1,1,1,1", "0,1,64,1,-1,1,1,1,1,1",
		"+0,1,64,1,1,1,1,1,1,1", "9999999999,1,64,1,1,1,1,1,1,1", "12345678901,1,64,1,1,1,1,1,1,1",
		"0,1,64,1,1234567890123456789,1,1,1,1,1", "0,1,64,1,123456789012345678,1,1,1,1,1",
		"0,1,64,1,1.2.3,1,1,1,1,1", "0,1,64,1,1,1,1,1,1", "0,1,64,1,1,1,1,1,1,1,", ",1,64,1,1,1,1,1,1,1",
	}
	rng := rand.New(rand.NewPCG(72, 1))
	for range 20000 {
		var b []byte
		for range 10 + rng.IntN(40) {
			b = append(b, "0123456789.,,,"[rng.IntN(14)])
		}
		lines = append(lines, string(b))
	}
	took := 0
	for _, keep := range [][numMetrics]bool{{true, true, true, true, true, true}, {false, false, false, true, false, false}} {
		for _, line := range lines {
			var fast, slow PairStats
			if !parsePairFast([]byte(line), keep, &fast) {
				continue
			}
			took++
			if err := parsePairLine([]byte(line), keep, &slow); err != nil {
				t.Fatalf("%q: taken fast, refused by parsePairLine: %v", line, err)
			}
			same := func(x, y float64) bool { return x == y || math.IsNaN(x) && math.IsNaN(y) }
			if fast.A != slow.A || fast.B != slow.B || fast.Size != slow.Size || fast.Samples != slow.Samples ||
				!same(fast.Mean, slow.Mean) || !same(fast.Std, slow.Std) || !same(fast.Min, slow.Min) ||
				!same(fast.Median, slow.Median) || !same(fast.P99, slow.P99) || !same(fast.Isolated, slow.Isolated) {
				t.Fatalf("%q: fast %+v, parsePairLine %+v", line, fast, slow)
			}
		}
	}
	if took < 100 {
		t.Fatalf("only %d lines taken by the fast parser: the test checks little", took)
	}
}
