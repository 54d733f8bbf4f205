package placement

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/latmap/latmap/mapper/placefile"
	"github.com/latmap/latmap/plots/report"

	"github.com/latmap/latmap/mapper/profile"
	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/placement/internal/shapes"
)

// fakeSurvey writes shapes.Survey's survey directory (hosts x sockets x
// cores ranks, round trips rtt[level] us; drop leaves pairs unmeasured).
func fakeSurvey(t testing.TB, hosts, sockets, cores int, rtt [3]float64, drop func(a, b int) bool) string {
	t.Helper()
	return writeSurvey(t, shapes.Survey(hosts, sockets, cores, rtt, drop))
}

// writeSurvey writes s to a new survey directory.
func writeSurvey(t testing.TB, s *survey.Survey) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "survey")
	if err := survey.WriteSurvey(dir, s, false); err != nil {
		t.Fatal(err)
	}
	return dir
}

// writeMatrix writes a plain matrix CSV of flows.
func writeMatrix(t testing.TB, flows []profile.Flow) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("src,dst,bytes,messages\n")
	for _, f := range flows {
		fmt.Fprintf(&b, "%d,%d,%g,%g\n", f.Src, f.Dst, f.Bytes, f.Messages)
	}
	p := filepath.Join(t.TempDir(), "matrix.csv")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// fakeProfile writes a profile directory: ranks placed on (host, cpu),
// per-rank computation, one MPI function row per rank with the given
// transfer, late and sync times, and the matrix.
func fakeProfile(t testing.TB, hosts []string, cpus []int, comput, mpi, late, sync float64, flows []profile.Flow) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "profile")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	n := len(hosts)
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("meta.json", fmt.Sprintf(`{"tool":"latmap","version":"test","command":["mpirun","-np","%d","./app"],"ranks":%d,"modes":["basic","slt","collective-wait"]}`, n, n))
	var r, f, m strings.Builder
	r.WriteString("rank,host,cpu,cpu_end,cpuset,socket,numa,l3,migrated,elapsed_s,comput_s\n")
	f.WriteString("rank,function,calls,time_s,late_s,sync_s,bytes_sent,bytes_recv,reqs_sent,reqs_recv\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&r, "%d,%s,%d,%d,%d,0,0,0,false,%g,%g\n", i, hosts[i], cpus[i], cpus[i], cpus[i], comput+mpi+late+sync, comput)
		fmt.Fprintf(&f, "%d,MPI_Sendrecv,100,%g,%g,%g,1000,1000,100,100\n", i, mpi, late, sync)
	}
	m.WriteString("src,dst,bytes,messages,time_s,late_s\n")
	for _, fl := range flows {
		fmt.Fprintf(&m, "%d,%d,%d,%d,0,0\n", fl.Src, fl.Dst, int64(fl.Bytes), int64(fl.Messages))
	}
	write("ranks.csv", r.String())
	write("functions.csv", f.String())
	write("matrix.csv", m.String())
	return dir
}

func readSurveyT(t testing.TB, dir string) *survey.Survey {
	t.Helper()
	s, err := survey.ReadSurvey(dir, survey.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// fakeSurveyHosts writes shapes.HostsSurvey's survey directory.
func fakeSurveyHosts(t testing.TB, hosts []string, cpus int) string {
	t.Helper()
	return writeSurvey(t, shapes.HostsSurvey(hosts, cpus))
}

// runReport is latmap place as the command runs it: Run, then the
// report (report.Place) written to out.
func runReport(opt Options, out io.Writer) (*placefile.Advice, error) {
	return runAs(opt, out, false)
}

// runJSON is runReport with --json: the advice written to out as JSON.
func runJSON(opt Options, out io.Writer) (*placefile.Advice, error) {
	return runAs(opt, out, true)
}

func runAs(opt Options, out io.Writer, asJSON bool) (*placefile.Advice, error) {
	a, err := Run(opt)
	if err != nil {
		return a, err
	}
	return a, report.Place(out, a, asJSON)
}

func itoa(i int) string { return strconv.Itoa(i) }

// paths is a --topology of one file, none for "".
func paths(p string) []string {
	if p == "" {
		return nil
	}
	return []string{p}
}
