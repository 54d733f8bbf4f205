package main

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/latmap/latmap/internal/testutil"
)

// commFunction is an mpi.h declaration with a communicator passed by value.
var commFunction = regexp.MustCompile(`\bint\s+MPI_(\w+)\s*\(([^()]*\bMPI_Comm\s+\w+[^()]*)\)`)

// TestEveryCommFunctionIsRemapped preprocesses the mpi.h of Open MPI and
// of MPICH (MPI-IO's declarations included) and checks that every
// function taking an MPI_Comm by value has a wrapper of latmap's, which
// swaps MPI_COMM_WORLD for the renumbered world of latmap profile
// --remap, or is in notRemapped with the reason. A function missing from
// both would see the MPI's own numbering under --remap.
func TestEveryCommFunctionIsRemapped(t *testing.T) {
	wrapped := map[string]bool{}
	for _, p := range append(append([]proto{}, protos...), passes...) {
		wrapped[p.Name] = true
	}
	for _, f := range testutil.Flavors() {
		t.Run(f.Name, func(t *testing.T) {
			if _, err := exec.LookPath(f.CC); err != nil {
				testutil.Missing(t, f.Name, "%s is not on PATH (%v)", f.CC, err)
			}
			cmd := exec.Command(f.CC, "-E", "-P", "-x", "c", "-")
			cmd.Stdin = strings.NewReader("#include <mpi.h>\n")
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%s -E of mpi.h: %v", f.CC, err)
			}
			n := 0
			for _, m := range commFunction.FindAllStringSubmatch(string(out), -1) {
				n++
				if !wrapped[m[1]] && notRemapped[m[1]] == "" {
					t.Errorf("MPI_%s(%s) takes a communicator and has no wrapper: add it to passes (interpose/internal/gen/passthrough.go) or say in notRemapped why the MPI's own world is right", m[1], m[2])
				}
			}
			if n < 100 {
				t.Fatalf("found only %d functions with a communicator in %s's mpi.h: the pattern no longer reads it", n, f.Name)
			}
		})
	}
}

// TestWrappersSwapTheWorld checks in the generated wrappers that every
// communicator parameter goes through LM_WORLD before anything else.
func TestWrappersSwapTheWorld(t *testing.T) {
	files, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	src := string(files[wrappersFile])
	n := 0
	for _, p := range append(append([]proto{}, protos...), passes...) {
		for _, q := range parseParams(p.Params) {
			if q.typ != "MPI_Comm" || q.array {
				continue
			}
			n++
			head := "int MPI_" + p.Name + "(" + p.Params + ")\n{\n"
			i := strings.Index(src, head)
			if i < 0 {
				t.Fatalf("no wrapper of MPI_%s", p.Name)
			}
			body := src[i+len(head):]
			body = body[:strings.Index(body, "\n}\n")]
			swap := "\t" + q.name + " = LM_WORLD(" + q.name + ");"
			if j := strings.Index(body, swap); j < 0 || strings.Contains(body[:j], "PMPI_") || strings.Contains(body[:j], "lm_tick") {
				t.Errorf("MPI_%s's wrapper does not swap %s first:\n%s", p.Name, q.name, body)
			}
		}
	}
	if n < 150 {
		t.Errorf("only %d communicator parameters checked", n)
	}
}
