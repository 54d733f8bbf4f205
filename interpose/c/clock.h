/*
 * clock.h: the profile's clock and the run's start (clock.c); lm_tick,
 * the clock read on every call, is inline in state.h.
 */
#ifndef LATMAP_CLOCK_H
#define LATMAP_CLOCK_H

#include "state.h"

/* lm_clock_choose sets lm.use_tsc: the TSC when it is invariant, unless
 * LATMAP_CLOCK=monotonic. */
void lm_clock_choose(void);
/* lm_clock_start_wall notes the run's start on the wall clock only (timing
 * for LATMAP_APPTIME); lm_clock_start notes it in ticks too. */
void lm_clock_start_wall(void);
void lm_clock_start(void);
/* lm_clock_wall is the wall time since the start, seconds. */
double lm_clock_wall(void);
/* lm_clock_run says how long the run took (wall seconds since the start)
 * and how many ticks a second the profile's clock has. */
void lm_clock_run(double *secs, double *hz);

#endif
