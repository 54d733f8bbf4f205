package exitcode

import (
	"errors"
	"fmt"
	"testing"
)

func TestOf(t *testing.T) {
	plain := errors.New("bad flag")
	for _, c := range []struct {
		err  error
		want int
	}{
		{nil, OK},
		{plain, Usage},
		{With(NoAdvice, plain), NoAdvice},
		{fmt.Errorf("place: %w", With(JobFailed, plain)), JobFailed},
		{With(Failed, nil), OK},
	} {
		if got := Of(c.err); got != c.want {
			t.Errorf("Of(%v) = %d, want %d", c.err, got, c.want)
		}
	}
}
