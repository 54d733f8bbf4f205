package interpose_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/latmap/latmap/internal/exitcode"
	"github.com/latmap/latmap/internal/launcher"
	"github.com/latmap/latmap/internal/testutil"
	"github.com/latmap/latmap/internal/vcluster"
	"github.com/latmap/latmap/mapper/profile"
	"github.com/latmap/latmap/plots/report"
)

// mpiProgram builds testdata/mpi/NAME.c with mpicc.
func mpiProgram(t *testing.T, name string) string {
	t.Helper()
	return flavorProgram(t, testutil.OpenMPI, name)
}

// flavorProgram builds testdata/mpi/NAME.c with the MPI flavour's compiler
// wrapper.
func flavorProgram(t *testing.T, f testutil.Flavor, name string) string {
	t.Helper()
	f.Require(t)
	src := filepath.Join(testutil.RepoRoot(t), "testdata", "mpi", name+".c")
	return f.Build(t, t.TempDir(), name, src)
}

// profileRun runs bin/latmap profile on np local ranks of prog and returns
// the profile and the program's output.
func profileRun(t *testing.T, np int, flags []string, prog string, args ...string) (*profile.Profile, string) {
	t.Helper()
	return profileRunWith(t, testutil.LocalMpirun(np), flags, prog, args...)
}

// profileRunWith is profileRun with the given mpirun prefix.
func profileRunWith(t *testing.T, mpirun []string, flags []string, prog string, args ...string) (*profile.Profile, string) {
	t.Helper()
	return profileRunFlavor(t, testutil.OpenMPI, mpirun, flags, prog, args...)
}

// profileRunFlavor is profileRunWith with the latmap binary and the
// interposition library built against the MPI flavour, and its launcher's
// command line prefix.
func profileRunFlavor(t *testing.T, f testutil.Flavor, mpirun []string, flags []string, prog string, args ...string) (*profile.Profile, string) {
	t.Helper()
	return profileRunTo(t, f, filepath.Join(t.TempDir(), "prof"), mpirun, flags, prog, args...)
}

// profileRunTo is profileRunFlavor writing the profile directory out.
func profileRunTo(t *testing.T, f testutil.Flavor, out string, mpirun []string, flags []string, prog string, args ...string) (*profile.Profile, string) {
	t.Helper()
	bin := f.LatmapBin(t)
	lib := f.InterposeLib(t)
	argv := append([]string{"profile", "-o", out, "--lib", lib}, flags...)
	argv = append(argv, "--")
	argv = append(argv, mpirun...)
	argv = append(argv, prog)
	argv = append(argv, args...)
	stdout, err := testutil.Run(t, 3*time.Minute, nil, append([]string{bin}, argv...)...)
	if err != nil {
		t.Fatalf("latmap %s: %v\n%s", strings.Join(argv, " "), err, stdout)
	}
	p, err := profile.ReadProfile(out)
	if err != nil {
		t.Fatal(err)
	}
	return p, stdout
}

func runTimeout(t testing.TB, d time.Duration, name string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	var b bytes.Buffer
	cmd.Stdout, cmd.Stderr = &b, &b
	err := cmd.Run()
	if ctx.Err() != nil {
		return b.String(), fmt.Errorf("timed out after %v (deadlock?)", d)
	}
	return b.String(), err
}

type pair struct{ src, dst int }

type traffic struct{ bytes, msgs int64 }

// calls returns rank -> function -> calls.
func calls(p *profile.Profile) map[int]map[string]int64 {
	m := map[int]map[string]int64{}
	for _, f := range p.Functions {
		if m[f.Rank] == nil {
			m[f.Rank] = map[string]int64{}
		}
		m[f.Rank][f.Function] = f.Calls
	}
	return m
}

