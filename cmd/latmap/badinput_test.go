package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/latmap/latmap/internal/exitcode"
	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/mapper/survey/synth"
)

// badInputs are what a file a command reads may hold instead of what it
// should: each replaces the file's whole content. "" is an empty file.
var badInputs = map[string]string{
	"empty":       "",
	"garbage":     "\x00\x01\x02\xff\xfe binary \x00 garbage\n\x7f",
	"one word":    "hello\n",
	"wrong cols":  "a,b\n1,2\n",
	"json array":  "[1, 2, 3]\n",
	"nan values":  "NaN,NaN,NaN,NaN\n",
	"huge values": "99999999999999999999,1e308,-1e308,1\n",
}

// fixtures writes one valid input of each kind latmap reads into dir: a
// survey of 3 nodes x 2 ranks, a matrix, a profile (copied from
// testdata), a topology.conf of its two hosts, and a rankfile.
func fixtures(t *testing.T, dir string) map[string]string {
	t.Helper()
	s := synth.New(synth.Spec{Nodes: 3, Sockets: 1, Cores: 2, RTT: [4]float64{1, 2, 10, 10}})
	sv := filepath.Join(dir, "survey")
	if err := survey.WriteSurvey(sv, s, false); err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	prof := filepath.Join(dir, "profile")
	src := filepath.Join("..", "..", "testdata", "profile", "splitcoll-slt-cw")
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(prof, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		write(filepath.Join("profile", e.Name()), string(b))
	}
	return map[string]string{
		"survey":   sv,
		"matrix":   write("m.csv", "src,dst,bytes,messages\n0,1,1000,10\n1,0,1000,10\n2,3,1000,10\n3,2,1000,10\n"),
		"profile":  prof,
		"topology": write("topology.conf", "SwitchName=s0 Nodes=node000,node001\nSwitchName=s1 Nodes=node002\nSwitchName=top Switches=s0,s1\n"),
		"current":  write("rankfile", "rank 0=node000 slot=0\nrank 1=node000 slot=1\nrank 2=node001 slot=0\nrank 3=node001 slot=1\n"),
		"mmpi":     filepath.Join("..", "..", "testdata", "mmpi", "stampede_2x16_ammpi_32_64_100.dat"),
	}
}

// command is one latmap command line over the fixtures: args names the
// inputs as {kind} and the file it writes as {out}.
type command struct {
	args []string
	// files are the files inside a directory input the bad contents go
	// into (the input itself when it is a file).
	files map[string][]string
}

var commands = []command{
	{[]string{"topo", "{survey}"}, map[string][]string{"survey": {survey.PairsFile, survey.RanksFile, survey.MetaFile}}},
	{[]string{"plot", "{survey}", "-o", "{out}.png"}, map[string][]string{"survey": {survey.PairsFile, survey.RanksFile, survey.MetaFile}}},
	{[]string{"plot", "{profile}", "-o", "{out}.png"}, map[string][]string{"profile": {"ranks.csv", "functions.csv", "meta.json"}}},
	{[]string{"compare", "{survey}", "{mmpi}", "-o", "{out}.png"}, map[string][]string{"mmpi": {""}}},
	{[]string{"import", "mmpi", "{mmpi}", "-o", "{out}"}, map[string][]string{"mmpi": {""}}},
	{[]string{"report", "{profile}"}, map[string][]string{"profile": {"ranks.csv", "functions.csv", "matrix.csv", "meta.json"}}},
	{[]string{"export", "pprof", "{profile}", "-o", "{out}.pb.gz"}, map[string][]string{"profile": {"ranks.csv", "functions.csv"}}},
	{[]string{"place", "--always-write", "--survey", "{survey}", "--matrix", "{matrix}", "-o", "{out}"}, map[string][]string{"survey": {survey.PairsFile, survey.RanksFile}, "matrix": {""}}},
	{[]string{"place", "--always-write", "--survey", "{survey}", "--matrix", "{matrix}", "--topology", "{topology}", "-o", "{out}"}, map[string][]string{"topology": {""}}},
	{[]string{"place", "--always-write", "--survey", "{survey}", "--matrix", "{matrix}", "--current", "{current}", "-o", "{out}"}, map[string][]string{"current": {""}}},
	{[]string{"place", "--always-write", "--survey", "{survey}", "--profile", "{profile}", "-o", "{out}"}, map[string][]string{"profile": {"ranks.csv", "matrix.csv"}}},
}

