package survey

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gocarina/gocsv"
)

func testSurvey() *Survey {
	s := &Survey{Meta: SurveyMeta{Tool: "latmap", Ranks: 3, Sizes: []int{64, 1024}, Repeats: 10, Schedule: "rounds", Scope: "all"}}
	for i := 0; i < 3; i++ {
		s.Ranks = append(s.Ranks, Rank{Rank: i, Host: "node" + string(rune('a'+i/2)), CPU: i, CPUEnd: i, CPUSet: "0-1", Socket: 0, NUMA: 0, L3: 0})
	}
	for _, size := range []int{1024, 64} {
		t := NewPairTable(3, size)
		for a := 0; a < 3; a++ {
			for b := a + 1; b < 3; b++ {
				iso := math.NaN()
				if a == 0 && b == 2 {
					iso = 1.5
				}
				t.Set(&PairStats{A: a, B: b, Size: size, Samples: 10, Mean: float64(a+b) + float64(size)/1000,
					Std: 0.25, Min: 0.5, Median: 1.125, P99: 9.75, Isolated: iso})
			}
		}
		s.Tables = append(s.Tables, t)
	}
	s.Fits = []Fit{{A: 0, B: 1, Latency: 0.5, Bandwidth: 1234.5}}
	return s
}

func TestSurveyRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "s")
	in := testSurvey()
	if err := WriteSurvey(dir, in, false); err != nil {
		t.Fatal(err)
	}
	out, err := ReadSurvey(dir, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := out.Sizes(); len(got) != 2 || got[0] != 64 || got[1] != 1024 {
		t.Fatalf("sizes = %v, want [64 1024] (sorted)", got)
	}
	tab, _ := out.Table(1024)
	// 1 + 2 + 1024/1000 written with three decimals.
	if got := tab.At(Mean, 1, 2); math.Abs(got-4.024) > 1e-6 {
		t.Errorf("mean(1,2) at 1024 B = %v, want 4.024", got)
	}
	if got := tab.At(Isolated, 0, 2); got != 1.5 {
		t.Errorf("isolated(0,2) = %v, want 1.5", got)
	}
	if got := tab.At(Isolated, 0, 1); !math.IsNaN(got) {
		t.Errorf("isolated(0,1) = %v, want NaN (empty field)", got)
	}
	if got := tab.SamplesAt(2, 0); got != 10 {
		t.Errorf("samples(2,0) = %d, want 10", got)
	}
	if out.Ranks[2].Host != "nodeb" || len(out.Fits) != 1 || out.Fits[0].Bandwidth != 1234.5 {
		t.Errorf("ranks/fits did not survive: %+v %+v", out.Ranks[2], out.Fits)
	}
	if err := WriteSurvey(dir, in, false); err == nil {
		t.Error("writing over an existing survey without force succeeded")
	}
}

func TestReadSurveyOneMetric(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "s")
	if err := WriteSurvey(dir, testSurvey(), false); err != nil {
		t.Fatal(err)
	}
	out, err := ReadSurvey(dir, LoadOptions{Metrics: []Metric{Median}})
	if err != nil {
		t.Fatal(err)
	}
	tab := out.Tables[0]
	if tab.Has(Mean) || !tab.Has(Median) || tab.At(Median, 0, 1) != 1.125 {
		t.Errorf("one-metric load: has mean %v, median(0,1) = %v", tab.Has(Mean), tab.At(Median, 0, 1))
	}
}

func TestScanPairsErrors(t *testing.T) {
	head := strings.Join(PairsHeader(), ",") + "\n"
	for _, tc := range []struct{ name, in, want string }{
		{"empty", "", "empty file"},
		{"bad header", "rank_a,rank_c\n", "header"},
		{"wrong column", strings.Replace(head, "samples", "n", 1), `column 4 is "n"`},
		{"short row", head + "0,1,64,10,1.0\n", "line 2: 5 columns"},
		{"bad number", head + "0,1,64,10,x,1,1,1,1,\n", "line 2: rtt_mean_us"},
		{"bad rank", head + "0,-1,64,10,1,1,1,1,1,\n", "line 2: rank_b"},
	} {
		err := ScanPairs(strings.NewReader(tc.in), func(*PairStats) error { return nil })
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want it to contain %q", tc.name, err, tc.want)
		}
	}
}

func TestTriIndexCoversEveryPairOnce(t *testing.T) {
	for n := 2; n < 40; n++ {
		seen := make([]bool, TriLen(n))
		for a := 0; a < n; a++ {
			for b := a + 1; b < n; b++ {
				i := TriIndex(n, a, b)
				if i < 0 || i >= len(seen) || seen[i] || TriIndex(n, b, a) != i {
					t.Fatalf("n=%d: pair (%d,%d) index %d out of range, repeated or asymmetric", n, a, b, i)
				}
				seen[i] = true
			}
		}
	}
}

