/* remapcheck.c: what a program sees of MPI_COMM_WORLD, for latmap profile
 * --remap's checks. Every rank checks that the world's calls agree on its
 * rank: MPI_Comm_rank, its group, a duplicate (congruent), a ring of
 * MPI_Sendrecv (MPI_SOURCE), a one-sided window over the world (each
 * rank puts its rank into the next one's), an MPI-IO file opened on the
 * world (each rank writes its rank at its own offset), the predefined
 * attribute MPI_TAG_UB and the world's name. Rank 0 prints "where R CPU"
 * for each rank (the cpu it runs on), "fail WHAT" for each failed check
 * and "checksum S" (the sum over ranks of rank x (rank + 1), whatever the
 * numbering).
 * Usage: remapcheck FILE (a path every rank can write) */
#define _GNU_SOURCE
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

static int fails;

static void check(int ok, const char *what, int rank)
{
	if (!ok) {
		printf("fail %s (rank %d)\n", what, rank);
		fails++;
	}
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int r, n, g, cmp, flag, len, *tagub;
	char name[MPI_MAX_OBJECT_NAME];
	MPI_Comm_rank(MPI_COMM_WORLD, &r);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	MPI_Group grp;
	MPI_Comm_group(MPI_COMM_WORLD, &grp);
	MPI_Group_rank(grp, &g);
	check(g == r, "group rank", r);
	MPI_Comm dup;
	MPI_Comm_dup(MPI_COMM_WORLD, &dup);
	MPI_Comm_rank(dup, &g);
	MPI_Comm_compare(MPI_COMM_WORLD, dup, &cmp);
	check(g == r && cmp == MPI_CONGRUENT, "duplicate", r);
	int next = (r + 1) % n, prev = (r + n - 1) % n, got = -1;
	MPI_Status st;
	MPI_Sendrecv(&r, 1, MPI_INT, next, 7, &got, 1, MPI_INT, prev, 7, MPI_COMM_WORLD, &st);
	check(got == prev && st.MPI_SOURCE == prev, "sendrecv ring", r);
	int cell = -1;
	MPI_Win win;
	MPI_Win_create(&cell, sizeof cell, sizeof cell, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
	MPI_Win_fence(0, win);
	MPI_Put(&r, 1, MPI_INT, next, 0, 1, MPI_INT, win);
	MPI_Win_fence(0, win);
	MPI_Win_free(&win);
	check(cell == prev, "one-sided put", r);
	if (argc > 1) {
		MPI_File fh;
		MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
		MPI_File_write_at_all(fh, (MPI_Offset)r * (MPI_Offset)sizeof r, &r, 1, MPI_INT, MPI_STATUS_IGNORE);
		MPI_File_sync(fh);
		MPI_Barrier(MPI_COMM_WORLD);
		int at = -1;
		MPI_File_read_at(fh, (MPI_Offset)prev * (MPI_Offset)sizeof r, &at, 1, MPI_INT, MPI_STATUS_IGNORE);
		MPI_File_get_group(fh, &grp);
		MPI_Group_rank(grp, &g);
		MPI_File_close(&fh);
		check(at == prev && g == r, "MPI-IO file", r);
	}
	MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tagub, &flag);
	check(flag && *tagub >= 32767, "MPI_TAG_UB", r);
	MPI_Comm_get_name(MPI_COMM_WORLD, name, &len);
	check(!strcmp(name, "MPI_COMM_WORLD"), "the world's name", r);
	int cpu = sched_getcpu(), where[2] = {r, cpu}, all[2 * 1024];
	MPI_Gather(where, 2, MPI_INT, all, 2, MPI_INT, 0, MPI_COMM_WORLD);
	long mine = (long)r * (r + 1), sum = 0;
	MPI_Reduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
	int bad = 0;
	MPI_Reduce(&fails, &bad, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
	if (r == 0) {
		for (int i = 0; i < n && i < 1024; i++)
			printf("where %d %d\n", all[2 * i], all[2 * i + 1]);
		printf("failed %d\nchecksum %ld\n", bad, sum);
	}
	MPI_Comm_free(&dup);
	MPI_Finalize();
	return 0;
}
