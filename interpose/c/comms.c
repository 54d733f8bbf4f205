/*
 * comms.c: per-communicator matrices. Every instance of one creation call
 * (one per colour of a split, one per process of a dup) belongs to one
 * group, keyed by its path of creation: its parent's key and how many
 * communicators had been created from the parent before it. Every member
 * of the parent agrees on that count, because MPI orders a communicator's
 * collective calls the same way on all its members. MPI_COMM_WORLD's key
 * is "w", so "w.0" is the first communicator created from it and "w.0.1"
 * the second created from that. Sends on MPI_COMM_WORLD are not recorded
 * here: its own matrix is the whole matrix minus the groups'.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comms.h"
#include "pairs.h"
#include "util.h"

/* At most LM_NGRP groups; group 0 holds the communicators of unknown
 * origin (made by a call latmap does not wrap, MPI_Comm_idup) and, past
 * the limit, the rest. */
#define LM_NGRP 64
#define LM_GRPKEY 64

struct lm_cgroup {
	char key[LM_GRPKEY];
	char name[MPI_MAX_OBJECT_NAME];
	int fid;    /* creating function, -1 if not known */
	int size;   /* size of this rank's instance (0: not a member) */
	int member; /* this rank is in an instance */
	struct lm_pairs sendto;
};

static struct lm_cgroup G[LM_NGRP] = {{.key = "other", .fid = -1}};
static int ngrp = 1;

static int group_of(const char *key, int fid)
{
	for (int i = 1; i < ngrp; i++)
		if (!strcmp(G[i].key, key))
			return i;
	if (ngrp == LM_NGRP || strlen(key) >= LM_GRPKEY) {
		lm.cg_over = 1;
		return 0;
	}
	struct lm_cgroup *x = &G[ngrp];
	memset(x, 0, sizeof *x);
	snprintf(x->key, sizeof x->key, "%s", key);
	x->fid = fid;
	return ngrp++;
}

void lm_cgroup_self(struct lm_comm *self)
{
	self->grp = group_of("self", -1);
	G[self->grp].member = 1;
	G[self->grp].size = 1;
	snprintf(G[self->grp].name, sizeof G[self->grp].name, "MPI_COMM_SELF");
}

int lm_cgroup_child(struct lm_comm *parent, int fid)
{
	char key[LM_GRPKEY + 16];
	int k = parent->nchild++;
	if (parent->grp < 0)
		snprintf(key, sizeof key, "w.%d", k);
	else
		snprintf(key, sizeof key, "%s.%d", G[parent->grp].key, k);
	return group_of(key, fid);
}

void lm_cgroup_join(struct lm_comm *c)
{
	if (c->grp < 0)
		return;
	G[c->grp].member = 1;
	G[c->grp].size = c->size;
}

void lm_cgroup_sent(int grp, int w, int64_t bytes, uint64_t ticks)
{
	lm_pair_add(&G[grp].sendto, w, bytes, ticks, 0);
}

void lm_cgroup_name(struct lm_comm *c, const char *name)
{
	if (c->grp < 0 || !name)
		return;
	snprintf(G[c->grp].name, sizeof G[c->grp].name, "%s", name);
}

/* lm_cgroup_key is a group's key for callsites.csv: -1 is MPI_COMM_WORLD,
 * -2 a call without a communicator. */
const char *lm_cgroup_key(int grp)
{
	if (grp == -1)
		return "MPI_COMM_WORLD";
	if (grp < 0 || grp >= ngrp)
		return "";
	return G[grp].key;
}

/* csv_str writes s as a quoted CSV field. */
static void csv_str(struct lm_buf *b, const char *s)
{
	bprintf(b, "\"");
	for (; *s; s++)
		bprintf(b, *s == '"' ? "\"\"" : "%c", *s);
	bprintf(b, "\"");
}

int lm_write_comms(double tk, lm_sink gather)
{
	struct lm_buf b = {0};
	for (int i = 0; i < ngrp; i++) {
		struct lm_cgroup *x = &G[i];
		if (!x->member && !x->sendto.n)
			continue;
		bprintf(&b, "%d,%s,", lm.wrank, x->key);
		csv_str(&b, x->name);
		bprintf(&b, ",%s,%d\n", x->fid >= 0 ? lm_fn_names[x->fid] : "", x->member ? x->size : 0);
	}
	int err = gather(&b, "comms.csv", "rank,comm,name,function,size\n");
	for (int i = 0; i < ngrp; i++)
		for (int k = 0; k < G[i].sendto.cap; k++) {
			struct lm_pair *p = &G[i].sendto.t[k];
			if (p->key >= 0)
				bprintf(&b, "%s,%d,%d,%lld,%lld,%.9g\n", G[i].key, lm.wrank, p->key, (long long)p->bytes,
					(long long)p->msgs, (double)p->ticks * tk);
		}
	return err | gather(&b, "commsent.csv", "comm,src,dst,bytes,messages,time_s\n");
}