func checkMatrix(t *testing.T, p *profile.Profile, want map[pair]traffic) {
	t.Helper()
	got := map[pair]traffic{}
	for _, x := range p.Matrix {
		got[pair{x.Src, x.Dst}] = traffic{x.Bytes, x.Messages}
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("matrix %d->%d = %+v, want %+v", k.src, k.dst, got[k], w)
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("matrix has unexpected %d->%d %+v", k.src, k.dst, g)
		}
	}
}

// checkBalance: point-to-point bytes sent (matrix) equal the bytes the
// receiving functions counted.
func checkBalance(t *testing.T, p *profile.Profile) {
	t.Helper()
	var sent, recv int64
	for _, x := range p.Matrix {
		sent += x.Bytes
	}
	coll := map[string]bool{"MPI_Allreduce": true, "MPI_Bcast": true, "MPI_Barrier": true, "MPI_Reduce": true}
	for _, f := range p.Functions {
		if !coll[f.Function] {
			recv += f.BytesRecv
		}
	}
	if sent != recv {
		t.Errorf("bytes sent %d != bytes received %d", sent, recv)
	}
	if len(p.Meta.Warnings) > 0 {
		t.Errorf("warnings: %v", p.Meta.Warnings)
	}
}

func checkCalls(t *testing.T, p *profile.Profile, want func(rank int) map[string]int64) {
	t.Helper()
	c := calls(p)
	for r := range p.Ranks {
		for fn, n := range want(r) {
			if c[r][fn] != n {
				t.Errorf("rank %d %s calls = %d, want %d", r, fn, c[r][fn], n)
			}
		}
	}
}

func TestExactCounts(t *testing.T) {
	t.Parallel() // counts, no clock: beside the other counting tests, after the timed ones
	testutil.Short(t, "MPI runs")
	const iter = 12
	// ring: each rank sends iter messages of size bytes to the next.
	ring := func(size int64) func(np int) map[pair]traffic {
		return func(np int) map[pair]traffic {
			m := map[pair]traffic{}
			for r := 0; r < np; r++ {
				m[pair{r, (r + 1) % np}] = traffic{iter * size, iter}
			}
			return m
		}
	}
	halo := func(dims [3]int) map[pair]traffic {
		n := dims[0] * dims[1] * dims[2]
		coord := func(r int) [3]int { return [3]int{r / (dims[1] * dims[2]), r / dims[2] % dims[1], r % dims[2]} }
		rankOf := func(c [3]int) int { return (c[0]*dims[1]+c[1])*dims[2] + c[2] }
		m := map[pair]traffic{}
		for r := 0; r < n; r++ {
			for d := 0; d < 3; d++ {
				for _, dir := range []int{1, -1} {
					c := coord(r)
					c[d] = (c[d] + dir + dims[d]) % dims[d]
					k := pair{r, rankOf(c)}
					x := m[k]
					x.bytes += iter * int64(d+1) * 100 * 8
					x.msgs += iter
					m[k] = x
				}
			}
		}
		return m
	}
	cases := []exactCase{
		{"ring", 4, []string{"12", "1000"}, false,
			ring(1000),
			func(int) map[string]int64 { return map[string]int64{"MPI_Send": iter, "MPI_Recv": iter} }},
		{"alltoone", 4, []string{"12"}, false,
			func(np int) map[pair]traffic {
				m := map[pair]traffic{}
				for r := 1; r < np; r++ {
					m[pair{r, 0}] = traffic{iter * int64(r) * 512, iter}
				}
				return m
			},
			func(r int) map[string]int64 {
				if r == 0 {
					return map[string]int64{"MPI_Recv": 3 * iter, "MPI_Send": 0}
				}
				return map[string]int64{"MPI_Send": iter, "MPI_Recv": 0}
			}},
		{"halo3d", 8, []string{"4", "2", "1", "12"}, false,
			func(int) map[pair]traffic { return halo([3]int{4, 2, 1}) },
			func(int) map[string]int64 {
				return map[string]int64{"MPI_Irecv": 6 * iter, "MPI_Isend": 6 * iter, "MPI_Waitall": iter, "MPI_Cart_create": 1, "MPI_Comm_free": 1}
			}},
		{"halo3d", 8, []string{"4", "2", "1", "12"}, true,
			func(int) map[pair]traffic { return halo([3]int{4, 2, 1}) },
			func(int) map[string]int64 { return map[string]int64{"MPI_Irecv": 6 * iter, "MPI_Waitall": iter} }},
		{"splitcoll", 6, []string{"12"}, false,
			func(np int) map[pair]traffic {
				// Sub-communicator c holds the ranks of parity c in
				// decreasing order (key = -rank); each sends to the next.
				m := map[pair]traffic{}
				for c := 0; c < 2; c++ {
					var members []int
					for r := np - 1; r >= 0; r-- {
						if r%2 == c {
							members = append(members, r)
						}
					}
					for i, r := range members {
						m[pair{r, members[(i+1)%len(members)]}] = traffic{iter * 64 * int64(r+1) * 4, iter}
					}
				}
				return m
			},
			func(int) map[string]int64 {
				return map[string]int64{"MPI_Sendrecv": iter, "MPI_Allreduce": iter + 1, "MPI_Bcast": iter, "MPI_Comm_split": 1}
			}},
		{"splitcoll", 6, []string{"12"}, true,
			nil,
			func(int) map[string]int64 { return map[string]int64{"MPI_Sendrecv": iter, "MPI_Allreduce": iter + 1} }},
		{"persist", 4, []string{"12", "300"}, false,
			ring(300),
			func(int) map[string]int64 {
				return map[string]int64{"MPI_Startall": iter, "MPI_Waitall": iter, "MPI_Send_init": 1, "MPI_Recv_init": 1, "MPI_Request_free": 2}
			}},
		{"persist", 4, []string{"12", "300"}, true,
			ring(300),
			func(int) map[string]int64 { return map[string]int64{"MPI_Startall": iter, "MPI_Waitall": iter} }},
	}
	// The same programs and expectations with every MPI flavour present:
	// Open MPI (mpirun, -x) and MPICH (mpiexec.hydra, -genv).
	for _, f := range testutil.Flavors() {
		t.Run(f.Name, func(t *testing.T) { exactCounts(t, f, cases) })
	}
}

