package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

// TestSurveyFlags checks that the survey flags reach the options: each row
// gives flags whose value latmap must reject, by name, before anything is
// measured. A valid command ends with the no-MPI error (plain go test) or,
// built with the mpi tag, with the error that no MPI launcher started it.
func TestSurveyFlags(t *testing.T) {
	tests := []struct {
		args    []string
		wantErr string
	}{
		{[]string{"survey"}, "--output is required"},
		{[]string{"survey", "-o", "x", "--sizes", "64,huge"}, `message size "huge"`},
		{[]string{"survey", "-o", "x", "--sizes", "2G"}, "larger than 1G"},
		{[]string{"survey", "-o", "x", "--repeats", "1"}, "--repeats 1"},
		{[]string{"survey", "-o", "x", "--burst", "0"}, "--burst 0"},
		{[]string{"survey", "-o", "x", "--warmup", "-2"}, "--warmup -2"},
		{[]string{"survey", "-o", "x", "--schedule", "random"}, `unknown schedule "random"`},
		{[]string{"survey", "-o", "x", "--isolated-fraction", "2"}, "--isolated-fraction 2"},
		{[]string{"survey", "-o", "x", "--mmpi", "x.dat", "--sizes", "6"}, "multiple of 4"},
		{[]string{"survey", "-o", "x", "--sizes", "8,1K", "--schedule", "sequential", "--mmpi", "x.dat"}, "MPI"},
	}
	for _, tc := range tests {
		root := newRootCmd()
		var out bytes.Buffer
		root.SetOut(&out)
		root.SetErr(&out)
		root.SetArgs(tc.args)
		err := root.Execute()
		if tc.wantErr == "MPI" && err != nil && !strings.Contains(err.Error(), "built without MPI") && !strings.Contains(err.Error(), "MPI launcher") {
			t.Errorf("latmap %s: error %v, want the no-MPI or no-launcher error", strings.Join(tc.args, " "), err)
		}
		if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("latmap %s: error %v, want one containing %q", strings.Join(tc.args, " "), err, tc.wantErr)
		}
	}
}

// TestRequiredFlagsOneWay: every command run without a flag it requires
// says so the same way, "--NAME is required (what it is)", with exit
// status 2 (usage or input), whether cobra or the command checks it.
func TestRequiredFlagsOneWay(t *testing.T) {
	for _, args := range [][]string{
		{"plot", "x"}, {"import", "mmpi", "x"}, {"export", "pprof", "x"}, {"profile", "--", "true"},
		{"verify", "--rankfile", "r", "--", "true"}, {"survey"}, {"place", "--matrix", "m.csv"},
	} {
		_, err := runLatmap(t, args...)
		if err == nil || !regexp.MustCompile(`^--(output|survey) is required \(.+\)`).MatchString(err.Error()) || exitCode(err) != 2 {
			t.Errorf("latmap %s: error %v (exit %d), want --NAME is required (...) and exit 2", strings.Join(args, " "), err, exitCode(err))
		}
	}
}

// TestArgsCountSaid: a command given too few or too many arguments says
// how many it takes and its usage line, not cobra's "accepts 2 arg(s)".
func TestArgsCountSaid(t *testing.T) {
	for _, args := range [][]string{{"compare", "x"}, {"topo"}, {"topo", "a", "b"}, {"export", "pprof"}, {"verify", "-o", "v", "--rankfile", "r"}} {
		_, err := runLatmap(t, args...)
		if err == nil || !strings.Contains(err.Error(), "argument(s),") || !strings.Contains(err.Error(), "latmap "+args[0]+" ") || exitCode(err) != 2 {
			t.Errorf("latmap %s: error %v (exit %d), want how many arguments it takes, its usage, exit 2", strings.Join(args, " "), err, exitCode(err))
		}
	}
}
