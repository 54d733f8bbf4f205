package interpose_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/latmap/latmap/internal/stats"
	"github.com/latmap/latmap/internal/testutil"
)

// The interposer's overhead benchmarks (make bench-profile). Each runs its
// variants (bare, latmap, and mpiP when LATMAP_BENCH_MPIP=/path/libmpiP.so
// is set) in turn, so that every figure is compared with figures taken in
// the same minutes, prints medians, and fails when a target is missed:
// a wrapper adds two clock reads and at most callBudgetNs more, no more
// than mpiP adds in the same run, and its variants stay within their
// stated bounds of basic mode.

// callBudgetNs is what a wrapper may add to a call beside its two clock
// reads (docs/profile.md: "everything else it does costs 4-8 ns").
const callBudgetNs = 10

func minOf(v []float64) float64 {
	m := v[0]
	for _, x := range v {
		m = min(m, x)
	}
	return m
}

var figure = regexp.MustCompile(`(?m)^(\w+) ([0-9.]+)$`)

// figures parses the "name value" lines printed by testdata/mpi/overhead.c
// and fails the benchmark when one of want is missing or not a number:
// a missing figure is never read as 0 or NaN.
func figures(b *testing.B, out string, want ...string) map[string]float64 {
	m := map[string]float64{}
	for _, x := range figure.FindAllStringSubmatch(out, -1) {
		v, err := strconv.ParseFloat(x[2], 64)
		if err != nil {
			b.Fatalf("figure %s: %v in\n%s", x[1], err, out)
		}
		m[x[1]] = v
	}
	for _, w := range want {
		if _, ok := m[w]; !ok {
			b.Fatalf("overhead.c printed no %s:\n%s", w, out)
		}
	}
	return m
}

// variant is one way to run a benchmark's program: bare (no lib), or with
// a library preloaded and environment variables (NAME=VALUE) for the ranks.
type variant struct {
	name, lib string
	env       []string
}

// mpip is mpiP with call sites of depth k in the alternation, when
// LATMAP_BENCH_MPIP names its library; nothing otherwise.
func mpip(b *testing.B, k int) []variant {
	lib := os.Getenv("LATMAP_BENCH_MPIP")
	if lib == "" {
		fmt.Fprintln(os.Stderr, "mpiP not measured: set LATMAP_BENCH_MPIP=/path/libmpiP.so to compare with it in the same runs")
		return nil
	}
	return []variant{{"mpip", lib, []string{fmt.Sprintf("MPIP=-k %d -f %s", k, b.TempDir())}}}
}

// runs holds each variant's figures over the alternated runs.
type runs map[string]map[string][]float64

func (r runs) med(v, k string) float64 { return stats.Median(r[v][k]) }

// added is the median v adds to figure k over bare, per call (per calls).
func (r runs) added(v, k string, per float64) float64 {
	return (r.med(v, k) - r.med("bare", k)) / per
}

// clock is the cost of the clock the wrapper reads: the TSC on x86-64,
// clock_gettime elsewhere.
func (r runs) clock() float64 {
	if len(r["bare"]["rdtsc_ns"]) > 0 {
		return r.med("bare", "rdtsc_ns")
	}
	return r.med("bare", "clock_gettime_ns")
}

// alternate runs overhead.c (N calls a batch, 9 batches) on np ranks under
// each variant in turn, rounds times, with the extra arguments; every run
// must print every figure of want.
func alternate(b *testing.B, prog string, np, n, rounds int, vs []variant, want []string, extra ...string) runs {
	r := runs{}
	for i := 0; i < rounds; i++ {
		for _, v := range vs {
			if r[v.name] == nil {
				r[v.name] = map[string][]float64{}
			}
			for k, x := range runOverhead(b, prog, v, np, n, 9, want, extra...) {
				r[v.name][k] = append(r[v.name][k], x)
			}
		}
	}
	return r
}

// runOverhead runs overhead.c once under v.
func runOverhead(b *testing.B, prog string, v variant, np, n, batches int, want []string, extra ...string) map[string]float64 {
	argv := testutil.LocalMpirun(np)
	for _, e := range v.env {
		argv = append(argv, "-x", e)
	}
	if v.lib != "" {
		argv = append(argv, "-x", "LD_PRELOAD="+v.lib, "-x", "LATMAP_PROFILE_DIR="+b.TempDir())
	}
	argv = append(argv, prog, strconv.Itoa(n), strconv.Itoa(batches))
	argv = append(argv, extra...)
	out, err := runTimeout(b, 5*time.Minute, argv[0], argv[1:]...)
	if err != nil {
		b.Fatalf("%v: %v\n%s", argv, err, out)
	}
	return figures(b, out, want...)
}

