// Command latmap measures the latency between every pair of MPI ranks,
// profiles how an MPI application communicates, and proposes a better
// rank placement. Run "latmap --help" for the commands.
package main

import (
	"fmt"
	"os"
)

func main() {
	cmd, err := newRootCmd().ExecuteC()
	if err != nil {
		fmt.Fprintln(os.Stderr, errorLine(cmd.CommandPath(), err))
		os.Exit(exitCode(err))
	}
}
