// Package launcher knows the MPI launchers latmap works with (Open MPI's
// mpirun, MPICH's Hydra mpiexec, Slurm's srun): which one a launch command
// starts, for the profiler that injects its library through it and for
// latmap verify that inserts a placement file into it.
package launcher