func FuzzScanPairs(f *testing.F) {
	var buf bytes.Buffer
	WritePairs(&buf, testSurvey().Tables)
	f.Add(buf.Bytes())
	f.Add([]byte(strings.Join(PairsHeader(), ",") + "\n0,1,64,1,,,,,,\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		ScanPairs(bytes.NewReader(b), func(p *PairStats) error { return nil })
	})
}

func TestNodeBandwidthRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "s")
	in := testSurvey()
	if err := WriteSurvey(dir, in, false); err != nil {
		t.Fatal(err)
	}
	out, err := ReadSurvey(dir, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if out.NodeBandwidth != nil || out.Meta.NodeBandwidth != nil {
		t.Fatalf("survey without nodebw.csv read %d rows, meta %+v; want none", len(out.NodeBandwidth), out.Meta.NodeBandwidth)
	}
	in.NodeBandwidth = []NodeBandwidth{
		{Host: "nodea", Peer: "nodeb", Ranks: 2, Size: 1 << 20, Messages: 4, Seconds: 0.25, AggregateMBps: 33.554, PairMBps: 48.125},
		{Host: "nodeb", Peer: "nodea", Ranks: 1, Size: 1 << 20, Messages: 4, Seconds: 0.125, AggregateMBps: 33.554, PairMBps: 33.5},
	}
	in.Meta.NodeBandwidth = &NodeBandwidthMeta{SizeBytes: 1 << 20, Steps: 1}
	if err := WriteSurvey(dir, in, true); err != nil {
		t.Fatal(err)
	}
	out, err = ReadSurvey(dir, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.NodeBandwidth) != 2 || out.NodeBandwidth[0] != in.NodeBandwidth[0] || out.NodeBandwidth[1] != in.NodeBandwidth[1] {
		t.Errorf("nodebw rows = %+v, want %+v", out.NodeBandwidth, in.NodeBandwidth)
	}
	if m := out.Meta.NodeBandwidth; m == nil || *m != *in.Meta.NodeBandwidth {
		t.Errorf("meta node_bandwidth = %+v, want %+v", m, in.Meta.NodeBandwidth)
	}
}

func TestReadNodeBandwidthErrors(t *testing.T) {
	head := strings.Join(NodeBandwidthHeader(), ",") + "\n"
	for _, c := range []struct{ in, want string }{
		{"", "empty file"},
		{"host,peer\n", "header"},
		{head + "a,b,2,1024,4,0.5,10,20\na,b,x,1024,4,0.5,10,20\n", "line 3: ranks: \"x\""},
		{head + "a,b,2,1024,4,abc,10,20\n", "line 2: seconds: \"abc\""},
		{head + "a,,2,1024,4,0.5,10,20\n", "line 2: empty host"},
		{head + "a,b,2,1024,4,0.5,10\n", "line 2: 7 fields"},
		{head + "a,b,2,1024,4,0.5,10,NaN\n", "line 2: pair_MBps"},
	} {
		_, err := ReadNodeBandwidth(strings.NewReader(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ReadNodeBandwidth(%q) error = %v, want one containing %q", c.in, err, c.want)
		}
	}
}

// TestReadSurveyValidatesEveryField: a broken column is an error with its
// line number even when the metric it holds is not the one loaded.
func TestReadSurveyValidatesEveryField(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "s")
	if err := WriteSurvey(dir, testSurvey(), false); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, PairsFile)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	f := strings.Split(lines[2], ",")
	f[4] = "abc" // rtt_mean_us
	lines[2] = strings.Join(f, ",")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = ReadSurvey(dir, LoadOptions{Metrics: []Metric{Median}})
	if err == nil || !strings.Contains(err.Error(), "line 3") || !strings.Contains(err.Error(), "rtt_mean_us") {
		t.Errorf("ReadSurvey with rtt_mean_us=abc on line 3, loading the median: %v, want an error naming line 3 and rtt_mean_us", err)
	}
}

// FuzzReadSurvey reads survey directories whose ranks.csv (gocsv),
// pairs.csv (hand-written, for speed), fit.csv (gocsv) and nodebw.csv
// (encoding/csv, every field validated) are fuzzed: never a panic, and a
// survey that reads has its pairs inside its ranks, in any row order.
func FuzzReadSurvey(f *testing.F) {
	s := testSurvey()
	s.Fits = []Fit{{A: 0, B: 1, Latency: 1e-6, Bandwidth: 5000}}
	s.NodeBandwidth = []NodeBandwidth{{Host: "a", Peer: "b", Ranks: 1, Size: 1 << 20, Messages: 4, Seconds: 0.1, AggregateMBps: 40, PairMBps: 40}}
	var ranks, pairs, fits, nodebw bytes.Buffer
	WriteRanks(&ranks, s.Ranks)
	WritePairs(&pairs, s.Tables)
	WriteFits(&fits, s.Fits)
	WriteNodeBandwidth(&nodebw, s.NodeBandwidth)
	f.Add(ranks.Bytes(), pairs.Bytes(), fits.Bytes(), nodebw.Bytes())
	f.Add(ranks.Bytes(), []byte(strings.Join(PairsHeader(), ",")+"\n1,2,64,1,1,,,,,\n0,1,64,1,2,,,,,\n0,1,64,1,3,,,,,\n"), []byte("a,b\n"), []byte(""))
	dir := f.TempDir()
	n := 0
	f.Fuzz(func(t *testing.T, ranks, pairs, fits, nodebw []byte) {
		n++
		d := filepath.Join(dir, strconv.Itoa(n))
		os.MkdirAll(d, 0o755)
		defer os.RemoveAll(d)
		os.WriteFile(filepath.Join(d, MetaFile), []byte(`{"tool":"fuzz","sizes":[64]}`), 0o644)
		for name, b := range map[string][]byte{RanksFile: ranks, PairsFile: pairs, FitFile: fits, NodeBandwidthFile: nodebw} {
			os.WriteFile(filepath.Join(d, name), b, 0o644)
		}
		got, err := ReadSurvey(d, LoadOptions{})
		if err != nil {
			return
		}
		for _, tab := range got.Tables {
			tab.Each(func(a, b, i int) {
				if a < 0 || b >= got.N() || a >= b {
					t.Fatalf("pair (%d, %d) of %d ranks", a, b, got.N())
				}
			})
		}
	})
}

