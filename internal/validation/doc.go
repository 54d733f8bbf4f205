// Command validation writes docs/validation.md: the figures latmap's
// tests assert (predictions against SimGrid SMPI's simulated clusters and
// the virtual cluster's runs, the solver against other tools), each table
// from the rows its test recorded with testutil.Record after checking
// them. It finds the tests that record (a test calling testutil.Record,
// or a helper of its package that does), runs them with
// LATMAP_VALIDATION_DIR set, and writes the page from what the passing
// ones recorded; -records DIR writes it from records already made.
//
//	go run ./internal/validation -o docs/validation.md   (make validation)
package main
