/*
 * commtab.c: the communicator table: for every communicator the
 * application uses, its size, rank and world ranks (struct lm_comm, built
 * once), its --slt shadow and its group of per-communicator matrices
 * (comms.c); kept in a hash keyed by handle, built on first use or when a
 * wrapped call creates the communicator, and freed with it (or by the
 * last tracked request that still points to it).
 */
#include "commtab.h"
#include "comms.h"
#include "hooks.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

static struct {
	MPI_Group wgroup;
	struct lm_comm *cworld, *cself;
	/* communicator hash, keyed by handle */
	struct lm_comm **ctab;
	int ccap, cn;
} ct;

static uint64_t comm_key(MPI_Comm c)
{
	uint64_t k = 0;
	memcpy(&k, &c, sizeof(c) < sizeof(k) ? sizeof(c) : sizeof(k));
	return k;
}

static struct lm_comm *comm_build(MPI_Comm comm)
{
	static int ids;
	struct lm_comm *c = calloc(1, sizeof(*c));
	if (!c)
		abort();
	c->id = __atomic_add_fetch(&ids, 1, __ATOMIC_RELAXED);
	c->comm = comm;
	c->grp = comm == lm_world ? -1 : 0; /* 0: of unknown origin until lm_comm_new says */
	c->shadow = MPI_COMM_NULL;
	PMPI_Comm_test_inter(comm, &c->inter);
	PMPI_Comm_rank(comm, &c->rank);
	MPI_Group grp;
	if (c->inter) {
		PMPI_Comm_remote_size(comm, &c->size);
		PMPI_Comm_remote_group(comm, &grp);
	} else {
		PMPI_Comm_size(comm, &c->size);
		PMPI_Comm_group(comm, &grp);
	}
	if (comm != lm_world) {
		int *in = malloc(sizeof(int) * (size_t)c->size);
		c->world = malloc(sizeof(int) * (size_t)c->size);
		if (!in || !c->world)
			abort();
		for (int i = 0; i < c->size; i++)
			in[i] = i;
		PMPI_Group_translate_ranks(grp, c->size, in, ct.wgroup, c->world);
		for (int i = 0; i < c->size; i++)
			if (c->world[i] == MPI_UNDEFINED)
				c->world[i] = -1;
		free(in);
	}
	PMPI_Group_free(&grp);
	return c;
}

/* comm_destroy frees a table whose communicator was freed and that no
 * tracked request points to any more. */
static void comm_destroy(struct lm_comm *c)
{
	free(c->world);
	free(c);
}

void lm_comm_unref(struct lm_comm *c)
{
	if (--c->refs == 0 && c->comm == MPI_COMM_NULL)
		comm_destroy(c);
}

static void ctab_put(struct lm_comm *c)
{
	if ((ct.cn + 1) * 2 > ct.ccap) {
		int ncap = ct.ccap ? ct.ccap * 2 : 32;
		struct lm_comm **nt = calloc((size_t)ncap, sizeof(*nt));
		if (!nt)
			abort();
		for (int i = 0; i < ct.ccap; i++) {
			if (!ct.ctab[i])
				continue;
			uint32_t h = lm_hash64(comm_key(ct.ctab[i]->comm)) & (uint32_t)(ncap - 1);
			while (nt[h])
				h = (h + 1) & (uint32_t)(ncap - 1);
			nt[h] = ct.ctab[i];
		}
		free(ct.ctab);
		ct.ctab = nt;
		ct.ccap = ncap;
	}
	uint32_t m = (uint32_t)(ct.ccap - 1), h = lm_hash64(comm_key(c->comm)) & m;
	while (ct.ctab[h])
		h = (h + 1) & m;
	ct.ctab[h] = c;
	ct.cn++;
}

static int ctab_slot(MPI_Comm comm)
{
	if (!ct.ccap)
		return -1;
	uint32_t m = (uint32_t)(ct.ccap - 1), h = lm_hash64(comm_key(comm)) & m;
	while (ct.ctab[h]) {
		if (ct.ctab[h]->comm == comm)
			return (int)h;
		h = (h + 1) & m;
	}
	return -1;
}

