package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGeneratedUpToDate regenerates the wrappers in memory and compares them
// with the committed files, so a table change without go generate fails.
func TestGeneratedUpToDate(t *testing.T) {
	files, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join("..", "..", name))
		if err != nil {
			t.Fatalf("%v (run go generate ./interpose)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("interpose/%s is out of date with the table; run go generate ./interpose", name)
		}
	}
}

func TestArgNames(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string
		err  bool
	}{
		{"void", "", false},
		{"const void *buf, int count", "buf,count", false},
		{"MPI_Comm * newcomm, const int dims[]", "newcomm,dims", false},
		{"const int level, ...", "level", false},
		{"int", "", true},
		{"int *", "", true},
	} {
		got, err := argNames(tc.in)
		if (err != nil) != tc.err {
			t.Errorf("argNames(%q) error %v, want error %v", tc.in, err, tc.err)
			continue
		}
		if s := strings.Join(got, ","); !tc.err && s != tc.want {
			t.Errorf("argNames(%q) = %q, want %q", tc.in, s, tc.want)
		}
	}
}

func TestTableKindsHaveTheirParameters(t *testing.T) {
	// A row whose kind needs a parameter it lacks must be refused.
	var w bytes.Buffer
	if err := wrapper(&w, &w, proto{Name: "X", Params: "int a", Kind: kSend}, []string{"a"}); err == nil {
		t.Error("send wrapper without count/datatype/dest accepted")
	}
	if err := wrapper(&w, &w, proto{Name: "X", Params: "MPI_Comm comm", Kind: kColl}, []string{"comm"}); err == nil {
		t.Error("collective without byte expressions accepted")
	}
}

func TestMatrixHooksAreCollectives(t *testing.T) {
	// A hook named for a function the table lacks, or that is not a
	// collective, would never be called (or not link): refuse it.
	kinds := map[string]kind{}
	for _, p := range protos {
		kinds[p.Name] = p.Kind
	}
	for n := range matrixHooks {
		if k, ok := kinds[n]; !ok || (k != kColl && k != kIcoll) {
			t.Errorf("matrixHooks has %s, which is not a collective of the table", n)
		}
	}
	for n, k := range kinds {
		if (k == kColl || k == kIcoll) && !matrixHooks[n] && n != "Barrier" && n != "Ibarrier" {
			t.Errorf("collective %s moves bytes but has no --collectives-in-matrix hook", n)
		}
	}
}