// atMost fails the benchmark when got is over limit, saying what was
// missed; it returns "ok" or "MISSED" for the printed line.
func atMost(b *testing.B, what string, got, limit float64) string {
	if got > limit {
		b.Errorf("target missed: %s is %.2f, over %.2f", what, got, limit)
		return "MISSED"
	}
	return "ok"
}

func overheadProg(b *testing.B) string {
	return testutil.BuildMPIProgram(b, b.TempDir(), "overhead", filepath.Join(testutil.RepoRoot(b), "testdata", "mpi", "overhead.c"))
}

var callFigures = []string{"send_ns", "irecvwait_ns", "rdtsc_ns", "clock_gettime_ns"}

// BenchmarkCallOverhead prints the time liblatmap.so adds to a cheap MPI
// call in basic mode: tight loops of MPI_Send to MPI_PROC_NULL and of
// MPI_Irecv + MPI_Wait from MPI_PROC_NULL (2,000,000 calls per batch,
// median of 9 batches, median of 5 alternated runs bare, with the library
// and with mpiP -k 0 when given), beside the cost of one clock read. The
// targets: two clock reads and callBudgetNs more, and no more than mpiP.
func BenchmarkCallOverhead(b *testing.B) {
	testutil.RequireMPI(b)
	vs := append([]variant{{"bare", "", nil}, {"latmap", testutil.InterposeLib(b), nil}}, mpip(b, 0)...)
	r := alternate(b, overheadProg(b), 1, 2000000, 5, vs, callFigures)
	send, iw, clock := r.added("latmap", "send_ns", 1), r.added("latmap", "irecvwait_ns", 2), r.clock()
	b.ReportMetric(r.med("bare", "send_ns"), "bare-send-ns")
	b.ReportMetric(send, "added-send-ns/call")
	b.ReportMetric(iw, "added-irecv+wait-ns/call")
	b.ReportMetric(clock, "clock-ns")
	limit := 2*clock + callBudgetNs
	fmt.Fprintf(os.Stderr, "call overhead: MPI_Send(PROC_NULL) %.1f -> %.1f ns (+%.1f, %s); Irecv+Wait(PROC_NULL) +%.1f per call (%s); target: two clock reads (%.1f ns each) + %d ns = %.1f ns\n",
		r.med("bare", "send_ns"), r.med("latmap", "send_ns"), send, atMost(b, "MPI_Send's added ns", send, limit),
		iw, atMost(b, "Irecv+Wait's added ns per call", iw, limit), clock, callBudgetNs, limit)
	if r["mpip"] != nil {
		sendP, iwP := r.added("mpip", "send_ns", 1), r.added("mpip", "irecvwait_ns", 2)
		b.ReportMetric(sendP, "mpip-added-send-ns/call")
		fmt.Fprintf(os.Stderr, "  mpiP -k 0, same runs: MPI_Send +%.1f ns (latmap %.2fx of it, %s), Irecv+Wait +%.1f per call (latmap %.2fx, %s)\n",
			sendP, send/sendP, atMost(b, "latmap's MPI_Send cost over mpiP's", send, sendP), iwP, iw/iwP, atMost(b, "latmap's Irecv+Wait cost over mpiP's", iw, iwP))
	}
}

