package interpose

import (
	"flag"
	"reflect"
	"testing"

	"github.com/latmap/latmap/mapper/profile"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/profile")

func TestParseWindow(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Window
		err  bool
	}{
		{"MPI_Allreduce:10:20", Window{"MPI_Allreduce", 10, 20}, false},
		{"Barrier:1:2", Window{"MPI_Barrier", 1, 2}, false},
		{"MPI_Send:1:2", Window{}, true},
		{"MPI_Allreduce:5:5", Window{}, true},
		{"MPI_Allreduce:0:5", Window{}, true},
		{"MPI_Allreduce:a:5", Window{}, true},
		{"MPI_Allreduce:5", Window{}, true},
		{"", Window{}, true},
	} {
		got, err := ParseWindow(tc.in)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("ParseWindow(%q) = %+v, %v; want %+v, error %v", tc.in, got, err, tc.want, tc.err)
		}
	}
}

func TestMergeMatrix(t *testing.T) {
	sent := []sentRow{{0, 1, 100, 2, 0.5}, {1, 0, 50, 1, 0.1}, {0, 1, 10, 1, 0}}
	recv := []profile.Transfer{{Src: 0, Dst: 1, Bytes: 110, Messages: 3, Time: 0.2, Late: 0.3}, {Src: 2, Dst: 0, Bytes: 7, Messages: 1, Time: 1}}
	m, sb, rb := mergeMatrix(sent, recv, nil)
	want := []profile.Transfer{
		{Src: 0, Dst: 1, Bytes: 110, Messages: 3, Time: 0.2, Late: 0.3}, // bytes as sent, time as received
		{Src: 1, Dst: 0, Bytes: 50, Messages: 1},                        // never received
		{Src: 2, Dst: 0, Bytes: 7, Messages: 1, Time: 1},                // never seen sent
	}
	if !reflect.DeepEqual(m, want) {
		t.Errorf("mergeMatrix = %+v, want %+v", m, want)
	}
	if sb != 160 || rb != 117 {
		t.Errorf("totals sent %d received %d, want 160 and 117", sb, rb)
	}
}

func TestMergeMatrixCollectives(t *testing.T) {
	sent := []sentRow{{0, 1, 110, 3, 0}}
	recv := []profile.Transfer{{Src: 0, Dst: 1, Bytes: 110, Messages: 3, Time: 0.2, Late: 0.3}, {Src: 2, Dst: 0, Bytes: 7, Messages: 1, Time: 1}}
	coll := []sentRow{{Src: 2, Dst: 1, Bytes: 40, Messages: 4}, {Src: 0, Dst: 1, Bytes: 8, Messages: 1}, {Src: 1, Dst: 0, Bytes: 16, Messages: 2}}
	got, sb, rb := mergeMatrix(sent, recv, coll)
	if sb != 110 || rb != 117 { // the collectives are not point-to-point totals
		t.Errorf("totals sent %d received %d, want 110 and 117", sb, rb)
	}
	want := []profile.Transfer{
		{Src: 0, Dst: 1, Bytes: 118, Messages: 4, Time: 0.2, Late: 0.3}, // point-to-point plus collectives, time kept
		{Src: 1, Dst: 0, Bytes: 16, Messages: 2},                        // collectives only: no time
		{Src: 2, Dst: 0, Bytes: 7, Messages: 1, Time: 1},
		{Src: 2, Dst: 1, Bytes: 40, Messages: 4},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("mergeMatrix with collectives = %+v, want %+v", got, want)
	}
}
