/*
 * output.c: the raw profile written at MPI_Finalize into
 * LATMAP_PROFILE_DIR: every rank's rows gathered to rank 0 (ranks.csv,
 * functions.csv, sizes.csv, sent.csv, received.csv, collective.csv, and
 * comms.c's and sites.c's files through the same gather), then
 * library.json, last; and LATMAP_APPTIME's file when only timing. With
 * LATMAP_FLUSH_SECONDS, every rank's rows as they stand now and then
 * (partial profiles).
 */
#define _GNU_SOURCE /* sched_getcpu, sched_getaffinity */
#include "output.h"
#include "clock.h"
#include "comms.h"
#include "cpufacts.h"
#include "sites.h"
#include "tokens.h"
#include "util.h"
#include "window.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <sys/stat.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct {
	const char *dir;
	MPI_Comm priv; /* private duplicate of lm_world for the gather */
	int thread_level;
	char host[256];
	int cpu0;
	/* LATMAP_APPTIME: the file rank 0 writes the run's time to (MPI_Init
	 * to MPI_Finalize, slowest rank) when not profiling. */
	const char *apptime;
} out;

MPI_Comm lm_output_open(const char *dir, int thread_level)
{
	out.dir = dir;
	out.thread_level = thread_level;
	PMPI_Comm_dup(lm_world, &out.priv);
	return out.priv;
}

void lm_output_where(void)
{
	gethostname(out.host, sizeof out.host - 1);
	out.cpu0 = sched_getcpu();
}

void lm_apptime_open(const char *path)
{
	out.apptime = path;
}

void lm_output_close(void)
{
	PMPI_Comm_free(&out.priv);
}

static void cpuset_string(char *s, size_t n)
{
	cpu_set_t set;
	s[0] = 0;
	if (sched_getaffinity(0, sizeof set, &set))
		return;
	size_t k = 0;
	for (int i = 0; i < CPU_SETSIZE && k + 24 < n; i++) {
		if (!CPU_ISSET(i, &set))
			continue;
		int j = i;
		while (j + 1 < CPU_SETSIZE && CPU_ISSET(j + 1, &set))
			j++;
		k += (size_t)snprintf(s + k, n - k, k ? ",%d" : "%d", i);
		if (j > i)
			k += (size_t)snprintf(s + k, n - k, "-%d", j);
		i = j;
	}
}

/* buf_free frees b's rows and empties it, for the next file. */
static void buf_free(struct lm_buf *b)
{
	free(b->p);
	b->p = NULL;
	b->n = b->cap = 0;
}

/* The gather at MPI_Finalize: rank 0 asks every other rank in turn for its
 * rows (asking the next one while it receives the current one) and writes
 * them straight to the file, in pieces of at most GATHER_PIECE bytes. Rank
 * 0 holds one piece at a time, whatever the number of ranks; no count or
 * displacement is limited to an int. */
enum { GATHER_TAG = 31, GATHER_PIECE = 64 << 20 };

static void send_rows(const struct lm_buf *b)
{
	long long len = (long long)b->n;
	PMPI_Recv(NULL, 0, MPI_BYTE, 0, GATHER_TAG, out.priv, MPI_STATUS_IGNORE);
	PMPI_Send(&len, 1, MPI_LONG_LONG, 0, GATHER_TAG, out.priv);
	for (long long off = 0; off < len; off += GATHER_PIECE) {
		int k = len - off < GATHER_PIECE ? (int)(len - off) : GATHER_PIECE;
		PMPI_Send(b->p + off, k, MPI_CHAR, 0, GATHER_TAG, out.priv);
	}
}

/* recv_rows appends the rows of ranks 1.. to f (NULL: received and
 * dropped, so that no rank waits forever); 1 on a write error. */