// TestBadInputs: every command, given a file it reads with bad contents
// (or missing, or a directory where a file goes), fails with one line,
// writes nothing, and does not panic. Each command also runs once on the
// valid fixtures, which must work and write its output (place with
// --force, which writes even a layout not worth changing to), so that
// each failure is the bad input's and "writes nothing" can fail. The
// bad cases do not rerun the valid one: under make test's race detector
// that rerun was three quarters of the step's time (51 s of 58).
func TestBadInputs(t *testing.T) {
	for ci, c := range commands {
		// The valid fixtures work, once a command (the bad cases below
		// differ from them in the one file they spoil).
		t.Run(fmt.Sprintf("%d %s valid", ci, c.args[0]), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			out := filepath.Join(dir, "out")
			if _, err := runSafely(t, expand(c.args, fixtures(t, dir), out)...); err != nil {
				t.Fatalf("valid inputs: %v", err)
			}
			// What the bad cases must not write, the valid inputs do.
			if slices.Contains(c.args, "-o") && len(outputs(out)) == 0 {
				t.Errorf("latmap %s wrote nothing on valid inputs", strings.Join(c.args, " "))
			}
		})
		for kind, files := range c.files {
			for _, file := range files {
				cases := map[string]func(path string) error{
					"missing": os.RemoveAll,
					"a directory": func(p string) error {
						if err := os.RemoveAll(p); err != nil {
							return err
						}
						return os.Mkdir(p, 0o755)
					},
				}
				for name, text := range badInputs {
					cases[name] = func(p string) error { return os.WriteFile(p, []byte(text), 0o644) }
				}
				for name, spoil := range cases {
					t.Run(fmt.Sprintf("%d %s/%s/%s %s", ci, c.args[0], kind, file, name), func(t *testing.T) {
						// In parallel: make test runs this under the race
						// detector, where commands running at once in one
						// process is a check of its own.
						t.Parallel()
						dir := t.TempDir()
						in := fixtures(t, dir)
						out := filepath.Join(dir, "out")
						args := expand(c.args, in, out)
						target := in[kind]
						if kind == "mmpi" {
							target = copyFile(t, target, filepath.Join(dir, "log.dat"))
							args = expand(c.args, map[string]string{"survey": in["survey"], "mmpi": target}, out)
						}
						if file != "" {
							target = filepath.Join(target, file)
						}
						if err := spoil(target); err != nil {
							t.Fatal(err)
						}
						msg, err := runSafely(t, args...)
						if err == nil {
							t.Fatalf("latmap %s with %s %s: no error\n%s", strings.Join(args, " "), target, name, msg)
						}
						if line := err.Error(); line == "" || strings.Contains(strings.TrimSpace(line), "\n") {
							t.Errorf("error is not one line: %q", line)
						}
						if code := exitCode(err); code != exitcode.Usage {
							t.Errorf("exit status %d, want %d (usage or input error): %v", code, exitcode.Usage, err)
						}
						if written := outputs(out); len(written) > 0 {
							t.Errorf("wrote %v on bad input (error %v)", written, err)
						}
					})
				}
			}
		}
	}
}

// runSafely runs latmap in process, turning a panic into a test failure
// that names the command.
func runSafely(t *testing.T, args ...string) (out string, err error) {
	t.Helper()
	defer func() {
		if p := recover(); p != nil {
			t.Fatalf("latmap %s panicked: %v", strings.Join(args, " "), p)
		}
	}()
	return runLatmap(t, args...)
}

