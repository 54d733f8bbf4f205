package survey_test

import (
	"fmt"
	"strings"

	"github.com/latmap/latmap/mapper/survey"
)

// An mmpi log read from the right: processor names may hold spaces.
func ExampleReadMMPI() {
	log := `# Testing Hostname: node a
# Processors: 3 MsgLen 64 Repeats: 100
# ProcName1:rank   ProcName2:rank   AvgCommTime(usecs) StdDev
node a 000  node a 001       2.00    0.10
node a 000  node b 002      12.00    0.50
node a 001  node b 002      12.50    0.40
`
	s, err := survey.ReadMMPI(strings.NewReader(log), survey.MMPIOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	t := s.Tables[0]
	fmt.Println(s.N(), "ranks,", t.Size, "bytes")
	fmt.Println(s.Ranks[2].Host, t.At(survey.Mean, 0, 2), t.At(survey.Std, 0, 2))
	// Output:
	// 3 ranks, 256 bytes
	// node b 12 5
}
