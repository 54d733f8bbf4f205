package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"
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
	{"placement's parts (model, solve, qap, verify) never import its driver", func(pkg, imp string) bool {
		return under(pkg, "placement/model", "placement/solve", "placement/qap", "placement/verify") && imp == mod+"placement"
	}},
	{"placement never imports plots: one consumer does not call another (cmd hands the advice to the report)", func(pkg, imp string) bool {
		return under(pkg, "placement") && under(imp, "plots")
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

// goPackage is one package of the module as go list sees it, with and
// without -tags mpi (test files excluded).
type goPackage struct {
	path    string
	imports map[string]string // latmap import -> "" or the only build it is in (mpi, !mpi)
	files   map[string]string // file -> "" or the only build it is in
}

// listPackages runs go list with and without -tags mpi and merges the two.
func listPackages(t *testing.T) []*goPackage {
	byPath := map[string]*goPackage{}
	seen := map[string]map[string]int{} // pkg -> import or file -> tag sets seen in
	tags := []string{"", "mpi"}
	for _, tag := range tags {
		only := "!mpi" // what this build alone has needs its tag
		if tag != "" {
			only = tag
		}
		cmd := exec.Command("go", "list", "-tags="+tag, "-f", `{{.ImportPath}}|{{join .Imports " "}}|{{join .GoFiles " "}} {{join .CgoFiles " "}}`, mod+"...")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go list -tags=%s: %v\n%s", tag, err, out)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			f := strings.Split(line, "|")
			p := byPath[f[0]]
			if p == nil {
				p = &goPackage{path: f[0], imports: map[string]string{}, files: map[string]string{}}
				byPath[f[0]], seen[f[0]] = p, map[string]int{}
			}
			for _, imp := range strings.Fields(f[1]) {
				if strings.HasPrefix(imp, mod) {
					seen[f[0]]["i "+imp]++
					p.imports[imp] = only
				}
			}
			for _, file := range strings.Fields(f[2]) {
				seen[f[0]]["f "+file]++
				p.files[file] = only
			}
		}
	}
	var out []*goPackage
	for path, p := range byPath {
		// What both builds have needs no tag.
		for k, n := range seen[path] {
			if n == len(tags) {
				if name, ok := strings.CutPrefix(k, "i "); ok {
					p.imports[name] = ""
				} else {
					p.files[k[2:]] = ""
				}
			}
		}
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out
}

// graphTable is docs/architecture.md's generated table: every package,
// every latmap import arrow and every file, from go list.
func graphTable(pkgs []*goPackage) string {
	var b strings.Builder
	b.WriteString("| package | imports of latmap's | files |\n|---|---|---|\n")
	named := func(m map[string]string, trim string) string {
		var l []string
		for k, tag := range m {
			k = "`" + strings.TrimPrefix(k, trim) + "`"
			if tag != "" {
				k += " (" + tag + ")"
			}
			l = append(l, k)
		}
		sort.Strings(l)
		return strings.Join(l, ", ")
	}
	for _, p := range pkgs {
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", strings.TrimPrefix(p.path, mod), named(p.imports, mod), named(p.files, ""))
	}
	return b.String()
}

// The generated table's markers in docs/architecture.md.
const (
	graphBegin = "<!-- begin go list: TestImportGraph checks this table; LATMAP_UPDATE_DOCS=1 go test ./cmd/latmap -run TestImportGraph rewrites it -->\n"
	graphEnd   = "<!-- end go list -->\n"
)

// TestImportGraph checks every rule of docs/architecture.md on the real
// import graph (go list, test files excluded), built without and with
// -tags mpi; that the page's generated table holds every package, arrow
// and file; and that every Go file the page's prose names exists.
func TestImportGraph(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "architecture.md")
	page, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pkgs := listPackages(t)
	checked := 0
	files := map[string]bool{}
	for _, p := range pkgs {
		for f := range p.files {
			files[f] = true
		}
		for imp, tag := range p.imports {
			checked++
			for _, r := range importRules {
				if r.broken(p.path, imp) {
					t.Errorf("%s: %s imports %s: breaks %q", tag, p.path, imp, r.rule)
				}
			}
		}
	}
	if checked < 20 {
		t.Fatalf("only %d latmap imports seen; is go list reading this module?", checked)
	}
	before, rest, ok1 := strings.Cut(string(page), graphBegin)
	_, after, ok2 := strings.Cut(rest, graphEnd)
	if !ok1 || !ok2 {
		t.Fatalf("%s has no generated table between %q and %q", path, graphBegin, graphEnd)
	}
	want := graphTable(pkgs)
	if os.Getenv("LATMAP_UPDATE_DOCS") != "" {
		if err := os.WriteFile(path, []byte(before+graphBegin+want+graphEnd+after), 0o644); err != nil {
			t.Fatal(err)
		}
	} else if got, _, _ := strings.Cut(rest, graphEnd); got != want {
		t.Errorf("%s: the package table is not go list's (rewrite it with LATMAP_UPDATE_DOCS=1 go test ./cmd/latmap -run TestImportGraph); go list says:\n%s", path, want)
	}
	// The prose names files to say what they hold: each must still be one.
	for _, m := range regexp.MustCompile("`([a-z0-9_]+\\.go)`").FindAllStringSubmatch(before+after, -1) {
		if !files[m[1]] {
			t.Errorf("%s names %s, which no package of latmap's has", path, m[1])
		}
	}
}

// Size limits of docs/architecture.md: functions, types and files a
// person can hold in their head.
const (
	maxFuncLines   = 80
	maxStructField = 15
	maxGoFileLines = 800
	maxCFileLines  = 800
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
// fields but the exempt ones. TestArchitectureFileLines holds the files
// themselves to maxGoFileLines.
func TestSizes(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	files := 0
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
		files++
		checkSizes(t, fset, f, rel)
		checkGlobals(t, fset, f, rel)
		checkLineLength(t, p, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("only %d Go files seen", files)
	}
	t.Run("C", func(t *testing.T) { checkCSizes(t, root) })
}

// goPackageDirs is every directory of the module holding Go files (a
// package, whatever its build tags), slash-separated from root, each with
// its Go files' names; testdata, vendor and hidden directories aside.
func goPackageDirs(t *testing.T, root string) map[string][]string {
	dirs := map[string][]string{}
	err := filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		name := info.Name()
		if info.IsDir() && p != root && (name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			return filepath.SkipDir
		}
		if info.IsDir() || !strings.HasSuffix(name, ".go") {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		rel = filepath.ToSlash(rel)
		dirs[rel] = append(dirs[rel], name)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) < 30 {
		t.Fatalf("only %d packages seen", len(dirs))
	}
	return dirs
}

// docPending are the packages whose package comment is not yet in a
// doc.go, each with why; none may join. A package leaves the list when
// its doc.go is written: the test fails while one listed has it.
var docPending = map[string]string{}

// TestArchitectureDocGo: every package has a doc.go whose package comment
// (non-empty) says what the package owns, and it is the package's one
// package comment: no other file of the directory, tests included,
// carries one (godoc would join them).
func TestArchitectureDocGo(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	for dir, names := range goPackageDirs(t, root) {
		hasDoc := false
		var others []string
		for _, name := range names {
			f, err := parser.ParseFile(fset, filepath.Join(root, dir, name), nil, parser.PackageClauseOnly|parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			text := ""
			if f.Doc != nil {
				text = strings.TrimSpace(f.Doc.Text())
			}
			switch {
			case name == "doc.go":
				hasDoc = text != ""
				if !hasDoc {
					t.Errorf("%s/doc.go has no package comment: say what package %s owns", dir, f.Name.Name)
				}
			case f.Doc != nil:
				others = append(others, name)
			}
		}
		if why, pending := docPending[dir]; pending {
			if hasDoc && len(others) == 0 {
				t.Errorf("%s has its doc.go now (pending: %s): remove it from docPending", dir, why)
			}
			continue
		}
		if !slices.Contains(names, "doc.go") {
			t.Errorf("package %s has no doc.go: write one whose package comment says what the package owns", dir)
		}
		if len(others) > 0 {
			sort.Strings(others)
			t.Errorf("package %s has a package comment outside doc.go, in %s: a package has one, in doc.go", dir, strings.Join(others, ", "))
		}
	}
	for dir := range docPending {
		if _, err := os.Stat(filepath.Join(root, dir)); err != nil {
			t.Errorf("docPending lists %s, which is gone: remove it", dir)
		}
	}
}

// fileLinesPending are the hand-written Go files still over
// maxGoFileLines, with their lines now: none may join, a listed one may
// not grow, and it leaves the list once split (the test fails while one
// listed is within the limit or gone).
var fileLinesPending = map[string]int{}

// generated reports whether a Go file says it is generated: a line
// "// Code generated ... DO NOT EDIT." above its package clause.
func generated(src []byte) bool {
	for _, line := range strings.Split(string(src), "\n") {
		if strings.HasPrefix(line, "package ") {
			return false
		}
		if strings.Contains(line, "Code generated") {
			return true
		}
	}
	return false
}

// TestArchitectureFileLines: no hand-written Go file (generated ones
// aside), test files included and with or without build tags, has over
// maxGoFileLines lines; a longer one is split by concept.
func TestArchitectureFileLines(t *testing.T) {
	root := filepath.Join("..", "..")
	seen := 0
	for dir, names := range goPackageDirs(t, root) {
		for _, name := range names {
			rel := dir + "/" + name
			b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
			if err != nil {
				t.Fatal(err)
			}
			if generated(b) {
				continue
			}
			seen++
			n := strings.Count(string(b), "\n")
			if len(b) > 0 && b[len(b)-1] != '\n' {
				n++
			}
			limit, pending := fileLinesPending[rel]
			switch {
			case pending && n <= maxGoFileLines:
				t.Errorf("%s has %d lines now (limit %d): remove it from fileLinesPending", rel, n, maxGoFileLines)
			case pending && n > limit:
				t.Errorf("%s has %d lines, more than the %d it is allowed while pending (limit %d): split it by concept", rel, n, limit, maxGoFileLines)
			case !pending && n > maxGoFileLines:
				t.Errorf("%s has %d lines (limit %d): split it by concept", rel, n, maxGoFileLines)
			}
		}
	}
	if seen < 100 {
		t.Fatalf("only %d hand-written Go files seen", seen)
	}
	for rel := range fileLinesPending {
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel))); err != nil {
			t.Errorf("fileLinesPending lists %s, which is gone: remove it", rel)
		}
	}
}

