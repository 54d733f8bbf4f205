// Package placefile owns the files of placement: the launcher files latmap
// place writes and reads back (Open MPI rankfile, MPICH machine file,
// Slurm SLURM_HOSTFILE, Cray MPICH_RANK_ORDER), the advice latmap place
// --json prints (a versioned schema, see Advice), and the verification
// directory latmap verify writes (meta.json and runs.csv). Producers of
// advice (placement) and its readers (placement/verify, plots/report) meet
// here, as survey and profile directories meet in mapper/survey and
// mapper/profile.
package placefile
