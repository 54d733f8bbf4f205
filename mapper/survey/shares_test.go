package survey

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// TestSharesRoundTrip: shares.csv written and read back is the same
// rows; a row of a host twice, a slowdown that is no positive number, a
// verdict not 0 or 1 are refused, naming the field.
func TestSharesRoundTrip(t *testing.T) {
	rows := []Share{
		{SrcA: "n1", DstA: "n3", SrcB: "n2", DstB: "n4", SlowdownA: 2.04, SlowdownB: 1.59, Shared: true},
		{SrcA: "n3", DstA: "n1", SrcB: "n2", DstB: "n4", SlowdownA: 1.02, SlowdownB: 1, Shared: false},
	}
	var buf bytes.Buffer
	if err := WriteShares(&buf, rows); err != nil {
		t.Fatal(err)
	}
	got, err := ReadShares(&buf)
	if err != nil || !reflect.DeepEqual(got, rows) {
		t.Fatalf("read back %+v, %v; want %+v", got, err, rows)
	}
	head := strings.Join(SharesHeader(), ",") + "\n"
	for _, c := range []struct{ row, want string }{
		{"n1,n3,n1,n4,2,2,1", "host n1 twice"},
		{"n1,n3,n2,n4,-1,2,1", "slowdown_a"},
		{"n1,n3,n2,n4,2,NaN,1", "slowdown_b"},
		{"n1,n3,n2,n4,2,2,yes", "shared"},
		{",n3,n2,n4,2,2,1", "src_a: empty host"},
	} {
		if _, err := ReadShares(strings.NewReader(head + c.row + "\n")); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("row %q: %v, want an error naming %q", c.row, err, c.want)
		}
	}
	if err := checkShares(rows, []Rank{{Host: "n1"}, {Host: "n2"}, {Host: "n3"}}); err == nil || !strings.Contains(err.Error(), "n4") {
		t.Errorf("a row naming a host that ran no rank: %v, want it named", err)
	}
	if err := checkShares(rows, []Rank{{Host: "n1"}, {Host: "n2"}, {Host: "n3"}, {Host: "n4"}}); err != nil {
		t.Errorf("every host ran a rank: %v", err)
	}
}
