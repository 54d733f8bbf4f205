package main

import (
	"fmt"
	"os"
	"testing"

	"github.com/latmap/latmap/internal/testutil"
)

// BenchmarkWriteScaleSurvey is a development aid, not a measurement: it
// writes one generated survey and its stencil where LATMAP_SCALE_OUT says,
// as LATMAP_SCALE_SPEC="nodes per density order x y z" (and
// LATMAP_SCALE_SCOPE) describe, to time commands on by hand:
//
//	LATMAP_SCALE_OUT=/tmp/s LATMAP_SCALE_SPEC="64 64 nodes shuffled 16 16 16" \
//	  go test -run '^$' -bench WriteScaleSurvey ./cmd/latmap/
func BenchmarkWriteScaleSurvey(t *testing.B) {
	out := os.Getenv("LATMAP_SCALE_OUT")
	if out == "" {
		testutil.Missing(t, "scale-out", "LATMAP_SCALE_OUT not set: this writes a survey to time commands on by hand")
	}
	var c scaleSpec
	var st [3]int
	if _, err := fmt.Sscanf(os.Getenv("LATMAP_SCALE_SPEC"), "%d %d %s %s %d %d %d", &c.nodes, &c.per, &c.density, &c.order, &st[0], &st[1], &st[2]); err != nil {
		t.Fatalf("LATMAP_SCALE_SPEC=\"nodes per density order x y z\": %v", err)
	}
	c.scope = os.Getenv("LATMAP_SCALE_SCOPE")
	if err := c.write(out); err != nil {
		t.Fatal(err)
	}
	if err := writeStencil(out+".stencil.csv", st[0], st[1], st[2]); err != nil {
		t.Fatal(err)
	}
}
