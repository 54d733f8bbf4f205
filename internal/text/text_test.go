package text

import (
	"os/exec"
	"reflect"
	"strings"
	"testing"
)

func TestCount(t *testing.T) {
	for n, want := range map[int]string{0: "0 hosts", 1: "1 host", 4: "4 hosts"} {
		if got := Count(n, "host"); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestShellJoin pastes each joined line into a real shell and checks that
// the shell sees the arguments unchanged.
func TestShellJoin(t *testing.T) {
	args := []string{"mpirun", "-np", "4", "", "a b", "it's", "$HOME", "x;y", "[ab]", "#c", "~u", "`id`", `back\slash`, "{a,b}", "!1", "line\nbreak", "plain-arg_1.0/x=y:z,w"}
	line := ShellJoin(args)
	got, err := exec.Command("sh", "-c", "set -- "+line+`; for a in "$@"; do printf '%s\0' "$a"; done`).Output()
	if err != nil {
		t.Fatalf("sh -c %q: %v", line, err)
	}
	want := strings.Join(args, "\x00") + "\x00"
	if string(got) != want {
		t.Errorf("ShellJoin(%q) = %s; the shell read %q", args, line, got)
	}
	if ShellJoin([]string{"plain-arg_1.0/x=y:z,w"}) != "plain-arg_1.0/x=y:z,w" {
		t.Errorf("a safe argument was quoted")
	}
}

func TestSize(t *testing.T) {
	for b, want := range map[float64]string{64: "64", 1023: "1023", 1536.25: "1.5K", 1234567: "1.177M", 65536: "64K", 1 << 20: "1M", 1.5 * (1 << 20): "1.5M", 3 << 30: "3G"} {
		if got := Size(b); got != want {
			t.Errorf("Size(%g) = %q, want %q", b, got, want)
		}
	}
}

func TestParseSizes(t *testing.T) {
	tests := []struct {
		in      string
		want    []int
		wantErr string
	}{
		{"64", []int{64}, ""},
		{"8,64,1K,1M", []int{8, 64, 1024, 1 << 20}, ""},
		{"4KiB, 64B ,1g", []int{4096, 64, 1 << 30}, ""},
		{"0", []int{0}, ""},
		{"", nil, "empty"},
		{"64,", nil, "empty"},
		{"abc", nil, "want a number"},
		{"-8", nil, "negative"},
		{"2G", nil, "larger than 1G"},
		{"1.5K", nil, "want a number"},
		{"K", nil, "want a number"},
	}
	for _, tc := range tests {
		got, err := ParseSizes(tc.in)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("ParseSizes(%q) error = %v, want one containing %q", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseSizes(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

func FuzzParseSizes(f *testing.F) {
	for _, s := range []string{"64", "8,1K,1M", "4KiB", "", "-1", "99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sizes, err := ParseSizes(s)
		if err != nil {
			return
		}
		for _, v := range sizes {
			if v < 0 || v > MaxSize {
				t.Fatalf("ParseSizes(%q) gave %d", s, v)
			}
		}
	})
}
