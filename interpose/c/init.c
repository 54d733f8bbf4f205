/*
 * init.c: start-up and shut-down: MPI_Init and MPI_Init_thread read
 * latmap's environment (set by latmap profile) and set every part up;
 * MPI_Finalize stops accounting and writes the profile (output.c).
 *
 * Environment:
 *   LATMAP_PROFILE_DIR  directory rank 0 writes the raw profile into
 *   LATMAP_APPTIME      without LATMAP_PROFILE_DIR: only time the run (latmap verify)
 *   LATMAP_SLT=1        send-late time by tokens on shadow communicators
 *   LATMAP_COLLWAIT=1   timed PMPI_Barrier before each blocking collective
 *   LATMAP_COLLMATRIX=1 collectives in the matrix (collmatrix.c)
 *   LATMAP_CALL_SITES   call sites of this depth (sites.c)
 *   LATMAP_WINDOW       FUNC:START:END collective heartbeat window
 *   LATMAP_CLOCK        tsc (default on x86 with an invariant TSC) or monotonic
 *   LATMAP_REMAP        the slots of a proposal to renumber the world to (remap.c)
 */
#include "init.h"
#include "clock.h"
#include "commtab.h"
#include "output.h"
#include "remap.h"
#include "sites.h"
#include "state.h"
#include "tokens.h"
#include "window.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* setup_options reads the switches of a profile. */
static void setup_options(int provided)
{
	lm_clock_choose();
	lm.mt = provided == MPI_THREAD_MULTIPLE;
	const char *s = getenv("LATMAP_SLT");
	lm.slt = s && !strcmp(s, "1");
	if (lm.mt && lm.slt)
		lm.warn |= LM_W_THREAD_MULTIPLE;
	s = getenv("LATMAP_COLLWAIT");
	lm.collwait = s && !strcmp(s, "1");
	s = getenv("LATMAP_COLLMATRIX");
	lm.collmat = s && !strcmp(s, "1");
	s = getenv("LATMAP_CALL_SITES");
	int depth = s ? atoi(s) : 0;
	if (depth > 0) {
		lm.sites = depth > LM_SITE_MAXDEPTH ? LM_SITE_MAXDEPTH : depth;
		if (lm.mt)
			lm.warn |= LM_W_SITES_THREADS;
		lm_sites_setup();
	}
}

static void setup(int provided)
{
	const char *dir = getenv("LATMAP_PROFILE_DIR");
	lm_remap();
	PMPI_Comm_rank(lm_world, &lm.wrank);
	PMPI_Comm_size(lm_world, &lm.wsize);
	if (!dir || !*dir) {
		const char *at = getenv("LATMAP_APPTIME");
		if (at && *at) {
			/* Timing only (latmap verify): every wrapper passes through. */
			lm_apptime_open(at);
			PMPI_Barrier(lm_world);
			lm_clock_start_wall();
			return;
		}
		if (lm.wrank == 0)
			fprintf(stderr, "latmap: liblatmap.so loaded but LATMAP_PROFILE_DIR is not set; "
					"not profiling (run the program under latmap profile)\n");
		return;
	}
	setup_options(provided);
	MPI_Comm priv = lm_output_open(dir, provided);
	lm_commtab_setup();
	lm_window_setup(getenv("LATMAP_WINDOW"));
	lm_output_where();
	lm.enabled = 1;
	lm_snapshot_setup();
	if (lm.slt)
		lm_tokens_calibrate(priv);
	PMPI_Barrier(priv);
	lm_clock_start();
	lm_window_start();
}

int lm_Init(int id, int *argc, char ***argv)
{
	(void)id;
	int rc = PMPI_Init(argc, argv);
	if (rc == MPI_SUCCESS)
		setup(MPI_THREAD_SINGLE);
	return rc;
}

int lm_Init_thread(int id, int *argc, char ***argv, int required, int *provided)
{
	(void)id;
	int rc = PMPI_Init_thread(argc, argv, required, provided);
	if (rc == MPI_SUCCESS)
		setup(*provided);
	return rc;
}

int lm_Finalize(int id)
{
	(void)id;
	lm_write_apptime();
	if (lm.enabled) {
		lm_window_stop();
		lm_orphans_cancel();
		lm_write_profile();
		lm.enabled = 0;
		lm_output_close();
	}
	return PMPI_Finalize();
}