// TestReadFits: what WriteFits writes reads back (NaN as NaN), and the
// columns may come in another order with others among them.
func TestReadFits(t *testing.T) {
	in := []Fit{{A: 0, B: 1, Latency: 1.25, Bandwidth: 5000}, {A: 2, B: 7, Latency: math.NaN(), Bandwidth: 12.5}, {A: 1, B: 3, Latency: -0.5, Bandwidth: 1e9}}
	var b bytes.Buffer
	if err := WriteFits(&b, in); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFits(&b)
	if err != nil {
		t.Fatal(err)
	}
	same := func(x, y float64) bool { return x == y || (math.IsNaN(x) && math.IsNaN(y)) }
	if len(got) != len(in) {
		t.Fatalf("%d fits, want %d", len(got), len(in))
	}
	for i := range in {
		if got[i].A != in[i].A || got[i].B != in[i].B || !same(got[i].Latency, in[i].Latency) || !same(got[i].Bandwidth, in[i].Bandwidth) {
			t.Errorf("fit %d: %+v, want %+v", i, got[i], in[i])
		}
	}
	got, err = ReadFits(strings.NewReader("bandwidth_MBps,note,rank_b,rank_a,latency_us\r\n100,x,5,4,2.5\r\n"))
	if err != nil || len(got) != 1 || got[0] != (Fit{A: 4, B: 5, Latency: 2.5, Bandwidth: 100}) {
		t.Fatalf("reordered columns: %+v, %v", got, err)
	}
	if _, err := ReadFits(strings.NewReader("rank_a,rank_b,latency_us,bandwidth_MBps\n0,1,x,5\n")); err == nil || !strings.Contains(err.Error(), "line 2: latency_us") {
		t.Errorf("bad number: %v", err)
	}
	if _, err := ReadFits(strings.NewReader("rank_a,rank_b,latency_us\n")); err == nil || !strings.Contains(err.Error(), "no bandwidth_MBps column") {
		t.Errorf("missing column: %v", err)
	}
}

// FuzzReadRanksAgreesWithGocsv checks the hand-written ranks.csv reader
// against gocsv (which read ranks.csv before): whatever gocsv reads, it
// reads the same, but for a file without the core column (written before
// it was recorded), whose cores it reads as unknown (-1), not 0.
func FuzzReadRanksAgreesWithGocsv(f *testing.F) {
	f.Add("rank,host,cpu,cpu_end,cpuset,socket,numa,l3,migrated\n0,n0,0,0,0,0,0,0,false\n1,n1,3,3,\"3,7\",1,1,1,true\n")
	f.Add("rank,host,cpu,cpu_end,cpuset,socket,numa,l3,migrated,core\n0,n0,5,5,5,1,1,1,false,6\n")
	f.Add("rank,host,cpu\n0, a ,2\n1,b,\n")
	f.Add("host,rank,migrated,cpu\nx,5,yes,1.0\ny,6,no,0x10\n")
	f.Add("rank,host\n")
	f.Add("rank,host,cpu\n0,a,zz\n")
	f.Fuzz(func(t *testing.T, in string) {
		var want []Rank
		if err := gocsv.Unmarshal(strings.NewReader(in), &want); err != nil {
			return
		}
		got, err := ReadRanks(strings.NewReader(in))
		if err != nil {
			t.Fatalf("gocsv read %d rows, ReadRanks failed: %v", len(want), err)
		}
		head, _, _ := strings.Cut(in, "\n")
		if !slices.ContainsFunc(strings.Split(head, ","), func(c string) bool { return strings.TrimSpace(c) == "core" }) {
			for i := range want {
				want[i].Core = -1
			}
		}
		if len(got) != len(want) || (len(got) > 0 && !reflect.DeepEqual(got, want)) {
			t.Fatalf("ReadRanks %+v, gocsv %+v", got, want)
		}
	})
}
