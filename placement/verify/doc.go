// Package verify runs latmap verify: the launch command as given and with
// latmap place's launcher file, alternating, with the file put in the
// launcher's own way (Open MPI -rf, Hydra -f, srun with SLURM_HOSTFILE),
// and writes the verification directory (mapper/placefile) with the
// measured speedup, its bootstrap interval, and the speedup place
// predicted.
package verify
