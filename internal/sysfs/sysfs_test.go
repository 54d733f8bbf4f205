package sysfs

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/latmap/latmap/internal/testutil"
)

func TestParseCPUList(t *testing.T) {
	tests := []struct {
		in      string
		want    []int
		wantErr bool
	}{
		{"", nil, false},
		{"0\n", []int{0}, false},
		{"0-3", []int{0, 1, 2, 3}, false},
		{"0-1,8,10-11", []int{0, 1, 8, 10, 11}, false},
		{"6,4,2,0", []int{0, 2, 4, 6}, false},
		{"1,1,0-1", []int{0, 1}, false},
		{"a", nil, true},
		{"3-1", nil, true},
		{"-1", nil, true},
		{"0-", nil, true},
		{"0,,1", nil, true},
		{"0-100000000", nil, true},
	}
	for _, tc := range tests {
		got, err := ParseCPUList(tc.in)
		if (err != nil) != tc.wantErr {
			t.Errorf("ParseCPUList(%q) error = %v, want error %v", tc.in, err, tc.wantErr)
			continue
		}
		if !tc.wantErr && !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseCPUList(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestFormatCPUList(t *testing.T) {
	tests := []struct {
		in   []int
		want string
	}{
		{nil, ""},
		{[]int{0}, "0"},
		{[]int{0, 1, 2, 3}, "0-3"},
		{[]int{11, 10, 8, 0, 1}, "0-1,8,10-11"},
		{[]int{0, 2, 4}, "0,2,4"},
		{[]int{1, 1, 2}, "1-2"},
	}
	for _, tc := range tests {
		if got := FormatCPUList(tc.in); got != tc.want {
			t.Errorf("FormatCPUList(%v) = %q, want %q", tc.in, got, tc.want)
		}
		back, err := ParseCPUList(FormatCPUList(tc.in))
		if err != nil {
			t.Errorf("round trip of %v: %v", tc.in, err)
		}
		if len(tc.in) > 0 && len(back) == 0 {
			t.Errorf("round trip of %v lost the CPUs", tc.in)
		}
	}
}

func TestParseSysInt(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    int
		wantErr bool
	}{{"0\n", 0, false}, {" 12 ", 12, false}, {"-1\n", -1, false}, {"", 0, true}, {"x\n", 0, true}} {
		got, err := ParseInt([]byte(tc.in))
		if (err != nil) != tc.wantErr || (!tc.wantErr && got != tc.want) {
			t.Errorf("ParseInt(%q) = %d, %v; want %d, error %v", tc.in, got, err, tc.want, tc.wantErr)
		}
	}
}

func FuzzParseCPUList(f *testing.F) {
	for _, s := range []string{"0-3", "0,2,4", "1-1,3-5", "", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cpus, err := ParseCPUList(s)
		if err != nil {
			return
		}
		back, err := ParseCPUList(FormatCPUList(cpus))
		if err != nil || !reflect.DeepEqual(back, cpus) {
			t.Fatalf("round trip of %q: %v -> %v (%v)", s, cpus, back, err)
		}
	})
}

func TestSysFSCPUPlace(t *testing.T) {
	tests := []struct {
		tree string
		cpu  int
		want CPUPlace
	}{
		// Captured on the 2-CPU KVM guest this project is developed on
		// (scripts/capture-sys.sh): one socket, one NUMA node, one L3 (id 0).
		{"kvm-1socket-2cpu", 0, CPUPlace{CPU: 0, Socket: 0, NUMA: 0, L3: 0, Core: 0}},
		{"kvm-1socket-2cpu", 1, CPUPlace{CPU: 1, Socket: 0, NUMA: 0, L3: 0, Core: 1}},
		// Hand-made (scripts/make-sys-2socket.sh): even CPUs on socket 0 and
		// node 0, odd on socket 1 and node 1; no cache id files, so the L3 is
		// named by the lowest CPU sharing it (0 or 1). Socket 0's cores come
		// first in logical order (hwloc-calc says the same, below).
		{"2socket-8cpu", 0, CPUPlace{CPU: 0, Socket: 0, NUMA: 0, L3: 0, Core: 0}},
		{"2socket-8cpu", 5, CPUPlace{CPU: 5, Socket: 1, NUMA: 1, L3: 1, Core: 6}},
		{"2socket-8cpu", 6, CPUPlace{CPU: 6, Socket: 0, NUMA: 0, L3: 0, Core: 3}},
		// A CPU the tree does not have, and an unknown CPU.
		{"2socket-8cpu", 9, CPUPlace{CPU: 9, Socket: -1, NUMA: -1, L3: -1, Core: -1}},
		{"2socket-8cpu", -1, CPUPlace{CPU: -1, Socket: -1, NUMA: -1, L3: -1, Core: -1}},
	}
	for _, tc := range tests {
		fs := New(filepath.Join("..", "..", "testdata", "sys", tc.tree))
		got, err := fs.CPUPlace(tc.cpu)
		if err != nil {
			t.Errorf("%s cpu %d: %v", tc.tree, tc.cpu, err)
			continue
		}
		if got != tc.want {
			t.Errorf("%s cpu %d: got %+v, want %+v", tc.tree, tc.cpu, got, tc.want)
		}
	}
}

func TestSysFSBadFile(t *testing.T) {
	root := t.TempDir()
	d := filepath.Join(root, "devices", "system", "cpu", "cpu0", "topology")
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d, "physical_package_id"), []byte("zero\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := New(root).CPUPlace(0); err == nil {
		t.Fatal("CPUPlace read an unparsable physical_package_id without error")
	}
	n := filepath.Join(root, "devices", "system", "node", "node0")
	os.MkdirAll(n, 0o755)
	os.WriteFile(filepath.Join(d, "physical_package_id"), []byte("0\n"), 0o644)
	os.WriteFile(filepath.Join(n, "cpulist"), []byte("0-x\n"), 0o644)
	if _, err := New(root).CPUPlace(0); err == nil {
		t.Fatal("CPUPlace read an unparsable node cpulist without error")
	}
}