// checkGlobals reports exported package-level slices and maps: every
// importer shares one copy that any of them may change (a header slice
// aliased into every file written). Such a value is a function returning
// a fresh copy, or unexported.
func checkGlobals(t *testing.T, fset *token.FileSet, f *ast.File, rel string) {
	mutable := func(e ast.Expr) bool {
		switch x := e.(type) {
		case *ast.MapType:
			return true
		case *ast.ArrayType:
			return x.Len == nil
		case *ast.CompositeLit:
			_, isMap := x.Type.(*ast.MapType)
			a, isArr := x.Type.(*ast.ArrayType)
			return isMap || isArr && a.Len == nil
		}
		return false
	}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.VAR {
			continue
		}
		for _, spec := range g.Specs {
			v := spec.(*ast.ValueSpec)
			for i, name := range v.Names {
				bad := v.Type != nil && mutable(v.Type) || i < len(v.Values) && mutable(v.Values[i])
				if name.IsExported() && bad {
					t.Errorf("%s:%d: exported package-level %s is a slice or map every importer shares and may change: make it a function returning a fresh copy, or unexported", rel, fset.Position(name.Pos()).Line, name.Name)
				}
			}
		}
	}
}

// maxLineLen is the longest line of a hand-written Go file: prose the
// reports show is split into joined literals, not one line of 700
// characters. The interposer generator's tables (a C signature a
// line) are data.
const maxLineLen = 180

