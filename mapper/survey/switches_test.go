package survey

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestSwitchesRoundTrip: switches.csv and switchbw.csv read back as
// written, with meta.json's record, and a survey without them reads none.
func TestSwitchesRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "s")
	in := testSurvey() // hosts nodea (ranks 0, 1) and nodeb (rank 2)
	in.Switches = []HostGroup{{"nodea", 1, 0}, {"nodeb", 1, 1}, {"nodea", 2, 0}, {"nodeb", 2, 0}}
	in.SwitchBandwidth = []SwitchBandwidth{{Level: 1, Group: 0, PeerGroup: 1, Hosts: 1, Ranks: 2, Size: 1 << 20, Messages: 16, Seconds: 0.5, AggregateMBps: 67.109}}
	in.Meta.SwitchBandwidth = &SwitchBandwidthMeta{Levels: 2, SizeBytes: 1 << 20, Steps: 1, Seconds: 1.5}
	if err := WriteSurvey(dir, in, false); err != nil {
		t.Fatal(err)
	}
	out, err := ReadSurvey(dir, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(out.Switches, in.Switches) || !slices.Equal(out.SwitchBandwidth, in.SwitchBandwidth) {
		t.Errorf("read %+v and %+v, want %+v and %+v", out.Switches, out.SwitchBandwidth, in.Switches, in.SwitchBandwidth)
	}
	if m := out.Meta.SwitchBandwidth; m == nil || *m != *in.Meta.SwitchBandwidth {
		t.Errorf("meta switch_bandwidth = %+v, want %+v", m, in.Meta.SwitchBandwidth)
	}
	of, ok := SwitchLevels(out.Switches, []string{"nodeb", "nodea"})
	if !ok || !slices.Equal(of[0], []int{1, 0}) || !slices.Equal(of[1], []int{0, 0}) {
		t.Errorf("SwitchLevels = %v, %v; want [[1 0] [0 0]]", of, ok)
	}
	level, names := out.PairLevels()
	if got := []string{names[level(0, 1)], names[level(0, 2)]}; !slices.Equal(got, []string{"same socket", "same level-2 switch"}) {
		t.Errorf("pair levels %v, want same socket, same level-2 switch (of %v)", got, names)
	}
	in.Switches = in.Switches[:2] // nodea and nodeb at level 1 only: still whole
	in.Switches[1].Host = "nodec"
	if err := WriteSurvey(dir, in, true); err == nil || !strings.Contains(err.Error(), "no group for host nodeb") {
		t.Errorf("a host of ranks.csv without a group: %v", err)
	}
}

func TestReadSwitchesErrors(t *testing.T) {
	head := strings.Join(SwitchesHeader(), ",") + "\n"
	for _, c := range []struct{ in, want string }{
		{"", "empty file"},
		{"host,group\n", "header"},
		{head + "a,0,0\n", "line 2: level: \"0\""},
		{head + "a,1,x\n", "line 2: group: \"x\""},
		{head + ",1,0\n", "line 2: empty host"},
		{head + "a,1,0\na,1,1\n", "host a has two groups at level 1"},
		{head + "a,1,0\nb,2,0\nb,1,0\n", "host a has no group at level 2"},
		// a and b share a leaf but not the level above: not a tree.
		{head + "a,1,0\nb,1,0\na,2,0\nb,2,1\n", "level 1 group 0 spans level 2 groups 0 and 1"},
	} {
		_, err := ReadSwitches(strings.NewReader(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ReadSwitches(%q) error = %v, want one containing %q", c.in, err, c.want)
		}
	}
	bhead := strings.Join(SwitchBandwidthHeader(), ",") + "\n"
	for _, c := range []struct{ in, want string }{
		{bhead + "0,0,1,4,16,1024,16,0.5,10\n", "line 2: level: \"0\""},
		{bhead + "1,-1,1,4,16,1024,16,0.5,10\n", "line 2: group"},
		{bhead + "1,0,1,4,16,1024,16,NaN,10\n", "line 2: seconds"},
		{bhead + "1,0,1,4,16,1024,16,0.5\n", "line 2: 8 fields"},
	} {
		_, err := ReadSwitchBandwidth(strings.NewReader(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ReadSwitchBandwidth(%q) error = %v, want one containing %q", c.in, err, c.want)
		}
	}
}

// FuzzReadSwitches: never a panic, and what reads writes back and reads
// the same.
func FuzzReadSwitches(f *testing.F) {
	f.Add([]byte("host,level,group\na,1,0\nb,1,1\na,2,0\nb,2,0\n"), []byte("level,group,peer_group,hosts,ranks,size_bytes,messages,seconds,aggregate_MBps\n1,0,1,4,16,1024,16,0.5,10\n"))
	f.Fuzz(func(t *testing.T, sw, bw []byte) {
		if rows, err := ReadSwitches(bytes.NewReader(sw)); err == nil {
			var b bytes.Buffer
			if err := WriteSwitches(&b, rows); err != nil {
				t.Fatal(err)
			}
			again, err := ReadSwitches(&b)
			if err != nil || !slices.Equal(again, rows) {
				t.Fatalf("switches.csv written back read %v, %v; want %v", again, err, rows)
			}
		}
		if rows, err := ReadSwitchBandwidth(bytes.NewReader(bw)); err == nil {
			var b bytes.Buffer
			if err := WriteSwitchBandwidth(&b, rows); err != nil {
				t.Fatal(err)
			}
			if _, err := ReadSwitchBandwidth(&b); err != nil {
				t.Fatalf("switchbw.csv written back: %v", err)
			}
		}
	})
}
