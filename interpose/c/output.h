/*
 * output.h: what start-up and MPI_Finalize ask of the output (output.c).
 */
#ifndef LATMAP_OUTPUT_H
#define LATMAP_OUTPUT_H

#include "latmap.h"

/* lm_output_open notes the profile's directory and the thread level MPI
 * granted, and returns the private duplicate of MPI_COMM_WORLD that the
 * gather (and the token calibration) use (collective). */
MPI_Comm lm_output_open(const char *dir, int thread_level) LM_HIDDEN;
/* lm_output_where notes the host and the cpu the rank starts on. */
void lm_output_where(void) LM_HIDDEN;
/* lm_apptime_open notes LATMAP_APPTIME's file: timing only, no profile. */
void lm_apptime_open(const char *path) LM_HIDDEN;
/* lm_write_apptime writes that file, once (collective; nothing without
 * LATMAP_APPTIME). */
void lm_write_apptime(void) LM_HIDDEN;
/* lm_write_profile writes the raw profile (collective). */
void lm_write_profile(void) LM_HIDDEN;
/* lm_snapshot_setup reads LATMAP_FLUSH_SECONDS and makes the rank's
 * partial directory (after lm_output_open). */
void lm_snapshot_setup(void) LM_HIDDEN;
/* lm_output_close frees the private communicator. */
void lm_output_close(void) LM_HIDDEN;

#endif
