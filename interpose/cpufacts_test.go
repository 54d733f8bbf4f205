package interpose_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/latmap/latmap/internal/sysfs"
	"github.com/latmap/latmap/internal/testutil"
)

// cpufactsDriver prints "cpu socket numa l3" for each cpu given after the
// sysfs root, as liblatmap.so's lm_cpu_facts sees it.
const cpufactsDriver = `#include <stdio.h>
#include <stdlib.h>
#include "cpufacts.h"
int main(int argc, char **argv)
{
	for (int i = 2; i < argc; i++) {
		int cpu = atoi(argv[i]), s, n, l;
		lm_cpu_facts(argv[1], cpu, &s, &n, &l);
		printf("%d %d %d %d\n", cpu, s, n, l);
	}
	return 0;
}
`

// TestCPUFactsMatchSysfs: the C library's /sys rules (cpufacts.c) give the
// same socket, NUMA node and L3 as internal/sysfs for every cpu of every
// captured tree in testdata/sys (and of this machine's /sys), so a
// profile's ranks.csv and a survey's agree about a cpu.
func TestCPUFactsMatchSysfs(t *testing.T) {
	cc, err := exec.LookPath("gcc")
	if err != nil {
		cc, err = exec.LookPath("cc")
	}
	if err != nil {
		testutil.Missing(t, testutil.NeedMPI, "a C compiler (gcc) is needed to build the cpufacts driver")
	}
	repo := testutil.RepoRoot(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "driver.c")
	if err := os.WriteFile(src, []byte(cpufactsDriver), 0o644); err != nil {
		t.Fatal(err)
	}
	cdir := filepath.Join(repo, "interpose", "c")
	bin := filepath.Join(dir, "driver")
	if out, err := exec.Command(cc, "-O2", "-Wall", "-I", cdir, "-o", bin, src, filepath.Join(cdir, "cpufacts.c")).CombinedOutput(); err != nil {
		t.Fatalf("building the driver: %v\n%s", err, out)
	}
	roots, err := filepath.Glob(filepath.Join(repo, "testdata", "sys", "*"))
	if err != nil || len(roots) == 0 {
		t.Fatalf("no captured trees in testdata/sys: %v", err)
	}
	roots = append(roots, sysfs.DefaultRoot)
	for _, root := range roots {
		cpuDirs, _ := filepath.Glob(filepath.Join(root, "devices", "system", "cpu", "cpu[0-9]*"))
		var cpus []int
		for _, d := range cpuDirs {
			if c, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(d), "cpu")); err == nil {
				cpus = append(cpus, c)
			}
		}
		sort.Ints(cpus)
		if len(cpus) == 0 {
			t.Errorf("%s: no cpus", root)
			continue
		}
		args := []string{root}
		for _, c := range append(cpus, -1, cpus[len(cpus)-1]+1) { // and two cpus that do not exist
			args = append(args, strconv.Itoa(c))
		}
		out, err := exec.Command(bin, args...).Output()
		if err != nil {
			t.Fatalf("%s: %v", root, err)
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		fs := sysfs.New(root)
		var distinct = map[string]bool{}
		for i, c := range append(cpus, -1, cpus[len(cpus)-1]+1) {
			pl, err := fs.CPUPlace(c)
			if err != nil {
				t.Errorf("%s cpu %d: sysfs: %v", root, c, err)
				continue
			}
			want := fmt.Sprintf("%d %d %d %d", c, pl.Socket, pl.NUMA, pl.L3)
			if i >= len(lines) || lines[i] != want {
				got := "nothing"
				if i < len(lines) {
					got = lines[i]
				}
				t.Errorf("%s: C says %q, internal/sysfs %q (cpu socket numa l3)", root, got, want)
			}
			distinct[want[strings.Index(want, " "):]] = true
		}
		t.Logf("%s: %d cpus agree, %d distinct places", root, len(cpus), len(distinct))
	}
}
