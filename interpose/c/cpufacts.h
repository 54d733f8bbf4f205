/*
 * cpufacts.h: where a cpu sits (socket, NUMA node, L3 cache), read from a
 * sysfs tree by the rules of Go's internal/sysfs (FS.CPUPlace), so that a
 * survey's and a profile's ranks.csv agree about the same cpu. No MPI here:
 * interpose/cpufacts_test.go compiles it with a small driver and compares
 * it with internal/sysfs on every captured tree in testdata/sys.
 */
#ifndef LATMAP_CPUFACTS_H
#define LATMAP_CPUFACTS_H

/* lm_cpu_facts fills socket, numa and l3 of cpu under the sysfs tree at
 * root ("/sys" on a real system); unknown facts are -1:
 *   socket: devices/system/cpu/cpuN/topology/physical_package_id
 *   numa:   the K of the first devices/system/node/nodeK (in name order)
 *           whose cpulist holds cpu
 *   l3:     the first devices/system/cpu/cpuN/cache/index* (in name order)
 *           of level 3: its id, or when it has none the lowest cpu of its
 *           shared_cpu_list */
void lm_cpu_facts(const char *root, int cpu, int *socket, int *numa, int *l3);

#endif
