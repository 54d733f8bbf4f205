// Package synth makes surveys of made-up machines whose hierarchy is known
// (nodes of sockets of cores, switches, block or cyclic layouts, lognormal
// noise with a fixed seed), for tests and benchmarks.
package synth