// exactCase is one program of TestExactCounts: its traffic matrix and
// per-rank call counts (want nil: the same traffic as the basic-mode row).
type exactCase struct {
	name  string
	np    int
	args  []string
	slt   bool
	want  func(np int) map[pair]traffic
	calls func(rank int) map[string]int64
}

// exactCounts profiles every case under flavour f and checks its matrix,
// byte balance and call counts exactly.
func exactCounts(t *testing.T, f testutil.Flavor, cases []exactCase) {
	f.Require(t)
	f.LatmapBin(t)
	f.InterposeLib(t)
	for _, tc := range cases {
		name := tc.name
		if tc.slt {
			name += "/slt"
		}
		t.Run(name, func(t *testing.T) {
			prog := flavorProgram(t, f, tc.name)
			var flags []string
			if tc.slt {
				flags = []string{"--slt"}
			}
			p, _ := profileRunFlavor(t, f, f.Local(tc.np), flags, prog, tc.args...)
			if len(p.Ranks) != tc.np || p.Meta.Ranks != tc.np {
				t.Fatalf("profile has %d ranks (meta %d), want %d", len(p.Ranks), p.Meta.Ranks, tc.np)
			}
			want := tc.want
			if want == nil { // same traffic as the basic-mode row
				want = func(np int) map[pair]traffic {
					m := map[pair]traffic{}
					for _, x := range p.Matrix {
						m[pair{x.Src, x.Dst}] = traffic{x.Bytes, x.Messages}
					}
					return m
				}
				if len(p.Matrix) != tc.np {
					t.Errorf("matrix has %d pairs, want %d", len(p.Matrix), tc.np)
				}
			}
			checkMatrix(t, p, want(tc.np))
			checkBalance(t, p)
			checkCalls(t, p, tc.calls)
			for _, r := range p.Ranks {
				if r.Elapsed <= 0 || r.Comput < 0 || r.Comput > r.Elapsed || r.Host == "" {
					t.Errorf("rank %d: elapsed %g comput %g host %q", r.Rank.Rank, r.Elapsed, r.Comput, r.Host)
				}
			}
		})
	}
}

