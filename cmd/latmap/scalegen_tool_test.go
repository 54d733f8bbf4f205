package main

import (
	"fmt"
	"os"
	"testing"
)

// TestWriteScaleSurvey writes one generated survey where
// LATMAP_SCALE_OUT says (a development aid; skipped otherwise).
func TestWriteScaleSurvey(t *testing.T) {
	out := os.Getenv("LATMAP_SCALE_OUT")
	if out == "" {
		t.Skip("LATMAP_SCALE_OUT not set")
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