func TestSysFSLive(t *testing.T) {
	// The real /sys of the test machine: CPU 0 exists everywhere Linux runs,
	// and latmap runs only on Linux, so a missing one is a failure, not a
	// skip (CI would pass without having read /sys at all).
	if _, err := os.Stat("/sys/devices/system/cpu/cpu0"); err != nil {
		t.Fatalf("no /sys/devices/system/cpu/cpu0 (latmap reads CPU placement from it): %v", err)
	}
	pl, err := New("").CPUPlace(0)
	if err != nil {
		t.Fatal(err)
	}
	if pl.Socket < 0 {
		t.Errorf("live /sys: cpu 0 has no socket: %+v", pl)
	}
}

// TestLogicalCoreMatchesHwloc: the logical core numbers latmap records
// (what Open MPI 5's rankfiles read as slot numbers) are hwloc's, checked
// with hwloc-calc reading the same made-up sysfs (HWLOC_FSROOT) for two
// machines whose OS numbering differs from the logical one: sockets
// interleaved (even CPUs on socket 0), and 2 sockets x 2 cores x 2 threads
// numbered as Intel's are (cpu k and k+4 share a core).
func TestLogicalCoreMatchesHwloc(t *testing.T) {
	if _, err := exec.LookPath("hwloc-calc"); err != nil {
		testutil.Missing(t, testutil.NeedHwloc, "hwloc-calc (Debian's hwloc-nox) not installed")
	}
	for _, m := range []struct {
		name      string
		pkg, core func(c int) int
	}{
		{"interleaved", func(c int) int { return c % 2 }, func(c int) int { return c / 2 }},
		{"smt", func(c int) int { return c % 4 / 2 }, func(c int) int { return c % 2 }},
	} {
		root := t.TempDir()
		writeTopology(t, root, 8, m.pkg, m.core)
		// An offline CPU: its directory, without topology (online says
		// 0-7). It counts in neither numbering.
		if err := os.MkdirAll(filepath.Join(root, "sys", "devices", "system", "cpu", "cpu8"), 0o755); err != nil {
			t.Fatal(err)
		}
		fs := New(filepath.Join(root, "sys"))
		distinct := false
		for c := 0; c < 8; c++ {
			pl, err := fs.CPUPlace(c)
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("hwloc-calc", "--physical-input", "--logical-output", "--intersect", "core", fmt.Sprintf("pu:%d", c))
			cmd.Env = append(os.Environ(), "HWLOC_FSROOT="+root, "HWLOC_COMPONENTS=linux,-x86")
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%s: hwloc-calc: %v", m.name, err)
			}
			want, err := strconv.Atoi(strings.TrimSpace(string(out)))
			if err != nil {
				t.Fatalf("%s: hwloc-calc printed %q", m.name, out)
			}
			if pl.Core != want {
				t.Errorf("%s cpu %d: logical core %d, hwloc says %d", m.name, c, pl.Core, want)
			}
			distinct = distinct || want != c
		}
		if !distinct {
			t.Errorf("%s: every logical core equals its cpu: the check cannot tell them apart", m.name)
		}
	}
}

// writeTopology writes the cpu topology files hwloc and latmap read for
// n CPUs whose package and core_id are pkg(c) and core(c).
func writeTopology(t *testing.T, root string, n int, pkg, core func(c int) int) {
	t.Helper()
	cpuDir := filepath.Join(root, "sys", "devices", "system", "cpu")
	put := func(path, v string) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(v+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	put(filepath.Join(root, "proc", "cpuinfo"), "")
	put(filepath.Join(cpuDir, "online"), fmt.Sprintf("0-%d", n-1))
	put(filepath.Join(cpuDir, "possible"), fmt.Sprintf("0-%d", n-1))
	for c := 0; c < n; c++ {
		d := filepath.Join(cpuDir, fmt.Sprintf("cpu%d", c), "topology")
		var threads, pkgCPUs []int
		var tm, pm uint64
		for o := 0; o < n; o++ {
			if pkg(o) == pkg(c) {
				pkgCPUs, pm = append(pkgCPUs, o), pm|1<<o
				if core(o) == core(c) {
					threads, tm = append(threads, o), tm|1<<o
				}
			}
		}
		put(filepath.Join(d, "physical_package_id"), strconv.Itoa(pkg(c)))
		put(filepath.Join(d, "core_id"), strconv.Itoa(core(c)))
		put(filepath.Join(d, "die_id"), "0")
		for _, f := range []struct {
			mask  uint64
			list  []int
			names []string
		}{{tm, threads, []string{"thread_siblings", "core_cpus"}}, {pm, pkgCPUs, []string{"core_siblings", "package_cpus"}}} {
			for _, name := range f.names {
				put(filepath.Join(d, name), fmt.Sprintf("%08x", f.mask))
				put(filepath.Join(d, name+"_list"), FormatCPUList(f.list))
			}
		}
	}
}
