package interpose_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/latmap/latmap/internal/testutil"
)

// writeRawProfile writes the raw files liblatmap.so writes at MPI_Finalize
// for a synthetic run of nx*ny*nz ranks, each exchanging with its 26
// neighbours of a periodic 3-D grid (a 27-point stencil halo), calling 8
// functions and filling 2 size bins of each. It returns, per raw file, the
// largest number of bytes one rank contributes (what rank 0 holds at once
// while it gathers, besides its own rows).
func writeRawProfile(tb testing.TB, dir string, nx, ny, nz int) map[string]int {
	n := nx * ny * nz
	maxRank := map[string]int{}
	create := func(name, header string) (*bufio.Writer, func()) {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			tb.Fatal(err)
		}
		w := bufio.NewWriterSize(f, 1<<20)
		w.WriteString(header)
		return w, func() {
			if err := w.Flush(); err != nil {
				tb.Fatal(err)
			}
			if err := f.Close(); err != nil {
				tb.Fatal(err)
			}
		}
	}
	ranks, c1 := create("ranks.csv", "rank,host,cpu,cpu_end,cpuset,socket,numa,l3,migrated,elapsed_s,comput_s\n")
	funcs, c2 := create("functions.csv", "rank,function,calls,time_s,late_s,sync_s,bytes_sent,bytes_recv,reqs_sent,reqs_recv\n")
	sizes, c3 := create("sizes.csv", "rank,function,bin_low,bin_high,calls,time_s\n")
	sent, c4 := create("sent.csv", "src,dst,bytes,messages,time_s\n")
	recv, c5 := create("received.csv", "src,dst,bytes,messages,time_s,late_s\n")
	fns := []string{"MPI_Isend", "MPI_Irecv", "MPI_Waitall", "MPI_Allreduce", "MPI_Bcast", "MPI_Barrier", "MPI_Send", "MPI_Recv"}
	const msgs, bytesPer = 1000, 4096
	var line []byte
	for r := 0; r < n; r++ {
		x, y, z := r%nx, (r/nx)%ny, r/(nx*ny)
		per := map[string]int{}
		put := func(name string, w *bufio.Writer, s []byte) {
			w.Write(s)
			per[name] += len(s)
		}
		line = fmt.Appendf(line[:0], "%d,node%05d,%d,%d,\"%d\",%d,%d,%d,false,%.9f,%.9f\n", r, r/64, r%64, r%64, r%64, (r%64)/32, (r%64)/32, (r%64)/32, 100.0, 60.0)
		put("ranks.csv", ranks, line)
		for i, f := range fns {
			line = fmt.Appendf(line[:0], "%d,%s,%d,%.9g,%.9g,%.9g,%d,%d,%d,%d\n", r, f, 1000+i, 1.5, 0.25, 0.0, 26*msgs*bytesPer, 26*msgs*bytesPer, 26*msgs, 26*msgs)
			put("functions.csv", funcs, line)
			for k := 0; k < 2; k++ {
				line = fmt.Appendf(line[:0], "%d,%s,%d,%d,%d,%.9g\n", r, f, 2048<<k, 4096<<k, 500, 0.75)
				put("sizes.csv", sizes, line)
			}
		}
		for dz := -1; dz <= 1; dz++ {
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					if dx == 0 && dy == 0 && dz == 0 {
						continue
					}
					p := (x+dx+nx)%nx + ((y+dy+ny)%ny)*nx + ((z+dz+nz)%nz)*nx*ny
					line = fmt.Appendf(line[:0], "%d,%d,%d,%d,%.9g\n", r, p, msgs*bytesPer, msgs, 0.125)
					put("sent.csv", sent, line)
					// received.csv rows are written by the receiver r, from p
					line = fmt.Appendf(line[:0], "%d,%d,%d,%d,%.9g,%.9g\n", p, r, msgs*bytesPer, msgs, 0.25, 0.0625)
					put("received.csv", recv, line)
				}
			}
		}
		for k, v := range per {
			maxRank[k] = max(maxRank[k], v)
		}
	}
	for _, c := range []func(){c1, c2, c3, c4, c5} {
		c()
	}
	lib := fmt.Sprintf(`{"mpi_version":"synthetic","ranks":%d,"slt":false,"collective_wait":false,"collectives_in_matrix":false,"window":"","clock":"tsc","tick_hz":1e9,"token_latency_us":0,"thread_level":0,"wall_s":100,"token_mismatches":0,"unmeasured":[]}`, n)
	if err := os.WriteFile(filepath.Join(dir, "library.json"), []byte(lib), 0o644); err != nil {
		tb.Fatal(err)
	}
	return maxRank
}

