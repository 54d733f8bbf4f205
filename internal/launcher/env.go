package launcher

import "strconv"

// The launcher that started this process, from the variables launchers
// set in every process they start (getenv is os.Getenv): what latmap
// survey checks before it touches MPI.

// launcherVars are the environment variables MPI launchers set in every
// process they start, with the launcher's name and the variable holding the
// number of processes ("" when the launcher sets none).
var launcherVars = []struct{ name, present, size, rank string }{
	{"openmpi", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK"},
	{"hydra", "PMI_SIZE", "PMI_SIZE", "PMI_RANK"}, // MPICH, Intel MPI, MVAPICH2 with Hydra
	{"mvapich", "MV2_COMM_WORLD_SIZE", "MV2_COMM_WORLD_SIZE", "MV2_COMM_WORLD_RANK"},
	// srun sets PMIX_RANK too (--mpi=pmix): Slurm first, so that a
	// survey says it ran under srun.
	{"slurm", "SLURM_STEP_ID", "SLURM_STEP_NUM_TASKS", "SLURM_PROCID"}, // srun
	{"pmix", "PMIX_RANK", "", "PMIX_RANK"},
	{"alps", "ALPS_APP_PE", "", "ALPS_APP_PE"}, // Cray aprun
	{"jsrun", "JSM_NAMESPACE_SIZE", "JSM_NAMESPACE_SIZE", "JSM_NAMESPACE_RANK"},
}

// srunPMI2 reports whether the PMI variables are srun's (--mpi=pmi2 sets
// PMI_SIZE and PMI_RANK as Hydra does): a step with as many tasks as PMI
// ranks. Hydra inside an allocation starts one proxy per node with srun,
// whose step has fewer tasks than ranks unless there is one rank a node.
func srunPMI2(getenv func(string) string) bool {
	return getenv("SLURM_STEP_ID") != "" && getenv("SLURM_STEP_NUM_TASKS") != "" && getenv("SLURM_STEP_NUM_TASKS") == getenv("PMI_SIZE")
}

// RankInEnv returns this process's rank as its launcher told it in the
// environment, or -1 when unknown. It lets ranks other than 0 stay silent
// about errors every rank finds before MPI starts.
func RankInEnv(getenv func(string) string) int {
	for _, l := range launcherVars {
		if getenv(l.present) == "" {
			continue
		}
		if v, err := strconv.Atoi(getenv(l.rank)); err == nil {
			return v
		}
		return -1
	}
	return -1
}

// InEnv names the MPI launcher that started this process and the number
// of processes it started (-1 when it does not say); ok is false when no
// launcher started the process.
func InEnv(getenv func(string) string) (name string, size int, ok bool) {
	for _, l := range launcherVars {
		if getenv(l.present) == "" || (l.name == "hydra" && srunPMI2(getenv)) {
			continue
		}
		size = -1
		if l.size != "" {
			if v, err := strconv.Atoi(getenv(l.size)); err == nil {
				size = v
			}
		}
		return l.name, size, true
	}
	return "", 0, false
}
