/*
 * remap.c: latmap profile --remap ADVICE. At MPI_Init the world is
 * renumbered to the proposal of a latmap place --json advice: the process
 * on the slot the proposal gives rank r becomes rank r of lm_world, an
 * MPI_Comm_split of the MPI's own world, and every wrapper hands the
 * program's MPI_COMM_WORLD over as lm_world (LM_WORLD in state.h), so
 * the program, and latmap's own accounting, see the renumbered world.
 *
 * latmap profile writes the proposal's slots as LATMAP_REMAP, a rankfile
 * ("rank R=HOST slot=CPU", OS cpu numbers; "# predicted_speedup X").
 * Rank 0 gathers where every process runs and gives each the proposal's
 * rank on its slot (a process not bound to one cpu: a rank the proposal
 * puts on its host). When the proposal does not name exactly the job's
 * slots, the job keeps MPI's numbering and the reason goes into the
 * profile (reorders.tsv, call MPI_Init) and onto standard error.
 */
#include "remap.h"
#include "reorder.h"
#include "state.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* want is the proposal's slot of one rank. */
struct want {
	char host[LM_HOSTLEN];
	int cpu, rank, used;
};

static char reason[LM_HOSTLEN + 512];

/* read_wants reads the proposal's slots at path into *out (one a rank),
 * and the predicted speedup; the number of ranks, or -1 with reason set. */
static int read_wants(const char *path, struct want **out, double *speedup)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		snprintf(reason, sizeof reason, "cannot read LATMAP_REMAP (%s)", path);
		return -1;
	}
	int cap = 64, n = 0;
	struct want *w = calloc((size_t)cap, sizeof *w);
	char line[LM_HOSTLEN + 64];
	while (w && fgets(line, sizeof line, f)) {
		struct want x = {.used = 0};
		if (line[0] == '#') {
			sscanf(line, "# predicted_speedup %lf", speedup);
			continue;
		}
		if (sscanf(line, "rank %d=%255s slot=%d", &x.rank, x.host, &x.cpu) != 3)
			continue;
		if (n == cap) {
			cap *= 2;
			struct want *g = realloc(w, sizeof *w * (size_t)cap);
			if (!g)
				break;
			w = g;
		}
		w[n++] = x;
	}
	fclose(f);
	*out = w;
	return w ? n : -1;
}

/* want_cmp orders slots by host, then cpu. */
static int want_cmp(const void *x, const void *y)
{
	const struct want *a = x, *b = y;
	int c = strcmp(a->host, b->host);
	return c ? c : (a->cpu > b->cpu) - (a->cpu < b->cpu);
}

/* first_at is the first of the n sorted wants not below (host, cpu). */
static int first_at(const struct want *w, int n, const char *host, int cpu)
{
	struct want key;
	snprintf(key.host, sizeof key.host, "%s", host);
	key.cpu = cpu;
	int lo = 0, hi = n;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (want_cmp(&w[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* take gives process i the first unused want from k on host (and cpu,
 * unless any) and reports whether there was one. */
static int take(struct want *w, int n, int k, const struct lm_slot *s, int any, int *nr)
{
	for (; k < n && !strcmp(w[k].host, s->host) && (any || w[k].cpu == s->cpu); k++)
		if (!w[k].used) {
			w[k].used = 1;
			*nr = w[k].rank;
			return 1;
		}
	return 0;
}

/* match gives each of the n processes at slots its rank in the proposal
 * w (sorted, nw slots) into nr; the reason when it cannot. */
static const char *match(struct want *w, int nw, int n, const struct lm_slot *slots, int nr[])
{
	if (nw != n) {
		snprintf(reason, sizeof reason, "the advice places %d ranks and the job has %d", nw, n);
		return reason;
	}
	int *seen = calloc((size_t)n, sizeof(int));
	for (int i = 0; i < n; i++) {
		if (w[i].rank < 0 || w[i].rank >= n || seen[w[i].rank]++) {
			free(seen);
			snprintf(reason, sizeof reason, "the advice's rank %d is not one of 0-%d once", w[i].rank, n - 1);
			return reason;
		}
	}
	free(seen);
	for (int i = 0; i < n; i++)
		nr[i] = -1;
	for (int pass = 0; pass < 2; pass++) /* bound processes first, then those that are not */
		for (int i = 0; i < n; i++) {
			int any = slots[i].cpu < 0;
			if (nr[i] >= 0 || any != pass)
				continue;
			if (!take(w, n, first_at(w, n, slots[i].host, any ? INT_MIN : slots[i].cpu), &slots[i], any, &nr[i])) {
				snprintf(reason, sizeof reason,
					 "world rank %d runs on %s cpu %d, a slot the advice's proposal does not hold: "
					 "propose within this job's own slots (latmap place --same-slots, with a profile or --current of this placement)",
					 i, slots[i].host, slots[i].cpu);
				return reason;
			}
		}
	return NULL;
}

/* decide is rank 0's part: each process's new rank into nr; a reason
 * when MPI's numbering stays. */
static const char *decide(const char *path, int n, const struct lm_slot *slots, int nr[], double *speedup)
{
	struct want *w = NULL;
	int nw = read_wants(path, &w, speedup);
	if (nw < 0) {
		free(w);
		return reason;
	}
	qsort(w, (size_t)nw, sizeof *w, want_cmp);
	const char *why = match(w, nw, n, slots, nr);
	free(w);
	return why;
}

void lm_remap(void)
{
	const char *path = getenv("LATMAP_REMAP");
	if (!path || !*path)
		return;
	int me, n, ok = 0;
	double speedup = 0;
	PMPI_Comm_rank(MPI_COMM_WORLD, &me);
	PMPI_Comm_size(MPI_COMM_WORLD, &n);
	struct lm_slot mine = lm_my_slot(), *all = me == 0 ? malloc(sizeof *all * (size_t)n) : NULL;
	int *nr = malloc(sizeof(int) * (size_t)n);
	PMPI_Gather(&mine, sizeof mine, MPI_BYTE, all, sizeof mine, MPI_BYTE, 0, MPI_COMM_WORLD);
	const char *why = NULL;
	if (me == 0) {
		why = all && nr ? decide(path, n, all, nr, &speedup) : "out of memory";
		ok = why == NULL;
	}
	PMPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
	MPI_Comm w = MPI_COMM_NULL;
	if (ok) {
		PMPI_Bcast(nr, n, MPI_INT, 0, MPI_COMM_WORLD);
		if (PMPI_Comm_split(MPI_COMM_WORLD, 0, nr[me], &w) == MPI_SUCCESS) {
			PMPI_Comm_set_name(w, "MPI_COMM_WORLD");
			lm_world = w;
		}
	}
	if (me == 0) {
		lm_reorder_note("MPI_Init", 0, n, why, speedup, nr);
		if (why)
			fprintf(stderr, "latmap: --remap: %s; the job keeps the launcher's numbering\n", why);
		else
			fprintf(stderr, "latmap: --remap: MPI_COMM_WORLD renumbered to the advice's proposal (predicted %.2fx faster)\n", speedup);
	}
	free(all);
	free(nr);
}

int lm_comm_get_attr(MPI_Comm comm, int keyval, void *val, int *flag)
{
	int rc = PMPI_Comm_get_attr(comm, keyval, val, flag);
	/* MPI_TAG_UB, MPI_UNIVERSE_SIZE, ...: only the MPI's own world has them. */
	if (rc == MPI_SUCCESS && !*flag && comm == lm_world && lm_world != MPI_COMM_WORLD)
		rc = PMPI_Comm_get_attr(MPI_COMM_WORLD, keyval, val, flag);
	return rc;
}