// BenchmarkFortranCallOverhead prints what latmap adds to a cheap Fortran
// call (MPI_Send to MPI_PROC_NULL through use mpi: latmap's mpi_send_
// converts the handles and calls its C wrapper) beside what it adds to
// the same call from C, in the same run: 2,000,000 calls per batch,
// median of 9 batches, median of 5 alternated runs with and without the
// library. The target: a Fortran call costs what a C call costs, within
// 5 ns.
func BenchmarkFortranCallOverhead(b *testing.B) {
	f := testutil.OpenMPI
	lib := f.InterposeLib(b)
	dir := b.TempDir()
	fprog := f.BuildFortran(b, dir, "foverhead", filepath.Join(testutil.RepoRoot(b), "testdata", "mpi", "foverhead.f90"))
	cprog := f.Build(b, dir, "overhead", filepath.Join(testutil.RepoRoot(b), "testdata", "mpi", "overhead.c"))
	res := map[string][]float64{}
	for i := 0; i < 5; i++ {
		for _, v := range []struct{ name, prog, lib string }{{"f-bare", fprog, ""}, {"f-lib", fprog, lib}, {"c-bare", cprog, ""}, {"c-lib", cprog, lib}} {
			res[v.name] = append(res[v.name], runOverhead(b, v.prog, variant{v.name, v.lib, nil}, 1, 2000000, 9, []string{"send_ns"})["send_ns"])
		}
	}
	m := func(k string) float64 { return stats.Median(res[k]) }
	fa, ca := m("f-lib")-m("f-bare"), m("c-lib")-m("c-bare")
	b.ReportMetric(fa, "fortran-added-ns/call")
	b.ReportMetric(ca, "c-added-ns/call")
	fmt.Fprintf(os.Stderr, "MPI_Send(PROC_NULL): Fortran %.1f -> %.1f ns (%+.1f), C %.1f -> %.1f ns (%+.1f); median of 5 alternated runs; Fortran within 5 ns of C: %s\n",
		m("f-bare"), m("f-lib"), fa, m("c-bare"), m("c-lib"), ca, atMost(b, "Fortran's added ns over C's", fa-ca, 5))
}

// BenchmarkCallOverheadBeforeAfter prints the basic-mode cost per call of
// the library under test beside a baseline library built from another
// commit (LATMAP_BASELINE_LIB, e.g. main's, built with
// `make -C interpose/c OUT=/tmp/base`), measured in the same run:
// alternated runs of overhead.c bare, with the baseline, with this
// library, and with this library under MPI_THREAD_MULTIPLE (where it
// takes its lock), 7 runs each, the median of their batch medians. The
// target: this library adds no more than the baseline, within 2 ns.
func BenchmarkCallOverheadBeforeAfter(b *testing.B) {
	testutil.RequireMPI(b)
	base := os.Getenv("LATMAP_BASELINE_LIB")
	if base == "" {
		testutil.Missing(b, "baseline", "set LATMAP_BASELINE_LIB to a liblatmap.so built from the commit to compare with")
	}
	lib := testutil.InterposeLib(b)
	mt := []string{"OVERHEAD_THREAD_MULTIPLE=1"}
	vs := []variant{{"bare", "", nil}, {"baseline", base, nil}, {"this", lib, nil}, {"bare-mt", "", mt}, {"this-mt", lib, mt}}
	r := alternate(b, overheadProg(b), 1, 2000000, 7, vs, callFigures)
	mtAdded := func(k string, per float64) float64 { return (r.med("this-mt", k) - r.med("bare-mt", k)) / per }
	send, sendB := r.added("this", "send_ns", 1), r.added("baseline", "send_ns", 1)
	iw, iwB := r.added("this", "irecvwait_ns", 2), r.added("baseline", "irecvwait_ns", 2)
	b.ReportMetric(sendB, "baseline-added-send-ns")
	b.ReportMetric(send, "added-send-ns")
	b.ReportMetric(mtAdded("send_ns", 1), "mt-added-send-ns")
	fmt.Fprintf(os.Stderr, "basic mode, added ns per call (median of 7 alternated runs): MPI_Send(PROC_NULL) baseline %+.1f, this %+.1f (%s), this under MPI_THREAD_MULTIPLE %+.1f; Irecv+Wait(PROC_NULL) per call baseline %+.1f, this %+.1f (%s), MULTIPLE %+.1f; bare send %.1f ns (MULTIPLE %.1f ns)\n",
		sendB, send, atMost(b, "MPI_Send's added ns over the baseline's", send-sendB, 2), mtAdded("send_ns", 1),
		iwB, iw, atMost(b, "Irecv+Wait's added ns over the baseline's", iw-iwB, 2), mtAdded("irecvwait_ns", 2),
		r.med("bare", "send_ns"), r.med("bare-mt", "send_ns"))
	fmt.Fprintf(os.Stderr, "  send_ns runs: baseline %s | this %s\n", fmtList(r["baseline"]["send_ns"]), fmtList(r["this"]["send_ns"]))
}

