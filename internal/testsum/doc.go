// Command testsum reads `go test -json` on standard input and prints what
// a person wants from a long test run: each package's usual result line as
// it finishes, the whole output of every failed test, every skipped test
// with its reason, the ten slowest tests and a closing line "N passed, N
// failed, N skipped". It exits 1 when a test or a package failed, so
// `make test` fails with it.
//
//	go test -json ./... | go run ./internal/testsum
package main
