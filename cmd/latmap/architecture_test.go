package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const mod = "github.com/latmap/latmap/"

// under reports whether package p is one of roots or below one.
func under(p string, roots ...string) bool {
	for _, r := range roots {
		r = mod + r
		if p == r || strings.HasPrefix(p, r+"/") {
			return true
		}
	}
	return false
}

// importRules are docs/architecture.md's rules, each a predicate on one
// import arrow (pkg imports imp) that is true when the arrow breaks it.
var importRules = []struct {
	rule   string
	broken func(pkg, imp string) bool
}{
	{"a consumer never imports a producer", func(pkg, imp string) bool {
		return under(pkg, "plots", "placement") && under(imp, "bench", "interpose")
	}},
	{"the model imports nothing of latmap's outside mapper/ and internal/", func(pkg, imp string) bool {
		return under(pkg, "mapper") && !under(imp, "mapper", "internal")
	}},
	{"internal/ imports nothing of latmap's outside internal/", func(pkg, imp string) bool {
		return under(pkg, "internal") && !under(imp, "internal")
	}},
	{"plots never imports placement (advice and verify files are read through mapper/placefile)", func(pkg, imp string) bool {
		return under(pkg, "plots") && under(imp, "placement")
	}},
	{"a producer never imports a consumer", func(pkg, imp string) bool {
		return under(pkg, "bench", "interpose") && under(imp, "plots", "placement")
	}},
	{"bench and interpose do not import each other", func(pkg, imp string) bool {
		return (under(pkg, "bench") && under(imp, "interpose")) || (under(pkg, "interpose") && under(imp, "bench"))
	}},
	{"placement's parts (model, solve, qap, verify) never import its driver or plots", func(pkg, imp string) bool {
		return under(pkg, "placement/model", "placement/solve", "placement/qap", "placement/verify") &&
			(imp == mod+"placement" || under(imp, "plots"))
	}},
	{"the machine model never imports the solver, the QAP tool or verify", func(pkg, imp string) bool {
		return under(pkg, "placement/model") && under(imp, "placement/solve", "placement/qap", "placement/verify")
	}},
	{"verify runs launch commands only: no model, solver or profiler", func(pkg, imp string) bool {
		return under(pkg, "placement/verify") && under(imp, "placement/model", "placement/solve", "interpose")
	}},
	{"topo and compare build on survey; profile and placefile stand apart from topo and compare", func(pkg, imp string) bool {
		return under(pkg, "mapper/profile", "mapper/placefile", "mapper/survey") && under(imp, "mapper/topo", "mapper/compare")
	}},
	{"nothing imports the CLI", func(pkg, imp string) bool {
		return !under(pkg, "cmd") && under(imp, "cmd")
	}},
}

// TestImportGraph checks every rule of docs/architecture.md on the real
// import graph (go list, test files excluded), built without and with
// -tags mpi, and that the page names every package.
func TestImportGraph(t *testing.T) {
	page, err := os.ReadFile(filepath.Join("..", "..", "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tags := range []string{"", "mpi"} {
		cmd := exec.Command("go", "list", "-tags="+tags, "-f", `{{.ImportPath}} {{join .Imports " "}}`, mod+"...")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go list -tags=%s: %v\n%s", tags, err, out)
		}
		checked := 0
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			f := strings.Fields(line)
			pkg, imports := f[0], f[1:]
			if name := strings.TrimPrefix(pkg, mod); !strings.Contains(string(page), "`"+name+"`") {
				t.Errorf("docs/architecture.md does not name package %s", name)
			}
			for _, imp := range imports {
				if !strings.HasPrefix(imp, mod) {
					continue
				}
				checked++
				for _, r := range importRules {
					if r.broken(pkg, imp) {
						t.Errorf("-tags=%q: %s imports %s: breaks %q", tags, pkg, imp, r.rule)
					}
				}
			}
		}
		if checked < 20 {
			t.Fatalf("only %d latmap imports seen; is go list reading this module?\n%s", checked, out)
		}
	}
}

// Size limits of docs/architecture.md: functions, types and packages a
// person can hold in their head.
const (
	maxFuncLines   = 80
	maxStructField = 15
	maxPkgLines    = 3000
)

// sizeExempt are the structs allowed more fields: option structs, and
// types that mirror a documented file field for field.
var sizeExempt = map[string]string{
	"bench.Options":         "options of latmap survey",
	"placement.Options":     "options of latmap place",
	"profile.Meta":          "mirrors a profile's meta.json",
	"survey.SurveyMeta":     "mirrors a survey's meta.json",
	"placefile.Advice":      "the advice schema (parts embedded)",
	"interpose.Options":     "options of latmap profile",
	"report.HTMLOptions":    "options of latmap report --html",
	"survey.LoadOptions":    "options of the survey readers",
	"placefile.Calibration": "mirrors the advice's calibration object",
}

// TestSizes holds every non-test, non-generated Go file (with and without
// the mpi tag: every file is parsed) to the limits: no function over
// maxFuncLines lines outside internal/, no struct over maxStructField
// fields but the exempt ones, no package over maxPkgLines lines.
func TestSizes(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	pkgLines := map[string]int{}
	err := filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if info.IsDir() && p != root && (info.Name() == "testdata" || info.Name() == "vendor" || strings.HasPrefix(info.Name(), ".")) {
			return filepath.SkipDir
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") || strings.Contains(p, ".gen.") {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			return err
		}
		pkgLines[filepath.Dir(rel)] += fset.Position(f.End()).Line
		checkSizes(t, fset, f, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for dir, n := range pkgLines {
		if n > maxPkgLines {
			t.Errorf("package %s has %d lines of Go (limit %d): split it by concept", dir, n, maxPkgLines)
		}
	}
	if len(pkgLines) < 20 {
		t.Fatalf("only %d packages seen", len(pkgLines))
	}
}

// checkSizes reports the functions and structs of one file over the limits.
func checkSizes(t *testing.T, fset *token.FileSet, f *ast.File, rel string) {
	internal := strings.HasPrefix(rel, "internal"+string(filepath.Separator))
	ast.Inspect(f, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.FuncDecl:
			lines := fset.Position(x.End()).Line - fset.Position(x.Pos()).Line + 1
			if lines > maxFuncLines && !internal {
				t.Errorf("%s:%d: func %s has %d lines (limit %d)", rel, fset.Position(x.Pos()).Line, x.Name.Name, lines, maxFuncLines)
			}
		case *ast.TypeSpec:
			st, ok := x.Type.(*ast.StructType)
			if !ok {
				return true
			}
			fields := 0
			for _, fl := range st.Fields.List {
				fields += max(1, len(fl.Names))
			}
			name := f.Name.Name + "." + x.Name.Name
			if _, ok := sizeExempt[name]; fields > maxStructField && !ok {
				t.Errorf("%s:%d: type %s has %d fields (limit %d): give its parts types of their own", rel, fset.Position(x.Pos()).Line, name, fields, maxStructField)
			}
		}
		return true
	})
}