// BenchmarkPingPong prints an 8-byte ping-pong round trip between two local
// ranks bare, with the library and with mpiP -k 0 when given (median of 9
// batches per run; median and best of 7 alternated runs each). A round
// trip passes four wrapped calls (a send and a receive on each rank), each
// with a real peer, so each also counts its message in the pair table
// (one more callBudgetNs); the target: no more than those four calls'
// budget, and no more than mpiP adds.
func BenchmarkPingPong(b *testing.B) {
	testutil.RequireMPI(b)
	vs := append([]variant{{"bare", "", nil}, {"latmap", testutil.InterposeLib(b), nil}}, mpip(b, 0)...)
	r := alternate(b, overheadProg(b), 2, 2000000, 7, vs, []string{"pingpong_us", "rdtsc_ns", "clock_gettime_ns"}, "pingpong")
	addedNs := func(v string) float64 { return r.added(v, "pingpong_us", 1) * 1000 }
	bestNs := func(v string) float64 { return (minOf(r[v]["pingpong_us"]) - minOf(r["bare"]["pingpong_us"])) * 1000 }
	b.ReportMetric(r.med("bare", "pingpong_us"), "bare-rtt-us")
	b.ReportMetric(r.med("latmap", "pingpong_us"), "lib-rtt-us")
	b.ReportMetric(addedNs("latmap"), "added-rtt-ns")
	b.ReportMetric(bestNs("latmap"), "added-best-rtt-ns")
	limit := 4 * (2*r.clock() + 2*callBudgetNs)
	fmt.Fprintf(os.Stderr, "ping-pong 8 B: median %.3f -> %.3f us per round trip (%+.0f ns, %s; target four calls' %.0f ns), best %+.0f ns; runs %s | %s\n",
		r.med("bare", "pingpong_us"), r.med("latmap", "pingpong_us"), addedNs("latmap"), atMost(b, "the round trip's added ns", addedNs("latmap"), limit), limit,
		bestNs("latmap"), fmtList(r["bare"]["pingpong_us"]), fmtList(r["latmap"]["pingpong_us"]))
	if r["mpip"] != nil {
		fmt.Fprintf(os.Stderr, "  mpiP -k 0, same runs: %+.0f ns per round trip (best %+.0f); latmap's no more: %s\n",
			addedNs("mpip"), bestNs("mpip"), atMost(b, "latmap's added ns per round trip over mpiP's", addedNs("latmap"), addedNs("mpip")))
	}
}

var loopTime = regexp.MustCompile(`Loop time of ([0-9.]+) on`)

// BenchmarkLAMMPS prints LAMMPS in.melt's loop time on 4 (and 2) ranks
// without the library, with it in basic mode, with --slt
// --collective-wait and with mpiP -k 0 when given (median and best of 7
// alternated runs each), and the ratios. The target, on 2 ranks (one a
// core here; 4 ranks oversubscribe this machine and measure its
// scheduler): basic mode within 5% of the plain run, and no slower than
// mpiP.
func BenchmarkLAMMPS(b *testing.B) {
	for _, np := range []int{4, 2} {
		b.Run(fmt.Sprintf("np=%d", np), func(b *testing.B) { benchLAMMPS(b, np) })
	}
}

func benchLAMMPS(b *testing.B, np int) {
	lmp, input := lammps(b)
	bin := testutil.LatmapBin(b)
	lib := testutil.InterposeLib(b)
	b.Chdir(b.TempDir())
	mp := mpip(b, 0)
	launch := func(mpiArgs ...string) []string {
		return append(append(testutil.LocalMpirun(np), mpiArgs...), lmp, "-in", input, "-log", "none")
	}
	// loop runs one launch line and returns LAMMPS's loop time.
	loop := func(argv ...string) float64 {
		out, err := runTimeout(b, 5*time.Minute, argv[0], argv[1:]...)
		m := loopTime.FindStringSubmatch(out)
		if err != nil || m == nil {
			b.Fatalf("LAMMPS %v: %v\n%s", argv, err, out)
		}
		v, _ := strconv.ParseFloat(m[1], 64)
		return v
	}
	profiled := func(flags ...string) float64 {
		argv := append([]string{bin, "profile", "-o", filepath.Join(b.TempDir(), "prof"), "--lib", lib}, flags...)
		return loop(append(append(argv, "--"), launch()...)...)
	}
	var plain, basic, full, withMpip []float64
	for i := 0; i < 7; i++ {
		plain = append(plain, loop(launch()...))
		basic = append(basic, profiled())
		full = append(full, profiled("--slt", "--collective-wait"))
		if mp != nil {
			withMpip = append(withMpip, loop(launch("-x", "LD_PRELOAD="+mp[0].lib, "-x", mp[0].env[0])...))
		}
	}
	p, s, f := stats.Median(plain), stats.Median(basic), stats.Median(full)
	b.ReportMetric(p, "plain-s")
	b.ReportMetric(s/p, "basic/plain")
	b.ReportMetric(f/p, "slt+cw/plain")
	b.ReportMetric(minOf(basic)/minOf(plain), "best-basic/plain")
	verdict := "not judged on an oversubscribed machine"
	if np <= 2 {
		verdict = atMost(b, "LAMMPS basic/plain", s/p, 1.05)
	}
	fmt.Fprintf(os.Stderr, "LAMMPS in.melt %d ranks loop time: median plain %.3f s, basic %.3f s (x%.3f, target x1.05: %s), --slt --collective-wait %.3f s (x%.3f); best %.3f, %.3f (x%.3f), %.3f (x%.3f); runs %s | %s | %s\n",
		np, p, s, s/p, verdict, f, f/p, minOf(plain), minOf(basic), minOf(basic)/minOf(plain), minOf(full), minOf(full)/minOf(plain),
		fmtList(plain), fmtList(basic), fmtList(full))
	if mp != nil {
		m := stats.Median(withMpip)
		if np <= 2 {
			verdict = atMost(b, "LAMMPS latmap basic over mpiP", s/m, 1.02)
		}
		fmt.Fprintf(os.Stderr, "  mpiP -k 0, same runs: %.3f s (x%.3f plain); latmap basic / mpiP x%.3f (within 2%%: %s); runs %s\n", m, m/p, s/m, verdict, fmtList(withMpip))
	}
}

