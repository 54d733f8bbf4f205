package survey

import (
	"strings"
	"testing"
)

func TestBindingWarnings(t *testing.T) {
	rk := func(r int, host, cpuset string) Rank { return Rank{Rank: r, Host: host, CPUSet: cpuset} }
	for _, tc := range []struct {
		name  string
		ranks []Rank
		want  []string // substrings, one per warning, in order
	}{
		{"bound, one per cpu", []Rank{rk(0, "a", "0"), rk(1, "a", "1"), rk(2, "b", "0")}, nil},
		{"4 ranks on 2 cpus, unbound", []Rank{rk(0, "vm", "0-1"), rk(1, "vm", "0-1"), rk(2, "vm", "0-1"), rk(3, "vm", "0-1")},
			[]string{"vm: 4 ranks may run on only 2 cpus (0-1)", "ranks 0-3 are not bound to one cpu (cpuset 0-1 for rank 0)"}},
		{"3 bound ranks on 2 cpus", []Rank{rk(0, "a", "0"), rk(1, "a", "1"), rk(2, "a", "1")}, []string{"a: 3 ranks may run on only 2 cpus (0-1)"}},
		{"one unbound", []Rank{rk(0, "a", "0"), rk(1, "a", "1-3"), rk(2, "b", "0")}, []string{"rank 1 is not bound"}},
		{"mmpi logs have no cpuset", []Rank{rk(0, "a", ""), rk(1, "a", "")}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := BindingWarnings(tc.ranks)
			if len(got) != len(tc.want) {
				t.Fatalf("warnings %q, want %d", got, len(tc.want))
			}
			for i, w := range tc.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("warning %d %q lacks %q", i, got[i], w)
				}
			}
		})
	}
}
