/*
 * init.h: start-up and shut-down (init.c): MPI_Init, MPI_Init_thread and
 * MPI_Finalize.
 */
#ifndef LATMAP_INIT_H
#define LATMAP_INIT_H

int lm_Init(int id, int *argc, char ***argv);
int lm_Init_thread(int id, int *argc, char ***argv, int required, int *provided);
int lm_Finalize(int id);

#endif
