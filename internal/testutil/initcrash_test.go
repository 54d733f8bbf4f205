package testutil

import "testing"

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
