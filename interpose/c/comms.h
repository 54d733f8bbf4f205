/*
 * comms.h: the per-communicator matrices (comms.c): each communicator
 * (commtab.c) belongs to a group, keyed by its path of creation, whose
 * matrix its sends add to.
 */
#ifndef LATMAP_COMMS_H
#define LATMAP_COMMS_H

#include "state.h"
#include "util.h"

/* lm_cgroup_self puts MPI_COMM_SELF's table in its own group, at
 * start-up. */
void lm_cgroup_self(struct lm_comm *self);
/* lm_cgroup_child is the group of the next communicator created from
 * parent by function fid. */
int lm_cgroup_child(struct lm_comm *parent, int fid);
/* lm_cgroup_join makes this rank a member of c's group. */
void lm_cgroup_join(struct lm_comm *c);
/* lm_cgroup_sent adds a message to world rank w to group grp's matrix;
 * the caller holds LM_LOCK. */
void lm_cgroup_sent(int grp, int w, int64_t bytes, uint64_t ticks);
/* lm_cgroup_name names c's group (MPI_Comm_set_name). */
void lm_cgroup_name(struct lm_comm *c, const char *name);
/* lm_cgroup_key is a group's key for callsites.csv. */
const char *lm_cgroup_key(int grp);
/* lm_write_comms writes comms.csv and commsent.csv through gather. */
int lm_write_comms(double tk, lm_sink gather);

#endif
