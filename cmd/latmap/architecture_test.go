package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImportGraph checks the one-way flow of docs/architecture.md on the
// real import graph (go list, test files excluded): consumers never import
// producers, and the model imports nothing of latmap's outside mapper/ and
// internal/.
func TestImportGraph(t *testing.T) {
	const mod = "github.com/latmap/latmap/"
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, mod+"...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	producers := []string{mod + "bench", mod + "interpose"}
	under := func(p string, roots ...string) bool {
		for _, r := range roots {
			if p == r || strings.HasPrefix(p, r+"/") {
				return true
			}
		}
		return false
	}
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		pkg, imports := f[0], f[1:]
		for _, imp := range imports {
			if !strings.HasPrefix(imp, mod) {
				continue
			}
			checked++
			switch {
			case under(pkg, mod+"plots", mod+"placement") && under(imp, producers...):
				t.Errorf("consumer %s imports producer %s", pkg, imp)
			case under(pkg, mod+"mapper") && !under(imp, mod+"mapper", mod+"internal"):
				t.Errorf("model %s imports %s (outside mapper/ and internal/)", pkg, imp)
			case !under(pkg, mod+"cmd") && under(imp, mod+"cmd"):
				t.Errorf("%s imports the CLI %s", pkg, imp)
			}
		}
	}
	if checked < 20 {
		t.Fatalf("only %d latmap imports seen; is go list reading this module?\n%s", checked, out)
	}
}
