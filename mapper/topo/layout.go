package topo

import (
	"fmt"
	"math"
	"strings"

	"github.com/latmap/latmap/internal/stats"
	"github.com/latmap/latmap/mapper/fabric"
	"github.com/latmap/latmap/mapper/survey"
)

// ClassifyLayout names how ranks were spread over nodes (node[r] is rank
// r's node, nodes numbered in order of their lowest rank): one-per-node,
// block (each node holds consecutive ranks), cyclic (rank r on node
// (r / b) mod K for a block size b smaller than a node's share, round robin),
// or irregular.
func ClassifyLayout(node []int) string {
	n := len(node)
	k := maxInt(node) + 1
	if k == n {
		return LayoutOnePerNode
	}
	block := true
	for r := 1; r < n; r++ {
		if node[r] != node[r-1] && node[r] != node[r-1]+1 {
			block = false
			break
		}
	}
	if block {
		return LayoutBlock
	}
	for b := 1; b*k < n; b++ {
		ok := true
		for r := 0; r < n && ok; r++ {
			ok = node[r] == (r/b)%k
		}
		if ok {
			return LayoutCyclic
		}
	}
	return LayoutIrregular
}

// DescribeLayout says in words how ranks sit on nodes, for example
// "4 nodes x 32 ranks, block (ranks 0-31 on nid00670, 32-63 on nid00671,
// ...)". A node is named by its ranks' host when they share one.
func DescribeLayout(node []int, ranks []survey.Rank) string {
	k := maxInt(node) + 1
	members := make([][]int, k)
	for r, x := range node {
		members[x] = append(members[x], r)
	}
	counts := make([]int, k)
	equal := true
	for i, m := range members {
		counts[i] = len(m)
		if counts[i] != counts[0] {
			equal = false
		}
	}
	var b strings.Builder
	if equal {
		fmt.Fprintf(&b, "%d %s x %d %s", k, plural(k, "node"), counts[0], plural(counts[0], "rank"))
	} else {
		fmt.Fprintf(&b, "%d nodes with %s ranks", k, joinInts(counts, 8))
	}
	layout := ClassifyLayout(node)
	fmt.Fprintf(&b, ", %s", layout)
	if layout == LayoutOnePerNode {
		return b.String()
	}
	b.WriteString(" (")
	shown := min(k, 3)
	for i := 0; i < shown; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		if i == 0 {
			b.WriteString("ranks ")
		}
		fmt.Fprintf(&b, "%s on %s", FormatRanks(members[i]), nodeName(members[i], ranks, i))
	}
	if k > shown {
		b.WriteString(", ...")
	}
	b.WriteString(")")
	return b.String()
}

func nodeName(members []int, ranks []survey.Rank, i int) string {
	if len(ranks) > 0 {
		h := ranks[members[0]].Host
		same := h != ""
		for _, r := range members {
			if ranks[r].Host != h {
				same = false
				break
			}
		}
		if same {
			return h
		}
	}
	return fmt.Sprintf("node %d", i)
}

func plural(n int, s string) string {
	if n == 1 {
		return s
	}
	return s + "s"
}

func joinInts(x []int, limit int) string {
	var parts []string
	for i, v := range x {
		if i == limit {
			parts = append(parts, "...")
			break
		}
		parts = append(parts, fmt.Sprint(v))
	}
	return strings.Join(parts, ", ")
}

// FormatRanks writes a sorted rank list compactly: "0-31", "0,2,...,30",
// or "1,4,5" (long irregular lists are cut with "...").
func FormatRanks(r []int) string {
	switch len(r) {
	case 0:
		return ""
	case 1:
		return fmt.Sprint(r[0])
	}
	step := r[1] - r[0]
	arith := step > 0
	for i := 2; i < len(r) && arith; i++ {
		arith = r[i]-r[i-1] == step
	}
	if arith && step == 1 {
		return fmt.Sprintf("%d-%d", r[0], r[len(r)-1])
	}
	if arith && len(r) > 3 {
		return fmt.Sprintf("%d,%d,...,%d", r[0], r[1], r[len(r)-1])
	}
	// Ranges.
	return survey.RankRanges(r, 6)
}

