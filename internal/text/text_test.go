package text

import (
	"os/exec"
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