// TestMPICHLibraryChoice: bin/latmap-mpich finds lib/liblatmap-mpich.so by
// itself (no --lib, no $LATMAP_LIB) and profiles an MPICH program under
// mpiexec.hydra; the Open MPI library under mpiexec.hydra, and the MPICH
// one under Open MPI's mpirun, fail and the error says which library to use.
func TestMPICHLibraryChoice(t *testing.T) {
	f := testutil.MPICH
	f.Require(t)
	bin := f.LatmapBin(t)
	f.InterposeLib(t)
	ompiLib := testutil.InterposeLib(t)
	prog := flavorProgram(t, f, "ring")
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "LATMAP_LIB=") {
			env = append(env, kv)
		}
	}
	run := func(args ...string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Env = env
		b, err := cmd.CombinedOutput()
		return string(b), err
	}
	out := filepath.Join(t.TempDir(), "prof")
	o, err := run(append([]string{"profile", "-o", out, "--"}, append(f.Local(2), prog, "3", "100")...)...)
	if err != nil {
		t.Fatalf("latmap-mpich profile without --lib: %v\n%s", err, o)
	}
	p, err := profile.ReadProfile(out)
	if err != nil {
		t.Fatal(err)
	}
	checkMatrix(t, p, map[pair]traffic{{0, 1}: {300, 3}, {1, 0}: {300, 3}})
	if p.Meta.Launcher != string(launcher.Hydra) {
		t.Errorf("launcher %q, want hydra", p.Meta.Launcher)
	}
	o, err = run(append([]string{"profile", "-o", out + "2", "--lib", ompiLib, "--"}, append(f.Local(2), prog, "3", "100")...)...)
	if err == nil {
		t.Fatalf("the Open MPI library under mpiexec.hydra succeeded:\n%s", o)
	}
	if want := "is built against Open MPI but the launcher is MPICH's: give --lib lib/liblatmap-mpich.so"; !strings.Contains(o, want) {
		t.Errorf("error lacks %q:\n%s", want, o)
	}
	// And the other way round: the MPICH library under Open MPI's mpirun.
	testutil.RequireMPI(t)
	o, err = run(append([]string{"profile", "-o", out + "3", "--lib", f.InterposeLib(t), "--"},
		append(testutil.LocalMpirun(2), mpiProgram(t, "ring"), "3", "100")...)...)
	if err == nil {
		t.Fatalf("the MPICH library under mpirun succeeded:\n%s", o)
	}
	if want := "is built against MPICH but the launcher is Open MPI's: give --lib lib/liblatmap.so"; !strings.Contains(o, want) {
		t.Errorf("error lacks %q:\n%s", want, o)
	}
}

// lateOf sums late_s and time_s of the receiving functions of rank.
func lateOf(p *profile.Profile, rank int) (late, transfer float64) {
	for _, f := range p.Functions {
		if f.Rank == rank && (f.Function == "MPI_Recv" || f.Function == "MPI_Wait") {
			late += f.Late
			transfer += f.Time
		}
	}
	return late, transfer
}

