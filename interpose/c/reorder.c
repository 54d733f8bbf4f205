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
 * Rank 0 of each reordered call writes reorder-K/ in the raw profile
 * directory and appends a line to reorders.tsv there (finish.go).
 */
#define _GNU_SOURCE
#include "latmap.h"

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

#define LM_HOSTLEN 64

/* lm_slot is where a process runs: its host and the one cpu it is bound
 * to (-1 when it is not bound to exactly one). */
struct lm_slot {
	char host[LM_HOSTLEN];
	int cpu;
};

static int reorders; /* reordered calls so far (rank 0 numbers its files) */

/* path_in writes dir/name into p (size bytes), cut short if too long. */
static void path_in(char *p, size_t size, const char *dir, const char *name)
{
	if (snprintf(p, size, "%s/%s", dir, name) >= (int)size)
		p[size - 1] = 0;
}

static struct lm_slot my_slot(void)
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
	return fl;
}

/* write_inputs writes rank 0's files in dir: the processes' slots as an
 * Open MPI rankfile (current placement: old rank i on slot i) and the
 * Cartesian graph as a matrix over the old ranks. It returns a reason on
 * failure, NULL on success. */
static const char *write_inputs(const char *dir, MPI_Comm old, int n, const struct lm_slot *slots, int ndims, const int dims[], const int periods[])
{
	char p[4096];
	path_in(p, sizeof p, dir, "current.rankfile");
	FILE *f = fopen(p, "w");
	if (!f)
		return "cannot write the current placement";
	fprintf(f, "# Open MPI rankfile; slot numbers are the OS cpu numbers (latmap --reorder: the processes of MPI_Cart_create's communicator)\n");
	for (int i = 0; i < n; i++)
		fprintf(f, "rank %d=%s slot=%d\n", i, slots[i].host, slots[i].cpu);
	fclose(f);
	int nflows = 0;
	struct lm_flow *fl = read_matrix(getenv("LATMAP_REORDER_MATRIX"), &nflows);
	/* The old communicator's ranks in MPI_COMM_WORLD, as the matrix names them. */
	int *world = malloc(sizeof(int) * (size_t)n), *idx = malloc(sizeof(int) * (size_t)n);
	MPI_Group g, wg;
	PMPI_Comm_group(old, &g);
	PMPI_Comm_group(MPI_COMM_WORLD, &wg);
	for (int i = 0; i < n; i++)
		idx[i] = i;
	PMPI_Group_translate_ranks(g, n, idx, wg, world);
	PMPI_Group_free(&g);
	PMPI_Group_free(&wg);
	path_in(p, sizeof p, dir, "graph.csv");
	f = fopen(p, "w");
	if (!f) {
		free(fl), free(world), free(idx);
		return "cannot write the Cartesian graph";
	}
	fprintf(f, "src,dst,bytes,messages\n");
	int nb[64];
	for (int i = 0; i < n; i++) {
		int k = cart_neighbours(i, ndims, dims, periods, nb);
		for (int j = 0; j < k; j++) {
			double bytes = 0, msgs = 0;
			for (int e = 0; e < nflows; e++)
				if (fl[e].src == world[i] && fl[e].dst == world[nb[j]])
					bytes += fl[e].bytes, msgs += fl[e].msgs;
			if (!fl)
				msgs = 1; /* no matrix: one message each way a neighbour */
			if (msgs > 0 || bytes > 0)
				fprintf(f, "%d,%d,%.0f,%.0f\n", i, nb[j], bytes, msgs);
		}
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

/* note appends one line about a reordered call to reorders.tsv in the raw
 * profile directory (rank 0): the call, its ranks, the outcome, the
 * predicted speedup and the new rank of each old rank. */
static void note(int k, int n, const char *why, double speedup, const int nw[])
{
	const char *raw = getenv("LATMAP_PROFILE_DIR");
	if (!raw)
		return;
	char p[4096];
	snprintf(p, sizeof p, "%s/reorders.tsv", raw);
	FILE *f = fopen(p, "a");
	if (!f)
		return;
	fprintf(f, "MPI_Cart_create\t%d\t%d\t%s\t%.4f\t", k, n, why ? why : "reordered", speedup);
	for (int i = 0; i < n; i++)
		fprintf(f, i ? ",%d" : "%d", why ? i : nw[i]);
	fprintf(f, "\n");
	fclose(f);
}

/* decide is rank 0's part: the renumbering of the n processes at slots,
 * into nw; a reason when there is none. */
static const char *decide(MPI_Comm old, int n, const struct lm_slot *slots, int ndims, const int dims[], const int periods[], int nw[], double *speedup)
{
	for (int i = 0; i < n; i++)
		if (slots[i].cpu < 0)
			return "the processes are not bound to one cpu each (bind them: mpirun --bind-to core)";
	const char *raw = getenv("LATMAP_PROFILE_DIR");
	char dir[4096];
	snprintf(dir, sizeof dir, "%s/reorder-%d", raw ? raw : "/tmp", reorders);
	if (mkdir(dir, 0755) && errno != EEXIST)
		return "cannot make its directory in the raw profile";
	const char *why = write_inputs(dir, old, n, slots, ndims, dims, periods);
	if (!why) {
		const char *t = getenv("LATMAP_REORDER_TIMEOUT");
		why = run_place(dir, t ? atof(t) : 60);
	}
	return why ? why : read_renumbering(dir, n, nw, speedup);
}

int lm_cart_create(MPI_Comm old, int ndims, const int dims[], const int periods[], int reorder, MPI_Comm *cart)
{
	if (!reorder || !getenv("LATMAP_REORDER_SURVEY"))
		return PMPI_Cart_create(old, ndims, dims, periods, reorder, cart);
	int n, me, prod = 1;
	PMPI_Comm_size(old, &n);
	PMPI_Comm_rank(old, &me);
	for (int d = 0; d < ndims; d++)
		prod *= dims[d];
	struct lm_slot s = my_slot(), *slots = me == 0 ? malloc(sizeof *slots * (size_t)n) : NULL;
	PMPI_Gather(&s, sizeof s, MPI_BYTE, slots, sizeof s, MPI_BYTE, 0, old);
	/* msg[0]: 1 when renumbered; msg[1..n]: the new ranks. */
	int *msg = calloc((size_t)n + 1, sizeof(int));
	if (me == 0) {
		double speedup = 0;
		const char *why = NULL;
		if (prod != n || ndims > 32)
			why = "the grid does not span the communicator";
		else
			why = decide(old, n, slots, ndims, dims, periods, msg + 1, &speedup);
		msg[0] = !why;
		note(reorders, n, why, speedup, msg + 1);
		if (why)
			fprintf(stderr, "latmap: --reorder: MPI_Cart_create kept MPI's numbering: %s\n", why);
		reorders++;
		free(slots);
	}
	PMPI_Bcast(msg, n + 1, MPI_INT, 0, old);
	int rc;
	if (msg[0]) {
		MPI_Comm tmp;
		PMPI_Comm_split(old, 0, msg[1 + me], &tmp);
		rc = PMPI_Cart_create(tmp, ndims, dims, periods, 0, cart);
		PMPI_Comm_free(&tmp);
	} else {
		rc = PMPI_Cart_create(old, ndims, dims, periods, reorder, cart);
	}
	free(msg);
	return rc;
}
