// Package export writes a profile directory in the formats other analysis
// tools read: pprof's profile.proto (go tool pprof, Perfetto, speedscope)
// and Hatchet's literal call tree (LLNL's Hatchet and Thicket). Both carry
// the profile's MPI time per call path: the call sites of a profile taken
// with --call-sites, else one path per MPI function.
package export
