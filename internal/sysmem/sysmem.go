package sysmem

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
)

// Available is how many bytes the process may still allocate, and whether
// it could tell (false off Linux or without /proc).
func Available() (uint64, bool) {
	return available("/proc/meminfo", "/sys/fs/cgroup")
}

func available(meminfo, cgroup string) (uint64, bool) {
	free, ok := memAvailable(meminfo)
	if !ok {
		return 0, false
	}
	if limit, used, ok := cgroupLimit(cgroup); ok && limit > used && limit-used < free {
		free = limit - used
	}
	return free, true
}

// memAvailable reads MemAvailable (kB) from a meminfo file.
func memAvailable(path string) (uint64, bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "MemAvailable:")
		if !ok {
			continue
		}
		kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		return kb << 10, err == nil
	}
	return 0, false
}

// cgroupLimit is the memory limit and use of the cgroup mounted at root
// (v2 first, then v1); ok is false when there is no limit.
func cgroupLimit(root string) (limit, used uint64, ok bool) {
	for _, files := range [][2]string{
		{"memory.max", "memory.current"},
		{"memory/memory.limit_in_bytes", "memory/memory.usage_in_bytes"},
	} {
		l, lok := readUint(root + "/" + files[0])
		u, uok := readUint(root + "/" + files[1])
		if lok && uok {
			return l, u, true
		}
	}
	return 0, 0, false
}

// readUint reads a file holding one number ("max" is no number).
func readUint(path string) (uint64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	v, err := strconv.ParseUint(string(bytes.TrimSpace(b)), 10, 64)
	return v, err == nil
}