void lm_commtab_setup(void)
{
	PMPI_Comm_group(lm_world, &ct.wgroup);
	ct.cworld = comm_build(lm_world);
	ct.cself = comm_build(MPI_COMM_SELF);
	ctab_put(ct.cworld);
	ctab_put(ct.cself);
	lm_cgroup_self(ct.cself);
	if (lm.slt) {
		PMPI_Comm_dup(lm_world, &ct.cworld->shadow);
		PMPI_Comm_dup(MPI_COMM_SELF, &ct.cself->shadow);
	}
}

/* lm_comm_get returns the table of comm, building it on first use (a
 * communicator made by a function latmap does not wrap has no shadow). */
static struct lm_comm *comm_lookup(MPI_Comm comm)
{
	if (lm.last_comm && lm.last_comm->comm == comm)
		return lm.last_comm;
	if (comm == lm_world && ct.cworld)
		return lm.last_comm = ct.cworld;
	int s = ctab_slot(comm);
	struct lm_comm *c;
	if (s >= 0) {
		c = ct.ctab[s];
	} else {
		c = comm_build(comm);
		ctab_put(c);
	}
	return lm.last_comm = c;
}

struct lm_comm *lm_comm_get(MPI_Comm comm)
{
	LM_LOCK();
	struct lm_comm *c = comm_lookup(comm);
	LM_UNLOCK();
	return c;
}

/* lm_comm_new tracks comm, just created from parent by function fid (or
 * MPI_COMM_NULL, for a member of parent that is in no new communicator:
 * the creation still counts on parent, see comms.c). */
void lm_comm_new(MPI_Comm comm, MPI_Comm parent, int fid)
{
	if (!lm.enabled)
		return;
	LM_LOCK();
	int grp = lm_cgroup_child(comm_lookup(parent), fid);
	int s = comm == MPI_COMM_NULL ? -1 : ctab_slot(comm);
	LM_UNLOCK();
	if (comm == MPI_COMM_NULL)
		return;
	if (s >= 0) /* a stale entry for a reused handle */
		lm_comm_free(comm);
	struct lm_comm *c = comm_build(comm);
	if (lm.slt) /* collective: outside the lock */
		PMPI_Comm_dup(comm, &c->shadow);
	LM_LOCK();
	c->grp = grp;
	lm_cgroup_join(c);
	ctab_put(c);
	LM_UNLOCK();
}

int lm_Comm_set_name(int id, uint64_t t0, MPI_Comm comm, const char *comm_name)
{
	int rc = PMPI_Comm_set_name(comm, comm_name);
	if (rc == MPI_SUCCESS && lm.enabled && comm != lm_world) {
		LM_LOCK();
		lm_cgroup_name(comm_lookup(comm), comm_name);
		LM_UNLOCK();
	}
	lm_plain(id, t0);
	return rc;
}

void lm_comm_free(MPI_Comm comm)
{
	if (!lm.enabled || comm == MPI_COMM_NULL)
		return;
	LM_LOCK();
	int s = ctab_slot(comm);
	if (s < 0 || ct.ctab[s] == ct.cworld || ct.ctab[s] == ct.cself) {
		LM_UNLOCK();
		return;
	}
	struct lm_comm *c = ct.ctab[s];
	MPI_Comm shadow = c->shadow;
	c->shadow = MPI_COMM_NULL;
	/* The slot is removed by re-inserting the rest of its cluster; the
	 * table itself is freed now, or by the last tracked request that
	 * still points to it. */
	c->comm = MPI_COMM_NULL;
	if (lm.last_comm == c)
		lm.last_comm = NULL;
	uint32_t m = (uint32_t)(ct.ccap - 1), h = (uint32_t)s;
	ct.ctab[h] = NULL;
	ct.cn--;
	for (h = (h + 1) & m; ct.ctab[h]; h = (h + 1) & m) {
		struct lm_comm *x = ct.ctab[h];
		ct.ctab[h] = NULL;
		ct.cn--;
		ctab_put(x);
	}
	if (c->refs == 0)
		comm_destroy(c);
	LM_UNLOCK();
	if (shadow != MPI_COMM_NULL)
		PMPI_Comm_free(&shadow);
}