func TestSendLate(t *testing.T) {
	testutil.Short(t, "MPI runs")
	prog := mpiProgram(t, "late")
	const iter, ms = 16, 25
	var injected float64
	retry(t, func() (errs []string) {
		p, out := profileRun(t, 2, []string{"--slt"}, prog, "sender", fmt.Sprint(iter), fmt.Sprint(ms))
		injected = slept(t, out)[1] // the sender's real sleeps (nominal 16 x 25 ms)
		late, transfer := lateOf(p, 0)
		t.Logf("sender late: late_s %.4f (injected %.4f), transfer %.6f s", late, injected, transfer)
		if math.Abs(late-injected) > 0.1*injected {
			errs = append(errs, fmt.Sprintf("late_s = %.4f s, want %.4f s within 10%%", late, injected))
		}
		if transfer > 0.1*injected {
			errs = append(errs, fmt.Sprintf("transfer part %.4f s is not small beside the late time %.4f s", transfer, late))
		}
		var ml float64
		for _, x := range p.Matrix {
			if x.Src == 1 && x.Dst == 0 {
				ml = x.Late
			}
		}
		if math.Abs(ml-late) > 0.01*late {
			errs = append(errs, fmt.Sprintf("matrix late 1->0 = %.4f, functions say %.4f", ml, late))
		}
		return errs
	})

	p, _ := profileRun(t, 2, []string{"--slt"}, prog, "receiver", fmt.Sprint(iter), fmt.Sprint(ms))
	late, _ := lateOf(p, 0)
	t.Logf("receiver late: late_s %.6f", late)
	if late > 0.05*injected {
		t.Errorf("receiver-late program: late_s = %.4f s, want about 0 (< %.4f)", late, 0.05*injected)
	}
}

// retry runs a timing measurement up to 3 times and fails with the last
// attempt's complaints: the machine is shared, and a rank starved of CPU
// for tens of milliseconds inside MPI is the machine, not the profiler.
func retry(t *testing.T, measure func() []string) {
	t.Helper()
	var errs []string
	for attempt := 1; attempt <= 3; attempt++ {
		if errs = measure(); len(errs) == 0 {
			return
		}
		t.Logf("attempt %d: %s", attempt, strings.Join(errs, "; "))
	}
	t.Error(strings.Join(errs, "\n"))
}

func TestCollectiveWait(t *testing.T) {
	testutil.Short(t, "MPI runs")
	prog := mpiProgram(t, "collwait")
	const np, iter, ms = 4, 10, 25
	retry(t, func() (errs []string) {
		p, out := profileRun(t, np, []string{"--collective-wait"}, prog, fmt.Sprint(iter), fmt.Sprint(ms))
		sl := slept(t, out)
		for _, f := range p.Functions {
			if f.Function != "MPI_Allreduce" {
				continue
			}
			// Rank r sleeps r*ms before each call, so it waits for the
			// last rank (np-1)*ms - r*ms per call: in all, the difference
			// of their real sleeps (which include the scheduler's overshoot).
			want := sl[np-1] - sl[f.Rank]
			t.Logf("rank %d sync_s %.4f want %.4f", f.Rank, f.Sync, want)
			if math.Abs(f.Sync-want) > 0.1*want+0.005 {
				errs = append(errs, fmt.Sprintf("rank %d: sync_s = %.4f, want %.4f within 10%%", f.Rank, f.Sync, want))
			}
			if f.Calls != iter {
				errs = append(errs, fmt.Sprintf("rank %d: %d MPI_Allreduce calls, want %d", f.Rank, f.Calls, iter))
			}
		}
		return errs
	})
	// The window: calls 3..6 of MPI_Allreduce only.
	p, _ := profileRun(t, np, []string{"--window", "MPI_Allreduce:3:7"}, prog, fmt.Sprint(iter), "1")
	if p.Meta.Window != "MPI_Allreduce:3:7" {
		t.Errorf("meta window %q", p.Meta.Window)
	}
	for r, c := range calls(p) {
		if c["MPI_Allreduce"] != 4 {
			t.Errorf("rank %d: %d MPI_Allreduce calls in window 3:7, want 4", r, c["MPI_Allreduce"])
		}
	}
	// MPI_Pcontrol(0) before call 6 (from 0): 6 calls profiled.
	p, _ = profileRun(t, 2, nil, prog, fmt.Sprint(iter), "1", "6")
	for r, c := range calls(p) {
		if c["MPI_Allreduce"] != 6 {
			t.Errorf("rank %d: %d MPI_Allreduce calls before MPI_Pcontrol(0), want 6", r, c["MPI_Allreduce"])
		}
	}
}

