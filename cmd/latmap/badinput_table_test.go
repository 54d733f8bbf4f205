package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latmap/latmap/internal/exitcode"
)

// badRow is one command line given one class of bad input. args and
// spoil name the fixtures as {survey}, {profile}, {matrix}, {mmpi},
// {rankfile}, {advice}, the output as {out} and the test's directory as
// {dir}.
type badRow struct {
	args []string
	// spoil is the file (or directory) the class applies to; "" for a
	// flag row (out of range, conflicting) or an output row.
	spoil string
	class string
	// col is the column nan and negative put their value in (a CSV
	// header name; for an mmpi log, the text replaced).
	col string
	// names is what the error must name: the user's path ({...}
	// expanded), a file's name or a flag; "" names spoil.
	names []string
	// fix is a word of how to fix it; "" takes any of fixWords.
	fix string
}

// fixWords say what a file should hold or what to do instead.
var fixWords = []string{"want", "need", "give", "choose", "create", "written by latmap", "latmap survey", "latmap profile", "--"}

// badClasses spoil a file's text (nil text: the file is removed or
// replaced by a directory, by spoilPath).
var badClasses = map[string]func(text, col string) string{
	"empty": func(string, string) string { return "" },
	"truncated": func(text, _ string) string {
		lines := strings.SplitAfter(text, "\n")
		return strings.Join(lines[:len(lines)/2], "")
	},
	"header only": func(text, _ string) string {
		first, _, _ := strings.Cut(text, "\n")
		return first + "\n"
	},
	"wrong columns": func(text, col string) string {
		var out []string
		for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
			f := strings.Split(l, ",")
			out = append(out, strings.Join(append(f[:1:1], f[2:]...), ","))
		}
		return strings.Join(out, "\n") + "\n"
	},
	// A fit.csv (the fixture survey has none) whose second row is not
	// numbers.
	"garbage fit": func(string, string) string {
		return "rank_a,rank_b,latency_us,bandwidth_MBps\n0,1,2.5,100\nzero,1,fast,3\n"
	},
	"NaN":      func(text, col string) string { return setField(text, col, "NaN") },
	"negative": func(text, col string) string { return setField(text, col, "-5") },
}

// setField puts v in column col of a CSV's first row, or in place of the
// text col where the file has no such column.
func setField(text, col, v string) string {
	lines := strings.Split(text, "\n")
	head := strings.Split(lines[0], ",")
	for i, h := range head {
		if h == col {
			f := strings.Split(lines[1], ",")
			f[i] = v
			lines[1] = strings.Join(f, ",")
			return strings.Join(lines, "\n")
		}
	}
	if !strings.Contains(text, col) {
		panic("no column or text " + col)
	}
	return strings.Replace(text, col, v, 1)
}

