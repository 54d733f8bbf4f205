package main

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

func TestSummary(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		ok       bool
		want     []string
	}{
		{"pass and skip", `{"Action":"run","Package":"p","Test":"TestA"}
{"Action":"output","Package":"p","Test":"TestA","Output":"=== RUN   TestA\n"}
{"Action":"output","Package":"p","Test":"TestA","Output":"    a_test.go:3: skipping: mpirun not found\n"}
{"Action":"skip","Package":"p","Test":"TestA"}
{"Action":"pass","Package":"p","Test":"TestB"}
{"Action":"output","Package":"p","Output":"ok  \tp\t0.1s\n"}
{"Action":"pass","Package":"p"}
`, true, []string{"ok  \tp\t0.1s", "p TestA: a_test.go:3: skipping: mpirun not found", "1 passed, 0 failed, 1 skipped"}},
		{"a failed test shows its output", `{"Action":"output","Package":"p","Test":"TestC","Output":"    c_test.go:9: got 3, want 4\n"}
{"Action":"fail","Package":"p","Test":"TestC"}
{"Action":"fail","Package":"p"}
`, false, []string{"--- FAIL: TestC (p)", "got 3, want 4", "0 passed, 1 failed, 0 skipped"}},
		{"a package that does not build", `{"ImportPath":"q","Action":"build-output","Output":"q/x.go:1: syntax error\n"}
{"ImportPath":"q","Action":"build-fail"}
{"Action":"output","Package":"q","Output":"FAIL\tq [build failed]\n"}
{"Action":"fail","Package":"q"}
`, false, []string{"syntax error", "FAIL\tq [build failed]", "0 passed, 1 failed, 0 skipped"}},
		{"no events at all", "", false, []string{"0 passed, 0 failed, 0 skipped"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			s := newSummary(&out)
			if err := s.read(strings.NewReader(tc.in)); err != nil {
				t.Fatal(err)
			}
			if ok := s.finish(); ok != tc.ok {
				t.Errorf("finish() = %v, want %v\n%s", ok, tc.ok, out.String())
			}
			for _, w := range tc.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, out.String())
				}
			}
		})
	}
}

// TestSlowest: the closing list has the top-level tests slowest first,
// their subtests not among them, and at most slowestShown of them.
func TestSlowest(t *testing.T) {
	var in strings.Builder
	for i := 1; i <= slowestShown+2; i++ {
		fmt.Fprintf(&in, `{"Action":"pass","Package":"p","Test":"Test%d","Elapsed":%d}`+"\n", i, i)
	}
	in.WriteString(`{"Action":"pass","Package":"p","Test":"Test1/sub","Elapsed":99}` + "\n")
	in.WriteString(`{"Action":"fail","Package":"q","Test":"TestF","Elapsed":50.5}` + "\n")
	var out bytes.Buffer
	s := newSummary(&out)
	if err := s.read(strings.NewReader(in.String())); err != nil {
		t.Fatal(err)
	}
	s.finish()
	got := out.String()
	i := strings.Index(got, "slowest tests:\n")
	if i < 0 {
		t.Fatalf("no slowest tests:\n%s", got)
	}
	lines := strings.Split(strings.TrimSpace(got[i:]), "\n")[1 : slowestShown+1]
	if !strings.Contains(lines[0], "50.5 s  q TestF") || !strings.Contains(lines[1], "12.0 s  p Test12") || !strings.Contains(lines[slowestShown-1], "4.0 s  p Test4") {
		t.Errorf("slowest tests, want q TestF then p Test12 ... p Test4:\n%s", strings.Join(lines, "\n"))
	}
	if strings.Contains(got, "sub") || strings.Contains(got, " Test3\n") {
		t.Errorf("a subtest or the %dth slowest listed:\n%s", slowestShown+2, got)
	}
}
