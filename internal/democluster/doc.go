// Command democluster runs latmap's whole flow where placement matters: on
// a virtual cluster of 2 nodes x 2 slots (network namespaces, needs root)
// whose links are shaped to 400 Mbit/s. It surveys the cluster, profiles
// pairs of ranks computing 12 ms, then exchanging 1 MiB messages, 40 times,
// started in a poor layout (--map-by node splits every pair over the
// link), asks latmap place for advice, measures it with latmap verify
// (the application's run, MPI_Init to MPI_Finalize, as place predicts
// it), and writes the HTML report. The computation makes the gain a few x
// rather than a hundred, so that both speedups are measured well.
// make demo-cluster runs it after make build:
//
//	go run ./internal/democluster -o demo-cluster
package main
