package roundtrip_test

import (
	"fmt"

	"github.com/latmap/latmap/bench/roundtrip"
)

// MmpiStats gives mmpi's two columns: the mean and the standard error of
// the mean (which mmpi labelled StdDev).
func ExampleMmpiStats() {
	mean, sem := roundtrip.MmpiStats([]float64{4, 1, 3, 2, 10})
	st := roundtrip.Summarize([]float64{4, 1, 3, 2, 10})
	fmt.Printf("mmpi: %6.2f  %6.2f\n", mean, sem)
	fmt.Printf("pairs.csv: mean %.2f std %.2f median %.2f\n", st.Mean, st.Std, st.Median)
	// Output:
	// mmpi:   4.00    1.58
	// pairs.csv: mean 4.00 std 3.54 median 3.00
}
