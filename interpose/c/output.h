/*
 * output.h: what start-up, MPI_Finalize and the wrappers (a partial
 * profile's snapshot) ask of the output (output.c).
 */
#ifndef LATMAP_OUTPUT_H
#define LATMAP_OUTPUT_H

#include "state.h"

/* lm_output_open notes the profile's directory and the thread level MPI
 * granted, and returns the private duplicate of MPI_COMM_WORLD that the
 * gather (and the token calibration) use (collective). */
MPI_Comm lm_output_open(const char *dir, int thread_level);
/* lm_output_where notes the host and the cpu the rank starts on. */
void lm_output_where(void);
/* lm_apptime_open notes LATMAP_APPTIME's file: timing only, no profile. */
void lm_apptime_open(const char *path);
/* lm_write_apptime writes that file, once (collective; nothing without
 * LATMAP_APPTIME). */
void lm_write_apptime(void);
/* lm_write_profile writes the raw profile (collective). */
void lm_write_profile(void);
/* lm_snapshot_setup reads LATMAP_FLUSH_SECONDS and makes the rank's
 * partial directory (after lm_output_open). */
void lm_snapshot_setup(void);
/* lm_output_close frees the private communicator. */
void lm_output_close(void);

/* Partial profiles: a timer thread raises lm.flush_due every
 * LATMAP_FLUSH_SECONDS, and the next wrapped call on the application's
 * thread writes the rank's snapshot (lm_snapshot_poll): every timed
 * wrapper ends with LM_SNAPSHOT_POLL. */
void lm_snapshot_poll(void);
#define LM_SNAPSHOT_POLL()                                                         \
	do {                                                                       \
		if (__builtin_expect(__atomic_load_n(&lm.flush_due, __ATOMIC_RELAXED), 0)) \
			lm_snapshot_poll();                                        \
	} while (0)

#endif
