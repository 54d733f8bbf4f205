// Package survey is the model of a latency survey: where each MPI rank ran
// (Rank: host, cpu, socket, NUMA node, L3), the round trip of every pair
// and message size (PairTable, packed triangles of float32), the one-way
// fits, and meta.json. It reads and writes survey directories (meta.json,
// ranks.csv, pairs.csv, fit.csv) and reads mmpi logs into the same model.
//
// The survey producer (bench) writes through it; topology inference, plots,
// placement and reports read through it.
package survey