static int recv_rows(FILE *f)
{
	char *piece = NULL;
	int cap = 0, err = 0;
	if (lm.wsize > 1)
		PMPI_Send(NULL, 0, MPI_BYTE, 1, GATHER_TAG, out.priv);
	for (int r = 1; r < lm.wsize; r++) {
		if (r + 1 < lm.wsize)
			PMPI_Send(NULL, 0, MPI_BYTE, r + 1, GATHER_TAG, out.priv);
		long long len = 0;
		PMPI_Recv(&len, 1, MPI_LONG_LONG, r, GATHER_TAG, out.priv, MPI_STATUS_IGNORE);
		for (long long off = 0; off < len; off += GATHER_PIECE) {
			int k = len - off < GATHER_PIECE ? (int)(len - off) : GATHER_PIECE;
			if (k > cap) {
				piece = realloc(piece, (size_t)k);
				if (!piece)
					abort();
				cap = k;
			}
			PMPI_Recv(piece, k, MPI_CHAR, r, GATHER_TAG, out.priv, MPI_STATUS_IGNORE);
			if (f && fwrite(piece, 1, (size_t)k, f) != (size_t)k)
				err = 1;
		}
	}
	free(piece);
	return err;
}

/* gather_write gathers every rank's rows (b) to rank 0, which writes them
 * after header into dir/name. Empties b. */
