package interpose_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/latmap/latmap/internal/testutil"
	"github.com/latmap/latmap/mapper/profile"
)

// TestPartialProfile: latmap profile --flush-every 1 of a 20 s ring of 4
// ranks (64 KiB to the next rank every 10 ms), sent SIGTERM after 6 s as
// a batch system would: latmap passes it on, the run ends before
// MPI_Finalize, and the profile written from the ranks' last snapshots is
// marked partial, up to 3.5-6.5 s. Each rank's bytes to the next in
// matrix.csv are what the program itself had counted at most 1 s (the
// flush interval) and a few exchanges before it was ended, and no more.
// Without snapshots (--flush-every 0) nothing is written, as before.
func TestPartialProfile(t *testing.T) {
	testutil.RequireMPI(t)
	sigterm := func(c *exec.Cmd) { c.Process.Signal(syscall.SIGTERM) }
	checkPartial(t, testutil.LocalMpirun(4), "1", sigterm)
	checkPartial(t, testutil.LocalMpirun(4), "0", sigterm)
}

// checkPartial profiles the ring under the launch prefix with
// --flush-every flush, calls stop 6 s in (3 s without snapshots), and
// checks what latmap wrote.
func checkPartial(t *testing.T, launch []string, flush string, stop func(*exec.Cmd)) {
	t.Helper()
	prog := mpiProgram(t, "longring")
	bin := testutil.OpenMPI.LatmapBin(t)
	lib := testutil.OpenMPI.InterposeLib(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "prof")
	args := append([]string{bin, "profile", "-o", out, "--lib", lib, "--flush-every", flush, "--"}, launch...)
	cmd := exec.Command(args[0], append(args[1:], prog, "20", "65536", dir)...)
	var buf strings.Builder
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Snapshots are checked 3.5-6.5 s into the run; without them, the
	// run only has to be under way (launched in 0.3 s here) and not
	// finished.
	after := 6 * time.Second
	if flush == "0" {
		after = 3 * time.Second
	}
	time.Sleep(after)
	stop(cmd)
	if err := cmd.Wait(); err == nil {
		t.Fatalf("--flush-every %s: latmap profile of a run ended early exited 0\n%s", flush, buf.String())
	}
	if flush == "0" {
		if _, err := os.Stat(out); err == nil || !strings.Contains(buf.String(), "no profile written") {
			t.Errorf("without snapshots: %s written, or not said\n%s", out, buf.String())
		}
		return
	}
	if !strings.Contains(buf.String(), "wrote the partial profile "+out) {
		t.Errorf("latmap profile does not say it wrote the partial profile:\n%s", buf.String())
	}
	p, err := profile.ReadProfile(out)
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	pt := p.Meta.Partial
	if pt == nil || pt.FromSeconds < 3.5 || pt.ToSeconds > 6.5 {
		t.Fatalf("meta.json partial %+v, want snapshots 3.5-6.5 s into the run", pt)
	}
	t.Logf("partial: %.2f-%.2f s (%s)", pt.FromSeconds, pt.ToSeconds, pt.Reason)
	for r := 0; r < 4; r++ {
		b, err := os.ReadFile(filepath.Join(dir, "sent."+strconv.Itoa(r)))
		if err != nil {
			t.Fatal(err)
		}
		own, _ := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		var got int64
		for _, tr := range p.Matrix {
			if tr.Src == r && tr.Dst == (r+1)%4 {
				got = tr.Bytes
			}
		}
		// At most the 1 s interval behind (64 KiB x 100 a second), and a
		// second of slack for a busy machine.
		if got > own || got < own-2*100*65536 || got%65536 != 0 || got == 0 {
			t.Errorf("rank %d: %d bytes to rank %d in the partial matrix; the program had counted %d when it was ended", r, got, (r+1)%4, own)
		}
	}
}