// expand puts the inputs and the output into a command line.
func expand(args []string, in map[string]string, out string) []string {
	var x []string
	for _, a := range args {
		a = strings.ReplaceAll(a, "{out}", out)
		for k, v := range in {
			a = strings.ReplaceAll(a, "{"+k+"}", v)
		}
		x = append(x, a)
	}
	return x
}

// outputs lists what exists at out or out.*.
func outputs(out string) []string {
	m, _ := filepath.Glob(out + "*")
	return m
}

func clean(t *testing.T, out string) {
	for _, p := range outputs(out) {
		if err := os.RemoveAll(p); err != nil {
			t.Fatal(err)
		}
	}
}

func copyFile(t *testing.T, from, to string) string {
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return to
}

// TestBadFlags: numeric and path flags at zero, negative and absurd
// values fail with one line that names the flag, and write nothing.
func TestBadFlags(t *testing.T) {
	dir := t.TempDir()
	in := fixtures(t, dir)
	out := filepath.Join(dir, "out")
	place := []string{"place", "--survey", in["survey"], "--matrix", in["matrix"], "-o", out}
	survey := []string{"survey", "-o", out}
	exists := filepath.Join(dir, "exists.png")
	if err := os.WriteFile(exists, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{append(place, "--ranks-per-node", "-3"), "--ranks-per-node"},
		{append(place, "--ranks-per-node", "1"), "--ranks-per-node"},
		{append(place, "--trials", "-1"), "--trials"},
		{append(place, "--ranks", "-2"), "--ranks"},
		{append(place, "--ranks", "100000"), "slots"},
		{append(place, "--bandwidth-net", "-1"), "bandwidth"},
		{append(place, "--node-link", "-4"), "--node-link"},
		{append(place, "--memory-bandwidth", "-1"), "--memory-bandwidth"},
		{append(place, "--format", "lsf"), "--format"},
		{append(place, "--exclude", "nosuchhost"), "--exclude"},
		{append(place, "--what-if", "bw=0"), "what-if"},
		{append(place, "--what-if", "bw=-1"), "what-if"},
		{append(place, "--topology", filepath.Join(dir, "none.conf")), "--topology"},
		{[]string{"place", "--matrix", in["matrix"], "-o", out}, "--survey"},
		{append(survey, "--repeats", "0"), "--repeats"},
		{append(survey, "--repeats", "-5"), "--repeats"},
		{append(survey, "--burst", "0"), "--burst"},
		{append(survey, "--warmup", "-1"), "--warmup"},
		{append(survey, "--sizes", "-8"), "size"},
		{append(survey, "--sizes", "2G"), "size"},
		{append(survey, "--isolated-fraction", "-1"), "--isolated-fraction"},
		{append(survey, "--isolated-fraction", "2"), "--isolated-fraction"},
		{append(survey, "--nodebw-size", "0"), "--nodebw-size"},
		{[]string{"compare", in["survey"], in["mmpi"], "--size", "-3"}, "--size"},
		{append(survey, "--scope", "sample:0"), "scope"},
		{append(survey, "--time-budget", "-1s"), "--time-budget"},
		{append(survey, "--topology", filepath.Join(dir, "none.conf")), "--topology"},
		{[]string{"plot", in["survey"], "-o", out + ".png", "--size", "-7"}, "size"},
		{[]string{"plot", in["survey"], "-o", out + ".png", "--order", "sideways"}, "order"},
		{[]string{"plot", in["survey"], "-o", out + ".bmp"}, "bmp"},
		{[]string{"topo", in["survey"], "--size", "12345"}, "12345"},
		{[]string{"compare", in["survey"], in["mmpi"], "--metric", "average"}, "--metric"},
		{[]string{"plot", in["survey"], "-o", exists}, "exists"},
		{[]string{"plot", in["survey"], "-o", "/proc/latmap/x.png"}, "/proc/latmap"},
		{[]string{"import", "mmpi", in["mmpi"], "-o", in["survey"]}, "exists"},
		{[]string{"place", "--survey", in["survey"], "--matrix", in["matrix"], "-o", "/proc/latmap/rankfile", "--force"}, "/proc/latmap"},
	} {
		t.Run(strings.Join(c.args[1:], " "), func(t *testing.T) {
			_, err := runSafely(t, c.args...)
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(strings.TrimSpace(err.Error()), "\n") {
				t.Errorf("latmap %s: error %v, want one line naming %s", strings.Join(c.args, " "), err, c.want)
			}
			if written := outputs(out); len(written) > 0 {
				t.Errorf("wrote %v", written)
				clean(t, out)
			}
		})
	}
	if b, err := os.ReadFile(exists); err != nil || string(b) != "mine" {
		t.Errorf("an existing -o file was changed: %q, %v", b, err)
	}
}