// slept parses the "slept RANK SECONDS" lines the test programs print.
func slept(t *testing.T, out string) map[int]float64 {
	t.Helper()
	m := map[int]float64{}
	for _, l := range strings.Split(out, "\n") {
		var r int
		var s float64
		if n, _ := fmt.Sscanf(l, "slept %d %g", &r, &s); n == 2 {
			m[r] = s
		}
	}
	if len(m) == 0 {
		t.Fatalf("no slept lines in the output:\n%s", out)
	}
	return m
}

func sortedLines(s string) string {
	var l []string
	for _, x := range strings.Split(s, "\n") {
		if strings.HasPrefix(x, "rank ") || strings.HasPrefix(x, "total ") {
			l = append(l, x)
		}
	}
	sort.Strings(l)
	return strings.Join(l, "\n")
}

func TestWildcardsSameResultsNoDeadlock(t *testing.T) {
	testutil.Short(t, "MPI runs")
	prog := mpiProgram(t, "wild")
	argv := append(testutil.LocalMpirun(4), prog, "6")
	plain, err := runTimeout(t, 2*time.Minute, argv[0], argv[1:]...)
	if err != nil {
		t.Fatalf("wild without the profiler: %v\n%s", err, plain)
	}
	want := sortedLines(plain)
	if !strings.Contains(want, "total checksum") {
		t.Fatalf("unexpected output %q", plain)
	}
	for _, flags := range [][]string{nil, {"--slt"}, {"--slt", "--collective-wait"}, {"--slt"}} {
		_, out := profileRun(t, 4, flags, prog, "6")
		if got := sortedLines(out); got != want {
			t.Errorf("with %v the program printed\n%s\nwant\n%s", flags, got, want)
		}
	}
}

func TestFaults(t *testing.T) {
	bin := testutil.LatmapBin(t)
	lib := testutil.InterposeLib(t)
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no command", []string{"profile", "-o", filepath.Join(dir, "a"), "--lib", lib}, "no launch command"},
		{"missing library", []string{"profile", "-o", filepath.Join(dir, "b"), "--lib", filepath.Join(dir, "nope.so"), "--", "mpirun", "true"}, "not found"},
		{"unknown launcher", []string{"profile", "-o", filepath.Join(dir, "c"), "--lib", lib, "--", "./app"}, "not a launcher latmap knows"},
		{"bad window", []string{"profile", "-o", filepath.Join(dir, "d"), "--lib", lib, "--window", "MPI_Send:1:2", "--", "mpirun", "true"}, "not a collective"},
		{"report of nothing", []string{"report", filepath.Join(dir, "none")}, "latmap profile"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := exec.Command(bin, tc.args...).CombinedOutput()
			if err == nil || !strings.Contains(string(out), tc.want) {
				t.Errorf("latmap %v: err %v, output %q, want an error with %q", tc.args, err, out, tc.want)
			}
			if _, err := os.Stat(filepath.Join(dir, "a")); err == nil {
				t.Error("an output directory was written")
			}
		})
	}
}

func TestNotAnMPIProgram(t *testing.T) {
	testutil.Short(t, "MPI runs")
	testutil.RequireMPI(t)
	bin := testutil.LatmapBin(t)
	out := filepath.Join(t.TempDir(), "prof")
	argv := append([]string{"profile", "-o", out, "--lib", testutil.InterposeLib(t), "--"}, testutil.LocalMpirun(1)...)
	b, err := exec.Command(bin, append(argv, "true")...).CombinedOutput()
	if err == nil || !strings.Contains(string(b), "exited without writing a profile") {
		t.Errorf("profiling /bin/true: %v, %q; want an error saying no profile was written", err, b)
	}
	if entries, _ := os.ReadDir(filepath.Dir(out)); len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
}

