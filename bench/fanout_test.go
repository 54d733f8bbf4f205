package bench

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/latmap/latmap/mapper/survey"
)

// ringSurvey is a survey of hosts on a ring of nh hosts with per ranks
// each, whose round trips between hosts grow with their distance on the
// ring (10 us a hop) and are 1 us on a host.
func ringSurvey(nh, per int) (*survey.Survey, []string) {
	var hosts []string
	for h := 0; h < nh; h++ {
		for range per {
			hosts = append(hosts, fmt.Sprintf("n%02d", h))
		}
	}
	n := len(hosts)
	s := &survey.Survey{Ranks: make([]survey.Rank, n)}
	for r, h := range hosts {
		s.Ranks[r] = survey.Rank{Rank: r, Host: h}
	}
	tab := survey.NewPairTable(n, 64, survey.Median)
	for a := 0; a < n; a++ {
		for b := a + 1; b < n; b++ {
			d := abs(a/per - b/per)
			d = min(d, nh-d)
			tab.Set(&survey.PairStats{A: a, B: b, Size: 64, Samples: 10, Median: float64(1 + 10*d)})
		}
	}
	s.Tables = []*survey.PairTable{tab}
	return s, hosts
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// TestFanOutPlan: on a ring of 6 hosts of 2 ranks, the sampled hosts (the first
// and last) fan out to their two neighbours (the fanOutNearest), the one-peer
// step sends both ranks to the first of them, and every rank receives
// from at most one.
func TestFanOutPlan(t *testing.T) {
	s, hosts := ringSurvey(6, 2)
	steps := FanOutPlan(s, hosts)
	if len(steps) != 2*FanOutMaxHosts {
		t.Fatalf("%d steps, want %d", len(steps), 2*FanOutMaxHosts)
	}
	for _, want := range []struct {
		host  int
		peers []int
	}{{0, []int{1, 5}}, {5, []int{0, 4}}} {
		var fan *FanOutStep
		for i := range steps {
			if steps[i].Host == want.host && steps[i].Fan {
				fan = &steps[i]
			}
		}
		if fan == nil || !slices.Equal(fan.Peers, want.peers) {
			t.Fatalf("host %d's fan-out %+v, want to %v", want.host, fan, want.peers)
		}
		for i, r := range []int{2 * want.host, 2*want.host + 1} {
			if d := fan.Dst[r]; !slices.Equal(d, []int{2 * want.peers[i]}) || !slices.Equal(fan.Src[d[0]], []int{r}) {
				t.Errorf("host %d: rank %d sends to %v, want the first rank of host %d", want.host, r, d, want.peers[i])
			}
		}
	}
	for _, st := range steps {
		if n := checkPartners(t, st, hosts); n != 2 {
			t.Errorf("step %+v: %d senders, want the host's 2 ranks", st, n)
		}
	}
	// Two hosts: no fan-out.
	if s2, h2 := ringSurvey(2, 2); FanOutPlan(s2, h2) != nil {
		t.Error("a fan-out planned on two hosts")
	}
}

// TestPlanOneRank: on a ring of 6 hosts of one rank each (a job of one
// rank a node), the sampled hosts' one rank sends to its FanOutOneRankPeers
// fanOutNearest hosts at once, and alone to the fanOutNearest; every rank receives
// from at most one.
func TestPlanOneRank(t *testing.T) {
	s, hosts := ringSurvey(6, 1)
	steps := FanOutPlan(s, hosts)
	if len(steps) != 2*FanOutMaxHosts {
		t.Fatalf("%d steps, want %d", len(steps), 2*FanOutMaxHosts)
	}
	for _, st := range steps {
		want := map[int][]int{0: {1, 5, 2, 4}, 5: {0, 4, 1, 3}}[st.Host]
		if !st.Fan {
			want = want[:1]
		}
		if !slices.Equal(st.Peers, want) || !slices.Equal(st.Dst[st.Host], want) {
			t.Errorf("host %d (fan %v): peers %v, its rank sends to %v, want %v", st.Host, st.Fan, st.Peers, st.Dst[st.Host], want)
		}
		if n := checkPartners(t, st, hosts); n != 1 {
			t.Errorf("step %+v: %d senders, want the host's one rank", st, n)
		}
	}
}

// checkPartners checks that every rank st sends to has it as its one
// source, on another host, and returns how many ranks send.
func checkPartners(t *testing.T, st FanOutStep, hosts []string) int {
	t.Helper()
	senders := 0
	for r, dst := range st.Dst {
		if len(dst) > 0 {
			senders++
		}
		for _, d := range dst {
			if !slices.Equal(st.Src[d], []int{r}) || hosts[d] == hosts[r] {
				t.Errorf("step %+v: rank %d sends to %d, whose sources are %v", st, r, d, st.Src[d])
			}
		}
	}
	return senders
}

// TestFanOutRows: the fan-out's rate over the one-peer rate is what a node with
// several links moves at once (4x here), one row a sampled host.
func TestFanOutRows(t *testing.T) {
	s, hosts := ringSurvey(6, 4)
	steps := FanOutPlan(s, hosts)
	times := make([][]float64, len(hosts))
	for r := range times {
		times[r] = make([]float64, 1+len(steps)) // one earlier step: from = 1
		for k, st := range steps {
			if len(st.Dst[r]) > 0 {
				times[r][1+k] = map[bool]float64{false: 0.4, true: 0.1}[st.Fan]
			}
		}
	}
	rows, err := FanOutRows(hosts, steps, times, 1, 1<<20, 16)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != FanOutMaxHosts {
		t.Fatalf("rows %+v, want %d", rows, FanOutMaxHosts)
	}
	for _, r := range rows {
		if len(strings.Split(r.Peer, survey.FanOutPeers)) != 4 || r.Ranks != 4 || r.AggregateMBps/r.PairMBps < 3.999 || r.AggregateMBps/r.PairMBps > 4.001 {
			t.Errorf("row %+v: want 4 peers, 4 ranks, 4x the one-peer rate", r)
		}
	}
	if _, err := FanOutRows(hosts, steps[1:], times, 1, 1<<20, 16); err == nil {
		t.Error("steps out of their pairs were taken")
	}
}

// TestRowsOneRank: a host of one rank that moves as much to each of its
// FanOutOneRankPeers fanOutNearest hosts at once as to one alone drives that many
// links; one whose fan-out takes that many times longer drives one.
func TestRowsOneRank(t *testing.T) {
	s, hosts := ringSurvey(6, 1)
	steps := FanOutPlan(s, hosts)
	for _, c := range []struct {
		fanSecs, want float64
	}{{0.4, FanOutOneRankPeers}, {0.4 * FanOutOneRankPeers, 1}} {
		times := make([][]float64, len(hosts))
		for r := range times {
			times[r] = make([]float64, len(steps))
			for k, st := range steps {
				if len(st.Dst[r]) > 0 {
					times[r][k] = map[bool]float64{false: 0.4, true: c.fanSecs}[st.Fan]
				}
			}
		}
		rows, err := FanOutRows(hosts, steps, times, 0, 1<<20, 16)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != FanOutMaxHosts {
			t.Fatalf("rows %+v, want %d", rows, FanOutMaxHosts)
		}
		for _, r := range rows {
			if got := r.AggregateMBps / r.PairMBps; r.Ranks != 1 || got < c.want-0.001 || got > c.want+0.001 || math.Abs(r.Seconds-c.fanSecs) > 1e-9 {
				t.Errorf("fan-out taking %g s: row %+v (%.3fx), want one rank at %gx, %g s", c.fanSecs, r, got, c.want, c.fanSecs)
			}
		}
	}
}