// TestPlaceNotWrittenExits3: place -o F whose proposal the verdict does
// not advise exits with status 3 (exitcode.NoAdvice) and leaves F
// unwritten, so that "place -o F && mpirun ... F" does not launch; with
// --always-write it writes F and exits 0; a second run without --force
// refuses to replace F, with status 2.
func TestPlaceNotWrittenExits3(t *testing.T) {
	dir := t.TempDir()
	in := fixtures(t, dir)
	out := filepath.Join(dir, "out")
	// Ranks 0-1 and 2-3 talk, and block already puts each pair on one
	// node: nothing to gain.
	args := []string{"place", "--survey", in["survey"], "--matrix", in["matrix"], "-o", out}
	msg, err := runLatmap(t, args...)
	if code := exitCode(err); code != exitcode.NoAdvice || !strings.Contains(fmt.Sprint(err), "not written") {
		t.Fatalf("place without gain: status %d (%v), want %d and a line saying -o's file is not written\n%s", code, err, exitcode.NoAdvice, msg)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("%s written without a gain", out)
	}
	if _, err := runLatmap(t, append(args, "--always-write")...); err != nil {
		t.Fatalf("--always-write: %v", err)
	}
	if _, err := os.Stat(out); err != nil {
		t.Errorf("--always-write did not write %s: %v", out, err)
	}
	if _, err := runLatmap(t, append(args, "--always-write")...); exitCode(err) != exitcode.Usage || !strings.Contains(fmt.Sprint(err), "--force") {
		t.Errorf("replacing %s without --force: %v, want status %d naming --force", out, err, exitcode.Usage)
	}
}

// TestDurationsEverywhere: every duration flag takes 30s, 10m, 1h and
// bare seconds, and refuses a negative one or a word, naming the flag.
func TestDurationsEverywhere(t *testing.T) {
	for _, c := range []struct {
		in   string
		want time.Duration
	}{{"30s", 30 * time.Second}, {"10m", 10 * time.Minute}, {"1h", time.Hour}, {"45", 45 * time.Second}, {"0.5", 500 * time.Millisecond}} {
		if d, err := parseDuration(c.in); err != nil || d != c.want {
			t.Errorf("parseDuration(%q) = %v, %v; want %v", c.in, d, err, c.want)
		}
	}
	for _, bad := range []string{"-1", "-1s", "soon", "NaN"} {
		if _, err := parseDuration(bad); err == nil {
			t.Errorf("parseDuration(%q): no error", bad)
		}
	}
	for _, args := range [][]string{
		{"profile", "-o", filepath.Join(t.TempDir(), "p"), "--flush-every", "soon", "--", "true"},
		{"profile", "-o", filepath.Join(t.TempDir(), "p"), "--reorder-timeout", "-3", "--", "true"},
		{"survey", "-o", filepath.Join(t.TempDir(), "s"), "--time-budget", "later"},
	} {
		_, err := runLatmap(t, args...)
		if exitCode(err) != exitcode.Usage || !strings.Contains(fmt.Sprint(err), args[3]) {
			t.Errorf("latmap %s: %v, want status %d naming %s", strings.Join(args, " "), err, exitcode.Usage, args[3])
		}
	}
}

