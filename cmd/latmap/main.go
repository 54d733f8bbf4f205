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
