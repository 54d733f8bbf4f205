package report

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gocarina/gocsv"

	"github.com/latmap/latmap/internal/testutil"
	"github.com/latmap/latmap/mapper/profile"
	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/mapper/survey/synth"
)

// writeHaloProfile writes the profile directory of a periodic 3-D halo
// exchange on x*y*z ranks (64 a node), as latmap profile would: each rank
// sends 1 MiB in 100 messages to each of its six neighbours.
func writeHaloProfile(dir string, x, y, z int) error {
	n := x * y * z
	p := profile.Profile{Meta: profile.Meta{Tool: "latmap", Command: []string{"mpirun", "-np", fmt.Sprint(n), "./halo3d"}, Ranks: n, Modes: []string{profile.ModeBasic}, WallSeconds: 10}}
	for r := 0; r < n; r++ {
		rk := profile.Rank{Elapsed: 10, Comput: 7}
		rk.Rank.Rank, rk.Host, rk.CPU, rk.CPUEnd = r, fmt.Sprintf("node%03d", r/64), r%64, r%64
		p.Ranks = append(p.Ranks, rk)
		i, j, k := r%x, r/x%y, r/(x*y)
		for _, d := range [][3]int{{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}} {
			q := (i+d[0]+x)%x + (j+d[1]+y)%y*x + (k+d[2]+z)%z*x*y
			p.Matrix = append(p.Matrix, profile.Transfer{Src: r, Dst: q, Bytes: 1 << 20, Messages: 100, Time: 0.1})
		}
		p.Functions = append(p.Functions,
			profile.Function{Rank: r, Function: "MPI_Isend", Calls: 600, Time: 0.5, BytesSent: 6 << 20},
			profile.Function{Rank: r, Function: "MPI_Irecv", Calls: 600, Time: 0.3, BytesRecv: 6 << 20},
			profile.Function{Rank: r, Function: "MPI_Waitall", Calls: 100, Time: 2},
			profile.Function{Rank: r, Function: "MPI_Allreduce", Calls: 10, Time: 0.2})
		p.Sizes = append(p.Sizes, profile.SizeBin{Rank: r, Function: "MPI_Isend", Low: 8192, High: 16384, Calls: 600, Time: 0.5})
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, v := range map[string]any{profile.RanksFile: &p.Ranks, profile.FunctionsFile: &p.Functions, profile.MatrixFile: &p.Matrix, profile.SizesFile: &p.Sizes} {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		if err := gocsv.Marshal(v, f); err != nil {
			return err
		}
		f.Close()
	}
	b, err := json.Marshal(p.Meta)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, profile.MetaFile), b, 0o644)
}

// BenchmarkReport4096 builds the HTML report of a synthetic 4,096-rank
// survey (64 nodes x 64) and a 4,096-rank halo profile (16^3), through
// bin/latmap as a user runs it (targets: under 10 s and 20 MB). It prints
// the binary's wall time, cpu time, max RSS and the page's size.
func BenchmarkReport4096(b *testing.B) {
	dir := b.TempDir()
	sv, prof, out := filepath.Join(dir, "survey"), filepath.Join(dir, "app"), filepath.Join(dir, "report.html")
	s := synth.New(synth.Spec{Nodes: 64, Sockets: 2, Cores: 32, NodesPerSwitch: 16, RTT: [4]float64{0.5, 0.9, 3, 5}, Noise: 0.08, Seed: 42})
	if err := survey.WriteSurvey(sv, s, false); err != nil {
		b.Fatal(err)
	}
	if err := writeHaloProfile(prof, 16, 16, 16); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		start := time.Now()
		if err := WriteHTML(HTMLOptions{Inputs: []string{sv, prof}, Output: out, Force: true}); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(time.Since(start).Seconds(), "s/report")
	}
	if secs, cpu, rss, ok := testutil.TimeBinary(b, "report", "--html", "-o", out, "-f", sv, prof); ok {
		b.ReportMetric(secs, "bin-s")
		b.ReportMetric(cpu, "bin-cpu-s")
		b.ReportMetric(rss, "bin-maxrss-MiB")
	}
	st, err := os.Stat(out)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(st.Size())/(1<<20), "html-MiB")
}
