/*
 * window.c: when accounting is on (lm.on): once initialised, while
 * MPI_Pcontrol's level is not 0 and the observation window is open
 * (LATMAP_WINDOW=FUNC:START:END: the START-th call of collective FUNC
 * opens it, the END-th closes it), and how long it was on (ranks.csv's
 * elapsed_s). lm_coll_pre, the hook before each collective, counts the
 * window's heartbeats and makes --collective-wait's barrier.
 */
#include "window.h"

#include <stdio.h>
#include <string.h>

static struct {
	int pc_on, open;
	int fn, start, end, count; /* the heartbeat function (-1: none) and its calls */
	char spec[128];
	uint64_t on_since, elapsed;
} W = {.pc_on = 1, .open = 1, .fn = -1};

static void set_on(void)
{
	int want = lm.enabled && W.pc_on && W.open;
	if (want && !lm.on) {
		W.on_since = lm_tick();
		lm.on = 1;
	} else if (!want && lm.on) {
		W.elapsed += lm_tick() - W.on_since;
		lm.on = 0;
	}
}

void lm_window_setup(const char *s)
{
	if (!s || !*s)
		return;
	char name[96];
	int a = 0, b = 0;
	snprintf(W.spec, sizeof W.spec, "%s", s);
	if (sscanf(s, "%95[^:]:%d:%d", name, &a, &b) == 3) {
		const char *n = strncmp(name, "MPI_", 4) ? name : name + 4;
		for (int i = 0; i < LM_NFN; i++)
			if (!strcmp(lm_fn_names[i] + 4, n))
				W.fn = i;
		W.start = a;
		W.end = b;
	}
	if (W.fn < 0 || !(lm_fn_flags[W.fn] & LM_FLAG_COLLECTIVE)) {
		W.fn = -1;
		lm.warn |= LM_W_DISABLED_WINDOW;
	} else if (W.start > 0) {
		W.open = 0;
	}
}

void lm_window_start(void)
{
	set_on();
}

void lm_window_stop(void)
{
	if (lm.on) {
		W.elapsed += lm_tick() - W.on_since;
		lm.on = 0;
	}
}

uint64_t lm_window_elapsed(void)
{
	return W.elapsed;
}

const char *lm_window_spec(void)
{
	return W.spec;
}

int lm_pcontrol(int level)
{
	LM_LOCK();
	W.pc_on = level != 0;
	set_on();
	LM_UNLOCK();
	return MPI_SUCCESS;
}

uint64_t lm_coll_pre(int id, MPI_Comm comm, int barrier, uint64_t *t0)
{
	if (id == W.fn) {
		LM_LOCK();
		W.count++;
		if (W.count == W.start) {
			W.open = 1;
			set_on();
			*t0 = lm_tick();
		} else if (W.count == W.end) {
			W.open = 0;
			set_on();
		}
		LM_UNLOCK();
	}
	/* The barrier is inserted whatever the window, so every rank of comm
	 * calls the same sequence of collectives. */
	if (barrier && lm.collwait) {
		uint64_t a = lm_tick();
		PMPI_Barrier(comm);
		uint64_t b = lm_tick();
		*t0 = b;
		return b - a;
	}
	return 0;
}
