/*
 * sites.h: call sites (sites.c, latmap profile --call-sites): a wrapper's
 * snapshot of its function's counters when it started, and the entry of
 * its call site; LM_SITE_ENTER and LM_SITE_EXIT open and close every
 * timed wrapper.
 */
#ifndef LATMAP_SITES_H
#define LATMAP_SITES_H

#include "state.h"
#include "util.h"

#define LM_SITE_MAXDEPTH 16
struct lm_site;
struct lm_snap {
	int id; /* -1: not recorded */
	struct lm_site *site;
	struct lm_fnstat before;
};
void lm_sites_setup(void);
void lm_site_enter(struct lm_snap *sn, int id, void *ra, MPI_Comm comm);
void lm_site_exit(struct lm_snap *sn);
#define LM_SITE_ENTER(fid, comm)                                              \
	struct lm_snap lm_snap;                                               \
	lm_snap.id = -1;                                                      \
	if (__builtin_expect(lm.sites, 0))                                    \
	lm_site_enter(&lm_snap, (fid), __builtin_return_address(0), (comm))
#define LM_SITE_EXIT()                                       \
	do {                                                 \
		if (__builtin_expect(lm_snap.id >= 0, 0))        \
			lm_site_exit(&lm_snap);              \
	} while (0)
/* lm_write_sites writes callsites.csv through gather. */
int lm_write_sites(double tk, lm_sink gather);

#endif
