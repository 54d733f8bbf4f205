package sysfs

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// DefaultRoot is where sysfs is mounted.
const DefaultRoot = "/sys"

// FS reads where CPUs sit (socket, NUMA node, L3 cache) from a sysfs
// tree. The root is a parameter so tests read captured trees.
type FS struct{ root string }

// New returns a reader of the sysfs tree at root ("" is DefaultRoot).
func New(root string) FS {
	if root == "" {
		root = DefaultRoot
	}
	return FS{root: root}
}

// CPUPlace says where one logical CPU sits. Unknown values are -1.
//
// Socket comes from /sys/devices/system/cpu/cpuN/topology/physical_package_id,
// NUMA from the /sys/devices/system/node/nodeK/cpulist that holds the CPU, and
// L3 from the level-3 cache in /sys/devices/system/cpu/cpuN/cache/index*/
// (its id file, or when the kernel has none, the lowest CPU of its
// shared_cpu_list, which names the same cache for every CPU sharing it).
// Core is the logical index of the CPU's core as hwloc numbers cores (and
// Open MPI 5's rankfiles read slot numbers): the packages in the order of
// their lowest CPU, each package's cores (CPUs of one core_id) in the order
// of their lowest CPU.
type CPUPlace struct {
	CPU    int
	Socket int
	NUMA   int
	L3     int
	Core   int
}

func (s FS) path(p ...string) string {
	return filepath.Join(append([]string{s.root}, p...)...)
}

// CPUPlace reads where cpu sits. Missing files give -1 for that fact; a file
// that exists but cannot be parsed is an error.
func (s FS) CPUPlace(cpu int) (CPUPlace, error) {
	pl := CPUPlace{CPU: cpu, Socket: -1, NUMA: -1, L3: -1, Core: -1}
	if cpu < 0 {
		return pl, nil
	}
	cpuDir := s.path("devices", "system", "cpu", "cpu"+strconv.Itoa(cpu))
	v, err := readSysInt(filepath.Join(cpuDir, "topology", "physical_package_id"))
	if err != nil {
		return pl, err
	}
	pl.Socket = v
	if pl.NUMA, err = s.numaOf(cpu); err != nil {
		return pl, err
	}
	if pl.L3, err = l3Of(cpuDir); err != nil {
		return pl, err
	}
	if pl.Core, err = s.logicalCore(cpu); err != nil {
		return pl, err
	}
	return pl, nil
}

// logicalCore is cpu's core's logical index (CPUPlace.Core) among the
// CPUs whose package and core_id are known (offline CPUs have none), or
// -1 when cpu's are not.
func (s FS) logicalCore(cpu int) (int, error) {
	dirs, err := filepath.Glob(s.path("devices", "system", "cpu", "cpu[0-9]*"))
	if err != nil {
		return -1, err
	}
	type core struct{ pkg, id int }
	low := map[core]int{}   // a core's lowest CPU
	pkgLow := map[int]int{} // a package's lowest CPU
	var mine core
	found := false
	for _, d := range dirs {
		c, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(d), "cpu"))
		if err != nil {
			continue
		}
		pkg, err1 := readSysInt(filepath.Join(d, "topology", "physical_package_id"))
		id, err2 := readSysInt(filepath.Join(d, "topology", "core_id"))
		if err := cmp.Or(err1, err2); err != nil || pkg < 0 || id < 0 {
			if c == cpu {
				return -1, err
			}
			// An offline CPU has no topology (hwloc leaves it out too).
			continue
		}
		k := core{pkg, id}
		if v, ok := low[k]; !ok || c < v {
			low[k] = c
		}
		if v, ok := pkgLow[pkg]; !ok || c < v {
			pkgLow[pkg] = c
		}
		if c == cpu {
			mine, found = k, true
		}
	}
	if !found {
		return -1, nil
	}
	cores := make([]core, 0, len(low))
	for k := range low {
		cores = append(cores, k)
	}
	sort.Slice(cores, func(i, j int) bool {
		a, b := cores[i], cores[j]
		if pkgLow[a.pkg] != pkgLow[b.pkg] {
			return pkgLow[a.pkg] < pkgLow[b.pkg]
		}
		return low[a] < low[b]
	})
	for i, k := range cores {
		if k == mine {
			return i, nil
		}
	}
	return -1, nil
}

