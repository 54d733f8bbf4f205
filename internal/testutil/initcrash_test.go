package testutil

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestInitCrash: the retried signature is exactly a rank's jump to 0 in
// MPI_Init, from Open MPI's report (a C program) or Go's (latmap), and
// only for srun launches.
func TestInitCrash(t *testing.T) {
	for out, want := range map[string]bool{
		"[n1:7602] *** Process received signal ***\n[n1:7602] Signal: Segmentation fault (11)\n[n1:7602] Failing at address: (nil)\n":     true,
		"SIGSEGV: segmentation violation\nPC=0x0 m=0 sigcode=1 addr=0x0\nsignal arrived during cgo execution\n\tbench._Cfunc_lm_init()\n": true,
		"SIGSEGV: segmentation violation\nPC=0x0 m=0 sigcode=1 addr=0x0\n\tbench._Cfunc_lm_pingpong()\n":                                  false,
		"[n1:7602] Signal: Segmentation fault (11)\n[n1:7602] Failing at address: 0x8\n":                                                  false,
		"srun: error: task 0: Exited with exit code 1\n":                                                                                  false,
	} {
		if got := InitCrash(out); got != want {
			t.Errorf("InitCrash(%q) = %v, want %v", out, got, want)
		}
	}
	if !launchesSrun([]string{"bin/latmap", "profile", "-o", "x", "--", "/usr/bin/srun", "-n", "4", "app"}) || launchesSrun([]string{"mpirun", "-np", "4", "srun.sh"}) {
		t.Error("launchesSrun")
	}
}

// TestRunRetriesHungInitCrash: a launch through srun that prints the
// known crash and hangs (its other ranks waiting for the one that
// crashed) is killed at the limit and run again; one that hangs without
// the crash is not (fakeTB fails it).
func TestRunRetriesHungInitCrash(t *testing.T) {
	dir := t.TempDir()
	srun := filepath.Join(dir, "srun")
	script := "#!/bin/sh\nif [ ! -e " + dir + "/tried ]; then touch " + dir + "/tried\n" +
		"echo '[n1:1] Signal: Segmentation fault (11)'; echo '[n1:1] Failing at address: (nil)'; exec sleep 60; fi\necho ran\n"
	if err := os.WriteFile(srun, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := Run(t, 5*time.Second, nil, srun)
	if err != nil || !strings.Contains(out, "ran") {
		t.Fatalf("hung crash not run again: %v\n%s", err, out)
	}
	hang := filepath.Join(dir, "hang")
	if err := os.WriteFile(hang, []byte("#!/bin/sh\nexec sleep 60\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	f := &fakeTB{TB: t}
	func() {
		defer func() { recover() }()
		Run(f, time.Second, nil, hang, "srun") // a launch through srun
	}()
	if !strings.Contains(f.fatal, "still running after 1s (deadlock?)") {
		t.Errorf("a hang without the crash: fatal %q, want the deadlock message", f.fatal)
	}
}

// fakeTB records Fatalf's message and stops the caller (panics).
type fakeTB struct {
	testing.TB
	fatal string
}

func (f *fakeTB) Fatalf(format string, args ...any) {
	f.fatal = fmt.Sprintf(format, args...)
	panic("fatal")
}
