package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestReadmeLayout: the README's layout names every package of the
// module (internal/... by its folder) and nothing that is not one, and
// its links point inside the repository.
func TestReadmeLayout(t *testing.T) {
	root := filepath.Join("..", "..")
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	start := strings.Index(text, "## Layout")
	if start < 0 {
		t.Fatal("README.md has no Layout section")
	}
	block := text[start:]
	open := strings.Index(block, "```\n")
	end := strings.Index(block[open+4:], "```")
	if open < 0 || end < 0 {
		t.Fatal("README.md's Layout section has no code block")
	}
	named := map[string]bool{}
	for _, line := range strings.Split(block[open+4:open+4+end], "\n") {
		if f := strings.Fields(line); len(f) > 0 && !strings.HasPrefix(line, " ") {
			named[strings.TrimSuffix(f[0], "/")] = true
		}
	}
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}", "github.com/latmap/latmap/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []string
	for _, p := range strings.Fields(string(out)) {
		p = strings.TrimPrefix(strings.TrimPrefix(p, "github.com/latmap/latmap"), "/")
		if strings.HasPrefix(p, "internal/") {
			p = "internal"
		}
		pkgs = append(pkgs, p)
	}
	for _, p := range pkgs {
		if !named[p] {
			t.Errorf("README.md's layout does not name package %s", p)
		}
	}
	for n := range named {
		if _, err := os.Stat(filepath.Join(root, n)); err != nil {
			t.Errorf("README.md's layout names %s, which is not in the repository", n)
		} else if !slices.Contains(pkgs, n) && n != "testdata" && n != "packaging" {
			t.Errorf("README.md's layout names %s, which is no package", n)
		}
	}
	for _, m := range regexp.MustCompile(`\]\(([^)#]+)\)`).FindAllStringSubmatch(text, -1) {
		link := m[1]
		if strings.Contains(link, "://") {
			continue
		}
		if _, err := os.Stat(filepath.Join(root, link)); err != nil || strings.HasPrefix(filepath.Clean(link), "..") {
			t.Errorf("README.md links to %s, which is not in the repository", link)
		}
	}
	if strings.Contains(text, "../shared") {
		t.Error("README.md points at ../shared, outside the repository")
	}
}
