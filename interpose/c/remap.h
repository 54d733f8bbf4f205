/*
 * remap.h: latmap profile --remap ADVICE (remap.c): lm_remap renumbers the
 * world at MPI_Init, before anything else is set up; lm_comm_get_attr
 * finds the MPI's predefined attributes (MPI_TAG_UB, ...) on its own
 * world.
 */
#ifndef LATMAP_REMAP_H
#define LATMAP_REMAP_H

#include <mpi.h>

void lm_remap(void);
int lm_comm_get_attr(MPI_Comm comm, int keyval, void *val, int *flag);

#endif
