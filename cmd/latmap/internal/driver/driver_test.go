package driver

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latmap/latmap/internal/testutil"
	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/mapper/survey/synth"
	"github.com/latmap/latmap/mapper/topo"
	"github.com/latmap/latmap/plots"
)

// TestPlotAndCompareMMPILogs: plot and compare read mmpi logs, and compare
// two machines or a directory against a log.
func TestPlotAndCompareMMPILogs(t *testing.T) {
	out := filepath.Join(t.TempDir(), "bw.png")
	err := Plot(PlotRequest{Input: filepath.Join("..", "..", "..", "..", "testdata", "mmpi", "bw_4x32_ammpi_128_64_100.dat"), Output: out, Order: "host", Style: plots.StyleHeatmap, Size: -1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(out); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	err = Compare(CompareRequest{A: filepath.Join("..", "..", "..", "..", "testdata", "mmpi", "stampede_2x16_ammpi_32_64_100.dat"),
		B: filepath.Join("..", "..", "..", "..", "testdata", "mmpi", "mira_2x16_ammpi_32_64_100.dat"), Size: -1, Out: &buf,
		Output: filepath.Join(t.TempDir(), "cmp.png")})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "different machines") {
		t.Errorf("compare of Stampede and Mira does not say the machines differ:\n%s", buf.String())
	}
	// A survey directory with medians against an mmpi log (means only):
	// compared on the mean.
	dir := filepath.Join(t.TempDir(), "syn")
	if err := survey.WriteSurvey(dir, synth.New(synth.Spec{Nodes: 3, Sockets: 2, Cores: 4, NodesPerSwitch: 2, Layout: topo.LayoutBlock,
		RTT: [4]float64{0.6, 1.0, 4, 7}, Noise: 0.08, Seed: 4}), false); err != nil {
		t.Fatal(err)
	}
	buf.Reset()
	err = Compare(CompareRequest{A: dir, B: filepath.Join("..", "..", "..", "..", "testdata", "mmpi", "stampede_2x16_ammpi_32_64_100.dat"), Size: -1, Out: &buf})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "mean round trip (us)") {
		t.Errorf("mixed compare not on the mean:\n%s", buf.String())
	}
}

// TestPlotProfileDir: latmap plot on a profile directory draws it, and
// says what is wrong when a style does not fit the input.
func TestPlotProfileDir(t *testing.T) {
	dir := filepath.Join(testutil.RepoRoot(t), "testdata", "profile", "splitcoll-slt-cw")
	out := filepath.Join(t.TempDir(), "p.svg")
	if err := Plot(PlotRequest{Input: dir, Output: out}); err != nil {
		t.Fatal(err)
	}
	if err := Plot(PlotRequest{Input: dir, Output: out, Style: plots.StyleSurface, Force: true}); err == nil || !strings.Contains(err.Error(), "is a profile directory") {
		t.Errorf("surface style on a profile: %v", err)
	}
	mmpi := filepath.Join(testutil.RepoRoot(t), "testdata", "mmpi", "bw_32x1_ammpi_32_64_100.dat")
	if err := Plot(PlotRequest{Input: mmpi, Output: out, Style: plots.StyleRanks, Force: true}); err == nil || !strings.Contains(err.Error(), "not a profile directory") {
		t.Errorf("ranks style on a survey: %v", err)
	}
	if err := Plot(PlotRequest{Input: dir, Output: out, Style: plots.StyleMatrix, Metric: "furlongs", Force: true}); err == nil || !strings.Contains(err.Error(), "bytes, messages or time") {
		t.Errorf("bad matrix metric: %v", err)
	}
}
