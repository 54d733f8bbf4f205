// Package profile is the model of an MPI application profile as the
// interposer (liblatmap.so) measures it: per-rank computation and MPI time
// (ranks.csv), per-rank and per-function calls, time, send-late and
// collective wait (functions.csv), the rank x rank transfer matrix
// (matrix.csv) and the message-size histogram (sizes.csv), plus meta.json.
//
// interpose writes profile directories through it; placement and the
// reports read them through it. FunctionKind, from a table generated from
// the interposer's prototype table, says which MPI functions are measured.
package profile
