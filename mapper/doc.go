// Package mapper holds latmap's model of a machine and of what was measured
// on it, one package per concept:
//
//   - mapper/survey: a latency survey (meta.json, ranks.csv, pairs.csv,
//     fit.csv) and mmpi logs, read and written;
//   - mapper/profile: an application profile (meta.json, ranks.csv,
//     functions.csv, matrix.csv, sizes.csv), read and written;
//   - mapper/topo: the hierarchy (cores, sockets, nodes, switches) and the
//     scheduler's layout inferred from a survey's latencies;
//   - mapper/compare: two surveys' layouts side by side.
//
// Producers (bench, interpose) write through these packages; consumers
// (plots, plots/report, placement) read through them. Nothing under mapper
// imports a producer or a consumer; see docs/architecture.md.
package mapper
