package bench

import (
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	tests := []struct {
		name    string
		edit    func(*Options)
		wantErr string
	}{
		{"defaults", func(*Options) {}, ""},
		{"sorted", func(o *Options) { o.Sizes = []int{1024, 8} }, ""},
		{"spec", func(o *Options) { o.SizeSpec = "8,1K" }, ""},
		{"bad spec", func(o *Options) { o.SizeSpec = "8,x" }, "message size \"x\""},
		{"no out", func(o *Options) { o.Out = "" }, "-o DIR"},
		{"no sizes", func(o *Options) { o.Sizes = nil }, "no message size"},
		{"dup size", func(o *Options) { o.Sizes = []int{8, 8} }, "twice"},
		{"neg size", func(o *Options) { o.Sizes = []int{-1} }, "out of range"},
		{"huge size", func(o *Options) { o.Sizes = []int{MaxSize + 1} }, "out of range"},
		{"repeats 1", func(o *Options) { o.Repeats = 1 }, "at least 2"},
		{"repeats 0", func(o *Options) { o.Repeats = 0 }, "at least 2"},
		{"warmup", func(o *Options) { o.Warmup = -1 }, "negative"},
		{"schedule", func(o *Options) { o.Schedule = "random" }, "unknown schedule"},
		{"fraction", func(o *Options) { o.IsolatedFraction = 1.5 }, "between 0 and 1"},
		{"fraction NaN", func(o *Options) { o.IsolatedFraction = math.NaN() }, "between 0 and 1"},
		{"mmpi odd size", func(o *Options) { o.Mmpi = "x.dat"; o.Sizes = []int{63} }, "multiple of 4"},
		{"mmpi size", func(o *Options) { o.Mmpi = "x.dat"; o.Sizes = []int{256, 63 * 4} }, ""},
	}
	for _, tc := range tests {
		o := DefaultOptions("out")
		tc.edit(&o)
		err := o.Validate()
		if tc.wantErr == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("%s: error = %v, want one containing %q", tc.name, err, tc.wantErr)
		}
	}
	o := DefaultOptions("out")
	o.Sizes = []int{1024, 8, 64}
	o.Validate()
	if !reflect.DeepEqual(o.Sizes, []int{8, 64, 1024}) {
		t.Errorf("Validate left sizes %v, want them sorted", o.Sizes)
	}
}

func TestDetectLauncher(t *testing.T) {
	tests := []struct {
		env     map[string]string
		name    string
		size    int
		wantErr string
	}{
		{map[string]string{}, "", 0, "MPI launcher"},
		{map[string]string{"OMPI_COMM_WORLD_SIZE": "4", "OMPI_COMM_WORLD_RANK": "0"}, "openmpi", 4, ""},
		{map[string]string{"OMPI_COMM_WORLD_SIZE": "1"}, "openmpi", 1, "at least 2 ranks"},
		{map[string]string{"PMI_SIZE": "8", "PMI_RANK": "3"}, "hydra", 8, ""},
		{map[string]string{"PMI_SIZE": "1"}, "hydra", 1, "at least 2 ranks"},
		{map[string]string{"SLURM_STEP_ID": "0", "SLURM_PROCID": "0", "SLURM_STEP_NUM_TASKS": "16"}, "slurm", 16, ""},
		{map[string]string{"SLURM_STEP_ID": "0", "SLURM_STEP_NUM_TASKS": "1"}, "slurm", 1, "at least 2 ranks"},
		// A batch script without srun has SLURM_PROCID but no step.
		{map[string]string{"SLURM_PROCID": "0", "SLURM_NTASKS": "4"}, "", 0, "MPI launcher"},
		{map[string]string{"PMIX_RANK": "0"}, "pmix", -1, ""},
		// srun --mpi=pmi2 sets Hydra's variables; Hydra inside an
		// allocation runs one proxy a node under srun.
		{map[string]string{"PMI_SIZE": "8", "PMI_RANK": "3", "SLURM_STEP_ID": "0", "SLURM_PROCID": "3", "SLURM_STEP_NUM_TASKS": "8"}, "slurm", 8, ""},
		{map[string]string{"PMI_SIZE": "8", "PMI_RANK": "3", "SLURM_STEP_ID": "0", "SLURM_PROCID": "1", "SLURM_STEP_NUM_TASKS": "2"}, "hydra", 8, ""},
		// srun --mpi=pmix sets both: the launcher is srun.
		{map[string]string{"PMIX_RANK": "3", "SLURM_STEP_ID": "0", "SLURM_PROCID": "3", "SLURM_STEP_NUM_TASKS": "8"}, "slurm", 8, ""},
		// mpirun inside a Slurm allocation: Open MPI's variables win.
		{map[string]string{"OMPI_COMM_WORLD_SIZE": "2", "SLURM_STEP_ID": "1", "SLURM_STEP_NUM_TASKS": "1"}, "openmpi", 2, ""},
	}
	for _, tc := range tests {
		name, size, err := DetectLauncher(func(k string) string { return tc.env[k] })
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%v: error = %v, want one containing %q", tc.env, err, tc.wantErr)
			}
			continue
		}
		if err != nil || name != tc.name || size != tc.size {
			t.Errorf("%v: DetectLauncher = %q, %d, %v; want %q, %d", tc.env, name, size, err, tc.name, tc.size)
		}
	}
}

func TestMPIVersionLine(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4, repo rev: v4.1.4, May 26, 2022\n", "Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4, repo rev: v4.1.4, May 26, 2022"},
		{"MPICH Version:\t4.0.2\nMPICH Release date:\tThu Apr  7 12:34:45 CDT 2022\nMPICH ABI:\t14:2:2\n", "MPICH Version: 4.0.2"},
		{"\n  Intel(R) MPI Library 2021.6  for Linux* OS\n\n", "Intel(R) MPI Library 2021.6 for Linux* OS"},
		{"", ""},
	} {
		if got := MPIVersionLine(tc.in); got != tc.want {
			t.Errorf("MPIVersionLine(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
