/*
 * reorder.c: latmap profile --reorder SURVEY. MPI_Cart_create with
 * reorder = 1 asks MPI for a better numbering, and Open MPI and MPICH
 * return the identity; here the numbering comes from latmap's model of
 * the measured machine. Rank 0 of the old communicator writes where its
 * processes run (an Open MPI rankfile: the current placement) and the
 * Cartesian graph (each neighbour pair with the bytes and messages an
 * earlier profile's matrix saw between them, or one message each), runs
 * `latmap place --same-slots` on them with the survey (posix_spawn, no
 * fork; bounded by LATMAP_REORDER_TIMEOUT seconds), and every process
 * gets the renumbering in one broadcast: the Cartesian communicator is
 * made, without reorder, over the old one split in that order. Without
 * --reorder, or when anything fails (the reason goes into the profile),
 * the call is MPI's own.
 *
 * Environment (latmap profile sets it):
 *   LATMAP_REORDER_CMD      the latmap binary
 *   LATMAP_REORDER_SURVEY   the survey directory
 *   LATMAP_REORDER_MATRIX   an earlier profile's matrix.csv (optional)
 *   LATMAP_REORDER_TIMEOUT  seconds latmap place may take (default 60)
 * Rank 0 of each reordered call writes reorder-K-wW/ (its K-th call,
 * world rank W) in the raw profile directory and appends a line to reorders.tsv there (finish.go).
 */
#define _GNU_SOURCE
#include "reorder.h"
#include "state.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static int reorders; /* reordered calls so far (rank 0 numbers its files) */

/* path_in writes dir/name into p (size bytes), cut short if too long. */
static void path_in(char *p, size_t size, const char *dir, const char *name)
{
	if (snprintf(p, size, "%s/%s", dir, name) >= (int)size)
		p[size - 1] = 0;
}

struct lm_slot lm_my_slot(void)
{
	struct lm_slot s;
	memset(&s, 0, sizeof s);
	gethostname(s.host, sizeof s.host - 1);
	s.cpu = -1;
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) == 1)
		for (int c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &set))
				s.cpu = c;
	return s;
}

/* cart_neighbours lists the Cartesian neighbours of rank r (row-major, as
 * MPI numbers a Cartesian grid) into nb and returns how many. */
static int cart_neighbours(int r, int ndims, const int dims[], const int periods[], int nb[])
{
	int k = 0, stride = 1;
	for (int d = ndims - 1; d >= 0; d--) {
		int c = (r / stride) % dims[d];
		for (int step = -1; step <= 1; step += 2) {
			int o = c + step;
			if (o < 0 || o >= dims[d]) {
				if (!periods[d] || dims[d] < 2)
					continue;
				o = (o + dims[d]) % dims[d];
			}
			int x = r + (o - c) * stride, dup = o == c;
			for (int j = 0; j < k; j++)
				dup |= nb[j] == x; /* a period of 2: one neighbour both ways */
			if (!dup)
				nb[k++] = x;
		}
		stride *= dims[d];
	}
	return k;
}

/* lm_flow is one row of an earlier profile's matrix.csv
 * (src,dst,bytes,messages), read by read_matrix (NULL without one). */
struct lm_flow {
	int src, dst;
	double bytes, msgs;
};

/* flow_cmp orders rows by source, then destination. */
static int flow_cmp(const void *x, const void *y)
{
	const struct lm_flow *a = x, *b = y;
	if (a->src != b->src)
		return a->src < b->src ? -1 : 1;
	return (a->dst > b->dst) - (a->dst < b->dst);
}

/* read_matrix reads the rows of matrix.csv at path, sorted by flow_cmp
 * (NULL without a file). */