// CheckHosts compares inferred nodes with host names. It reports a rank
// whose latencies put it on another node than the rest of its host, and
// inferred nodes that hold several hosts. vals is the packed latency
// triangle, used to quote the evidence.
func CheckHosts(node []int, ranks []survey.Rank, vals []float32) (agree bool, msgs []string) {
	n := len(node)
	host, nhosts := survey.HostIndex(ranks)
	// Majority inferred node of each host.
	k := maxInt(node) + 1
	counts := make(map[[2]int]int)
	for r := 0; r < n; r++ {
		counts[[2]int{host[r], node[r]}]++
	}
	major := make([]int, nhosts)
	best := make([]int, nhosts)
	for key, c := range counts {
		if c > best[key[0]] || (c == best[key[0]] && key[1] < major[key[0]]) {
			best[key[0]], major[key[0]] = c, key[1]
		}
	}
	agree = true
	const maxMsgs = 10
	var unmeasured []int // ranks with no pair measured to their host's others
	for r := 0; r < n; r++ {
		if node[r] == major[host[r]] {
			continue
		}
		var mates []float64
		for q := 0; q < n; q++ {
			if q != r && host[q] == host[r] && node[q] == major[host[r]] {
				if v := vals[survey.TriIndex(n, r, q)]; !math.IsNaN(float64(v)) {
					mates = append(mates, float64(v))
				}
			}
		}
		agree = false
		if len(mates) == 0 {
			unmeasured = append(unmeasured, r)
			continue
		}
		if len(msgs) < maxMsgs {
			msgs = append(msgs, fmt.Sprintf("rank %d is on host %s, but its latencies put it on another node than the host's other ranks "+
				"(median round trip to them %.2f us): a slow core or a misconfigured node?", r, ranks[r].Host, stats.Median(mates)))
		}
	}
	if len(unmeasured) > 0 {
		msgs = append(msgs, fmt.Sprintf("ranks %s: no pair measured with the other ranks of their host, so their latencies cannot place them "+
			"(they stand alone among the inferred nodes; the survey is missing pairs)", survey.RankRanges(unmeasured, 6)))
	}
	// Nodes holding several hosts.
	hostsOf := make([]map[int]bool, k)
	for r := 0; r < n; r++ {
		if hostsOf[node[r]] == nil {
			hostsOf[node[r]] = map[int]bool{}
		}
		hostsOf[node[r]][host[r]] = true
	}
	for i, hs := range hostsOf {
		if len(hs) < 2 {
			continue
		}
		agree = false
		if len(msgs) < maxMsgs {
			var names []string
			for r := 0; r < n; r++ {
				if node[r] == i && !contains(names, ranks[r].Host) {
					names = append(names, ranks[r].Host)
				}
			}
			if len(names) > 4 {
				names = append(names[:4], "...")
			}
			msgs = append(msgs, fmt.Sprintf("inferred node %d holds ranks of %d hosts (%s): their latencies look like one node; "+
				"if the hosts are not node names, import with --host-pattern", i, len(hs), strings.Join(names, ", ")))
		}
	}
	if !agree {
		summary := fmt.Sprintf("host names say %s; latencies say %s", DescribeCounts(fabric.Renumber(host)), DescribeCounts(node))
		msgs = append([]string{summary}, msgs...)
	}
	return agree, msgs
}

// hostNodes numbers the ranks' hosts (HostIndex), or returns nil when a
// host name is unknown or every rank has its own.
func hostNodes(ranks []survey.Rank) []int {
	for _, r := range ranks {
		if r.Host == "" {
			return nil
		}
	}
	idx, hosts := survey.HostIndex(ranks)
	if hosts == len(ranks) {
		return nil
	}
	return idx
}

func DescribeCounts(node []int) string {
	k := maxInt(node) + 1
	counts := make([]int, k)
	for _, x := range node {
		counts[x]++
	}
	for _, c := range counts {
		if c != counts[0] {
			return fmt.Sprintf("%d nodes with %s ranks", k, joinInts(counts, 8))
		}
	}
	return fmt.Sprintf("%d %s x %d %s", k, plural(k, "node"), counts[0], plural(counts[0], "rank"))
}

func contains(s []string, x string) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}
