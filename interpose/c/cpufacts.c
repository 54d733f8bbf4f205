/*
 * cpufacts.c: lm_cpu_facts, the /sys rules of internal/sysfs in C (see
 * cpufacts.h).
 */
#define _GNU_SOURCE
#include "cpufacts.h"

#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* read_file reads up to n-1 bytes of path into b; 0 when it is missing. */
static int read_file(const char *path, char *b, size_t n)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	size_t k = fread(b, 1, n - 1, f);
	b[k] = 0;
	fclose(f);
	return 1;
}

/* read_int reads a file holding one integer; -1 when missing or unparsable. */
static int read_int(const char *path)
{
	char b[64], *end;
	if (!read_file(path, b, sizeof b))
		return -1;
	long v = strtol(b, &end, 10);
	if (end == b)
		return -1;
	return (int)v;
}

/* cpulist_scan reads a cpu list file ("0-3,8"): whether it holds cpu, and
 * its lowest cpu (-1 when empty or missing). */
static int cpulist_scan(const char *path, int cpu, int *lowest)
{
	static char b[1 << 16];
	*lowest = -1;
	if (!read_file(path, b, sizeof b))
		return 0;
	int has = 0;
	for (char *p = b; *p;) {
		char *end;
		long lo = strtol(p, &end, 10), hi;
		if (end == p)
			break;
		hi = lo;
		p = end;
		if (*p == '-') {
			hi = strtol(p + 1, &end, 10);
			p = end;
		}
		if (*lowest < 0 || lo < *lowest)
			*lowest = (int)lo;
		if (cpu >= lo && cpu <= hi)
			has = 1;
		while (*p == ',' || *p == '\n' || *p == ' ')
			p++;
	}
	return has;
}

static int numa_of(const char *root, int cpu)
{
	char pat[4096];
	snprintf(pat, sizeof pat, "%s/devices/system/node/node[0-9]*", root);
	glob_t gl;
	int numa = -1;
	if (glob(pat, 0, NULL, &gl))
		return -1;
	for (size_t i = 0; i < gl.gl_pathc && numa < 0; i++) {
		const char *name = strrchr(gl.gl_pathv[i], '/') + 1 + 4;
		char *end;
		long id = strtol(name, &end, 10);
		if (*end) /* not nodeK */
			continue;
		char p[4200];
		int low;
		snprintf(p, sizeof p, "%s/cpulist", gl.gl_pathv[i]);
		if (cpulist_scan(p, cpu, &low))
			numa = (int)id;
	}
	globfree(&gl);
	return numa;
}

static int l3_of(const char *cpudir)
{
	char pat[4200];
	snprintf(pat, sizeof pat, "%s/cache/index[0-9]*", cpudir);
	glob_t gl;
	int l3 = -1;
	if (glob(pat, 0, NULL, &gl))
		return -1;
	for (size_t i = 0; i < gl.gl_pathc; i++) {
		char p[4300];
		snprintf(p, sizeof p, "%s/level", gl.gl_pathv[i]);
		if (read_int(p) != 3)
			continue;
		snprintf(p, sizeof p, "%s/id", gl.gl_pathv[i]);
		l3 = read_int(p);
		if (l3 < 0) {
			snprintf(p, sizeof p, "%s/shared_cpu_list", gl.gl_pathv[i]);
			cpulist_scan(p, -1, &l3);
		}
		break;
	}
	globfree(&gl);
	return l3;
}

void lm_cpu_facts(const char *root, int cpu, int *socket, int *numa, int *l3)
{
	*socket = *numa = *l3 = -1;
	if (cpu < 0)
		return;
	char dir[4096], p[4200];
	snprintf(dir, sizeof dir, "%s/devices/system/cpu/cpu%d", root, cpu);
	snprintf(p, sizeof p, "%s/topology/physical_package_id", dir);
	*socket = read_int(p);
	*numa = numa_of(root, cpu);
	*l3 = l3_of(dir);
}
