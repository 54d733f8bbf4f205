package main

import (
	"bytes"
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