static struct lm_flow *read_matrix(const char *path, int *nflows)
{
	*nflows = 0;
	FILE *f = path && *path ? fopen(path, "r") : NULL;
	if (!f)
		return NULL;
	int cap = 1024, n = 0;
	struct lm_flow *fl = malloc(sizeof *fl * (size_t)cap);
	char line[256];
	while (fl && fgets(line, sizeof line, f)) {
		struct lm_flow x;
		if (sscanf(line, "%d,%d,%lf,%lf", &x.src, &x.dst, &x.bytes, &x.msgs) != 4)
			continue; /* the header */
		if (n == cap) {
			cap *= 2;
			struct lm_flow *g = realloc(fl, sizeof *fl * (size_t)cap);
			if (!g)
				break;
			fl = g;
		}
		fl[n++] = x;
	}
	fclose(f);
	*nflows = n;
	if (fl)
		qsort(fl, (size_t)n, sizeof *fl, flow_cmp);
	return fl;
}

/* flow_between sums the rows of fl (sorted, nflows) from world rank a to
 * b into *bytes and *msgs. */
static void flow_between(const struct lm_flow *fl, int nflows, int a, int b, double *bytes, double *msgs)
{
	int lo = 0, hi = nflows;
	struct lm_flow key = {a, b, 0, 0};
	while (lo < hi) { /* the first row not below (a, b) */
		int mid = lo + (hi - lo) / 2;
		if (flow_cmp(&fl[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < nflows && fl[lo].src == a && fl[lo].dst == b; lo++)
		*bytes += fl[lo].bytes, *msgs += fl[lo].msgs;
}

/* lm_graph is the virtual topology's graph over the old communicator's
 * ranks: ne edges src -> dst of weights w (1 where the call has none). */
struct lm_graph {
	int ne;
	int *src, *dst, *w;
};

/* graph_add appends an edge to g (cap: its room, grown as needed). */
static void graph_add(struct lm_graph *g, int *cap, int a, int b, int w)
{
	if (g->ne == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		g->src = realloc(g->src, sizeof(int) * (size_t)*cap);
		g->dst = realloc(g->dst, sizeof(int) * (size_t)*cap);
		g->w = realloc(g->w, sizeof(int) * (size_t)*cap);
	}
	g->src[g->ne] = a, g->dst[g->ne] = b, g->w[g->ne++] = w;
}

static void graph_free(struct lm_graph *g)
{
	free(g->src), free(g->dst), free(g->w);
}

/* write_inputs writes rank 0's files in dir: the processes' slots as an
 * Open MPI rankfile (current placement: old rank i on slot i) and the
 * graph as a matrix over the old ranks: each edge's bytes and messages
 * in LATMAP_REORDER_MATRIX (world ranks) when given, else its weight as
 * messages. It returns a reason on failure, NULL on success. */
static const char *write_inputs(const char *dir, MPI_Comm old, int n, const struct lm_slot *slots, const struct lm_graph *g)
{
	char p[4096];
	path_in(p, sizeof p, dir, "current.rankfile");
	FILE *f = fopen(p, "w");
	if (!f)
		return "cannot write the current placement";
	fprintf(f, "# Open MPI rankfile; slot numbers are the OS cpu numbers (latmap --reorder: the processes of the communicator)\n");
	for (int i = 0; i < n; i++)
		fprintf(f, "rank %d=%s slot=%d\n", i, slots[i].host, slots[i].cpu);
	fclose(f);
	int nflows = 0;
	struct lm_flow *fl = read_matrix(getenv("LATMAP_REORDER_MATRIX"), &nflows);
	/* The old communicator's ranks in MPI_COMM_WORLD, as the matrix names them. */
	int *world = malloc(sizeof(int) * (size_t)n), *idx = malloc(sizeof(int) * (size_t)n);
	MPI_Group og, wg;
	PMPI_Comm_group(old, &og);
	PMPI_Comm_group(lm_world, &wg);
	for (int i = 0; i < n; i++)
		idx[i] = i;
	PMPI_Group_translate_ranks(og, n, idx, wg, world);
	PMPI_Group_free(&og);
	PMPI_Group_free(&wg);
	path_in(p, sizeof p, dir, "graph.csv");
	f = fopen(p, "w");
	if (!f) {
		free(fl), free(world), free(idx);
		return "cannot write the graph";
	}
	fprintf(f, "src,dst,bytes,messages\n");
	for (int e = 0; e < g->ne; e++) {
		int a = g->src[e], b = g->dst[e];
		double bytes = 0, msgs = fl ? 0 : g->w[e];
		if (fl)
			flow_between(fl, nflows, world[a], world[b], &bytes, &msgs);
		if (a != b && (msgs > 0 || bytes > 0))
			fprintf(f, "%d,%d,%.0f,%.0f\n", a, b, bytes, msgs);
	}
	fclose(f);
	free(fl), free(world), free(idx);
	return NULL;
}

/* run_place runs latmap place on dir's inputs, its output in dir, and
 * waits at most timeout seconds; a reason on failure, NULL on success. */
static const char *run_place(const char *dir, double timeout)
{
	char cur[4096], graph[4096], out[4096], log[4096];
	path_in(cur, sizeof cur, dir, "current.rankfile");
	path_in(graph, sizeof graph, dir, "graph.csv");
	path_in(out, sizeof out, dir, "renumbering");
	path_in(log, sizeof log, dir, "place.json");
	char *argv[] = {(char *)getenv("LATMAP_REORDER_CMD"), "place", "--survey", (char *)getenv("LATMAP_REORDER_SURVEY"),
			"--current", cur, "--matrix", graph, "--same-slots", "--renumber", out, "--json", NULL};
	if (!argv[0] || !argv[3])
		return "LATMAP_REORDER_CMD or LATMAP_REORDER_SURVEY not set";
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	posix_spawn_file_actions_adddup2(&fa, 1, 2);
	pid_t pid;
	int err = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (err)
		return "latmap could not be started";
	struct timespec nap = {0, 10 * 1000 * 1000};
	for (double waited = 0;; waited += 0.01) {
		int st;
		pid_t w = waitpid(pid, &st, WNOHANG);
		if (w == pid)
			return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? NULL : "latmap place failed (its output is in place.json)";
		if (w < 0 && errno != EINTR)
			return "lost latmap place";
		if (waited >= timeout) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			return "latmap place took longer than LATMAP_REORDER_TIMEOUT";
		}
		nanosleep(&nap, NULL);
	}
}

/* read_renumbering reads dir's renumbering of n ranks into nw, and its
 * predicted speedup; a reason on failure. */
static const char *read_renumbering(const char *dir, int n, int nw[], double *speedup)
{
	char p[4096], line[256];
	path_in(p, sizeof p, dir, "renumbering");
	FILE *f = fopen(p, "r");
	if (!f)
		return "latmap place wrote no renumbering";
	int k = 0;
	while (fgets(line, sizeof line, f)) {
		if (line[0] == '#') {
			sscanf(line, "# predicted_speedup %lf", speedup);
			continue;
		}
		if (k < n && sscanf(line, "%d", &nw[k]) == 1)
			k++;
	}
	fclose(f);
	return k == n ? NULL : "the renumbering has another number of ranks";
}

/* lm_reorder_note appends one line about a reordered call to reorders.tsv in the raw
 * profile directory (rank 0): the call, its ranks, the outcome, the
 * predicted speedup and the new rank of each old rank. */
void lm_reorder_note(const char *call, int k, int n, const char *why, double speedup, const int nw[])
{
	const char *raw = getenv("LATMAP_PROFILE_DIR");
	if (!raw)
		return;
	char p[4096];
	snprintf(p, sizeof p, "%s/reorders.tsv", raw);
	FILE *f = fopen(p, "a");
	if (!f)
		return;
	fprintf(f, "%s\t%d\t%d\t%s\t%.4f\t", call, k, n, why ? why : "reordered", speedup);
	for (int i = 0; i < n; i++)
		fprintf(f, i ? ",%d" : "%d", why ? i : nw[i]);
	fprintf(f, "\n");
	fclose(f);
}

/* decide is rank 0's part: the renumbering of the n processes at slots,
 * into nw; a reason when there is none. */
static const char *decide(MPI_Comm old, int n, const struct lm_slot *slots, const struct lm_graph *g, int nw[], double *speedup)
{
	for (int i = 0; i < n; i++)
		if (slots[i].cpu < 0)
			return "the processes are not bound to one cpu each (bind them: mpirun --bind-to core)";
	const char *raw = getenv("LATMAP_PROFILE_DIR");
	char dir[4096];
	int w;
	PMPI_Comm_rank(lm_world, &w);
	/* World rank w decides: its K-th call (another rank 0 may decide
	 * another communicator's call at the same time). */
	snprintf(dir, sizeof dir, "%s/reorder-%d-w%d", raw ? raw : "/tmp", reorders, w);
	if (mkdir(dir, 0755) && errno != EEXIST)
		return "cannot make its directory in the raw profile";
	const char *why = write_inputs(dir, old, n, slots, g);
	if (!why) {
		const char *t = getenv("LATMAP_REORDER_TIMEOUT");
		why = run_place(dir, t ? atof(t) : 60);
	}
	return why ? why : read_renumbering(dir, n, nw, speedup);
}

/* renumber is every process's part of a reordered call on old: rank 0
 * (whose g is the graph, or NULL with the reason unfit) decides, and
 * every process gets msg: msg[0] 1 when renumbered, msg[1 + i] old rank
 * i's new rank. The caller frees msg. */
static int *renumber(MPI_Comm old, const char *call, const struct lm_graph *g, const char *unfit)
{
	int n, me;
	PMPI_Comm_size(old, &n);
	PMPI_Comm_rank(old, &me);
	struct lm_slot s = lm_my_slot(), *slots = me == 0 ? malloc(sizeof *slots * (size_t)n) : NULL;
	PMPI_Gather(&s, sizeof s, MPI_BYTE, slots, sizeof s, MPI_BYTE, 0, old);
	int *msg = calloc((size_t)n + 1, sizeof(int));
	if (me == 0) {
		double speedup = 0;
		const char *why = unfit ? unfit : decide(old, n, slots, g, msg + 1, &speedup);
		msg[0] = !why;
		lm_reorder_note(call, reorders, n, why, speedup, msg + 1);
		if (why)
			fprintf(stderr, "latmap: --reorder: %s kept MPI's numbering: %s\n", call, why);
		reorders++;
		free(slots);
	}
	PMPI_Bcast(msg, n + 1, MPI_INT, 0, old);
	return msg;
}

/* reordering says whether latmap renumbers this call. */
static int reordering(int reorder) { return reorder && getenv("LATMAP_REORDER_SURVEY"); }

/* split is old with its processes in the order msg gives (renumber). */
static MPI_Comm split(MPI_Comm old, const int *msg)
{
	int me;
	MPI_Comm tmp;
	PMPI_Comm_rank(old, &me);
	PMPI_Comm_split(old, 0, msg[1 + me], &tmp);
	return tmp;
}

int lm_cart_create(MPI_Comm old, int ndims, const int dims[], const int periods[], int reorder, MPI_Comm *cart)
{
	if (!reordering(reorder))
		return PMPI_Cart_create(old, ndims, dims, periods, reorder, cart);
	int n, me, prod = 1, cap = 0;
	PMPI_Comm_size(old, &n);
	PMPI_Comm_rank(old, &me);
	for (int d = 0; d < ndims; d++)
		prod *= dims[d];
	struct lm_graph g = {0};
	const char *unfit = prod != n || ndims > 32 ? "the grid does not span the communicator" : NULL;
	if (me == 0 && !unfit) {
		int nb[64];
		for (int i = 0; i < n; i++)
			for (int j = 0, k = cart_neighbours(i, ndims, dims, periods, nb); j < k; j++)
				graph_add(&g, &cap, i, nb[j], 1);
	}
	int *msg = renumber(old, "MPI_Cart_create", &g, unfit);
	graph_free(&g);
	int rc;
	if (msg[0]) {
		MPI_Comm tmp = split(old, msg);
		rc = PMPI_Cart_create(tmp, ndims, dims, periods, 0, cart);
		PMPI_Comm_free(&tmp);
	} else {
		rc = PMPI_Cart_create(old, ndims, dims, periods, reorder, cart);
	}
	free(msg);
	return rc;
}

/* adjacency is one process's part of a distributed graph: its in- and
 * out-edges, weighted or not, packed in one int array to move it: indeg,
 * outdeg, weighted, sources, [source weights], destinations, [dest
 * weights]. */
static int *pack_adjacency(int indeg, const int src[], const int sw[], int outdeg, const int dst[], const int dw[], int weighted, int *len)
{
	*len = 3 + (indeg + outdeg) * (1 + weighted);
	int *a = malloc(sizeof(int) * (size_t)*len), k = 3;
	a[0] = indeg, a[1] = outdeg, a[2] = weighted;
	for (int i = 0; i < indeg; i++)
		a[k++] = src[i];
	for (int i = 0; weighted && i < indeg; i++)
		a[k++] = sw[i];
	for (int i = 0; i < outdeg; i++)
		a[k++] = dst[i];
	for (int i = 0; weighted && i < outdeg; i++)
		a[k++] = dw[i];
	return a;
}

/* gather_edges gives rank 0 (into g) the m edges of every process,
 * each three ints in trip: source, destination, weight. */
static void gather_edges(MPI_Comm old, int m, const int *trip, struct lm_graph *g)
{
	int n, me, cap = 0, total = 0, len = 3 * m;
	PMPI_Comm_size(old, &n);
	PMPI_Comm_rank(old, &me);
	int *cnt = me == 0 ? malloc(sizeof(int) * (size_t)n) : NULL, *off = NULL, *all = NULL;
	PMPI_Gather(&len, 1, MPI_INT, cnt, 1, MPI_INT, 0, old);
	if (me == 0) {
		off = malloc(sizeof(int) * (size_t)n);
		for (int i = 0; i < n; i++)
			off[i] = total, total += cnt[i];
		all = malloc(sizeof(int) * (size_t)(total + 1));
	}
	PMPI_Gatherv(trip, len, MPI_INT, all, cnt, off, MPI_INT, 0, old);
	for (int k = 0; me == 0 && k + 2 < total; k += 3)
		graph_add(g, &cap, all[k], all[k + 1], all[k + 2]);
	free(cnt), free(off), free(all);
}

/* trip_of packs m edges (src[i] or, when src is NULL, from; dst[i];
 * w[i] or 1 when unweighted) as gather_edges takes them. */
static int *trip_of(int m, const int *src, int from, const int *dst, const int *w, int weighted)
{
	int *t = malloc(sizeof(int) * (size_t)(3 * m + 1));
	for (int i = 0; i < m; i++) {
		t[3 * i] = src ? src[i] : from;
		t[3 * i + 1] = dst[i];
		t[3 * i + 2] = weighted ? w[i] : 1;
	}
	return t;
}

int lm_graph_create(MPI_Comm old, int nnodes, const int index[], const int edges[], int reorder, MPI_Comm *comm)
{
	if (!reordering(reorder))
		return PMPI_Graph_create(old, nnodes, index, edges, reorder, comm);
	int n, me, cap = 0;
	PMPI_Comm_size(old, &n);
	PMPI_Comm_rank(old, &me);
	struct lm_graph g = {0};
	const char *unfit = nnodes != n ? "the graph does not span the communicator" : NULL;
	for (int i = 0; me == 0 && !unfit && i < nnodes; i++)
		for (int k = i ? index[i - 1] : 0; k < index[i]; k++)
			graph_add(&g, &cap, i, edges[k], 1);
	int *msg = renumber(old, "MPI_Graph_create", &g, unfit);
	graph_free(&g);
	int rc;
	if (msg[0]) {
		/* The graph is global, its vertices the new ranks. */
		MPI_Comm tmp = split(old, msg);
		rc = PMPI_Graph_create(tmp, nnodes, index, edges, 0, comm);
		PMPI_Comm_free(&tmp);
	} else {
		rc = PMPI_Graph_create(old, nnodes, index, edges, reorder, comm);
	}
	free(msg);
	return rc;
}

int lm_dist_graph_create(MPI_Comm old, int n, const int nodes[], const int degrees[], const int targets[], const int weights[], MPI_Info info, int reorder, MPI_Comm *comm)
{
	if (!reordering(reorder))
		return PMPI_Dist_graph_create(old, n, nodes, degrees, targets, weights, info, reorder, comm);
	int m = 0;
	for (int i = 0; i < n; i++)
		m += degrees[i];
	int *src = malloc(sizeof(int) * (size_t)(m + 1));
	for (int i = 0, k = 0; i < n; i++)
		for (int d = 0; d < degrees[i]; d++)
			src[k++] = nodes[i];
	int *trip = trip_of(m, src, 0, targets, weights, weights != MPI_UNWEIGHTED);
	struct lm_graph g = {0};
	gather_edges(old, m, trip, &g);
	free(src), free(trip);
	int *msg = renumber(old, "MPI_Dist_graph_create", &g, NULL);
	graph_free(&g);
	int rc;
	if (msg[0]) {
		/* Each process names edges by vertex, and vertices are the new
		 * ranks: its part of the graph stays as it gave it. */
		MPI_Comm tmp = split(old, msg);
		rc = PMPI_Dist_graph_create(tmp, n, nodes, degrees, targets, weights, info, 0, comm);
		PMPI_Comm_free(&tmp);
	} else {
		rc = PMPI_Dist_graph_create(old, n, nodes, degrees, targets, weights, info, reorder, comm);
	}
	free(msg);
	return rc;
}

int lm_dist_graph_create_adjacent(MPI_Comm old, int indeg, const int src[], const int sw[], int outdeg, const int dst[], const int dw[], MPI_Info info, int reorder, MPI_Comm *comm)
{
	if (!reordering(reorder))
		return PMPI_Dist_graph_create_adjacent(old, indeg, src, sw, outdeg, dst, dw, info, reorder, comm);
	int weighted = sw != MPI_UNWEIGHTED && dw != MPI_UNWEIGHTED, me, len, hdr;
	PMPI_Comm_rank(old, &me);
	struct lm_graph g = {0};
	int *trip = trip_of(outdeg, NULL, me, dst, dw, weighted);
	gather_edges(old, outdeg, trip, &g);
	free(trip);
	int *msg = renumber(old, "MPI_Dist_graph_create_adjacent", &g, NULL);
	graph_free(&g);
	if (!msg[0]) {
		free(msg);
		return PMPI_Dist_graph_create_adjacent(old, indeg, src, sw, outdeg, dst, dw, info, reorder, comm);
	}
	/* Graph vertex i, old rank i's adjacency, goes to the process that
	 * becomes rank i; neighbours are vertices, so they need no change. */
	int n;
	PMPI_Comm_size(old, &n);
	int to = 0, from = msg[1 + me];
	for (int q = 0; q < n; q++)
		if (msg[1 + q] == me)
			to = q;
	int *mine = pack_adjacency(indeg, src, sw, outdeg, dst, dw, weighted, &len);
	PMPI_Sendrecv(&len, 1, MPI_INT, to, 0, &hdr, 1, MPI_INT, from, 0, old, MPI_STATUS_IGNORE);
	int *a = malloc(sizeof(int) * (size_t)hdr);
	PMPI_Sendrecv(mine, len, MPI_INT, to, 1, a, hdr, MPI_INT, from, 1, old, MPI_STATUS_IGNORE);
	int in = a[0], out = a[1], wt = a[2];
	int *s = a + 3, *swt = wt ? s + in : MPI_UNWEIGHTED, *d = s + in * (1 + wt), *dwt = wt ? d + out : MPI_UNWEIGHTED;
	MPI_Comm tmp = split(old, msg);
	int rc = PMPI_Dist_graph_create_adjacent(tmp, in, s, swt, out, d, dwt, info, 0, comm);
	PMPI_Comm_free(&tmp);
	free(mine), free(a), free(msg);
	return rc;
}