func fmtList(v []float64) string {
	var s []string
	for _, x := range v {
		s = append(s, strconv.FormatFloat(x, 'f', 3, 64))
	}
	return strings.Join(s, " ")
}

// BenchmarkCallSitesOverhead prints what liblatmap.so adds to a cheap MPI
// call in basic mode and with --call-sites=1, by the same loops as
// BenchmarkCallOverhead, alternated 5 times with mpiP -k 1 when given
// (mpiP's call sites of the same depth), medians. The targets: call sites
// at most twice basic mode's addition (issue 20), and no more than mpiP's.
func BenchmarkCallSitesOverhead(b *testing.B) {
	testutil.RequireMPI(b)
	lib := testutil.InterposeLib(b)
	vs := append([]variant{{"bare", "", nil}, {"basic", lib, nil}, {"sites", lib, []string{"LATMAP_CALL_SITES=1"}}}, mpip(b, 1)...)
	r := alternate(b, overheadProg(b), 1, 2000000, 5, vs, callFigures)
	send, sendS := r.added("basic", "send_ns", 1), r.added("sites", "send_ns", 1)
	iw, iwS := r.added("basic", "irecvwait_ns", 2), r.added("sites", "irecvwait_ns", 2)
	b.ReportMetric(send, "basic-added-send-ns/call")
	b.ReportMetric(sendS, "sites-added-send-ns/call")
	b.ReportMetric(iw, "basic-added-irecv+wait-ns/call")
	b.ReportMetric(iwS, "sites-added-irecv+wait-ns/call")
	fmt.Fprintf(os.Stderr, "call sites overhead: MPI_Send(PROC_NULL) bare %.1f ns, basic +%.1f, --call-sites=1 +%.1f (%.2fx basic, target 2x: %s); Irecv+Wait per call basic +%.1f, --call-sites=1 +%.1f (%.2fx, %s)\n",
		r.med("bare", "send_ns"), send, sendS, sendS/send, atMost(b, "MPI_Send's call-site cost over basic mode's", sendS/send, 2),
		iw, iwS, iwS/iw, atMost(b, "Irecv+Wait's call-site cost over basic mode's", iwS/iw, 2))
	if r["mpip"] != nil {
		sendP, iwP := r.added("mpip", "send_ns", 1), r.added("mpip", "irecvwait_ns", 2)
		b.ReportMetric(sendP, "mpip-k1-added-send-ns/call")
		b.ReportMetric(iwP, "mpip-k1-added-irecv+wait-ns/call")
		fmt.Fprintf(os.Stderr, "  mpiP -k 1, same runs: MPI_Send +%.1f ns (latmap's call sites %.2fx of it, %s), Irecv+Wait per call +%.1f (%.2fx, %s)\n",
			sendP, sendS/sendP, atMost(b, "latmap's call-site MPI_Send cost over mpiP's", sendS, sendP),
			iwP, iwS/iwP, atMost(b, "latmap's call-site Irecv+Wait cost over mpiP's", iwS, iwP))
	}
}
