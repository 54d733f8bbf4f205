package text

import "testing"

func TestCount(t *testing.T) {
	for n, want := range map[int]string{0: "0 hosts", 1: "1 host", 4: "4 hosts"} {
		if got := Count(n, "host"); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
}
