package sweep

import (
	"bytes"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestPairs(t *testing.T) {
	// Two sockets on host 0, one on 1, 2 and 3; rank 5 is host 0's again.
	hosts := []int{0, 0, 0, 1, 2, 0, 3}
	sockets := []int{0, 1, 0, 0, 0, 1, 0}
	want := []Pair{{0, 2, Socket}, {0, 1, Node}, {0, 3, Network}, {0, 6, Network}}
	if got := Pairs(hosts, sockets); !reflect.DeepEqual(got, want) {
		t.Errorf("Pairs = %v, want %v", got, want)
	}
	// Sockets unknown: no pair is on one socket; two hosts: the second
	// host is the last, one pair between nodes.
	got := Pairs([]int{0, 0, 1, 1}, []int{-1, -1, -1, -1})
	if want := []Pair{{0, 1, Node}, {0, 2, Network}}; !reflect.DeepEqual(got, want) {
		t.Errorf("Pairs, sockets unknown = %v, want %v", got, want)
	}
	if got := Pairs([]int{0}, []int{0}); len(got) != 0 {
		t.Errorf("one rank: %v", got)
	}
}

func TestSizes(t *testing.T) {
	got := Sizes([]int{64, 65536})
	if len(got) != 15 || got[0] != 64 || got[14] != 1<<20 {
		t.Errorf("Sizes(64, 64K) = %v, want 64..1M doubling", got)
	}
	got = Sizes([]int{100, 4 << 20})
	if !slices.Contains(got, 100) || got[len(got)-1] != 4<<20 || !slices.IsSorted(got) || got[0] != 64 {
		t.Errorf("Sizes(100, 4M) = %v, want 64..4M doubling with 100", got)
	}
}

func TestRoundTrip(t *testing.T) {
	rows := []Row{{0, 1, Socket, 64, 20, 0.5, 0.75}, {0, 3, Network, 1 << 20, 16, 2100.25, 2200.5}}
	var b bytes.Buffer
	if err := Write(&b, rows); err != nil {
		t.Fatal(err)
	}
	got, err := Read(&b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, rows) {
		t.Errorf("read back %v, want %v", got, rows)
	}
}

func TestReadErrors(t *testing.T) {
	head := strings.Join(Header(), ",") + "\n"
	for _, c := range []struct{ in, want string }{
		{"", "empty file"},
		{"a,b\n", "header"},
		{head + "0,1,socket,64,20,1,2,3\n", "8 fields, want 7"},
		{head + "0,0,socket,64,20,1,2\n", "both rank 0"},
		{head + "-1,1,socket,64,20,1,2\n", "line 2: a:"},
		{head + "0,1,rack,64,20,1,2\n", "where"},
		{head + "0,1,node,0,20,1,2\n", "size_bytes"},
		{head + "0,1,node,64,0,1,2\n", "count"},
		{head + "0,1,node,64,3,NaN,2\n", "rtt_min_us"},
		{head + "0,1,node,64,3,1,-2\n", "rtt_median_us"},
		{head + "0,1,node,64,3,3,2\n", "below"},
	} {
		_, err := Read(strings.NewReader(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Read(%q) = %v, want an error with %q", c.in, err, c.want)
		}
	}
}

func FuzzRead(f *testing.F) {
	var b bytes.Buffer
	Write(&b, []Row{{0, 1, Node, 64, 20, 1, 2}})
	f.Add(b.String())
	f.Add(strings.Join(Header(), ",") + "\n0,2,network,1048576,16,9,9.5\n")
	f.Fuzz(func(t *testing.T, in string) {
		rows, err := Read(strings.NewReader(in))
		if err != nil {
			return
		}
		for _, r := range rows {
			if r.A == r.B || r.A < 0 || r.B < 0 || r.Size < 1 || r.Count < 1 || !(r.MinUs > 0) || r.MedianUs < r.MinUs {
				t.Fatalf("Read accepted %+v", r)
			}
		}
		var out bytes.Buffer
		if err := Write(&out, rows); err != nil {
			t.Fatal(err)
		}
		if _, err := Read(&out); err != nil {
			t.Fatalf("what Write wrote does not read back: %v", err)
		}
	})
}
