/*
 * state.c: the state every part of the library shares: lm (the switches,
 * counters and matrices that the generated wrappers and the inline hooks
 * of hooks.h update), lm_mu (its lock under MPI_THREAD_MULTIPLE), lm_world
 * (the program's world, remap.c), and the
 * reset of lm_tsize's one-entry datatype-size cache.
 */
#define _GNU_SOURCE /* PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP */
#include "state.h"

struct lm_state lm = {.use_tsc = 1, .last_dt = MPI_DATATYPE_NULL};
pthread_mutex_t lm_mu = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
MPI_Comm lm_world = MPI_COMM_WORLD;

void lm_type_forget(MPI_Datatype dt)
{
	LM_LOCK();
	if (dt == lm.last_dt)
		lm.last_dt = MPI_DATATYPE_NULL;
	LM_UNLOCK();
}