func TestAbortSaysStatusAndWritesNothing(t *testing.T) {
	testutil.Short(t, "MPI runs")
	prog := mpiProgram(t, "late") // with no arguments it calls MPI_Abort(2)
	bin := testutil.LatmapBin(t)
	out := filepath.Join(t.TempDir(), "prof")
	argv := append([]string{"profile", "-o", out, "--lib", testutil.InterposeLib(t), "--"}, testutil.LocalMpirun(2)...)
	cmd := exec.Command(bin, append(argv, prog)...)
	b, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() == 0 {
		t.Fatalf("latmap profile of an aborting program: %v, want a non-zero exit\n%s", err, b)
	}
	// The MPI job failed: latmap's status 4 (exitcode.JobFailed), with
	// the launcher's status in the message (mpirun reports MPI_Abort's
	// errorcode as its own).
	if ee.ExitCode() != exitcode.JobFailed || !strings.Contains(string(b), "exit status 2") {
		t.Errorf("exit status %d, output %q; want %d naming the launcher's exit status 2", ee.ExitCode(), b, exitcode.JobFailed)
	}
	entries, _ := os.ReadDir(filepath.Dir(out))
	if len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
}

// TestTwoNodes profiles a ring halo on a virtual cluster of two nodes
// (network namespaces, TCP between them): the ranks' hosts come from the
// ranks themselves and the report splits bytes within and between nodes.
func TestTwoNodes(t *testing.T) {
	testutil.Short(t, "MPI runs")
	prog := mpiProgram(t, "halo3d")
	c := vcluster.Start(t, 2, 2)
	p, _ := profileRunWith(t, c.MpirunArgs(4), []string{"--slt"}, prog, "4", "1", "1", "5")
	hosts := map[string]int{}
	for _, r := range p.Ranks {
		hosts[r.Host]++
	}
	if len(hosts) != 2 {
		t.Fatalf("ranks ran on hosts %v, want 2 nodes with 2 ranks each", hosts)
	}
	// A ring of 4 along x, both directions: 2 pairs cross the nodes each
	// way, the rest (and the y, z self-exchanges) stay within a node.
	var intra, inter int64
	for _, x := range p.Matrix {
		if p.Ranks[x.Src].Host == p.Ranks[x.Dst].Host {
			intra += x.Bytes
		} else {
			inter += x.Bytes
		}
	}
	t.Logf("hosts %v, bytes within nodes %d, between %d", hosts, intra, inter)
	if intra == 0 || inter == 0 {
		t.Errorf("bytes within nodes %d, between nodes %d: want both", intra, inter)
	}
	var b bytes.Buffer
	if err := report.Report(&b, p, report.Options{}); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("point-to-point bytes: %d within a node, %d between nodes", intra, inter)
	if !strings.Contains(b.String(), want) {
		t.Errorf("report lacks %q:\n%s", want, b.String())
	}
}

// TestSaysWhatItCannotMeasure: one-sided traffic, --slt under MPI_THREAD_MULTIPLE and
// a communicator without a shadow are named in meta.json and the report.
func TestSaysWhatItCannotMeasure(t *testing.T) {
	testutil.Short(t, "MPI runs")
	prog := mpiProgram(t, "unmeasured")
	p, out := profileRun(t, 2, []string{"--slt"}, prog)
	all := strings.Join(p.Meta.Unmeasured, "\n")
	want := []string{"MPI_Put was called", "MPI_Win_fence was called", "communicator created by a function latmap does not wrap"}
	if strings.Contains(out, "provided 3") { // Open MPI granted MPI_THREAD_MULTIPLE
		want = append(want, "MPI_THREAD_MULTIPLE")
	}
	for _, w := range want {
		if !strings.Contains(all, w) {
			t.Errorf("meta.json unmeasured lacks %q:\n%s", w, all)
		}
	}
	var b bytes.Buffer
	if err := report.Report(&b, p, report.Options{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "not measured exactly") || !strings.Contains(b.String(), "MPI_Put was called") {
		t.Errorf("report does not say what was not measured:\n%s", b.String())
	}
}
