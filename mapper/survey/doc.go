// Package mapper is latmap's model of a machine and of what was measured on
// it: where each MPI rank ran (host, cpu, socket, NUMA node, L3 cache, read
// from /sys), the survey directory (meta.json, ranks.csv, pairs.csv, fit.csv)
// and its in-memory form, and what can be inferred from it (topology levels,
// the scheduler's layout).
//
// Producers (bench, interpose) write survey and profile directories; mapper
// reads them into one model; consumers (plots, placement, compare) use that
// model. mapper never imports a producer or a consumer.
package survey