// TestNoLaunchOnBadInput: profile and verify given bad flags, files or
// output paths exit with status 2 and one line, before any launch: a
// stand-in mpirun first on PATH records every call, and only version
// probes (--version) may reach it.
func TestNoLaunchOnBadInput(t *testing.T) {
	dir := t.TempDir()
	calls := filepath.Join(dir, "calls")
	stub := filepath.Join(dir, "mpirun")
	if err := os.WriteFile(stub, []byte("#!/bin/sh\necho \"$@\" >> "+calls+"\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	rf := filepath.Join(dir, "rankfile")
	os.WriteFile(rf, []byte("rank 0=h0 slot=0\nrank 1=h0 slot=1\n"), 0o644)
	garbage := filepath.Join(dir, "advice.json")
	os.WriteFile(garbage, []byte("{not json"), 0o644)
	launch := []string{"--", "mpirun", "-np", "2", "./app"}
	for _, args := range [][]string{
		append([]string{"profile", "-o", filepath.Join(dir, "no", "p")}, launch...),
		append([]string{"profile", "-o", rf}, launch...),
		append([]string{"profile", "-o", filepath.Join(dir, "p"), "--lib", filepath.Join(dir, "no.so")}, launch...),
		append([]string{"profile", "-o", filepath.Join(dir, "p"), "--flush-every", "-1"}, launch...),
		append([]string{"verify", "-o", filepath.Join(dir, "no", "v"), "--rankfile", rf, "--launcher", "openmpi", "--format", "openmpi"}, launch...),
		append([]string{"verify", "-o", filepath.Join(dir, "v"), "--rankfile", rf, "--launcher", "openmpi", "--format", "openmpi", "--runs", "0"}, launch...),
		append([]string{"verify", "-o", filepath.Join(dir, "v"), "--rankfile", rf, "--launcher", "openmpi", "--format", "openmpi", "--lib", filepath.Join(dir, "no.so")}, launch...),
		append([]string{"verify", "-o", filepath.Join(dir, "v"), "--rankfile", rf, "--launcher", "openmpi", "--format", "openmpi", "--place", garbage}, launch...),
		{"verify", "-o", filepath.Join(dir, "v"), "--rankfile", rf, "--launcher", "openmpi", "--format", "openmpi", "--", "mpirun", "-np", "3", "./app"},
	} {
		_, err := runLatmap(t, args...)
		if code := exitCode(err); code != exitcode.Usage || err == nil || strings.Contains(strings.TrimSpace(err.Error()), "\n") {
			t.Errorf("latmap %s: status %d (%v), want %d and one line", strings.Join(args, " "), code, err, exitcode.Usage)
		}
		b, _ := os.ReadFile(calls)
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			if line != "" && line != "--version" {
				t.Fatalf("latmap %s launched: mpirun %s", strings.Join(args, " "), line)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "p")); err == nil {
		t.Errorf("a profile directory was written")
	}
}

// TestPlaceSaysWrote: place --json, whose standard output is the JSON,
// says each file it wrote on standard error (-o's and --renumber's), as
// every command does.
func TestPlaceSaysWrote(t *testing.T) {
	dir := t.TempDir()
	in := fixtures(t, dir)
	out, ren := filepath.Join(dir, "p.rf"), filepath.Join(dir, "ren.txt")
	root := newRootCmd()
	var stdout, stderr bytes.Buffer
	root.SetOut(&stdout)
	root.SetErr(&stderr)
	root.SetArgs([]string{"place", "--survey", in["survey"], "--matrix", in["matrix"], "--current", in["current"], "--same-slots",
		"-o", out, "--always-write", "--json", "--renumber", ren})
	if err := root.Execute(); err != nil {
		t.Fatalf("place: %v\n%s", err, stderr.String())
	}
	for _, f := range []string{out, ren} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("%s not written: %v", f, err)
		}
		if !strings.Contains(stderr.String(), "latmap: wrote "+f+"\n") {
			t.Errorf("standard error does not say %s was written:\n%s", f, stderr.String())
		}
	}
	if strings.Contains(stdout.String(), "latmap: wrote") {
		t.Errorf("the JSON's standard output carries the wrote line:\n%s", stdout.String())
	}
}
