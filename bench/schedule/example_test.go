package schedule_test

import (
	"fmt"

	"github.com/latmap/latmap/bench/schedule"
)

// The circle method pairs 4 ranks in 3 rounds; with 5 ranks one rank rests
// (-1) in each of 5 rounds.
func ExampleCirclePlan() {
	for _, n := range []int{4, 5} {
		p := schedule.CirclePlan{N: n}
		for r := 0; r < p.Rounds(); r++ {
			var partners []int
			for rank := 0; rank < n; rank++ {
				partners = append(partners, p.Partner(r, rank))
			}
			fmt.Printf("n=%d round %d: partners %v\n", n, r, partners)
		}
	}
	// Output:
	// n=4 round 0: partners [3 2 1 0]
	// n=4 round 1: partners [2 3 0 1]
	// n=4 round 2: partners [1 0 3 2]
	// n=5 round 0: partners [-1 4 3 2 1]
	// n=5 round 1: partners [2 -1 0 4 3]
	// n=5 round 2: partners [4 3 -1 1 0]
	// n=5 round 3: partners [1 0 4 -1 2]
	// n=5 round 4: partners [3 2 1 0 -1]
}
