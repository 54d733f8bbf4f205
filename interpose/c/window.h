/*
 * window.h: when accounting is on (window.c): MPI_Pcontrol and the
 * observation window, and the hook before each collective.
 */
#ifndef LATMAP_WINDOW_H
#define LATMAP_WINDOW_H

#include "state.h"

/* lm_window_setup reads LATMAP_WINDOW's FUNC:START:END (spec; NULL or
 * empty: no window). */
void lm_window_setup(const char *spec);
/* lm_window_start turns accounting on at the end of start-up (if the
 * window is open); lm_window_stop turns it off at MPI_Finalize. */
void lm_window_start(void);
void lm_window_stop(void);
/* lm_window_elapsed is the ticks accounting was on; lm_window_spec is
 * LATMAP_WINDOW as given, for library.json. */
uint64_t lm_window_elapsed(void);
const char *lm_window_spec(void);
/* lm_pcontrol is MPI_Pcontrol's hook. lm_coll_pre, before a collective
 * of function id on comm, counts the window's heartbeats and, for a
 * blocking one (barrier) under --collective-wait, makes the barrier: *t0
 * restarts after it (or when the window opens), and the barrier's ticks
 * are returned. */
int lm_pcontrol(int level);
uint64_t lm_coll_pre(int id, MPI_Comm comm, int barrier, uint64_t *t0);

#endif
