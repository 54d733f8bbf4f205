package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/latmap/latmap/internal/testutil"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "validation: %v\n", err)
		os.Exit(1)
	}
}

// run finds the recording tests, runs them (unless -records names the
// records of an earlier run) and writes the page; it returns an error
// when a test failed, after writing the page from the ones that passed.
func run() error {
	out := flag.String("o", "docs/validation.md", "the page to write")
	records := flag.String("records", "", "write the page from this directory's records instead of running the tests")
	timeout := flag.String("timeout", "60m", "go test's -timeout for each package (SimGrid's simulations are long)")
	list := flag.Bool("list", false, "print the recording tests and exit")
	flag.Parse()
	root, err := repoRoot()
	if err != nil {
		return err
	}
	tests, err := findRecorders(root)
	if err != nil {
		return err
	}
	if *list {
		for _, t := range tests {
			fmt.Printf("%s %s (%s)\n", t.pkg, t.name, t.file)
		}
		return nil
	}
	var testErr error
	dir := *records
	if dir == "" {
		if dir, err = os.MkdirTemp("", "latmap-validation-"); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		testErr = runTests(root, dir, tests, *timeout)
	}
	recs, err := testutil.ReadRecords(dir)
	if err != nil {
		return err
	}
	var page bytes.Buffer
	if err := writePage(&page, tables(recs), tests, commit(root)); err != nil {
		return err
	}
	if err := os.WriteFile(*out, page.Bytes(), 0o644); err != nil {
		return err
	}
	fmt.Printf("validation: %s: %d rows in %d tables\n", *out, len(recs), len(tables(recs)))
	return testErr
}

// runTests runs the recording tests, one package at a time, with
// testutil.RecordEnv set to dir; go test's output goes to ours.
func runTests(root, dir string, tests []recordingTest, timeout string) error {
	var names, pkgs []string
	for _, t := range tests {
		names = append(names, t.name)
		if p := "./" + t.pkg; len(pkgs) == 0 || pkgs[len(pkgs)-1] != p {
			pkgs = append(pkgs, p)
		}
	}
	args := append([]string{"test", "-count=1", "-p", "1", "-timeout", timeout, "-run", "^(" + strings.Join(names, "|") + ")$"}, pkgs...)
	fmt.Printf("validation: go %s\n", strings.Join(args, " "))
	cmd := exec.Command("go", args...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = root, os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), testutil.RecordEnv+"="+dir)
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go test: %w (the page holds the figures of the tests that passed)", err)
	}
	return nil
}

// repoRoot is the directory of go.mod, from the working directory up.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the working directory: run it in latmap's repository")
		}
		dir = parent
	}
}

// commit is git describe of the repository at root ("" outside git).
func commit(root string) string {
	cmd := exec.Command("git", "describe", "--always", "--dirty")
	cmd.Dir = root
	b, err := cmd.Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}