// checkLineLength reports a hand-written Go file's lines over maxLineLen.
func checkLineLength(t *testing.T, path, rel string) {
	if strings.Contains(filepath.ToSlash(rel), "interpose/internal/gen/") {
		return
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(b), "\n") {
		if n := utf8.RuneCountInString(l); n > maxLineLen {
			t.Errorf("%s:%d: %d characters, over %d: split the line (a long string into literals joined with +)", rel, i+1, n, maxLineLen)
		}
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

// cDirs hold latmap's own C (the interposer, the survey's ping-pong, the
// test programs); generated files (*.gen.c, *.gen.h) are exempt.
var cDirs = []string{"interpose", "bench", "testdata"}

// cFuncExempt are the test programs' functions allowed over maxFuncLines,
// each one story told in order; they may not grow past the lines given.
var cFuncExempt = map[string]int{
	"testdata/mpi/overhead.c:main":   97,
	"testdata/mpi/wild.c:main":       144,
	"testdata/sim/simsurvey.c:pairs": 94,
}

// checkCSizes holds latmap's C to the same limits: no file over
// maxCFileLines lines, no function over maxFuncLines lines (but the exempt
// ones), and no circle of calls between the .c files of one directory (a
// file calls another when it calls a function the other defines and does
// not make static).
func checkCSizes(t *testing.T, root string) {
	files := map[string]map[string]cSource{} // directory -> file -> scan
	for _, d := range cDirs {
		err := filepath.Walk(filepath.Join(root, d), func(p string, info os.FileInfo, err error) error {
			if err != nil {
				return err
			}
			if (!strings.HasSuffix(p, ".c") && !strings.HasSuffix(p, ".h")) || strings.Contains(filepath.Base(p), ".gen.") {
				return nil
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			src := scanC(string(b))
			if src.lines > maxCFileLines {
				t.Errorf("%s has %d lines (limit %d): split it by concept", rel, src.lines, maxCFileLines)
			}
			for _, f := range src.funcs {
				limit := max(maxFuncLines, cFuncExempt[filepath.ToSlash(rel)+":"+f.name])
				if n := f.end - f.start + 1; n > limit {
					t.Errorf("%s:%d: function %s has %d lines (limit %d)", rel, f.start, f.name, n, limit)
				}
			}
			if strings.HasSuffix(p, ".c") {
				dir := filepath.Dir(rel)
				if files[dir] == nil {
					files[dir] = map[string]cSource{}
				}
				files[dir][filepath.Base(rel)] = src
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(files[filepath.Join("interpose", "c")]) < 5 {
		t.Fatalf("only %d C files seen in interpose/c", len(files[filepath.Join("interpose", "c")]))
	}
	for dir, srcs := range files {
		for _, c := range cCircles(srcs) {
			t.Errorf("%s: these files call each other in a circle (%s): move what they share into a unit of its own", dir, c)
		}
	}
}

// cFunc is a function defined in a C file: its lines (header to closing
// brace) and whether it is static.
type cFunc struct {
	name       string
	start, end int
	static     bool
}

// cSource is what checkCSizes knows of a C file.
type cSource struct {
	lines int
	funcs []cFunc
	calls map[string]bool // identifiers called (followed by a parenthesis)
}

var (
	cNoise     = regexp.MustCompile(`(?s)/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'`)
	cLastIdent = regexp.MustCompile(`([A-Za-z_]\w*)\s*$`)
	cCall      = regexp.MustCompile(`\b([A-Za-z_]\w*)\s*\(`)
	cAttr      = regexp.MustCompile(`__attribute__\s*\(\(.*?\)\)`)
	cStatic    = regexp.MustCompile(`^(?:\w+\s+)*?static\b`)
	cKeywrd    = map[string]bool{"if": true, "for": true, "while": true, "switch": true, "return": true, "sizeof": true,
		"defined": true, "_Generic": true, "__attribute__": true, "__typeof__": true, "typeof": true, "do": true}
)

// scanC finds the functions of C source text: a body opens at a line that
// starts at column 0 and is "{" (its header on the lines above) or a header
// ending in "{", and closes at the next line starting with "}". Comments,
// strings and character constants are blanked first.
func scanC(text string) cSource {
	clean := cNoise.ReplaceAllStringFunc(text, func(m string) string {
		return strings.Map(func(r rune) rune {
			if r == '\n' {
				return r
			}
			return ' '
		}, m)
	})
	lines := strings.Split(strings.TrimSuffix(clean, "\n"), "\n")
	src := cSource{lines: len(lines), calls: map[string]bool{}}
	header := -1 // first line of the declaration being read
	for i := 0; i < len(lines); i++ {
		l := strings.TrimRight(lines[i], " \t")
		col0 := l != "" && l[0] != ' ' && l[0] != '\t'
		switch {
		case l == "" || l[0] == '#': // a blank or preprocessor line ends a declaration
			header = -1
		case l == "{" && header >= 0, col0 && strings.HasSuffix(l, "{") && strings.Contains(l, ")"):
			if l != "{" {
				header = i
			}
			h := cAttr.ReplaceAllString(strings.Join(lines[header:i+1], " "), "")
			end := i
			for end < len(lines) && !strings.HasPrefix(lines[end], "}") {
				end++
			}
			if name := cFuncName(h); name != "" && !strings.HasPrefix(h, "typedef") && !strings.Contains(h, "=") {
				src.funcs = append(src.funcs, cFunc{name, header + 1, end + 1, cStatic.MatchString(strings.TrimSpace(h))})
				i = end
			}
			header = -1
		case strings.HasSuffix(l, ";") || l[0] == '}': // a declaration or a struct ended
			header = -1
		case col0 && header < 0: // a declaration starts
			header = i
		}
	}
	for _, m := range cCall.FindAllStringSubmatch(clean, -1) {
		if !cKeywrd[m[1]] {
			src.calls[m[1]] = true
		}
	}
	return src
}

// cFuncName is the name a function header declares: the identifier before
// its first parenthesis.
func cFuncName(h string) string {
	k := strings.Index(h, "(")
	if k < 0 {
		return ""
	}
	f := cLastIdent.FindStringSubmatch(h[:k])
	if f == nil || cKeywrd[f[1]] {
		return ""
	}
	return f[1]
}

// cCircles lists the circles of calls between the files of one directory,
// one line per set of files that reach each other, with an example call
// for each arrow.
func cCircles(srcs map[string]cSource) []string {
	owner := map[string]string{} // non-static function -> file defining it
	for name, s := range srcs {
		for _, f := range s.funcs {
			if !f.static {
				owner[f.name] = name
			}
		}
	}
	calls := map[string]map[string]string{} // file -> file -> a function called
	for name, s := range srcs {
		own := map[string]bool{}
		for _, f := range s.funcs {
			own[f.name] = true
		}
		for id := range s.calls {
			if o, ok := owner[id]; ok && o != name && !own[id] {
				if calls[name] == nil {
					calls[name] = map[string]string{}
				}
				if old, ok := calls[name][o]; !ok || id < old {
					calls[name][o] = id
				}
			}
		}
	}
	reach := func(from string) map[string]bool {
		seen := map[string]bool{}
		stack := []string{from}
		for len(stack) > 0 {
			f := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for to := range calls[f] {
				if !seen[to] {
					seen[to] = true
					stack = append(stack, to)
				}
			}
		}
		return seen
	}
	reaches := map[string]map[string]bool{}
	for name := range srcs {
		reaches[name] = reach(name)
	}
	var out []string
	done := map[string]bool{}
	names := make([]string, 0, len(srcs))
	for name := range srcs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, a := range names {
		if done[a] || !reaches[a][a] {
			continue
		}
		var arrows []string
		for _, b := range names {
			if reaches[a][b] && reaches[b][a] {
				done[b] = true
				for _, c := range names {
					if id, ok := calls[b][c]; ok && reaches[c][a] {
						arrows = append(arrows, fmt.Sprintf("%s -> %s (%s)", b, c, id))
					}
				}
			}
		}
		out = append(out, strings.Join(arrows, ", "))
	}
	return out
}

var directSkip = regexp.MustCompile(`\b(t|b|tb)\.(Skip|Skipf|SkipNow)\(`)

// TestSkipsGoThroughTestutil: a test skips only through
// testutil.Missing (a missing tool, a failure where LATMAP_REQUIRE asks
// for it, as in CI) or testutil.Short (-short mode, which CI does not
// use), so no test can pass silently in CI by skipping itself.
func TestSkipsGoThroughTestutil(t *testing.T) {
	root := filepath.Join("..", "..")
	seen := 0
	err := filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if info.IsDir() && p != root && (info.Name() == "vendor" || strings.HasPrefix(info.Name(), ".")) {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(root, p)
		if !strings.HasSuffix(p, "_test.go") || strings.HasPrefix(filepath.ToSlash(rel), "internal/testutil/") {
			return nil
		}
		seen++
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			if directSkip.MatchString(line) {
				t.Errorf("%s:%d skips directly (%s): use testutil.Missing (a missing tool) or testutil.Short (-short mode)", rel, i+1, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen < 50 {
		t.Fatalf("only %d test files seen", seen)
	}
}