func (s FS) numaOf(cpu int) (int, error) {
	nodes, err := filepath.Glob(s.path("devices", "system", "node", "node[0-9]*"))
	if err != nil {
		return -1, err
	}
	for _, d := range nodes {
		id, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(d), "node"))
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join(d, "cpulist"))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return -1, err
		}
		cpus, err := ParseCPUList(string(b))
		if err != nil {
			return -1, fmt.Errorf("%s: %w", filepath.Join(d, "cpulist"), err)
		}
		for _, c := range cpus {
			if c == cpu {
				return id, nil
			}
		}
	}
	return -1, nil
}

func l3Of(cpuDir string) (int, error) {
	idx, err := filepath.Glob(filepath.Join(cpuDir, "cache", "index[0-9]*"))
	if err != nil {
		return -1, err
	}
	for _, d := range idx {
		level, err := readSysInt(filepath.Join(d, "level"))
		if err != nil {
			return -1, err
		}
		if level != 3 {
			continue
		}
		id, err := readSysInt(filepath.Join(d, "id"))
		if err != nil || id >= 0 {
			return id, err
		}
		b, err := os.ReadFile(filepath.Join(d, "shared_cpu_list"))
		if errors.Is(err, fs.ErrNotExist) {
			return -1, nil
		}
		if err != nil {
			return -1, err
		}
		cpus, err := ParseCPUList(string(b))
		if err != nil {
			return -1, fmt.Errorf("%s: %w", filepath.Join(d, "shared_cpu_list"), err)
		}
		if len(cpus) == 0 {
			return -1, nil
		}
		return cpus[0], nil
	}
	return -1, nil
}

// readSysInt reads a file holding one integer; a missing file gives -1.
func readSysInt(path string) (int, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return -1, nil
	}
	if err != nil {
		return -1, err
	}
	v, err := ParseInt(b)
	if err != nil {
		return -1, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}

// ParseInt parses the content of a sysfs file holding one integer
// ("0\n").
func ParseInt(b []byte) (int, error) {
	s := string(bytes.TrimSpace(b))
	v, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("want an integer, got %q", s)
	}
	return v, nil
}

// ParseCPUList parses a Linux CPU list such as "0-3,8,10-11" (the format of
// cpulist and shared_cpu_list files and of taskset -c) into sorted CPU
// numbers without duplicates. An empty list gives nil.
func ParseCPUList(s string) ([]int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	seen := map[int]bool{}
	var out []int
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil || a < 0 {
			return nil, fmt.Errorf("cpu list %q: bad cpu %q", s, lo)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return nil, fmt.Errorf("cpu list %q: bad range %q", s, part)
			}
			if b-a > 1<<16 {
				return nil, fmt.Errorf("cpu list %q: range %q is too long", s, part)
			}
		}
		for c := a; c <= b; c++ {
			if !seen[c] {
				seen[c] = true
				out = append(out, c)
			}
		}
	}
	sort.Ints(out)
	return out, nil
}

// FormatCPUList writes CPU numbers as a Linux CPU list ("0-3,8"), the
// inverse of ParseCPUList.
func FormatCPUList(cpus []int) string {
	c := append([]int(nil), cpus...)
	sort.Ints(c)
	var b strings.Builder
	for i := 0; i < len(c); {
		j := i
		for j+1 < len(c) && c[j+1] <= c[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(c[i]))
		if c[j] != c[i] {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(c[j]))
		}
		i = j + 1
	}
	return b.String()
}
