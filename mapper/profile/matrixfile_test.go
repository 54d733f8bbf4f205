package profile

import (
	"strings"
	"testing"
)

func TestParseMatrix(t *testing.T) {
	for _, c := range []struct {
		name  string
		in    string
		n     int
		flows int
		err   string
	}{
		{"plain", "src,dst,bytes,messages\n0,1,100,2\n1,0,100,2\n", 2, 2, ""},
		{"extra columns and comments", "# from a tool\nsrc,dst,bytes,messages,time_s\n0,3,1e6,10,0.5\n\n", 4, 1, ""},
		{"spaces and CRLF", "src, dst, bytes, messages\r\n 2 , 0 , 8 , 1 \r\n", 3, 1, ""},
		{"header only", "src,dst,bytes,messages\n", 0, 0, ""},
		{"empty", "", 0, 0, "empty matrix"},
		{"wrong header", "a,b,c,d\n0,1,2,3\n", 0, 0, "line 1: column 1"},
		{"short header", "src,dst\n", 0, 0, "line 1: header has 2 columns"},
		{"short row", "src,dst,bytes,messages\n0,1,2\n", 0, 0, "line 2: 3 columns"},
		{"non-numeric rank", "src,dst,bytes,messages\n0,x,2,3\n", 0, 0, `line 2: dst: "x" is not a rank number`},
		{"negative rank", "src,dst,bytes,messages\n-1,0,2,3\n", 0, 0, "line 2: src: negative rank"},
		{"negative bytes", "src,dst,bytes,messages\n0,1,-2,3\n", 0, 0, "line 2: bytes: negative value"},
		{"non-numeric messages", "src,dst,bytes,messages\n0,1,2,many\n", 0, 0, `line 2: messages: "many" is not a number`},
		{"NaN", "src,dst,bytes,messages\n0,1,NaN,1\n", 0, 0, "not a number"},
		{"Inf", "src,dst,bytes,messages\n0,1,1,+Inf\n", 0, 0, "not a number"},
		{"error line counts comments", "# c\nsrc,dst,bytes,messages\n# c\n0,1,1,1\n0,1,1,z\n", 0, 0, "line 5:"},
	} {
		t.Run(c.name, func(t *testing.T) {
			flows, n, err := ParseMatrix(strings.NewReader(c.in))
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err = %v, want it to contain %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if n != c.n || len(flows) != c.flows {
				t.Errorf("got %d ranks, %d flows; want %d, %d", n, len(flows), c.n, c.flows)
			}
		})
	}
}

func FuzzParseMatrix(f *testing.F) {
	f.Add("src,dst,bytes,messages\n0,1,100,2\n1,0,100,2\n")
	f.Add("# c\nsrc,dst,bytes,messages,x\n3,3,1e9,0\n")
	f.Add("src,dst,bytes,messages\n0,1,-1,2\n")
	f.Fuzz(func(t *testing.T, in string) {
		flows, n, err := ParseMatrix(strings.NewReader(in))
		if err != nil {
			return
		}
		for _, fl := range flows {
			if fl.Src < 0 || fl.Dst < 0 || fl.Src >= n || fl.Dst >= n || fl.Bytes < 0 || fl.Messages < 0 || fl.Bytes != fl.Bytes || fl.Messages != fl.Messages {
				t.Fatalf("accepted bad flow %+v (n=%d)", fl, n)
			}
		}
	})
}