// spoilPath applies class to path.
func spoilPath(t *testing.T, path, class, col string) {
	t.Helper()
	switch class {
	case "missing":
		must(t, os.RemoveAll(path))
		return
	case "a directory":
		must(t, os.RemoveAll(path))
		must(t, os.Mkdir(path, 0o755))
		return
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() && class == "empty" {
		must(t, os.RemoveAll(path))
		must(t, os.Mkdir(path, 0o755))
		return
	}
	spoil := badClasses[class]
	if spoil == nil {
		t.Fatalf("no class %q", class)
	}
	b, err := os.ReadFile(path)
	if class != "garbage fit" {
		must(t, err)
	}
	must(t, os.WriteFile(path, []byte(spoil(string(b), col)), 0o644))
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// fileRows are rows of cmd's input spoiled by each class in turn.
func fileRows(args []string, spoil string, cols map[string]string, classes ...string) []badRow {
	var rows []badRow
	for _, c := range classes {
		rows = append(rows, badRow{args: args, spoil: spoil, class: c, col: cols[c]})
	}
	return rows
}

var (
	surveyNum = map[string]string{"NaN": "rtt_mean_us", "negative": "rtt_median_us"}
	matrixNum = map[string]string{"NaN": "bytes", "negative": "messages"}
)

// badTable is every command that reads files, crossed with the classes
// of bad input that apply to it.
func badTable() []badRow {
	profNum := map[string]string{"NaN": "elapsed_s", "negative": "elapsed_s"}
	mmpiNum := map[string]string{"negative": "3.20"}
	all := []string{"missing", "empty", "a directory", "header only", "wrong columns", "NaN", "negative"}
	var rows []badRow
	add := func(r ...badRow) { rows = append(rows, r...) }

	topo := []string{"topo", "{survey}"}
	add(fileRows(topo, "{survey}/pairs.csv", surveyNum, all...)...)
	add(fileRows(topo, "{survey}/ranks.csv", nil, "missing", "empty", "truncated", "header only")...)
	add(fileRows(topo, "{survey}", nil, "missing", "empty")...)
	add(badRow{args: append(topo, "--size", "-5"), names: []string{"--size"}},
		badRow{args: append(topo, "--topology", "{dir}/none.conf"), names: []string{"--topology", "{dir}/none.conf"}})

	plot := []string{"plot", "{survey}", "-o", "{out}.png"}
	add(fileRows(plot, "{survey}/pairs.csv", surveyNum, "empty", "NaN")...)
	add(fileRows(plot, "{survey}/ranks.csv", nil, "truncated")...)
	plotP := []string{"plot", "{profile}", "-o", "{out}.png"}
	add(fileRows(plotP, "{profile}/ranks.csv", profNum, "truncated", "NaN", "negative", "wrong columns")...)
	add(fileRows(plotP, "{profile}/functions.csv", map[string]string{"NaN": "calls", "negative": "time_s"}, "empty", "NaN", "negative")...)
	add(badRow{args: append(plot, "--size", "-7"), names: []string{"size"}},
		badRow{args: append(plot, "--style", "matrix"), names: []string{"matrix", "{survey}"}},
		badRow{args: []string{"plot", "{survey}", "-o", "{dir}/no/out.png"}, names: []string{"{dir}/no"}})

	compare := []string{"compare", "{survey}", "{mmpi}", "-o", "{out}.png"}
	// An mmpi log truncated at a line is a log of a run cut short: read,
	// with a note of the pairs it lacks; nan is how mmpi's printf writes
	// a pair it could not time.
	add(fileRows(compare, "{mmpi}", mmpiNum, "missing", "empty", "a directory", "negative")...)
	add(fileRows(compare, "{survey}/ranks.csv", nil, "truncated")...)
	add(badRow{args: append(compare, "--size", "-3"), names: []string{"--size"}},
		badRow{args: []string{"compare", "{survey}", "{mmpi}", "--order", "host"}, names: []string{"--order"}},
		badRow{args: []string{"compare", "{survey}", "{mmpi}", "-o", "{dir}/no/out.png"}, names: []string{"{dir}/no"}})

	imp := []string{"import", "mmpi", "{mmpi}", "-o", "{out}"}
	add(fileRows(imp, "{mmpi}", mmpiNum, "missing", "empty", "a directory", "header only", "negative")...)
	add(badRow{args: []string{"import", "mmpi", "{mmpi}", "-o", "{dir}/no/out"}, names: []string{"{dir}/no"}},
		badRow{args: []string{"import", "ompi-monitoring", "{dir}/nomon", "-o", "{out}"}, names: []string{"{dir}/nomon"}},
		badRow{args: []string{"import", "ompi-monitoring", "{dir}/nomon", "-o", "{out}", "--host-pattern", "x"}, names: []string{"--host-pattern"}})

	report := []string{"report", "{profile}"}
	add(fileRows(report, "{profile}/ranks.csv", profNum, "missing", "empty", "truncated", "header only", "wrong columns", "NaN", "negative")...)
	add(fileRows(report, "{profile}/matrix.csv", matrixNum, "a directory", "wrong columns", "NaN", "negative")...)
	add(fileRows(report, "{profile}/functions.csv", map[string]string{"NaN": "calls", "negative": "time_s"}, "missing", "NaN", "negative")...)
	add(badRow{args: append(report, "--top", "-1"), names: []string{"--top"}},
		badRow{args: append(report, "--top", "0"), names: []string{"--top", "at least 1"}},
		badRow{args: append(report, "-o", "{out}.html"), names: []string{"--html"}},
		badRow{args: []string{"report", "--html", "-o", "{dir}/no/out.html", "{profile}"}, names: []string{"{dir}/no"}})

	export := []string{"export", "pprof", "{profile}", "-o", "{out}.pb.gz"}
	add(fileRows(export, "{profile}/functions.csv", map[string]string{"NaN": "time_s", "negative": "calls"}, "missing", "empty", "wrong columns", "NaN", "negative")...)
	add(fileRows(export, "{profile}/ranks.csv", nil, "truncated")...)
	add(badRow{args: []string{"export", "perf", "{profile}", "-o", "{out}"}, names: []string{"perf"}},
		badRow{args: []string{"export", "pprof", "{profile}", "-o", "{dir}/no/out.pb.gz"}, names: []string{"{dir}/no"}})

	place := []string{"place", "--always-write", "--survey", "{survey}", "--matrix", "{matrix}", "-o", "{out}"}
	add(fileRows(place, "{matrix}", matrixNum, "missing", "empty", "a directory", "header only", "wrong columns", "NaN", "negative")...)
	add(fileRows(place, "{survey}/ranks.csv", nil, "truncated", "missing")...)
	add(fileRows(place, "{survey}/pairs.csv", surveyNum, "NaN")...)
	add(badRow{args: place, spoil: "{survey}/fit.csv", class: "garbage fit", fix: `fit.csv: line 3: rank_a: "zero": want a whole number`})
	placeP := []string{"place", "--always-write", "--survey", "{survey}", "--profile", "{profile}", "-o", "{out}"}
	add(fileRows(placeP, "{profile}/ranks.csv", profNum, "truncated", "NaN")...)
	add(badRow{args: append(place, "--trials", "0"), names: []string{"--trials"}},
		badRow{args: append(place, "--renumber", "{out}.r"), names: []string{"--renumber", "--same-slots"}},
		badRow{args: append(place, "--node-link", "nan"), names: []string{"--node-link", "NaN"}},
		badRow{args: append(place, "--memory-bandwidth", "inf"), names: []string{"--memory-bandwidth", "Inf"}},
		badRow{args: append(place, "--bandwidth-net", "inf"), names: []string{"--bandwidth-net", "Inf"}},
		badRow{args: append(place, "--restarts", "5"), names: []string{"--restarts", "--qaplib"}},
		badRow{args: []string{"place", "--qaplib", "{matrix}", "--survey", "{survey}"}, names: []string{"--qaplib", "--survey", "drop one"}},
		badRow{args: []string{"place", "--survey", "{survey}", "--matrix", "{matrix}", "-o", "{dir}/no/out"}, names: []string{"{dir}/no"}})

	return append(rows, launchTable()...)
}

// launchTable is the rows of the commands that launch (profile, verify)
// or are launched (survey): none may reach mpirun.
func launchTable() []badRow {
	launch := []string{"--", "mpirun", "-np", "4", "./app"}
	verify := []string{"verify", "-o", "{out}", "--rankfile", "{rankfile}", "--launcher", "openmpi", "--format", "openmpi", "--lib", "none"}
	profile := []string{"profile", "-o", "{out}", "--launcher", "openmpi", "--reorder", "{survey}"}
	var rows []badRow
	add := func(r ...badRow) { rows = append(rows, r...) }
	add(fileRows(append(verify, launch...), "{rankfile}", nil, "missing", "empty", "a directory", "truncated")...)
	add(fileRows(append(verify, append([]string{"--place", "{advice}"}, launch...)...), "{advice}", nil, "missing", "empty", "a directory", "truncated")...)
	add(badRow{args: append(append(verify, "--runs", "0"), launch...), names: []string{"--runs"}},
		badRow{args: append([]string{"verify", "-o", "{dir}/no/v", "--rankfile", "{rankfile}", "--lib", "none"}, launch...), names: []string{"{dir}/no"}})
	add(fileRows(append(profile, launch...), "{survey}", nil, "missing", "empty")...)
	add(fileRows(append(profile, launch...), "{survey}/ranks.csv", nil, "missing", "truncated", "empty")...)
	add(fileRows(append(profile, launch...), "{survey}/pairs.csv", surveyNum, "missing", "NaN")...)
	add(fileRows(append(append(profile, "--reorder-matrix", "{matrix}"), launch...), "{matrix}", matrixNum, "missing", "empty", "NaN")...)
	add(fileRows(append([]string{"profile", "-o", "{out}", "--launcher", "openmpi", "--remap", "{advice}"}, launch...), "{advice}", nil, "missing", "empty", "truncated")...)
	add(badRow{args: append([]string{"profile", "-o", "{out}", "--launcher", "openmpi", "--call-sites=99"}, launch...), names: []string{"--call-sites"}},
		badRow{args: append([]string{"profile", "-o", "{out}", "--launcher", "openmpi", "--reorder-matrix", "{matrix}"}, launch...), names: []string{"--reorder-matrix", "--reorder"}},
		badRow{args: append([]string{"profile", "-o", "{dir}/no/p", "--launcher", "openmpi"}, launch...), names: []string{"{dir}/no"}})
	// survey checks its outputs and --resume before MPI starts (rank 0,
	// or a process that does not know its rank, as here), and again
	// once it is up.
	survey := []string{"survey", "-o", "{out}"}
	add(badRow{args: []string{"survey", "-o", "{mmpi}"}, names: []string{"{mmpi}", "-o"}},
		badRow{args: []string{"survey", "-o", "{survey}"}, names: []string{"{survey}", "--force"}},
		badRow{args: []string{"survey", "-o", "{dir}/no/out"}, names: []string{"{dir}/no"}},
		badRow{args: []string{"survey", "-o", "{mmpi}/out"}, names: []string{"{mmpi}", "not a directory"}},
		badRow{args: append(survey, "--mmpi", "{survey}"), names: []string{"--mmpi", "{survey}", "file name"}},
		badRow{args: append(survey, "--mmpi", "{dir}/no/log.dat"), names: []string{"--mmpi", "{dir}/no"}},
		badRow{args: []string{"survey", "--resume", "{dir}/none"}, names: []string{"--resume", "{dir}/none"}},
		badRow{args: []string{"survey", "--resume", "{survey}"}, names: []string{"--resume", "{survey}", "not stopped", "-o DIR"}},
		badRow{args: []string{"survey", "--resume", "{mmpi}"}, names: []string{"--resume", "{mmpi}"}})
	add(fileRows(append(survey, "--topology", "{dir}/topology.conf"), "{dir}/topology.conf", nil, "missing", "empty", "a directory")...)
	add(badRow{args: append(survey, "--repeats", "0"), names: []string{"--repeats"}},
		badRow{args: append(survey, "--warmup", "-1"), names: []string{"--warmup", "give 0"}},
		badRow{args: append(survey, "--nodebw-size", "4M", "--node-bandwidth", "off", "--switch-bandwidth", "off"), names: []string{"--nodebw-size", "turn one on"}},
		badRow{args: append(survey, "--time-budget", "-5m"), names: []string{"--time-budget", "want a duration"}},
		badRow{args: append(survey, "--resume", "{survey}", "--mmpi", "{out}.dat"), names: []string{"--resume", "--mmpi"}})
	return rows
}

// TestBadInputTable: each row of badTable exits with status 2, its one
// error line names the input (the path the user gave, or the flag) and
// says how to fix it, nothing is written, and nothing is launched: a
// stand-in mpirun first on PATH records every call, and only version
// probes may reach it.
func TestBadInputTable(t *testing.T) {
	bin := t.TempDir()
	calls := filepath.Join(bin, "calls")
	must(t, os.WriteFile(filepath.Join(bin, "mpirun"), []byte("#!/bin/sh\necho \"$@\" >> "+calls+"\nexit 0\n"), 0o755))
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	// A library that is there: the checks before it are what the rows
	// test.
	lib := filepath.Join(bin, "liblatmap.so")
	must(t, os.WriteFile(lib, []byte("not a library"), 0o644))
	t.Setenv("LATMAP_LIB", lib)
	advice := adviceFixture(t)
	for _, r := range badTable() {
		name := strings.Join(r.args[:min(2, len(r.args))], " ") + " " + strings.TrimPrefix(r.spoil, "{") + " " + r.class
		if r.spoil == "" {
			name = strings.Join(r.args, " ")
		}
		name = strings.NewReplacer("{", "", "}", "", "/", " ").Replace(name)
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			in := fixtures(t, dir)
			in["mmpi"] = copyFile(t, in["mmpi"], filepath.Join(dir, "log.dat"))
			in["rankfile"] = in["current"]
			in["advice"] = copyFile(t, advice, filepath.Join(dir, "advice.json"))
			in["dir"] = dir
			copyFile(t, in["topology"], filepath.Join(dir, "topology.conf"))
			out := filepath.Join(dir, "out")
			args := expand(r.args, in, out)
			names := r.names
			if r.spoil != "" {
				target := expand([]string{r.spoil}, in, out)[0]
				spoilPath(t, target, r.class, r.col)
				names = []string{filepath.Dir(target), filepath.Base(target)}
				if strings.HasPrefix(r.spoil, "{") && !strings.Contains(r.spoil, "/") {
					names = []string{target}
				}
			}
			must(t, os.WriteFile(calls, nil, 0o644))
			msg, err := runSafely(t, args...)
			line := strings.TrimSpace(strings.ReplaceAll(msg, "\n", " "))
			if err == nil {
				t.Fatalf("latmap %s: no error\n%s", strings.Join(args, " "), line)
			}
			text := err.Error()
			if code := exitCode(err); code != exitcode.Usage {
				t.Errorf("status %d, want %d: %s", code, exitcode.Usage, text)
			}
			if strings.Contains(strings.TrimSpace(text), "\n") {
				t.Errorf("error is not one line: %q", text)
			}
			for _, n := range expand(names, in, out) {
				if !strings.Contains(text, n) {
					t.Errorf("error does not name %s: %s", n, text)
				}
			}
			if !saysFix(text, r.fix) {
				t.Errorf("error does not say how to fix it (%q): %s", fixWordsOf(r.fix), text)
			}
			if strings.Contains(text, "strconv.") {
				t.Errorf("error shows a raw parse error: %s", text)
			}
			if w := outputs(out); len(w) > 0 {
				t.Errorf("wrote %v (error %s)", w, text)
			}
			if _, err := os.Stat(filepath.Join(dir, "no")); err == nil {
				t.Errorf("made %s", filepath.Join(dir, "no"))
			}
			b, _ := os.ReadFile(calls)
			for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
				if l != "" && l != "--version" {
					t.Errorf("launched: mpirun %s", l)
				}
			}
		})
	}
}

func fixWordsOf(fix string) []string {
	if fix != "" {
		return []string{fix}
	}
	return fixWords
}

// saysFix reports whether msg holds fix, or one of fixWords.
func saysFix(msg, fix string) bool {
	for _, w := range fixWordsOf(fix) {
		if strings.Contains(msg, w) {
			return true
		}
	}
	return false
}

// adviceFixture is place --json's advice on the fixtures, in a file.
func adviceFixture(t *testing.T) string {
	dir := t.TempDir()
	in := fixtures(t, dir)
	root := newRootCmd()
	var out, errs strings.Builder
	root.SetOut(&out)
	root.SetErr(&errs)
	root.SetArgs([]string{"place", "--survey", in["survey"], "--current", in["current"], "--same-slots", "--matrix", in["matrix"], "--json"})
	if err := root.Execute(); err != nil && exitCode(err) != exitcode.NoAdvice {
		t.Fatalf("place --json: %v\n%s", err, errs.String())
	}
	p := filepath.Join(dir, "advice.json")
	must(t, os.WriteFile(p, []byte(out.String()), 0o644))
	return p
}
