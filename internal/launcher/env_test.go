package launcher

import "testing"

// TestRankInEnv: the rank each launcher gives its processes, -1 when
// unknown.
func TestRankInEnv(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want int
	}{
		{map[string]string{}, -1},
		{map[string]string{"OMPI_COMM_WORLD_SIZE": "4", "OMPI_COMM_WORLD_RANK": "3"}, 3},
		{map[string]string{"PMI_SIZE": "4", "PMI_RANK": "0"}, 0},
		{map[string]string{"SLURM_STEP_ID": "2", "SLURM_PROCID": "5"}, 5},
		{map[string]string{"OMPI_COMM_WORLD_SIZE": "4"}, -1},
	} {
		if got := RankInEnv(func(k string) string { return tc.env[k] }); got != tc.want {
			t.Errorf("%v: RankInEnv = %d, want %d", tc.env, got, tc.want)
		}
	}
}
