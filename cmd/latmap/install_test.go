package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/latmap/latmap/internal/testutil"
)

// TestMakeInstall runs make install PREFIX=tmp DESTDIR= in the repository
// and uses what it installed from elsewhere, as a site would: latmap -v,
// the interposition library found beside the binary (through a symlink,
// without $LATMAP_LIB), the man pages, the bash completion; then make
// uninstall, which must leave tmp as it found it.
func TestMakeInstall(t *testing.T) {
	testutil.Short(t, "make install rebuilds bin/latmap and lib/liblatmap.so in the tree, which other packages' tests use")
	// make builds what the MPI tests need (bin/latmap, liblatmap.so) and
	// bash runs the completion check below: without make there is no
	// MPI build, so they are needed as MPI is (a failure in CI).
	for _, tool := range []string{"make", "bash"} {
		if _, err := exec.LookPath(tool); err != nil {
			testutil.Missing(t, testutil.NeedMPI, "%s not found; make install needs it (apt-get install %s)", tool, tool)
		}
	}
	if _, err := exec.LookPath("mpicc"); err != nil {
		testutil.Missing(t, testutil.NeedMPI, "mpicc not found; make install builds bin/latmap and liblatmap.so with it (apt-get install libopenmpi-dev)")
	}
	repo := testutil.RepoRoot(t)
	prefix := t.TempDir()
	if p, err := filepath.EvalSymlinks(prefix); err == nil {
		prefix = p
	}
	// Something else's file in the prefix: uninstall must leave it.
	other := filepath.Join(prefix, "share", "man", "man1", "other.1")
	if err := os.MkdirAll(filepath.Dir(other), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(other, []byte(".TH OTHER 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	// Not make's variables from a make test above us, nor latmap's.
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "LATMAP_LIB", "LATMAP_MPICH_LIB", "LATMAP_BIN", "LATMAP_MPICH_BIN", "DESTDIR", "PREFIX":
			continue
		}
		env = append(env, kv)
	}
	run := func(dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir, cmd.Env = dir, env
		start := time.Now()
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s (in %s): %v\n%s", strings.Join(args, " "), dir, err, out)
		}
		t.Logf("%s: %.1f s", strings.Join(args, " "), time.Since(start).Seconds())
		return string(out)
	}
	run(repo, "make", "-s", "install", "PREFIX="+prefix, "DESTDIR=")

	elsewhere := t.TempDir()
	bin := filepath.Join(prefix, "bin", "latmap")
	got := strings.TrimSpace(run(elsewhere, bin, "-v"))
	want := strings.TrimSpace(run(repo, filepath.Join(repo, "bin", "latmap"), "-v"))
	if got != want || !strings.HasPrefix(got, "latmap version ") || strings.HasSuffix(got, "-dev") || strings.HasSuffix(got, " dev") {
		t.Errorf("installed latmap -v = %q; want %q (the version make build stamps, not a default)", got, want)
	}

	// latmap profile with a stand-in srun that prints its arguments: the
	// LD_PRELOAD it is given names the installed library, found beside
	// the binary's real path when latmap is run through a symlink.
	fake := filepath.Join(elsewhere, "srun")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho \"fake srun: $*\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(elsewhere, "latmap")
	if err := os.Symlink(bin, link); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(link, "profile", "-o", "out", "--", fake, "./app")
	cmd.Dir, cmd.Env = elsewhere, env
	out, _ := cmd.CombinedOutput() // fails: the stand-in writes no profile
	lib := filepath.Join(prefix, "lib", "liblatmap.so")
	if !strings.Contains(string(out), "LD_PRELOAD="+lib+",") {
		t.Errorf("the installed latmap, run as %s, did not preload %s:\n%s", link, lib, out)
	}

	for _, f := range []string{
		"share/man/man1/latmap.1",
		"share/man/man1/latmap-place.1",
		"share/man/man1/latmap-survey.1",
		"share/zsh/site-functions/_latmap",
		"share/fish/vendor_completions.d/latmap.fish",
		"share/doc/latmap/README.md",
		"share/doc/latmap/docs/profile.md",
	} {
		if _, err := os.Stat(filepath.Join(prefix, f)); err != nil {
			t.Errorf("not installed: %v", err)
		}
	}
	if b, err := os.ReadFile(filepath.Join(prefix, "share/man/man1/latmap-place.1")); err == nil && !strings.Contains(string(b), `.TH "LATMAP-PLACE" "1"`) {
		t.Errorf("latmap-place.1 is no man page:\n%.300s", b)
	}
	comp := filepath.Join(prefix, "share/bash-completion/completions/latmap")
	if out := run(elsewhere, "bash", "-c", `source "$1" && complete -p latmap`, "bash", comp); !strings.Contains(out, "latmap") {
		t.Errorf("complete -p latmap after sourcing %s: %q", comp, out)
	}

	run(repo, "make", "-s", "uninstall", "PREFIX="+prefix, "DESTDIR=")
	var left []string
	filepath.Walk(prefix, func(p string, info os.FileInfo, err error) error {
		if err == nil && p != prefix {
			rel, _ := filepath.Rel(prefix, p)
			left = append(left, rel)
		}
		return nil
	})
	if strings.Join(left, " ") != "share share/man share/man/man1 share/man/man1/other.1" {
		t.Errorf("after make uninstall the prefix holds %q; want only the other package's share/man/man1/other.1", left)
	}
}
