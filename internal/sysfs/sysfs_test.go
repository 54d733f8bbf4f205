package sysfs

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
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
		{"kvm-1socket-2cpu", 0, CPUPlace{CPU: 0, Socket: 0, NUMA: 0, L3: 0}},
		{"kvm-1socket-2cpu", 1, CPUPlace{CPU: 1, Socket: 0, NUMA: 0, L3: 0}},
		// Hand-made (scripts/make-sys-2socket.sh): even CPUs on socket 0 and
		// node 0, odd on socket 1 and node 1; no cache id files, so the L3 is
		// named by the lowest CPU sharing it (0 or 1).
		{"2socket-8cpu", 0, CPUPlace{CPU: 0, Socket: 0, NUMA: 0, L3: 0}},
		{"2socket-8cpu", 5, CPUPlace{CPU: 5, Socket: 1, NUMA: 1, L3: 1}},
		{"2socket-8cpu", 6, CPUPlace{CPU: 6, Socket: 0, NUMA: 0, L3: 0}},
		// A CPU the tree does not have, and an unknown CPU.
		{"2socket-8cpu", 9, CPUPlace{CPU: 9, Socket: -1, NUMA: -1, L3: -1}},
		{"2socket-8cpu", -1, CPUPlace{CPU: -1, Socket: -1, NUMA: -1, L3: -1}},
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
