/*
 * sites.c: call sites (latmap profile --call-sites[=DEPTH]).
 *
 * Each wrapper notes its caller's return address when it starts
 * (LM_SITE_ENTER) and, when it ends (LM_SITE_EXIT), adds what the call
 * added to its function's counters (calls, ticks, late, sync, bytes) to the
 * entry of its call site: the chain of DEPTH return addresses above the
 * MPI call, latmap's own frames (the Fortran bindings) left out. Depth 1
 * from C reads one return address (__builtin_return_address); deeper
 * chains, and calls through latmap's Fortran bindings, walk the stack
 * with backtrace(3). Nothing is symbolized here: at MPI_Finalize each
 * address is written as the object it lies in and its offset in that file
 * (from /proc/self/maps), which latmap symbolizes after the run.
 *
 * Under MPI_THREAD_MULTIPLE call sites are not recorded (the counters'
 * differences would mix threads); library.json says so.
 */
#define _GNU_SOURCE
#include <execinfo.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sites.h"
#include "commtab.h"
#include "comms.h"
#include "util.h"

/* A call site's entry: allocated once, never moved (a wrapper holds it
 * from its start to its end). */
struct lm_site {
	int id, depth;
	int grp; /* the call's communicator's group (comms.c), -1 lm_world, -2 none */
	void *pc[LM_SITE_MAXDEPTH];
	struct lm_fnstat st;
};

static struct {
	struct lm_site **t; /* open addressing; NULL: empty slot */
	int cap, n;
	struct lm_site *last[LM_NFN]; /* per function, its last depth-1 site */
	uintptr_t self_lo, self_hi; /* latmap's own text */
} S;

static int find_self(struct dl_phdr_info *info, size_t size, void *data)
{
	uintptr_t me = (uintptr_t)data;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
		if (me >= lo && me < hi) {
			/* All of the object's loads: its text may be split. */
			uintptr_t a = UINTPTR_MAX, b = 0;
			for (int j = 0; j < info->dlpi_phnum; j++) {
				const ElfW(Phdr) *q = &info->dlpi_phdr[j];
				if (q->p_type != PT_LOAD)
					continue;
				uintptr_t l = info->dlpi_addr + q->p_vaddr;
				if (l < a)
					a = l;
				if (l + q->p_memsz > b)
					b = l + q->p_memsz;
			}
			S.self_lo = a;
			S.self_hi = b;
			return 1;
		}
	}
	return 0;
}

void lm_sites_setup(void)
{
	dl_iterate_phdr(find_self, (void *)(uintptr_t)lm_sites_setup);
	/* backtrace loads its unwinder on first use: not inside a timed call. */
	void *pcs[4];
	backtrace(pcs, 4);
	S.cap = 256;
	S.t = calloc((size_t)S.cap, sizeof *S.t);
	if (!S.t)
		abort();
}

static inline int in_self(void *pc)
{
	return (uintptr_t)pc >= S.self_lo && (uintptr_t)pc < S.self_hi;
}

static uint64_t site_hash(int id, int grp, void *const *pc, int depth)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ (uint64_t)id ^ ((uint64_t)(uint32_t)grp << 32);
	for (int i = 0; i < depth; i++) {
		h ^= (uint64_t)(uintptr_t)pc[i];
		h *= 0xff51afd7ed558ccdull;
		h ^= h >> 33;
	}
	return h;
}

/* site_slot is the slot of the key (id, grp, pc[0..depth)) in t: its entry's,
 * or the empty slot where it goes. */
static struct lm_site **site_slot(struct lm_site **t, int cap, int id, int grp, void *const *pc, int depth)
{
	uint64_t h = site_hash(id, grp, pc, depth);
	for (int i = (int)(h & (uint64_t)(cap - 1));; i = (i + 1) & (cap - 1)) {
		struct lm_site *s = t[i];
		if (!s || (s->id == id && s->grp == grp && s->depth == depth && !memcmp(s->pc, pc, sizeof(void *) * (size_t)depth)))
			return &t[i];
	}
}

static void grow(void)
{
	int cap = S.cap * 2;
	struct lm_site **t = calloc((size_t)cap, sizeof *t);
	if (!t)
		abort();
	for (int i = 0; i < S.cap; i++)
		if (S.t[i])
			*site_slot(t, cap, S.t[i]->id, S.t[i]->grp, S.t[i]->pc, S.t[i]->depth) = S.t[i];
	free(S.t);
	S.t = t;
	S.cap = cap;
}

