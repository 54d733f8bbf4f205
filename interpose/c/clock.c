/*
 * clock.c: the profile's clock (LATMAP_CLOCK: tsc, the default on x86
 * with an invariant TSC, or monotonic) and the run's start, from which
 * MPI_Finalize converts ticks to seconds and LATMAP_APPTIME's time is
 * measured.
 */
#include "clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct {
	uint64_t tsc0;
	struct timespec mono0;
} clk;

static int has_invariant_tsc(void)
{
#ifdef LM_HAVE_TSC
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return 0;
	char line[4096];
	int ok = 0;
	while (fgets(line, sizeof line, f))
		if (!strncmp(line, "flags", 5)) {
			ok = strstr(line, " constant_tsc") && strstr(line, " nonstop_tsc");
			break;
		}
	fclose(f);
	return ok;
#else
	return 0;
#endif
}

void lm_clock_choose(void)
{
	const char *clock = getenv("LATMAP_CLOCK");
	lm.use_tsc = has_invariant_tsc() && !(clock && !strcmp(clock, "monotonic"));
}

void lm_clock_start_wall(void)
{
	clock_gettime(CLOCK_MONOTONIC, &clk.mono0);
}

void lm_clock_start(void)
{
	clock_gettime(CLOCK_MONOTONIC, &clk.mono0);
	clk.tsc0 = lm_tick();
}

double lm_clock_wall(void)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - clk.mono0.tv_sec) + 1e-9 * (double)(now.tv_nsec - clk.mono0.tv_nsec);
}

void lm_clock_run(double *secs, double *hz)
{
	uint64_t tsc1 = lm_tick();
	struct timespec mono1;
	clock_gettime(CLOCK_MONOTONIC, &mono1);
	*secs = (double)(mono1.tv_sec - clk.mono0.tv_sec) + 1e-9 * (double)(mono1.tv_nsec - clk.mono0.tv_nsec);
	*hz = *secs > 0 && tsc1 > clk.tsc0 ? (double)(tsc1 - clk.tsc0) / *secs : 1e9;
	if (!lm.use_tsc)
		*hz = 1e9;
}
