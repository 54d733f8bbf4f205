package main

import (
	"fmt"
	"os"
	"runtime/pprof"
)

func main() {
	stop := startCPUProfile(os.Getenv("LATMAP_CPUPROFILE"))
	cmd, err := newRootCmd().ExecuteC()
	stop()
	writeMemProfile(os.Getenv("LATMAP_MEMPROFILE"))
	if err != nil {
		fmt.Fprintln(os.Stderr, errorLine(cmd.CommandPath(), err))
		os.Exit(exitCode(err))
	}
}

// startCPUProfile writes a Go CPU profile of the command to path when it
// is set (LATMAP_CPUPROFILE=FILE, for go tool pprof) and returns what
// stops it.
func startCPUProfile(path string) func() {
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintf(os.Stderr, "latmap: LATMAP_CPUPROFILE: %v\n", err)
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		fmt.Fprintf(os.Stderr, "latmap: LATMAP_CPUPROFILE: %v\n", err)
		f.Close()
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}

// writeMemProfile writes a Go memory profile of the command to path when
// it is set (LATMAP_MEMPROFILE=FILE, for go tool pprof -sample_index
// alloc_space: every allocation's bytes by where it was made).
func writeMemProfile(path string) {
	if path == "" {
		return
	}
	f, err := os.Create(path)
	if err == nil {
		err = pprof.Lookup("allocs").WriteTo(f, 0)
		f.Close()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "latmap: LATMAP_MEMPROFILE: %v\n", err)
	}
}
