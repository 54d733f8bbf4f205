// Command latmap measures the latency between every pair of MPI ranks,
// profiles how an MPI application communicates, and proposes a better
// rank placement: one file per subcommand (survey, import, plot, topo,
// compare, profile, report, export, place, verify, gen-man), each turning
// its flags into options and one call of the library, and the help
// topics that hold the longer explanations (topics.go, glossary.go). Run
// "latmap --help" for the commands and "latmap help glossary" for the
// words.
package main