var (
	maxRSS  = regexp.MustCompile(`Maximum resident set size \(kbytes\): (\d+)`)
	elapsed = regexp.MustCompile(`Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([0-9.]+)`)
)

// BenchmarkMerge16k prints the time and peak memory of the merge of a
// synthetic 16,384-rank raw profile (a 16x32x32 periodic grid, 26
// neighbours each: 425,984 matrix rows), measured through the CLI a user
// meets: `latmap profile --launcher slurm -- FAKE-SRUN` under
// /usr/bin/time -v, where the fake srun only copies the generated raw files
// into $LATMAP_PROFILE_DIR, so what is timed is latmap's own work after the
// launch. It also prints rank 0's memory during the gather at
// MPI_Finalize, modelled from the generated files: rank 0 receives one
// rank's rows at a time, so it holds its own rows plus the largest other
// rank's rows (at most 64 MiB, the piece size).
func BenchmarkMerge16k(b *testing.B) {
	if _, err := exec.LookPath("/usr/bin/time"); err != nil {
		testutil.Missing(b, "time", "/usr/bin/time (apt-get install time) measures the peak memory")
	}
	bin := testutil.LatmapBin(b)
	lib := testutil.InterposeLib(b)
	gen := b.TempDir()
	perRank := writeRawProfile(b, gen, 16, 32, 32)
	var rank0 int
	for _, v := range perRank {
		rank0 = max(rank0, 2*v) // its own rows and one other rank's
	}
	srun := filepath.Join(b.TempDir(), "srun")
	script := "#!/bin/sh\n# a fake srun: $1 is --export=ALL,NAME=VALUE,...\n" +
		"dir=$(echo \"$1\" | tr ',' '\\n' | sed -n 's/^LATMAP_PROFILE_DIR=//p')\n" +
		"exec cp " + gen + "/library.json " + gen + "/ranks.csv " + gen + "/functions.csv " + gen + "/sizes.csv " + gen + "/sent.csv " + gen + "/received.csv \"$dir\"/\n"
	if err := os.WriteFile(srun, []byte(script), 0o755); err != nil {
		b.Fatal(err)
	}
	var secs, mib float64
	for i := 0; i < b.N; i++ {
		out := filepath.Join(b.TempDir(), "prof")
		res, err := exec.Command("/usr/bin/time", "-v", bin, "profile", "--launcher", "slurm", "--lib", lib, "-o", out, "--", srun).CombinedOutput()
		if err != nil {
			b.Fatalf("latmap profile: %v\n%s", err, res)
		}
		m, e := maxRSS.FindSubmatch(res), elapsed.FindSubmatch(res)
		if m == nil || e == nil {
			b.Fatalf("no figures from /usr/bin/time:\n%s", res)
		}
		kb, _ := strconv.ParseFloat(string(m[1]), 64)
		h, _ := strconv.ParseFloat(string(e[1]), 64)
		mn, _ := strconv.ParseFloat(string(e[2]), 64)
		s, _ := strconv.ParseFloat(string(e[3]), 64)
		secs, mib = h*3600+mn*60+s, kb/1024
		rows, _ := os.ReadFile(filepath.Join(out, "matrix.csv"))
		if got := strings.Count(string(rows), "\n") - 1; got != 16384*26 {
			b.Fatalf("matrix.csv has %d rows, want %d", got, 16384*26)
		}
	}
	b.ReportMetric(secs, "merge-s")
	b.ReportMetric(mib, "merge-peak-MiB")
	b.ReportMetric(float64(rank0)/(1<<20), "rank0-gather-MiB")
	fmt.Fprintf(os.Stderr, "16,384-rank profile (425,984 matrix rows): latmap profile merge %.2f s, peak RSS %.0f MiB; rank 0 gather holds at most %.2f MiB of rows (largest per-rank rows: %v bytes)\n",
		secs, mib, float64(rank0)/(1<<20), perRank)
}
