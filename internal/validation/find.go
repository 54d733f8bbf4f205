package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// recorder is the call that records a figure: testutil.Record.
const recorder = "Record"

// testPackage is one package's test files as the recorders' search sees
// them: each function and method by name (methods of every type under
// their bare name), with the file it is in.
type testPackage struct {
	funcs map[string][]*ast.FuncDecl
	file  map[*ast.FuncDecl]string
}

// parseTests parses the _test.go files of directory dir.
func parseTests(dir string) (*testPackage, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		return nil, err
	}
	p := &testPackage{funcs: map[string][]*ast.FuncDecl{}, file: map[*ast.FuncDecl]string{}}
	fset := token.NewFileSet()
	for _, name := range names {
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
				p.funcs[fd.Name.Name] = append(p.funcs[fd.Name.Name], fd)
				p.file[fd] = filepath.Base(name)
			}
		}
	}
	return p, nil
}

// records reports whether function name, or a function or method of the
// package it calls (at any depth), calls testutil.Record.
func (p *testPackage) records(name string) bool {
	seen := map[string]bool{}
	var reach func(string) bool
	reach = func(name string) bool {
		if seen[name] {
			return false
		}
		seen[name] = true
		for _, fd := range p.funcs[name] {
			found := false
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				if found {
					return false
				}
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				switch fn := call.Fun.(type) {
				case *ast.Ident:
					found = reach(fn.Name)
				case *ast.SelectorExpr:
					if pkg, ok := fn.X.(*ast.Ident); ok && pkg.Name == "testutil" {
						found = fn.Sel.Name == recorder
					} else {
						found = reach(fn.Sel.Name) // a method of the package's
					}
				}
				return !found
			})
			if found {
				return true
			}
		}
		return false
	}
	return reach(name)
}

// recordingTest is a test that records figures: its package directory
// (slash-separated, from the repository's root) and file, and its name.
type recordingTest struct {
	pkg, file, name string
}

// findRecorders walks the repository at root for the tests that record
// figures (internal/testutil's own tests of the recorder aside), sorted
// by package and name.
func findRecorders(root string) ([]recordingTest, error) {
	var out []recordingTest
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != root && (name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			return filepath.SkipDir
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if rel == "internal/testutil" {
			return nil
		}
		p, err := parseTests(path)
		if err != nil {
			return err
		}
		for name, fds := range p.funcs {
			if strings.HasPrefix(name, "Test") && fds[0].Recv == nil && p.records(name) {
				out = append(out, recordingTest{rel, p.file[fds[0]], name})
			}
		}
		return nil
	})
	sort.Slice(out, func(i, j int) bool {
		if out[i].pkg != out[j].pkg {
			return out[i].pkg < out[j].pkg
		}
		return out[i].name < out[j].name
	})
	return out, err
}
