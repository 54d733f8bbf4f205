package survey_test

import (
	"bytes"
	"testing"

	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/mapper/survey/synth"
)

// BenchmarkScanPairs parses a 512-rank pairs.csv (130816 rows).
func BenchmarkScanPairs(b *testing.B) {
	s := synth.New(synth.Spec{Nodes: 16, Sockets: 2, Cores: 16, RTT: [4]float64{0.5, 0.9, 3, 5}, Noise: 0.1, Seed: 1})
	var buf bytes.Buffer
	if err := survey.WritePairs(&buf, s.Tables); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		rows := 0
		if err := survey.ScanPairs(bytes.NewReader(data), func(*survey.PairStats) error { rows++; return nil }); err != nil {
			b.Fatal(err)
		}
		if rows != survey.TriLen(512) {
			b.Fatalf("%d rows", rows)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(survey.TriLen(512)), "ns/row")
}
