package interpose_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/latmap/latmap/internal/testutil"
)

// TestTokenPairingRecovers drives the --slt token pairing of tokens.c
// (tokens numbered by their length) through a fixed story: a wildcard
// receive takes another sender's token, the next receives from that sender
// each take the following token (the stream is shifted by one), and then a
// payload arrives before its token. Each mismatch is counted (what
// meta.json's token_mismatches reports), each shifted receive gets its own
// token's arrival back from the one an earlier receive kept, and the
// stream is back in step afterwards (the receive whose own token was kept
// drops its token receive instead of letting it take the next message's).
// Without sequence numbers the shift is invisible: the shifted tokens come
// from the right sender and tag.
func TestTokenPairingRecovers(t *testing.T) {
	t.Parallel() // counts, no clock: beside the other counting tests, after the timed ones
	testutil.RequireMPI(t)
	cdir := filepath.Join(testutil.RepoRoot(t), "interpose", "c")
	bin := filepath.Join(t.TempDir(), "driver")
	args := []string{"-O1", "-w", "-I", cdir, "-o", bin}
	for _, s := range append([]string{"tokens_test_driver.c"}, librarySources(t, cdir)...) {
		if s != "fortran.gen.c" { // the Fortran bindings need the MPI's Fortran library
			args = append(args, filepath.Join(cdir, s))
		}
	}
	if out, err := exec.Command("mpicc", args...).CombinedOutput(); err != nil {
		t.Fatalf("building the driver: %v\n%s", err, out)
	}
	out, err := exec.Command(bin).Output()
	if err != nil {
		t.Fatalf("driver: %v\n%s", err, out)
	}
	// result, own token's arrival, mismatches so far, recovered so far
	want := []string{
		"0 0 0 0",
		"2 0 1 0",
		"1 200 2 1",
		"1 300 3 2",
		"3 400 3 2",
		"0 0 3 2",
		"0 0 3 2",
	}
	got := strings.Split(strings.TrimSpace(string(out)), "\n")
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("pairing story:\n got %q\nwant %q", got, want)
	}
}

var makeSrcs = regexp.MustCompile(`(?m)^SRCS\s*:=((?:.*\\\n)*.*)$`)

// librarySources are the C files interpose/c/Makefile builds the library
// from (its SRCS).
func librarySources(t *testing.T, cdir string) []string {
	mk, err := os.ReadFile(filepath.Join(cdir, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	m := makeSrcs.FindSubmatch(mk)
	if m == nil {
		t.Fatal("interpose/c/Makefile has no SRCS")
	}
	return strings.Fields(strings.ReplaceAll(string(m[1]), "\\\n", " "))
}