static int gather_write(struct lm_buf *b, const char *name, const char *header)
{
	int err = 0;
	if (lm.wrank != 0) {
		send_rows(b);
	} else {
		char path[4096];
		snprintf(path, sizeof path, "%s/%s", out.dir, name);
		FILE *f = fopen(path, "w");
		if (!f || fputs(header, f) < 0 || (b->n && fwrite(b->p, 1, b->n, f) != b->n))
			err = 1;
		err |= recv_rows(f);
		if (f && fclose(f))
			err = 1;
		if (err)
			fprintf(stderr, "latmap: writing %s: %s\n", path, strerror(errno));
	}
	buf_free(b);
	return err;
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* write_ranks writes ranks.csv: where each rank ran and its times. */
static int write_ranks(double tk, lm_sink sink)
{
	struct lm_buf b = {0};
	int socket, numa, l3, cpu1 = sched_getcpu();
	lm_cpu_facts("/sys", out.cpu0, &socket, &numa, &l3);
	char cpuset[1024];
	cpuset_string(cpuset, sizeof cpuset);
	uint64_t inmpi = 0;
	for (int i = 0; i < LM_NFN; i++)
		inmpi += lm.fn[i].ticks + lm.fn[i].late + lm.fn[i].sync;
	double el = (double)lm_window_elapsed() * tk, comput = el - (double)inmpi * tk;
	if (comput < 0)
		comput = 0;
	bprintf(&b, "%d,%s,%d,%d,\"%s\",%d,%d,%d,%s,%.9f,%.9f\n", lm.wrank, out.host, out.cpu0, cpu1, cpuset, socket,
		numa, l3, out.cpu0 != cpu1 ? "true" : "false", el, comput);
	return sink(&b, "ranks.csv", "rank,host,cpu,cpu_end,cpuset,socket,numa,l3,migrated,elapsed_s,comput_s\n");
}

/* write_functions writes functions.csv: per rank and function. */
static int write_functions(double tk, lm_sink sink)
{
	struct lm_buf b = {0};
	for (int i = 0; i < LM_NFN; i++) {
		struct lm_fnstat *f = &lm.fn[i];
		if (!f->calls)
			continue;
		bprintf(&b, "%d,%s,%llu,%.9g,%.9g,%.9g,%lld,%lld,%lld,%lld\n", lm.wrank, lm_fn_names[i],
			(unsigned long long)f->calls, (double)f->ticks * tk, (double)f->late * tk, (double)f->sync * tk,
			(long long)f->bsent, (long long)f->brecv, (long long)f->rsent, (long long)f->rrecv);
	}
	return sink(&b, "functions.csv", "rank,function,calls,time_s,late_s,sync_s,bytes_sent,bytes_recv,reqs_sent,reqs_recv\n");
}

/* write_sizes writes sizes.csv: per rank, function and message-size bin. */
static int write_sizes(double tk, lm_sink sink)
{
	struct lm_buf b = {0};
	for (int i = 0; i < LM_NFN; i++)
		for (int k = 0; k < LM_NBIN; k++) {
			struct lm_bin *x = &lm.bins[i][k];
			if (!x->calls)
				continue;
			long long lo = k == 0 ? 0 : 64LL << k, hi = k == LM_NBIN - 1 ? -1 : 128LL << k;
			bprintf(&b, "%d,%s,%lld,%lld,%llu,%.9g\n", lm.wrank, lm_fn_names[i], lo, hi,
				(unsigned long long)x->calls, (double)x->ticks * tk);
		}
	return sink(&b, "sizes.csv", "rank,function,bin_low,bin_high,calls,time_s\n");
}

/* write_pairs writes sent.csv, received.csv and (with
 * --collectives-in-matrix) collective.csv: one row per peer. */
static int write_pairs(double tk, lm_sink sink)
{
	struct lm_buf b = {0};
	for (int i = 0; i < lm.sendto.cap; i++) {
		struct lm_pair *p = &lm.sendto.t[i];
		if (p->key >= 0)
			bprintf(&b, "%d,%d,%lld,%lld,%.9g\n", lm.wrank, p->key, (long long)p->bytes, (long long)p->msgs,
				(double)p->ticks * tk);
	}
	int err = sink(&b, "sent.csv", "src,dst,bytes,messages,time_s\n");
	for (int i = 0; i < lm.recvfrom.cap; i++) {
		struct lm_pair *p = &lm.recvfrom.t[i];
		if (p->key >= 0)
			bprintf(&b, "%d,%d,%lld,%lld,%.9g,%.9g\n", p->key, lm.wrank, (long long)p->bytes, (long long)p->msgs,
				(double)p->ticks * tk, (double)p->late * tk);
	}
	err |= sink(&b, "received.csv", "src,dst,bytes,messages,time_s,late_s\n");
	if (lm.collmat) {
		for (int i = 0; i < lm.collto.cap; i++) {
			struct lm_pair *p = &lm.collto.t[i];
			if (p->key >= 0)
				bprintf(&b, "%d,%d,%lld,%lld\n", lm.wrank, p->key, (long long)p->bytes, (long long)p->msgs);
		}
		err |= sink(&b, "collective.csv", "src,dst,bytes,messages\n");
	}
	return err;
}

/* summary is what every rank met, reduced to rank 0 for library.json. */
struct summary {
	int seen[LM_NFN]; /* functions whose traffic is not measured */
	int warn;         /* LM_W_* */
	int thread_level;
	long long mismatch; /* --slt token mismatches */
	long long resynced; /* of which the receive got its own token back */
	double toklat_us;   /* --slt token latency */
	int err;            /* a file could not be written */
};

static void reduce_summary(int err, double tk, struct summary *all)
{
	struct summary mine = {.warn = lm.warn | (lm.cm_inter ? LM_W_COLL_INTER : 0) | (lm.cg_over ? LM_W_COMM_GROUPS : 0),
			       .thread_level = out.thread_level,
			       .toklat_us = (double)lm_token_latency() * tk * 1e6,
			       .err = err};
	lm_token_counts(&mine.mismatch, &mine.resynced);
	for (int i = 0; i < LM_NFN; i++)
		mine.seen[i] = lm.seen[i];
	memset(all, 0, sizeof(*all));
	PMPI_Reduce(mine.seen, all->seen, LM_NFN, MPI_INT, MPI_MAX, 0, out.priv);
	PMPI_Reduce(&mine.warn, &all->warn, 1, MPI_INT, MPI_BOR, 0, out.priv);
	PMPI_Reduce(&mine.thread_level, &all->thread_level, 1, MPI_INT, MPI_MAX, 0, out.priv);
	PMPI_Reduce(&mine.mismatch, &all->mismatch, 1, MPI_LONG_LONG, MPI_SUM, 0, out.priv);
	PMPI_Reduce(&mine.resynced, &all->resynced, 1, MPI_LONG_LONG, MPI_SUM, 0, out.priv);
	PMPI_Reduce(&mine.toklat_us, &all->toklat_us, 1, MPI_DOUBLE, MPI_MAX, 0, out.priv);
	PMPI_Reduce(&mine.err, &all->err, 1, MPI_INT, MPI_MAX, 0, out.priv);
}

/* json_item writes one element of a JSON list of strings. */
static void json_item(FILE *f, int *first, const char *s)
{
	fprintf(f, "%s\n    ", *first ? "" : ",");
	*first = 0;
	json_str(f, s);
}

/* write_unmeasured writes library.json's "unmeasured": what was met that
 * cannot be measured exactly, on any rank. */
static void write_unmeasured(FILE *f, const struct summary *s)
{
	static const struct {
		int bit;
		const char *msg;
	} w[] = {
		{LM_W_THREAD_MULTIPLE, "--slt under MPI_THREAD_MULTIPLE: tokens of threads that share a peer, communicator and tag "
				       "can be paired with another thread's message; the counts and the matrix are exact, the send-late split is approximate"},
		{LM_W_NO_SHADOW, "--slt: point-to-point traffic on a communicator created by a function latmap does not wrap "
				 "(for example MPI_Comm_idup): its receives have no send-late split"},
		{LM_W_SENDRECV_REPLACE, "--slt: MPI_Sendrecv_replace time is not split into send-late and transfer"},
		{LM_W_UNTRANSLATABLE, "some peers could not be translated to MPI_COMM_WORLD ranks (dynamic processes); "
				      "their traffic is not in the matrix"},
		{LM_W_DISABLED_WINDOW, "--window names no wrapped collective; the whole run was profiled"},
		{LM_W_COLL_INTER, "--collectives-in-matrix: collectives on intercommunicators are not in the matrix"},
		{LM_W_SITES_THREADS, "--call-sites under MPI_THREAD_MULTIPLE: call sites are not recorded (threads' calls would mix)"},
		{LM_W_COMM_GROUPS, "more than 63 kinds of communicator were created: the later ones' traffic is in the communicator matrix \"other\""},
	};
	char m[256];
	int first = 1;
	fprintf(f, "  \"unmeasured\": [");
	for (int i = 0; i < LM_NFN; i++)
		if (s->seen[i]) {
			snprintf(m, sizeof m, "%s was called: it is timed, but its traffic is not in the byte counts or the matrix",
				 lm_fn_names[i]);
			json_item(f, &first, m);
		}
	for (size_t i = 0; i < sizeof w / sizeof w[0]; i++)
		if (s->warn & w[i].bit)
			json_item(f, &first, w[i].msg);
	if (s->mismatch) {
		snprintf(m, sizeof m, "--slt: %lld receives took the token of another message (%lld of them found their own, "
				      "kept by an earlier receive); the send-late split of the others is left out", s->mismatch, s->resynced);
		json_item(f, &first, m);
	}
	fprintf(f, "%s]\n", first ? "" : "\n  ");
}

/* write_library_json writes library.json (rank 0), last and atomically:
 * its presence says the raw profile is complete. */
static void write_library_json(const struct summary *s, double secs, double hz)
{
	char tmp[4096], path[4096];
	snprintf(tmp, sizeof tmp, "%s/.library.json.tmp", out.dir);
	snprintf(path, sizeof path, "%s/library.json", out.dir);
	FILE *f = fopen(tmp, "w");
	if (!f) {
		fprintf(stderr, "latmap: writing %s: %s\n", tmp, strerror(errno));
		return;
	}
	char ver[MPI_MAX_LIBRARY_VERSION_STRING];
	int vl = 0;
	PMPI_Get_library_version(ver, &vl);
	for (char *q = ver; *q; q++)
		if (*q == '\n')
			*q = ' ';
	fprintf(f, "{\n  \"mpi_version\": ");
	json_str(f, ver);
	fprintf(f, ",\n  \"ranks\": %d,\n  \"slt\": %s,\n  \"collective_wait\": %s,\n", lm.wsize,
		lm.slt ? "true" : "false", lm.collwait ? "true" : "false");
	fprintf(f, "  \"collectives_in_matrix\": %s,\n", lm.collmat ? "true" : "false");
	fprintf(f, "  \"window\": ");
	json_str(f, lm_window_spec());
	fprintf(f, ",\n  \"clock\": \"%s\",\n  \"tick_hz\": %.0f,\n  \"token_latency_us\": %.4f,\n",
		lm.use_tsc ? "tsc" : "monotonic", hz, s->toklat_us);
	fprintf(f, "  \"thread_level\": %d,\n  \"wall_s\": %.9f,\n  \"token_mismatches\": %lld,\n  \"token_resynced\": %lld,\n",
		s->thread_level, secs, s->mismatch, s->resynced);
	write_unmeasured(f, s);
	fprintf(f, "}\n");
	if (fclose(f) || rename(tmp, path))
		fprintf(stderr, "latmap: writing %s: %s\n", path, strerror(errno));
}

void lm_write_profile(void)
{
	double secs, hz;
	lm_clock_run(&secs, &hz);
	double tk = 1.0 / hz;
	int err = write_ranks(tk, gather_write);
	err |= write_functions(tk, gather_write);
	err |= write_sizes(tk, gather_write);
	err |= write_pairs(tk, gather_write);
	err |= lm_write_comms(tk, gather_write);
	if (lm.sites)
		err |= lm_write_sites(tk, gather_write);
	struct summary all;
	reduce_summary(err, tk, &all);
	if (lm.wrank == 0 && !all.err)
		write_library_json(&all, secs, hz);
}

/* Partial profiles. A job ended by its time limit or scancel never
 * reaches MPI_Finalize, where the gather writes the profile. So, with
 * LATMAP_FLUSH_SECONDS set, a timer thread (it only sleeps and raises a
 * flag: no MPI, no profile data) says every that many seconds that a
 * snapshot is due, and the next wrapped call on the application's thread
 * writes the rank's own rows (the same as the gather's) into
 * DIR/partial/RANK/, each file renamed into place whole, with
 * snapshot.json (when, and what library.json would say) last. latmap
 * profile turns the last ones into a profile marked partial when the run
 * does not end. It happens between two MPI calls, under LM_LOCK; a call
 * pays one load and branch. */
static struct {
	double every;   /* seconds between snapshots (0: none) */
	char dir[4096]; /* DIR/partial/RANK */
} snap;

static void *snapshot_timer(void *arg)
{
	(void)arg;
	struct timespec ts = {(time_t)snap.every, (long)((snap.every - (double)(time_t)snap.every) * 1e9)};
	for (;;) {
		struct timespec left = ts;
		while (nanosleep(&left, &left))
			;
		__atomic_store_n(&lm.flush_due, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

void lm_snapshot_setup(void)
{
	const char *s = getenv("LATMAP_FLUSH_SECONDS");
	snap.every = s ? atof(s) : 0;
	if (!(snap.every > 0))
		return;
	char partial[4000];
	snprintf(partial, sizeof partial, "%s/partial", out.dir);
	snprintf(snap.dir, sizeof snap.dir, "%s/%d", partial, lm.wrank);
	if ((mkdir(partial, 0755) && errno != EEXIST) || (mkdir(snap.dir, 0755) && errno != EEXIST)) {
		fprintf(stderr, "latmap: %s: %s; no partial profile if the run is ended early\n", snap.dir, strerror(errno));
		snap.every = 0;
		return;
	}
	/* The timer blocks every signal: the application's handlers run on
	 * its own threads, as without latmap. */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_t th;
	pthread_attr_t at;
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&th, &at, snapshot_timer, NULL)) {
		fprintf(stderr, "latmap: no snapshot timer (%s); no partial profile if the run is ended early\n", strerror(errno));
		snap.every = 0;
	}
	pthread_attr_destroy(&at);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* local_write writes b's rows after header into snap.dir/name, renamed
 * into place whole. Empties b. */
static int local_write(struct lm_buf *b, const char *name, const char *header)
{
	char path[4096 + 64], tmp[4096 + 80];
	snprintf(path, sizeof path, "%s/%s", snap.dir, name);
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	int err = !f || fputs(header, f) < 0 || (b->n && fwrite(b->p, 1, b->n, f) != b->n);
	if (f && fclose(f))
		err = 1;
	if (!err && rename(tmp, path))
		err = 1;
	buf_free(b);
	return err;
}

void lm_snapshot_poll(void)
{
	__atomic_store_n(&lm.flush_due, 0, __ATOMIC_RELAXED);
	if (!lm.enabled || !(snap.every > 0))
		return;
	double secs, hz;
	lm_clock_run(&secs, &hz);
	double tk = 1.0 / hz;
	LM_LOCK();
	int err = write_ranks(tk, local_write) | write_functions(tk, local_write) | write_sizes(tk, local_write) |
		  write_pairs(tk, local_write) | lm_write_comms(tk, local_write);
	if (lm.sites)
		err |= lm_write_sites(tk, local_write);
	LM_UNLOCK();
	struct lm_buf b = {0};
	bprintf(&b, "{\"at_s\": %.6f, \"ranks\": %d, \"rank\": %d, \"clock\": \"%s\", \"tick_hz\": %.0f, \"slt\": %s, \"collective_wait\": %s, \"collectives_in_matrix\": %s, \"thread_level\": %d}\n",
		secs, lm.wsize, lm.wrank, lm.use_tsc ? "tsc" : "monotonic", hz, lm.slt ? "true" : "false",
		lm.collwait ? "true" : "false", lm.collmat ? "true" : "false", out.thread_level);
	if (!err)
		err = local_write(&b, "snapshot.json", "");
	buf_free(&b);
	if (err) {
		fprintf(stderr, "latmap: rank %d: writing a partial profile into %s: %s; not trying again\n", lm.wrank, snap.dir, strerror(errno));
		snap.every = 0;
	}
}

/* write_apptime writes LATMAP_APPTIME's file on rank 0: the slowest and
 * the fastest rank's time from MPI_Init (after a barrier, as a profile's
 * elapsed time) to MPI_Finalize, and the number of ranks. */
static void write_apptime(void)
{
	double el = lm_clock_wall();
	double mx = 0, mn = 0;
	PMPI_Reduce(&el, &mx, 1, MPI_DOUBLE, MPI_MAX, 0, lm_world);
	PMPI_Reduce(&el, &mn, 1, MPI_DOUBLE, MPI_MIN, 0, lm_world);
	if (lm.wrank != 0)
		return;
	char tmp[4096];
	snprintf(tmp, sizeof tmp, "%s.tmp", out.apptime);
	FILE *f = fopen(tmp, "w");
	if (!f) {
		fprintf(stderr, "latmap: writing %s: %s\n", tmp, strerror(errno));
		return;
	}
	fprintf(f, "slowest_s,fastest_s,ranks\n%.9f,%.9f,%d\n", mx, mn, lm.wsize);
	if (fclose(f) || rename(tmp, out.apptime))
		fprintf(stderr, "latmap: writing %s: %s\n", out.apptime, strerror(errno));
}

void lm_write_apptime(void)
{
	if (!out.apptime)
		return;
	write_apptime();
	out.apptime = NULL;
}
