/*
 * collectives.h: what the generated collective wrappers call after the
 * collective (lm_coll, collectives.c) and the macros of their byte
 * expressions (interpose/internal/gen's table) over collectives.c's
 * helpers: LM_TS(type) a datatype's size, LM_CS(comm) a communicator's
 * size (the remote group's of an intercommunicator), LM_ROOT(root, comm)
 * 1 on the root, LM_SUM(counts, comm) and LM_SUMW(counts, types, comm)
 * the bytes of a counts array of LM_CS(comm) entries, LM_MINE(counts,
 * comm) this rank's entry, LM_INPLACE(buf), LM_INDEG(comm) and
 * LM_OUTDEG(comm) a process topology's neighbours.
 */
#ifndef LATMAP_COLLECTIVES_H
#define LATMAP_COLLECTIVES_H

#include "state.h"
#include "commtab.h"

void lm_coll(int id, uint64_t t0, uint64_t t1, uint64_t sync, int64_t sent, int64_t recv);
int64_t lm_sum(const int *counts, MPI_Comm comm);
int64_t lm_sumw(const int *counts, const MPI_Datatype *types, MPI_Comm comm);
int lm_mine(const int *counts, MPI_Comm comm);
int64_t lm_sum_c(const MPI_Count *counts, MPI_Comm comm);
int64_t lm_sumw_c(const MPI_Count *counts, const MPI_Datatype *types, MPI_Comm comm);
MPI_Count lm_mine_c(const MPI_Count *counts, MPI_Comm comm);
int lm_is_root(int root, MPI_Comm comm);
int lm_degree(MPI_Comm comm, int in);

#define LM_TS(t) lm_tsize(t)
#define LM_CS(c) ((int64_t)lm_comm_get(c)->size)
#define LM_ROOT(r, c) lm_is_root((r), (c))
/* LM_SUM, LM_SUMW and LM_MINE take int counts, or MPI_Count ones (the _c
 * calls). */
#define LM_SUM(a, c) _Generic((a), const MPI_Count *: lm_sum_c, MPI_Count *: lm_sum_c, default: lm_sum)((a), (c))
#define LM_SUMW(a, t, c) _Generic((a), const MPI_Count *: lm_sumw_c, MPI_Count *: lm_sumw_c, default: lm_sumw)((a), (t), (c))
#define LM_MINE(a, c) _Generic((a), const MPI_Count *: lm_mine_c, MPI_Count *: lm_mine_c, default: lm_mine)((a), (c))
#define LM_INPLACE(b) ((const void *)(b) == (const void *)MPI_IN_PLACE)
#define LM_INDEG(c) ((int64_t)lm_degree((c), 1))
#define LM_OUTDEG(c) ((int64_t)lm_degree((c), 0))

#endif