void lm_site_enter(struct lm_snap *sn, int id, void *ra, MPI_Comm comm)
{
	if (!lm.on || lm.mt)
		return;
	int grp = comm == MPI_COMM_NULL ? -2 : comm == lm_world ? -1 : lm_comm_get(comm)->grp;
	/* Through latmap's forwarder of an MPICH use mpi_f08 call with a
	   buffer, ra is in MPICH's MPIR_*_cdesc; the forwarder left its own
	   return address, the Fortran program's call. */
	void *f08 = lm.f08_caller;
	if (f08)
		ra = f08;
	int direct = lm.sites == 1 && !in_self(ra);
	/* The common case, a loop calling from one place: the last site of
	   this function. */
	struct lm_site *l = S.last[id];
	if (direct && l && l->pc[0] == ra && l->grp == grp) {
		sn->id = id;
		sn->site = l;
		sn->before = lm.fn[id];
		return;
	}
	void *pc[LM_SITE_MAXDEPTH] = {0};
	int depth = 0;
	if (direct) {
		pc[depth++] = ra;
	} else {
		/* Frames: this function, the wrapper, latmap's Fortran binding
		   if any, then the caller's. */
		void *bt[LM_SITE_MAXDEPTH + 8];
		int n = backtrace(bt, LM_SITE_MAXDEPTH + 8), k = 0;
		while (k < n && in_self(bt[k]))
			k++;
		if (f08) { /* MPICH's frames and the forwarder's come first */
			int j = k;
			while (j < n && bt[j] != f08)
				j++;
			if (j < n)
				k = j;
		}
		for (; k < n && depth < lm.sites; k++)
			pc[depth++] = bt[k];
	}
	struct lm_site **slot = site_slot(S.t, S.cap, id, grp, pc, depth);
	if (!*slot) {
		if (2 * (S.n + 1) > S.cap) {
			grow();
			slot = site_slot(S.t, S.cap, id, grp, pc, depth);
		}
		struct lm_site *s = calloc(1, sizeof *s);
		if (!s)
			abort();
		s->id = id;
		s->grp = grp;
		s->depth = depth;
		memcpy(s->pc, pc, sizeof(void *) * (size_t)depth);
		*slot = s;
		S.n++;
	}
	if (depth == 1)
		S.last[id] = *slot;
	sn->id = id;
	sn->site = *slot;
	sn->before = lm.fn[id];
}

void lm_site_exit(struct lm_snap *sn)
{
	struct lm_fnstat *a = &lm.fn[sn->id], *b = &sn->before;
	struct lm_site *s = sn->site;
	s->st.calls += a->calls - b->calls;
	s->st.ticks += a->ticks - b->ticks;
	s->st.late += a->late - b->late;
	s->st.sync += a->sync - b->sync;
	s->st.bsent += a->bsent - b->bsent;
	s->st.brecv += a->brecv - b->brecv;
	s->st.rsent += a->rsent - b->rsent;
	s->st.rrecv += a->rrecv - b->rrecv;
}

/* A mapping of /proc/self/maps: where a file is mapped and from which
 * offset. */
struct lm_map {
	uintptr_t lo, hi, off;
	char path[512];
};

static int read_maps(struct lm_map **out)
{
	FILE *f = fopen("/proc/self/maps", "r");
	if (!f)
		return 0;
	int n = 0, cap = 64;
	struct lm_map *m = malloc(sizeof *m * (size_t)cap);
	char line[1024];
	while (m && fgets(line, sizeof line, f)) {
		unsigned long lo, hi, off;
		char perm[8], path[512] = "";
		if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %511[^\n]", &lo, &hi, perm, &off, path) < 4 || perm[2] != 'x')
			continue;
		if (n == cap) {
			cap *= 2;
			m = realloc(m, sizeof *m * (size_t)cap);
			if (!m)
				break;
		}
		m[n].lo = lo;
		m[n].hi = hi;
		m[n].off = off;
		snprintf(m[n].path, sizeof m[n].path, "%s", path);
		n++;
	}
	fclose(f);
	*out = m;
	return m ? n : 0;
}

/* frame writes one return address as object+0xfileoffset (a quoted CSV
 * field part; commas and quotes in paths are left out). */
static void frame(struct lm_buf *b, struct lm_map *m, int n, void *pc)
{
	uintptr_t a = (uintptr_t)pc;
	for (int i = 0; i < n; i++)
		if (a >= m[i].lo && a < m[i].hi && m[i].path[0] == '/') {
			char p[512];
			int k = 0;
			for (const char *s = m[i].path; *s && k < (int)sizeof p - 1; s++)
				if (*s != ',' && *s != '"' && *s != ';')
					p[k++] = *s;
			p[k] = 0;
			bprintf(b, "%s+0x%lx", p, (unsigned long)(a - m[i].lo + m[i].off));
			return;
		}
	bprintf(b, "?+0x%lx", (unsigned long)a);
}

int lm_write_sites(double tk, lm_sink gather)
{
	struct lm_buf b = {0};
	struct lm_map *m = NULL;
	int nm = S.n ? read_maps(&m) : 0;
	for (int i = 0; i < S.cap && S.t; i++) {
		struct lm_site *s = S.t[i];
		if (!s || !s->st.calls)
			continue;
		bprintf(&b, "%d,%s,%s,\"", lm.wrank, lm_fn_names[s->id], lm_cgroup_key(s->grp));
		for (int k = 0; k < s->depth; k++) {
			if (k)
				bprintf(&b, ";");
			frame(&b, m, nm, s->pc[k]);
		}
		bprintf(&b, "\",%llu,%.9g,%.9g,%.9g,%lld,%lld\n", (unsigned long long)s->st.calls, (double)s->st.ticks * tk,
			(double)s->st.late * tk, (double)s->st.sync * tk, (long long)s->st.bsent, (long long)s->st.brecv);
	}
	free(m);
	return gather(&b, "callsites.csv", "rank,function,comm,stack,calls,time_s,late_s,sync_s,bytes_sent,bytes_recv\n");
}
