// Command latmap measures the latency between every pair of MPI ranks,
// profiles how an MPI application communicates, and proposes a better
// rank placement. Run "latmap --help" for the commands.
package main

import (
	"fmt"
	"os"
)

func main() {
	if err := newRootCmd().Execute(); err != nil {
		fmt.Fprintf(os.Stderr, "latmap: %v\n", err)
		os.Exit(exitCode(err))
	}
}
