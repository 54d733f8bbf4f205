package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCutPairsSaid: a pairs.csv cut at a line boundary (its last rows
// gone) of a survey whose meta.json promises every pair is read, and
// every reader says on standard error, in the same one line, how many
// pairs are missing against meta.json and what became of them; topo and
// place keep it among their notes too (a reader of --json sees it).
func TestCutPairsSaid(t *testing.T) {
	dir := t.TempDir()
	in := fixtures(t, dir)
	whole := filepath.Join(dir, "whole")
	must(t, os.CopyFS(whole, os.DirFS(in["survey"])))
	path := filepath.Join(in["survey"], "pairs.csv")
	b, err := os.ReadFile(path)
	must(t, err)
	lines := strings.SplitAfter(string(b), "\n")
	// The header, 15 pairs of 6 ranks and "": keep 12 pairs.
	must(t, os.WriteFile(path, []byte(strings.Join(lines[:13], "")), 0o644))
	want := "latmap: pairs.csv: 3 of 15 rank pairs at 64 bytes are missing against meta.json (6 ranks, scope all; was the file cut short?): left unmeasured"
	for _, c := range []struct {
		args   []string
		stdout string // also in standard output ("": not)
	}{
		{[]string{"topo", in["survey"], "--json"}, strings.TrimPrefix(want, "latmap: ")},
		{[]string{"topo", in["survey"]}, "note: " + strings.TrimPrefix(want, "latmap: ")},
		{[]string{"plot", in["survey"], "-o", filepath.Join(dir, "s.png")}, ""},
		{[]string{"compare", in["survey"], whole, "-o", filepath.Join(dir, "c.png")}, ""},
		{[]string{"place", "--survey", in["survey"], "--matrix", in["matrix"]}, "warning: " + strings.TrimPrefix(want, "latmap: ")},
	} {
		t.Run(c.args[0], func(t *testing.T) {
			root := newRootCmd()
			var out, errs bytes.Buffer
			root.SetOut(&out)
			root.SetErr(&errs)
			root.SetArgs(c.args)
			if err := root.Execute(); err != nil && exitCode(err) != 3 {
				t.Fatalf("latmap %s: %v\n%s", strings.Join(c.args, " "), err, errs.String())
			}
			said := errs.String()
			if c.args[0] == "compare" {
				// compare says each input's notes with its path, on
				// standard error like every reader.
				want = strings.Replace(want, "latmap: ", "latmap: "+in["survey"]+": ", 1)
				defer func() { want = strings.Replace(want, in["survey"]+": ", "", 1) }()
			}
			if n := strings.Count(said, want+"\n"); n != 1 {
				t.Errorf("latmap %s says %d times %q:\n%s", strings.Join(c.args, " "), n, want, said)
			}
			if c.stdout != "" && !strings.Contains(out.String(), c.stdout) {
				t.Errorf("latmap %s: output lacks %q:\n%s", strings.Join(c.args, " "), c.stdout, out.String())
			}
		})
	}
}
