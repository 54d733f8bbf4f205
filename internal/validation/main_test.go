package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/latmap/latmap/internal/testutil"
)

// testNamed is how the page names a test: a link to its file, and its
// package.
var testNamed = regexp.MustCompile("\\[`(Test\\w+)`\\]\\(\\.\\./([^)]+)/(\\w+_test\\.go)\\) in `([^`]+)`")

// TestPageNamesRecorders: every test docs/validation.md names exists in
// the file and package it names and records figures (it, or a helper of
// its package, calls testutil.Record): the page cannot quote a figure no
// test asserts. It runs no test: it reads their source.
func TestPageNamesRecorders(t *testing.T) {
	root := testutil.RepoRoot(t)
	page, err := os.ReadFile(filepath.Join(root, "docs", "validation.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(page), generatedMark) {
		t.Errorf("docs/validation.md does not start with %q: it is written by make validation, not by hand", generatedMark)
	}
	named := testNamed.FindAllStringSubmatch(string(page), -1)
	if len(named) < 10 {
		t.Fatalf("docs/validation.md names %d tests, want its tables' (run make validation)", len(named))
	}
	pkgs := map[string]*testPackage{}
	for _, m := range named {
		name, dir, file, pkg := m[1], m[2], m[3], m[4]
		if dir != pkg {
			t.Errorf("docs/validation.md: %s links to %s/%s but names package %s", name, dir, file, pkg)
		}
		p := pkgs[dir]
		if p == nil {
			if p, err = parseTests(filepath.Join(root, filepath.FromSlash(dir))); err != nil {
				t.Fatal(err)
			}
			pkgs[dir] = p
		}
		fds := p.funcs[name]
		switch {
		case len(fds) == 0:
			t.Errorf("docs/validation.md names %s in %s, which has no such test", name, dir)
		case p.file[fds[0]] != file:
			t.Errorf("docs/validation.md names %s in %s/%s; it is in %s", name, dir, file, p.file[fds[0]])
		case !p.records(name):
			t.Errorf("docs/validation.md names %s (%s), which records no figure: it asserts none of the page's", name, dir)
		}
	}
}

// TestFindRecorders: the search finds a test that records through a
// helper of its package and a method, and not one whose helper records
// nothing or only calls a function of another package named alike.
func TestFindRecorders(t *testing.T) {
	dir := t.TempDir()
	src := `package x

import "github.com/latmap/latmap/internal/testutil"

func TestDirect(t *testing.T)  { testutil.Record(t, "t", "a", 1) }
func TestHelper(t *testing.T)  { t.Run("s", func(t *testing.T) { check(t) }) }
func TestMethod(t *testing.T)  { var c cluster; c.judge(t) }
func TestNothing(t *testing.T) { other(t); strings.Record(t) }
func check(t *testing.T)       { deeper(t) }
func deeper(t *testing.T)      { testutil.Record(t, "t") }
func other(t *testing.T)       { other(t) }
func (c cluster) judge(t *testing.T) { check(t) }
`
	if err := os.WriteFile(filepath.Join(dir, "x_test.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := parseTests(dir)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{"TestDirect": true, "TestHelper": true, "TestMethod": true, "TestNothing": false, "TestAbsent": false} {
		if got := p.records(name); got != want {
			t.Errorf("records(%s) = %v, want %v", name, got, want)
		}
	}
}

// TestWritePage: a table's rows keep their order and columns, a column
// alike in every row is written once above it, numbers to 4 digits, each
// table names its test with a link TestPageNamesRecorders reads back,
// and a recording test that recorded nothing is listed as such.
func TestWritePage(t *testing.T) {
	recs := []testutil.Recorded{
		{Test: "TestB/sub", Package: "placement", Table: "runs", Fields: [][2]any{{"app", "ring"}, {"predicted / simulated", 0.912345}, {"held to", "0.75-1.33"}}},
		{Test: "TestB/sub", Package: "placement", Table: "runs", Fields: [][2]any{{"app", "halo"}, {"predicted / simulated", 1.05}, {"held to", "0.75-1.33"}}},
		{Test: "TestA", Package: "placement", Table: "links", Fields: [][2]any{{"MB/s", 2239.4}}},
	}
	tests := []recordingTest{{"placement", "sim_test.go", "TestA"}, {"placement", "sim_test.go", "TestB"}, {"placement", "e2e_test.go", "TestC"}}
	var b strings.Builder
	if err := writePage(&b, tables(recs), tests, "abc123"); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{
		"### TestA\n\nLinks, asserted by [`TestA`](../placement/sim_test.go) in `placement`.\n\n| MB/s |\n|---|\n| 2239 |\n",
		"### TestB/sub\n\nRuns, asserted by [`TestB`](../placement/sim_test.go) in `placement`.\n\nHeld to: 0.75-1.33.\n\n| app | predicted / simulated |\n|---|---|\n| ring | 0.9123 |\n| halo | 1.05 |\n",
		"wrote none in this run (skipped for a missing tool, or failed): [`TestC`](../placement/e2e_test.go) in `placement`.",
		"commit abc123",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q:\n%s", want, page)
		}
	}
	if strings.Index(page, "### TestA") > strings.Index(page, "### TestB/sub") {
		t.Error("tables not in the order of their tests")
	}
	if got := len(testNamed.FindAllString(page, -1)); got != 3 {
		t.Errorf("TestPageNamesRecorders would read %d tests off the page, want 3", got)
	}
}
