/*
 * window.h: when accounting is on (window.c): MPI_Pcontrol and the
 * observation window; lm_pcontrol and lm_coll_pre are in latmap.h.
 */
#ifndef LATMAP_WINDOW_H
#define LATMAP_WINDOW_H

#include "latmap.h"

/* lm_window_setup reads LATMAP_WINDOW's FUNC:START:END (spec; NULL or
 * empty: no window). */
void lm_window_setup(const char *spec) LM_HIDDEN;
/* lm_window_start turns accounting on at the end of start-up (if the
 * window is open); lm_window_stop turns it off at MPI_Finalize. */
void lm_window_start(void) LM_HIDDEN;
void lm_window_stop(void) LM_HIDDEN;
/* lm_window_elapsed is the ticks accounting was on; lm_window_spec is
 * LATMAP_WINDOW as given, for library.json. */
uint64_t lm_window_elapsed(void) LM_HIDDEN;
const char *lm_window_spec(void) LM_HIDDEN;

#endif
