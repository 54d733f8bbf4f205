package survey

import (
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/latmap/latmap/internal/csvfile"
)

// SharesFile is the probe of flows at once (latmap survey --probe on,
// bench/probe): the pairs of flows between the job's hosts that moved
// two at a time, each flow from one host's first rank to another's,
// and whether they slowed each other, that is crossed a common link the
// way their bytes go. A flow stands for its class: the flows from the
// hosts of its source's router (ProbeMeta.Routers) to its destination
// host. Two classes not in the file were cleared by the random steps
// (both flows moved at once with others and neither was slowed) or
// have no two flows of four distinct hosts.
const SharesFile = "shares.csv"

// SharesHeader is the exact header of shares.csv.
func SharesHeader() []string {
	return []string{"src_a", "dst_a", "src_b", "dst_b", "slowdown_a", "slowdown_b", "shared"}
}

// Share is one row of shares.csv: flows A and B (source and destination
// hosts) moved two at a time, each one's least time against its class's
// time alone, and the verdict (either slowed past ProbeMeta.Threshold).
type Share struct {
	SrcA, DstA, SrcB, DstB string
	SlowdownA, SlowdownB   float64
	Shared                 bool
}

// ProbeMeta is meta.json's record of the probe of flows at once.
type ProbeMeta struct {
	// Routers is each host's router: hosts of one router as the survey
	// saw them (Planned), a host alone where it saw none.
	Routers map[string]int `json:"routers"`
	// Planned is where the routers came from: "latencies", the network
	// description's path (--topology), or "hosts" (each host its own).
	Planned string `json:"planned"`
	// Classes is how many classes of flows there are (a router to a host).
	Classes int `json:"classes"`
	// SizeBytes and Messages are what each flow moved.
	SizeBytes int `json:"size_bytes"`
	Messages  int `json:"messages"`
	// Threshold is how many times its time alone a flow took to count
	// as slowed.
	Threshold float64 `json:"threshold"`
	// AloneSteps, RandomSteps and PairSteps are the steps of each phase;
	// Cleared is how many pairs of classes the random steps cleared,
	// Judged how many moved two at a time and Shared how many of those
	// slowed each other.
	AloneSteps  int `json:"alone_steps"`
	RandomSteps int `json:"random_steps"`
	PairSteps   int `json:"pair_steps"`
	Cleared     int `json:"cleared"`
	Judged      int `json:"judged"`
	Shared      int `json:"shared"`
	// Unjudged is how many pairs of classes the random steps did not
	// clear and that were not moved two at a time either (the probe's
	// bound on pair steps): neither shared nor cleared.
	Unjudged int `json:"unjudged,omitempty"`
	// AloneMedianSeconds is the median of the classes' least times alone.
	AloneMedianSeconds float64 `json:"alone_median_seconds"`
	// Seconds is the phase's wall time.
	Seconds float64 `json:"seconds"`
}

// WriteShares writes shares.csv.
func WriteShares(w io.Writer, rows []Share) error {
	recs := make([][]string, 0, len(rows))
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', 4, 64) }
	for _, r := range rows {
		shared := "0"
		if r.Shared {
			shared = "1"
		}
		recs = append(recs, []string{r.SrcA, r.DstA, r.SrcB, r.DstB, f(r.SlowdownA), f(r.SlowdownB), shared})
	}
	return writeCSV(w, SharesHeader(), recs)
}

// ReadShares reads shares.csv, checking every field: four distinct
// hosts, slowdowns positive numbers, shared 0 or 1.
func ReadShares(r io.Reader) ([]Share, error) {
	var rows []Share
	err := csvfile.Records(r, SharesHeader(), func(rec []string) error {
		seen := map[string]bool{}
		for i, h := range rec[:4] {
			if h == "" {
				return fmt.Errorf("%s: empty host", SharesHeader()[i])
			}
			if seen[h] {
				return fmt.Errorf("host %s twice: the two flows of a row are of four distinct hosts", h)
			}
			seen[h] = true
		}
		s := Share{SrcA: rec[0], DstA: rec[1], SrcB: rec[2], DstB: rec[3]}
		for i, p := range []*float64{&s.SlowdownA, &s.SlowdownB} {
			v, err := strconv.ParseFloat(rec[4+i], 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
				return fmt.Errorf("%s: %q is not a positive number", SharesHeader()[4+i], rec[4+i])
			}
			*p = v
		}
		switch rec[6] {
		case "0":
		case "1":
			s.Shared = true
		default:
			return fmt.Errorf("shared: %q is not 0 or 1", rec[6])
		}
		rows = append(rows, s)
		return nil
	})
	return rows, err
}

// checkShares checks that every host shares.csv names ran a rank.
func checkShares(rows []Share, ranks []Rank) error {
	hosts := map[string]bool{}
	for _, r := range ranks {
		hosts[r.Host] = true
	}
	for i, s := range rows {
		for _, h := range []string{s.SrcA, s.DstA, s.SrcB, s.DstB} {
			if !hosts[h] {
				return fmt.Errorf("%s row %d names host %s, which ran no rank in %s", SharesFile, i+2, h, RanksFile)
			}
		}
	}
	return nil
}
