package testutil

import "testing"

func TestRequired(t *testing.T) {
	for _, tc := range []struct {
		env, need string
		want      bool
	}{
		{"", "mpi", false},
		{"mpi,mpich", "mpich", true},
		{"mpi, vcluster", "vcluster", true},
		{"mpi,mpich", "slurm", false},
		{"mpich", "mpi", false}, // names match whole, not as prefixes
		{"all", "lammps", true},
	} {
		t.Setenv(RequireEnv, tc.env)
		if got := Required(tc.need); got != tc.want {
			t.Errorf("%s=%q: Required(%q) = %v, want %v", RequireEnv, tc.env, tc.need, got, tc.want)
		}
	}
}
